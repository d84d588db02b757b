"""The conversation status shown in the window, derived from explicit inputs (no hidden timers)."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Status(enum.Enum):
    IDLE = "idle"
    LISTENING = "listening"
    THINKING = "thinking"
    SPEAKING = "speaking"


SPEAKING_HOLD_S = 0.4  # keeps "speaking" across short pauses between words
THINKING_WINDOW_S = 3.0  # after the user stops talking, how long silence counts as "thinking"


@dataclass(frozen=True)
class StatusInputs:
    streaming: bool  # a model is loaded and audio frames are flowing
    mic_open: bool  # push-to-talk held or open-mic on
    now: float
    last_speech_time: float  # when the assistant's output last crossed SPEECH_DB (-inf if never)
    last_release_time: float  # when the user last stopped talking (-inf if never)


def derive_status(s: StatusInputs) -> Status:
    if not s.streaming:
        return Status.IDLE
    if s.mic_open:
        return Status.LISTENING
    if s.now - s.last_speech_time <= SPEAKING_HOLD_S:
        return Status.SPEAKING
    if s.now - s.last_release_time <= THINKING_WINDOW_S and s.last_speech_time < s.last_release_time:
        return Status.THINKING
    return Status.IDLE
