"""The tray icon and its menu: renders ``TrayModel`` and drives the window.

Where the desktop has no tray (``QSystemTrayIcon.isSystemTrayAvailable()`` is false: some Wayland
compositors, GNOME without an AppIndicator extension, Qt's offscreen platform) no icon is shown and
closing the window quits as before; the menu and its actions still exist (tests drive them).
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject, QRectF, Qt
from PySide6.QtGui import QAction, QColor, QFont, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QMenu, QMessageBox, QSystemTrayIcon

from app.widgets.colours import scheme_for, status_colour
from app.widgets.plain_text import as_written
from app.window.tray_state import CLOSE_QUITS, CLOSE_TO_TRAY, TrayModel, TrayState, close_hides

ICON_SIZE = 64
# The first close's answers (translated where shown).
KEEP_TEXT = QT_TRANSLATE_NOOP("Tray", "Keep running in the tray")
QUIT_TEXT = QT_TRANSLATE_NOOP("Tray", "Quit")
NOTICE_MS = 10_000
# A mark on each disc, so the states differ by shape as well as by colour.
STATE_MARKS = {TrayState.IDLE: "", TrayState.LISTENING: "●", TrayState.SPEAKING: "♪",
               TrayState.WAITING: "…", TrayState.TOO_SLOW: "!"}


def state_colour(scheme, state: TrayState) -> str:
    """The status pill's colours; "waiting" takes the "thinking" one, "too slow" the error colour."""
    if state is TrayState.TOO_SLOW:
        return scheme.error
    return status_colour(scheme, "thinking" if state is TrayState.WAITING else state.value)


def state_icon(scheme, state: TrayState) -> QIcon:
    pixmap = QPixmap(ICON_SIZE, ICON_SIZE)
    pixmap.fill(Qt.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.Antialiasing)
    painter.setPen(Qt.NoPen)
    painter.setBrush(QColor(state_colour(scheme, state)))
    painter.drawEllipse(QRectF(2, 2, ICON_SIZE - 4, ICON_SIZE - 4))
    painter.setPen(QColor(scheme.pill_text))
    font = QFont()
    font.setPixelSize(ICON_SIZE // 2)
    font.setBold(True)
    painter.setFont(font)
    painter.drawText(QRectF(0, 0, ICON_SIZE, ICON_SIZE), Qt.AlignCenter, STATE_MARKS[state])
    painter.end()
    return QIcon(pixmap)


class Tray(QObject):
    """The menu (Talk, Open mic, Pause, End conversation, Show window, Quit), the icon where there is a tray, the
    "keep running in the tray" setting, and the question the first close asks."""

    def __init__(self, window, model: TrayModel) -> None:
        super().__init__(window)
        self.window = window
        self.model = model
        self.available = QSystemTrayIcon.isSystemTrayAvailable()
        self.quitting = False  # Quit was chosen: closing the window quits, whatever the setting
        self.icons = {state: state_icon(scheme_for(window.palette()), state) for state in TrayState}
        self.menu = QMenu(window)
        self.talk_action = self._add(self.tr("&Talk"), self.model.set_talking, checkable=True)
        self.talk_action.setToolTip(self.tr("The model hears you until you choose Talk again."))
        self.open_mic_action = self._add(self.tr("&Open mic (hands-free)"), window.set_open_mic, checkable=True)
        self.pause_action = self._add(self.tr("&Pause"), self.model.set_paused, checkable=True)
        self.pause_action.setToolTip(self.tr("Stop the frames (the conversation is kept); choose again to go on."))
        self.end_action = self._add(self.tr("&End conversation"), window.files.end_conversation)
        self.menu.addSeparator()
        self.show_action = self._add(self.tr("&Show window"), self.show_window)
        self.quit_action = self._add(self.tr("&Quit"), self.quit)
        self.keep_action = QAction(self.tr("&Keep running in the tray when the window is closed"), window)
        self.keep_action.setCheckable(True)
        self.keep_action.setEnabled(self.available)
        self.keep_action.setToolTip(self.tr("Closing the window leaves Parley in the tray.") if self.available
                                    else self.tr("This desktop has no tray."))
        self._render_keep()
        self.keep_action.triggered.connect(self._keep_chosen)  # the person's choice only
        window.model.preferences.changed.connect(lambda _settings: self._render_keep())
        self.icon = QSystemTrayIcon(self)
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._activated)
        model.changed.connect(self.render)
        self.render()
        if self.available:
            self.icon.show()

    def _add(self, text: str, slot, checkable: bool = False) -> QAction:
        action = QAction(text, self.menu)
        action.setCheckable(checkable)
        action.triggered.connect(slot)
        self.menu.addAction(action)
        return action

    def render(self) -> None:
        self.icon.setIcon(self.icons[self.model.state])
        self.icon.setToolTip(as_written(self.model.tip))
        self.talk_action.setChecked(self.model.talking)
        self.open_mic_action.setChecked(self.model.open_mic)
        self.pause_action.setChecked(self.model.paused)
        self.end_action.setEnabled(self.model.can_end)

    def notify(self, title: str, text: str) -> None:
        """A desktop notification from the icon (``Notices``); nothing where there is no tray."""
        if self.available:
            self.icon.showMessage(title, text, QSystemTrayIcon.Information, NOTICE_MS)

    def _render_keep(self) -> None:
        self.keep_action.setChecked(self.window.model.preferences.settings.close_to_tray == CLOSE_TO_TRAY)

    def _keep_chosen(self, on: bool) -> None:
        self.window.model.preferences.update(close_to_tray=CLOSE_TO_TRAY if on else CLOSE_QUITS)

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason == QSystemTrayIcon.Trigger:
            self.show_window()

    def show_window(self) -> None:
        self.window.showNormal()
        self.window.raise_()
        self.window.activateWindow()

    def quit(self) -> None:
        """Close the window for good (its save question still comes first), then leave."""
        self.quitting = True
        if self.window.close():
            QApplication.quit()
        else:
            self.quitting = False  # the person cancelled: a later close follows the setting again

    def hides_on_close(self) -> bool:
        """Whether this close only hides the window; asks the first time, and remembers."""
        if self.quitting:
            return False
        hides = close_hides(self.window.model.preferences.settings.close_to_tray, self.available)
        if hides is None:
            hides = self.asks_to_keep_running()
            self.window.model.preferences.update(close_to_tray=CLOSE_TO_TRAY if hides else CLOSE_QUITS)
        return hides

    def asks_to_keep_running(self) -> bool:
        """The first close's question (a box without an escape button: one of the two is chosen)."""
        box = QMessageBox(QMessageBox.Question, self.tr("Close Parley"),
                          self.tr("Keep Parley running in the tray when its window is closed? "
                                  "You can change this in View → Keep running in the tray."), parent=self.window)
        keep = box.addButton(self.tr(KEEP_TEXT), QMessageBox.AcceptRole)
        box.addButton(self.tr(QUIT_TEXT), QMessageBox.DestructiveRole)
        box.setDefaultButton(keep)
        box.exec()
        return box.clickedButton() is keep
