"""The window's keyboard: Space (and Enter on Talk) is push-to-talk anywhere but a text field,
Enter presses the focused button, Ctrl+F searches the library, Esc stops reading aloud, clears the
search, closes a replay or dismisses the banner; and the Tab order, in the order the window is read."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

ENTER_KEYS = (Qt.Key_Return, Qt.Key_Enter)


def takes_typing(widget: QWidget) -> bool:
    """Whether Space typed into ``widget`` is text (a field), not push-to-talk."""
    return isinstance(widget, (QLineEdit, QTextEdit, QPlainTextEdit, QAbstractSpinBox)) or (
        isinstance(widget, QComboBox) and widget.isEditable())


def chain_tab_order(chain: list[QWidget]) -> None:
    for before, after in zip(chain, chain[1:]):
        QWidget.setTabOrder(before, after)


class WindowKeys(QObject):
    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        QShortcut(QKeySequence.Find, window, self.focus_search)
        QShortcut(QKeySequence(Qt.Key_Escape), window, self.escape)
        window.installEventFilter(self)
        QApplication.instance().focusChanged.connect(self._watch_focus)

    def focus_search(self) -> None:
        self.window.set_library_visible(True)
        self.window.menus.library_action.setChecked(True)
        search = self.window.library_panel.search
        search.setFocus(Qt.ShortcutFocusReason)
        search.selectAll()

    def escape(self) -> None:
        """Esc: stop reading a turn aloud; in the library's search with a query, clear it (every row
        back); else close a replay (the live conversation back), else dismiss the banner."""
        search, panel = self.window.library_panel.search, self.window.conversation_panel
        if self.window.read_aloud.busy:
            self.window.read_aloud.stop()
        elif search.hasFocus() and search.text():
            search.clear()
        elif panel.replaying:
            panel.close_replay()
        else:
            self.window.dismiss_banner()

    def _watch_focus(self, _old: QWidget | None, new: QWidget | None) -> None:
        """A key goes to the focused widget (to the window when none has focus), so the
        push-to-talk filter watches each widget of this window that takes focus. A filter on the
        whole application ran Python for every event of every widget: ~60 per frame on the GUI
        thread, which the engine's worker shares the cores and the interpreter with."""
        if new is not None and new.window() is self.window:
            new.installEventFilter(self)  # once: installing it again only moves it to the front

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        """Space anywhere in this window is push-to-talk, except in a text field (the library's
        search). It is taken here, so a focused button or box is not also clicked: Enter presses
        the focused button or ticks the focused box instead (Qt gives a window's buttons no key
        of their own besides Space), and on the Talk button it is held as Space is."""
        if event.type() not in (QEvent.KeyPress, QEvent.KeyRelease) or not isinstance(obj, QWidget) \
                or obj.window() is not self.window:
            return super().eventFilter(obj, event)
        talk_key = event.key() == Qt.Key_Space or (event.key() in ENTER_KEYS
                                                   and obj is self.window.conversation_panel.talk_button)
        if talk_key and not takes_typing(obj):
            if not event.isAutoRepeat():
                if event.type() == QEvent.KeyPress:
                    self.window.press_talk("key")
                else:
                    self.window.release_talk("key")
            return True
        if event.key() in ENTER_KEYS and isinstance(obj, QAbstractButton) and obj.isEnabled() \
                and event.modifiers() in (Qt.NoModifier, Qt.KeypadModifier):
            if event.type() == QEvent.KeyPress and not event.isAutoRepeat():
                obj.animateClick()
            return True
        return super().eventFilter(obj, event)
