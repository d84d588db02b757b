"""Audio → Talk key: the desktop-wide push-to-talk key, on or off, its chord and hold or tap; what
the desktop said about it. Renders ``DesktopTalkKey``; OK hands it the choice."""

from __future__ import annotations

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QKeySequenceEdit,
    QRadioButton,
    QVBoxLayout,
)

from app.desktop_key.chord import DEFAULT_TALK_KEY, ChordError, parse_chord
from app.desktop_key.talk_key import HOLD, TAP, DesktopTalkKey
from app.widgets.plain_text import PlainLabel


class TalkKeyDialog(QDialog):
    def __init__(self, talk_key: DesktopTalkKey, parent=None) -> None:
        super().__init__(parent)
        self.talk_key = talk_key
        self.setWindowTitle(self.tr("Talk key"))
        settings = talk_key.conversation.preferences.settings
        layout = QVBoxLayout(self)
        self.enabled_box = QCheckBox(self.tr("Talk from any program with a key"))
        self.enabled_box.setChecked(bool(settings.talk_key))
        self.enabled_box.setAccessibleDescription(self.tr("Space still works while Parley's window has the focus."))
        self.key_edit = QKeySequenceEdit(QKeySequence(settings.talk_key or DEFAULT_TALK_KEY))
        self.key_edit.setMaximumSequenceLength(1)
        self.key_edit.setAccessibleName(self.tr("Talk key"))
        self.key_edit.setAccessibleDescription(self.tr("Press the key chord to use, for example Ctrl+Alt+Space."))
        self.hold_button = QRadioButton(self.tr("Hold to talk (the microphone is open while the key is held)"))
        self.tap_button = QRadioButton(self.tr("Tap to start, tap again to stop"))
        (self.tap_button if settings.talk_key_mode == TAP else self.hold_button).setChecked(True)
        form = QFormLayout()
        form.addRow(self.enabled_box)
        form.addRow(self.tr("Key:"), self.key_edit)
        form.addRow(self.hold_button)
        form.addRow(self.tap_button)
        layout.addLayout(form)
        self.note = PlainLabel()
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.enabled_box.toggled.connect(self._render)
        talk_key.changed.connect(self._render)
        self._render()

    def _render(self) -> None:
        on = self.enabled_box.isChecked()
        for widget in (self.key_edit, self.hold_button, self.tap_button):
            widget.setEnabled(on)
        self.note.setText(self.talk_key.note if on else "")

    def accept(self) -> None:
        """Keep the choice; a chord that cannot be a desktop key is said here and the dialog stays."""
        key = self.key_edit.keySequence().toString(QKeySequence.PortableText) if self.enabled_box.isChecked() else ""
        if key:
            try:
                parse_chord(key)
            except ChordError as e:
                self.note.setText(str(e))
                return
        self.talk_key.choose(key, TAP if self.tap_button.isChecked() else HOLD)
        super().accept()
