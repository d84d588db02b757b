"""Read aloud in the window: a turn's menu (a right click, the menu key on the chosen turn) reads it
with the chosen Pocket TTS voice, and so does Ctrl+R on the chosen turn; a strip under the turns
says what is read and holds Stop (Esc stops too). It renders ``app.conversation.read_aloud``."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QContextMenuEvent, QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QMenu, QPushButton, QWidget

from app.conversation.read_aloud import ReadAloud
from app.conversation.turn_list import TurnRole
from app.widgets.plain_text import PlainLabel, as_written

READ_KEY = QKeySequence("Ctrl+R")


class ReadAloudControls(QObject):
    def __init__(self, window, read_aloud: ReadAloud) -> None:
        super().__init__(window)
        self.window, self.read_aloud = window, read_aloud
        panel = window.conversation_panel
        self.view = view = panel.view
        self.read_action = QAction(self.tr("Read aloud"), view)
        self.read_action.setShortcut(READ_KEY)
        self.read_action.setShortcutContext(Qt.WidgetWithChildrenShortcut)  # the chosen turn of this view
        self.read_action.triggered.connect(lambda: self.read(self._current_row()))
        view.addAction(self.read_action)
        for widget in (view, view.viewport()):  # the menu key reaches the view, a right click its viewport
            widget.installEventFilter(self)

        self.strip = QWidget()
        row = QHBoxLayout(self.strip)
        row.setContentsMargins(0, 0, 0, 0)
        self.label = PlainLabel()
        self.label.setWordWrap(True)
        self.stop_button = QPushButton(self.tr("Stop reading"))
        self.stop_button.setToolTip(self.tr("Stop reading aloud (Esc)"))
        self.stop_button.clicked.connect(read_aloud.stop)
        row.addWidget(self.label, 1)
        row.addWidget(self.stop_button)
        layout = panel.layout()
        layout.insertWidget(layout.indexOf(panel.placeholder) + 1, self.strip)
        QWidget.setTabOrder(view, self.stop_button)  # read after the turns it reads
        read_aloud.changed.connect(self.render)
        self.render()

    def render(self) -> None:
        self.label.setText(self.read_aloud.message)
        self.label.setToolTip(as_written(self.read_aloud.message))
        self.stop_button.setVisible(self.read_aloud.busy)
        self.strip.setVisible(bool(self.read_aloud.message) or self.read_aloud.busy)

    def _current_row(self) -> int | None:
        index = self.view.currentIndex()
        return index.row() if index.isValid() else None

    def read(self, row: int | None) -> None:
        model = self.view.model()
        if row is None or not 0 <= row < model.rowCount():
            return
        self.read_aloud.read(row, model.index(row, 0).data(TurnRole).text)

    def menu_for(self, row: int | None) -> QMenu:
        """A turn's menu: Read aloud (or why it cannot be), Stop, and the voices here."""
        menu = QMenu(self.view)
        if self.read_aloud.busy:
            stop = menu.addAction(self.tr("Stop reading"), self.read_aloud.stop)
            stop.setShortcut(QKeySequence(Qt.Key_Escape))
        installed = self.read_aloud.installed()
        chosen = self.read_aloud.choice(installed)
        if chosen is None:
            menu.addAction(self.read_aloud.no_model_text()).setEnabled(False)
            menu.addAction(self.tr("Model manager..."), self.window.dialogs.open_model_manager)
            return menu
        read = menu.addAction(self.tr("Read aloud with {voice}").format(voice=chosen[1]), lambda: self.read(row))
        read.setShortcut(READ_KEY)
        read.setEnabled(row is not None)
        voices = menu.addMenu(self.tr("Voice"))
        for name, (_folder, _row, names) in installed.items():
            for voice in names:
                action = voices.addAction(f"{voice} ({name})" if len(installed) > 1 else voice)
                action.setCheckable(True)
                action.setChecked((name, voice) == chosen)
                action.triggered.connect(lambda _on=False, n=name, v=voice: self.read_aloud.choose(n, v))
        return menu

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.ContextMenu:
            return super().eventFilter(obj, event)
        if event.reason() == QContextMenuEvent.Keyboard:
            row = self._current_row()
        else:
            index = self.view.indexAt(self.view.viewport().mapFromGlobal(event.globalPos()))
            row = index.row() if index.isValid() else None
            if index.isValid():
                self.view.setCurrentIndex(index)
        self.menu_for(row).popup(event.globalPos())
        return True
