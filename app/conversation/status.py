"""The conversation status shown in the window, derived from explicit inputs (no hidden timers)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication


class Status(enum.Enum):
    IDLE = "idle"  # no model, or frames run with nobody speaking
    LOADING = "loading…"  # a model loads: Talk waits for it
    READY = "ready"  # loaded, nothing runs yet: Talk, open mic or Start begins
    PAUSED = "paused"  # the person paused the conversation: nothing runs
    WAITING = "waiting for you"  # "wait for me": the assistant is held silent until the person speaks
    LISTENING = "listening"
    THINKING = "thinking"
    SPEAKING = "speaking"


# What the window calls each status (in the interface's language: ``status_label``).
LABELS = {
    Status.IDLE: QT_TRANSLATE_NOOP("Status", "Idle"),
    Status.LOADING: QT_TRANSLATE_NOOP("Status", "Loading…"),
    Status.READY: QT_TRANSLATE_NOOP("Status", "Ready"),
    Status.PAUSED: QT_TRANSLATE_NOOP("Status", "Paused"),
    Status.WAITING: QT_TRANSLATE_NOOP("Status", "Waiting for you"),
    Status.LISTENING: QT_TRANSLATE_NOOP("Status", "Listening"),
    Status.THINKING: QT_TRANSLATE_NOOP("Status", "Thinking"),
    Status.SPEAKING: QT_TRANSLATE_NOOP("Status", "Speaking"),
}


def status_label(status: Status) -> str:
    """``status`` as the window's status pill says it."""
    return QCoreApplication.translate("Status", LABELS[status])


SPEAKING_HOLD_S = 0.4  # keeps "speaking" across short pauses between words
THINKING_WINDOW_S = 3.0  # after the user stops talking, how long silence counts as "thinking"


@dataclass(frozen=True)
class StatusInputs:
    loading: bool  # a model is loading
    loaded: bool  # a model is loaded
    live: bool  # the person started the conversation's frames (Talk, open mic or Start)
    paused: bool  # frames ran in this conversation (so a stop is a pause)
    streaming: bool  # audio frames are flowing
    mic_open: bool  # push-to-talk held or open-mic on
    waiting_for_user: bool  # the assistant is held silent until the person speaks
    now: float
    last_speech_time: float  # when the assistant's output last crossed SPEECH_DB (-inf if never)
    last_release_time: float  # when the user last stopped talking (-inf if never)
    chat: Status | None = None  # a conversation with the person's language model runs: its own status


def derive_status(s: StatusInputs) -> Status:
    if s.chat is not None:
        return s.chat
    if s.loading:
        return Status.LOADING
    if not s.loaded:
        return Status.IDLE
    if not s.live:
        return Status.PAUSED if s.paused else Status.READY
    if not s.streaming:
        return Status.IDLE
    if s.mic_open:
        return Status.LISTENING
    if s.waiting_for_user:
        return Status.WAITING
    if s.now - s.last_speech_time <= SPEAKING_HOLD_S:
        return Status.SPEAKING
    if s.now - s.last_release_time <= THINKING_WINDOW_S and s.last_speech_time < s.last_release_time:
        return Status.THINKING
    return Status.IDLE
