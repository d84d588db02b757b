"""Push-to-talk as explicit state: which inputs hold the microphone open, and the open-mic setting."""

from __future__ import annotations

from dataclasses import dataclass, replace

from app.audio.echo import ProcessingSettings
from app.i18n import translate


@dataclass(frozen=True)
class TalkState:
    held_by: frozenset[str] = frozenset()  # "key", "button": each can hold independently
    open_mic: bool = False  # hands-free: the microphone is always open
    # An interpreter: it hears its input all the time while it runs; nothing holds it open.
    listening: bool = False

    @property
    def mic_open(self) -> bool:
        return self.open_mic or self.listening or bool(self.held_by)

    def press(self, source: str) -> TalkState:
        return self if self.listening else replace(self, held_by=self.held_by | {source})

    def release(self, source: str) -> TalkState:
        return replace(self, held_by=self.held_by - {source})


def open_mic_note(processing: ProcessingSettings, problem: str) -> tuple[str, bool]:
    """What the window says while open mic is on, and whether it is a warning."""
    if processing.echo_cancellation and not problem:
        return translate("OpenMic", "Open mic is on, with echo cancellation: speakers work; headphones still sound "
                         "cleanest."), False
    if problem:
        return translate("OpenMic", "Open mic is on and echo cancellation is unavailable: use headphones, or the "
                         "assistant will hear itself."), True
    return translate("OpenMic", "Open mic is on and echo cancellation is off (Audio menu): use headphones, or the "
                     "assistant will hear itself."), True
