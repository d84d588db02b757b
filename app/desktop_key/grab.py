"""What every desktop's key grab offers the talk key: a Qt object that grabs one chord and says
when it is pressed and released, or why the desktop refused it."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from app.desktop_key.chord import Chord


class KeyGrab(QObject):
    """``grab`` may answer later (the portal asks the desktop): ``grabbed`` or ``refused`` says how
    it went. ``pressed``/``released`` come from the GUI thread."""

    pressed = Signal()
    released = Signal()
    grabbed = Signal()
    refused = Signal(str)  # why, in one sentence for the person
    held = False  # whether the chord is down (set per instance by ``_chord_went``)

    def grab(self, chord: Chord) -> None:
        raise NotImplementedError

    def ungrab(self) -> None:
        """Let go of the chord (and of any connection to the desktop); safe to call twice."""
        raise NotImplementedError

    def _chord_went(self, down: bool) -> None:
        """The desktop says the chord went down or up: ``pressed`` and ``released`` once each (a key
        held down repeats its presses)."""
        if down != self.held:
            self.held = down
            (self.pressed if down else self.released).emit()


class NoGrab(KeyGrab):
    """A desktop Parley cannot ask for a key (macOS, a console, an unknown platform)."""

    def __init__(self, why: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.why = why

    def grab(self, chord: Chord) -> None:
        self.refused.emit(self.why)

    def ungrab(self) -> None:
        pass
