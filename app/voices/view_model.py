"""The voice library as the dialogs see it: a widget-free QObject over ``engine.VoiceLibrary``.

It lists the shipped voices (of the loaded PersonaPlex model, by name) and the user's own, and runs
the user's commands (save a recording, import a file, rename, remove, play); each failure becomes
``error`` in plain words and changes nothing. The dialogs render ``entries``, ``error`` and
``message`` on ``changed``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject, Signal

from app.i18n import number_text
from app.voices.recorder import VoiceRecorder
from engine import VoiceLibrary, read_voice_file

COMMAND_ERRORS = (ValueError, OSError)  # VoiceLibraryError, AudioFileError, a file that vanished
CONSENT = QT_TRANSLATE_NOOP("VoicesModel", "Record or import only your own voice, or a voice used with its owner's "
                            "consent. Recordings stay on this computer, readable by you only; nothing is sent "
                            "anywhere.")  # translated where shown


@dataclass(frozen=True)
class VoiceEntry:
    name: str
    kind: str  # "shipped" (with the model) or "user"
    seconds: float = 0.0
    problem: str = ""  # why a user's recording cannot be used

    @property
    def label(self) -> str:
        if self.kind == "shipped":
            return self.name
        return f"{self.name}  ·  damaged" if self.problem else f"{self.name}  ·  {self.seconds:.0f} s"


class VoicesModel(QObject):
    changed = Signal()

    def __init__(self, library: VoiceLibrary, shipped: list[str], recorder: VoiceRecorder,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.library = library
        self.shipped = list(shipped)
        self.recorder = recorder
        self.entries: tuple[VoiceEntry, ...] = ()
        self.error = ""
        self.message = ""
        self._made_name: str | None = None  # the voice the last command added or renamed, until taken
        self.refresh()

    def refresh(self) -> None:
        own = tuple(VoiceEntry(v.name, "user", v.seconds, v.problem) for v in self.library.voices())
        self.entries = tuple(VoiceEntry(name, "shipped") for name in self.shipped) + own
        self.changed.emit()

    def entry(self, name: str) -> VoiceEntry | None:
        return next((e for e in self.entries if e.name == name), None)

    # -- commands: True when done; else ``error`` says why ------------------------------------
    def save_recording(self, name: str) -> bool:
        return self._run(lambda: self.tr("Saved the voice {name}.").format(
            name=self._made(self.library.add(name, self.recorder.recording()))))

    def read_import(self, path: str) -> np.ndarray | None:
        """The recording at ``path`` as a voice would keep it, or None with ``error`` saying why it
        cannot be one (checked before the person names it)."""
        try:
            pcm = read_voice_file(path)
        except COMMAND_ERRORS as e:
            self.message, self.error = "", str(e)
            self.changed.emit()
            return None
        self.error = ""
        return pcm

    def add_imported(self, name: str, pcm: np.ndarray) -> bool:
        def run():
            voice = self.library.add(name, pcm)
            return self.tr("Imported {name} ({seconds} s).").format(name=self._made(voice),
                                                                    seconds=number_text(voice.seconds))

        return self._run(run)

    def rename(self, name: str, new_name: str) -> bool:
        return self._run(lambda: self.tr("Renamed {old} to {new}.").format(
            old=name, new=self._made(self.library.rename(name, new_name))))

    def _made(self, voice) -> str:
        self._made_name = voice.name
        return voice.name

    def take_made(self) -> str | None:
        """The voice the last command added or renamed, once (the dialog selects it)."""
        name, self._made_name = self._made_name, None
        return name

    def remove(self, name: str) -> bool:
        def run():
            self.library.remove(name)
            return self.tr("Removed {name}.").format(name=name)

        return self._run(run)

    def play(self, name: str) -> bool:
        def run():
            self.recorder.play(self.library.recording(name))
            return self.recorder.error or self.tr("Playing {name}...").format(name=name)

        return self._run(run)

    def _run(self, command) -> bool:
        try:
            self.message, self.error = command(), ""
        except COMMAND_ERRORS as e:
            self.message, self.error = "", str(e)
        self.refresh()
        return not self.error
