"""What every desktop's key grab offers the talk key: a Qt object that grabs one chord and says
when it is pressed and released, or why the desktop refused it."""

from __future__ import annotations

from PySide6.QtCore import QObject, QSocketNotifier, Signal

from app.desktop_key.chord import Chord


class KeyGrab(QObject):
    """``grab`` may answer later (the portal asks the desktop): ``grabbed`` or ``refused`` says how
    it went. ``pressed``/``released`` come from the GUI thread."""

    pressed = Signal()
    released = Signal()
    grabbed = Signal()
    refused = Signal(str)  # why, in one sentence for the person
    held = False  # whether the chord is down (set per instance by ``_chord_went``)
    notifier: QSocketNotifier | None = None  # watches the desktop connection's socket, where there is one

    def grab(self, chord: Chord) -> None:
        raise NotImplementedError

    def ungrab(self) -> None:
        """Let go of the chord (and of any connection to the desktop); safe to call twice. A chord
        held down is released: the desktop will not say so any more."""
        if self.notifier is not None:
            self.notifier.setEnabled(False)
            self.notifier.deleteLater()
            self.notifier = None
        self._disconnect()
        if self.held:
            self.held = False
            self.released.emit()

    def _watch(self, socket: int, read) -> None:
        """Call ``read`` on the GUI thread whenever the desktop connection's ``socket`` has data."""
        self.notifier = QSocketNotifier(socket, QSocketNotifier.Read, self)
        self.notifier.activated.connect(read)

    def _disconnect(self) -> None:
        """Close this backend's connection to the desktop (its grabs go with it)."""

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
