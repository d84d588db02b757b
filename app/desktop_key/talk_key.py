"""The desktop-wide talk key as view-model state: the chord and mode the person chose (settings),
whether the desktop gave it to Parley, and what pressing it does to the conversation.

Hold: the microphone is open while the key is held. Tap: a press opens it, the next press closes it.
Either way it is one more push-to-talk source beside Space in the window and the Talk button, so
the in-window key keeps working whatever the desktop said.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from app.desktop_key.chord import ChordError, parse_chord
from app.desktop_key.grab import KeyGrab

HOLD, TAP = "hold", "tap"  # AppSettings.talk_key_mode
TALK_SOURCE = "desktop key"


class DesktopTalkKey(QObject):
    """``problem``: why the chosen key does not work from other programs ("" when it does, or none
    is chosen); ``changed`` fires when it or ``active`` changes."""

    changed = Signal()

    def __init__(self, conversation, make_grab: Callable[[QObject], KeyGrab], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.conversation = conversation
        self.make_grab = make_grab
        self.grab: KeyGrab | None = None
        self.key = ""  # the chord grabbed or asked for ("" = none)
        self.active = False
        self.problem = ""
        conversation.preferences.changed.connect(self._apply)
        self._apply(conversation.preferences.settings)

    @property
    def mode(self) -> str:
        return self.conversation.preferences.settings.talk_key_mode

    @property
    def note(self) -> str:
        """What the window says while the key does not work ("" while it does)."""
        return self.tr("{problem} Space in Parley's window still works.").format(problem=self.problem) \
            if self.problem else ""

    def choose(self, key: str, mode: str) -> None:
        """The person's choice (Audio → Talk key), saved. A key the desktop refused is asked for again
        even when it is the same chord: the program holding it may have let go."""
        if not self.active:
            self.stop()
        self.conversation.preferences.update(talk_key=key, talk_key_mode=mode)

    def _apply(self, settings) -> None:
        if settings.talk_key == self.key:
            return  # the mode applies at the next press; nothing to grab again
        self.stop()
        self.key = settings.talk_key
        if not self.key:
            self._set(False, "")
            return
        try:
            chord = parse_chord(self.key)
        except ChordError as e:
            self._set(False, str(e))
            return
        self.grab = self.make_grab(self)
        self.grab.pressed.connect(self._pressed)
        self.grab.released.connect(self._released)
        self.grab.grabbed.connect(lambda: self._set(True, ""))
        self.grab.refused.connect(lambda why: self._set(False, why))
        self.grab.grab(chord)

    def _set(self, active: bool, problem: str) -> None:
        if (active, problem) != (self.active, self.problem):
            self.active, self.problem = active, problem
            self.changed.emit()

    def _pressed(self) -> None:
        held = TALK_SOURCE in self.conversation.talk.held_by
        if self.mode == TAP and held:
            self.conversation.release_talk(TALK_SOURCE)
        else:
            self.conversation.press_talk(TALK_SOURCE)

    def _released(self) -> None:
        if self.mode == HOLD:
            self.conversation.release_talk(TALK_SOURCE)

    def stop(self) -> None:
        """Give the key back to the desktop (a new choice, or the window closing)."""
        if self.grab is not None:
            grab, self.grab = self.grab, None
            grab.ungrab()
            grab.deleteLater()
        if TALK_SOURCE in self.conversation.talk.held_by:
            self.conversation.release_talk(TALK_SOURCE)
        self.key = ""
        self._set(False, "")
