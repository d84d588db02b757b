"""PersonaPlex persona: the voice prompt and the text role prompt of a new conversation.

The dialog only collects choices; the worker turns them into a session (``new_session(voice_prompt=...,
text_prompt=...)``) in its own thread. The voice list comes from the worker too (``engine.shipped_voices``
runs there, on the loaded model's voices folder).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
)

from engine import DEFAULT_ROLE, DEFAULT_VOICE, NO_VOICE

PERSONAPLEX_ONLY = "Voice and role prompts apply to PersonaPlex models only."
DEFAULT_VOICE_ITEM = f"{DEFAULT_VOICE} (default)"
NO_VOICE_ITEM = "No voice prompt (advanced)"
NO_VOICE_NOTE = ("Without a voice prompt PersonaPlex starts from silence and the role alone, a state it was "
                 "never trained on, and speaks in an arbitrary voice.")
FROM_RECORDING = "From a recording (WAV, FLAC, Ogg, MP3)..."


def describe_voice(voice: str) -> str:
    """How a voice prompt reads in the window: a shipped name as is, a file by its name."""
    if not voice:
        return DEFAULT_VOICE_ITEM
    return Path(voice).name if any(sep in voice for sep in ("/", "\\")) else voice


class PersonaDialog(QDialog):
    """Pick a voice and write a role; "Start new conversation" emits ``applied(voice, role)``.

    ``voice`` is a shipped voice name, a file path, "" for the default voice or ``NO_VOICE`` for none;
    ``role`` is the role text.
    """

    applied = Signal(str, str)

    def __init__(self, voices: list[str], voice: str, role: str, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Persona")
        self.setMinimumWidth(520)
        layout = QVBoxLayout(self)
        intro = QLabel("PersonaPlex speaks with the voice and plays the role you give it. "
                       "Applying starts a new conversation.")
        intro.setWordWrap(True)
        layout.addWidget(intro)

        form = QFormLayout()
        self.voice_combo = QComboBox()
        self.voice_combo.setAccessibleName("voice")
        self.voice_combo.addItem(DEFAULT_VOICE_ITEM, "")
        for name in voices:
            if name != DEFAULT_VOICE:
                self.voice_combo.addItem(name, name)
        if not voices:
            self.voice_combo.setToolTip("No shipped voices were found in the model folder.")
        self.voice_combo.addItem(NO_VOICE_ITEM, NO_VOICE)
        self.voice_combo.setItemData(self.voice_combo.count() - 1, NO_VOICE_NOTE, Qt.ToolTipRole)
        self.voice_combo.addItem(FROM_RECORDING, None)
        self._recording_index = self.voice_combo.count() - 1
        self.voice_combo.activated.connect(self._voice_activated)
        voice_label = QLabel("&Voice")
        voice_label.setBuddy(self.voice_combo)
        form.addRow(voice_label, self.voice_combo)

        self.role_edit = QPlainTextEdit()
        self.role_edit.setAccessibleName("role prompt")
        self.role_edit.setTabChangesFocus(True)  # keyboard users can leave the editor with Tab
        self.role_edit.setPlaceholderText("Describe who the assistant is and how it should answer.")
        self.role_edit.setPlainText(role or DEFAULT_ROLE)
        role_label = QLabel("&Role")
        role_label.setBuddy(self.role_edit)
        form.addRow(role_label, self.role_edit)
        layout.addLayout(form)

        self.reset_button = QPushButton("Default &role")
        self.reset_button.setToolTip("Put the default role text back")
        self.reset_button.clicked.connect(lambda: self.role_edit.setPlainText(DEFAULT_ROLE))
        self.buttons = QDialogButtonBox(QDialogButtonBox.Cancel)
        self.apply_button = self.buttons.addButton("&Start new conversation", QDialogButtonBox.AcceptRole)
        self.apply_button.setDefault(True)
        self.buttons.addButton(self.reset_button, QDialogButtonBox.ResetRole)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)

        self._select_voice(voice)
        self._last_index = self.voice_combo.currentIndex()

    # -- voice -------------------------------------------------------------------------------
    def _select_voice(self, voice: str) -> None:
        index = self.voice_combo.findData(voice) if voice and voice != DEFAULT_VOICE else 0
        if index < 0:  # a file chosen earlier, or a shipped voice this model does not have
            index = self._add_file(voice)
        self.voice_combo.setCurrentIndex(index)

    def _add_file(self, path: str) -> int:
        index = self.voice_combo.findData(path)
        if index >= 0:
            return index
        self.voice_combo.insertItem(self._recording_index, describe_voice(path), path)
        self.voice_combo.setItemData(self._recording_index, path, Qt.ToolTipRole)
        self._recording_index += 1
        return self._recording_index - 1

    def _voice_activated(self, index: int) -> None:
        if index != self._recording_index:
            self._last_index = index
            return
        path, _ = QFileDialog.getOpenFileName(self, "Voice from a recording", str(Path.home()),
                                              "Audio (*.wav *.flac *.ogg *.mp3);;All files (*)")
        if path:
            self._last_index = self._add_file(path)
        self.voice_combo.setCurrentIndex(self._last_index)

    def voice(self) -> str:
        data = self.voice_combo.currentData()
        return data if isinstance(data, str) else ""

    def role(self) -> str:
        return self.role_edit.toPlainText().strip()

    def accept(self) -> None:
        self.applied.emit(self.voice(), self.role())
        super().accept()
