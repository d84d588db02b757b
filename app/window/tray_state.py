"""What the tray icon shows and what closing the window does: widget-free state and rules.

The tray's state is derived from the conversation view-model's status and the health
view-model (the too-slow warning); the tray widget only renders it (``app.window.tray``).
"""

from __future__ import annotations

import enum

from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject, Signal

from app.conversation.status import Status, status_label


class TrayState(enum.Enum):
    IDLE = "idle"
    LISTENING = "listening"
    SPEAKING = "speaking"
    WAITING = "waiting"  # the assistant is held silent until the person speaks ("wait for me")
    TOO_SLOW = "too slow"


TRAY_TIPS = {  # translated where shown (TrayModel.tip)
    TrayState.IDLE: QT_TRANSLATE_NOOP("TrayModel", "Parley: idle"),
    TrayState.LISTENING: QT_TRANSLATE_NOOP("TrayModel", "Parley: listening to you"),
    TrayState.SPEAKING: QT_TRANSLATE_NOOP("TrayModel", "Parley: the assistant is speaking"),
    TrayState.WAITING: QT_TRANSLATE_NOOP("TrayModel", "Parley: waiting for you to speak first"),
    TrayState.TOO_SLOW: QT_TRANSLATE_NOOP("TrayModel", "Parley: too slow for real time"),
}

# AppSettings.close_to_tray: what closing the window does where there is a tray.
CLOSE_ASK = ""  # not chosen yet: the first close asks
CLOSE_TO_TRAY = "tray"
CLOSE_QUITS = "quit"


TRAY_STATES = {Status.LISTENING: TrayState.LISTENING, Status.SPEAKING: TrayState.SPEAKING,
               Status.WAITING: TrayState.WAITING}


def tray_state(status: Status, too_slow: bool) -> TrayState:
    """Too slow outranks the rest (the person can act on it); every other status (loading, ready,
    paused, thinking) shows as idle, with the status's own name in the tooltip."""
    if too_slow:
        return TrayState.TOO_SLOW
    return TRAY_STATES.get(status, TrayState.IDLE)


def close_hides(choice: str, tray_available: bool) -> bool | None:
    """Whether closing the window leaves Parley in the tray; None: ask (the first time)."""
    if not tray_available or choice == CLOSE_QUITS:
        return False
    return True if choice == CLOSE_TO_TRAY else None


TALK_SOURCE = "tray"  # the tray's Talk holds the microphone open like the key or the button


class TrayModel(QObject):
    """The tray's state (``state``, ``talking``, ``open_mic``, ``paused``, ``can_end``) and its commands, from
    the two view-models; ``changed`` fires when any of them changes."""

    changed = Signal()

    def __init__(self, conversation, health, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.conversation = conversation
        self.health = health
        self.state = TrayState.IDLE
        self.talking = False
        self.open_mic = False
        self.paused = False
        self.can_end = False
        self.status = Status.IDLE
        conversation.status_changed.connect(self.update)
        conversation.talk_changed.connect(self.update)
        conversation.live_changed.connect(self.update)
        conversation.conversation_replaced.connect(self.update)
        health.warning_changed.connect(self.update)
        self.update()

    def update(self, *_args) -> None:
        talk = self.conversation.talk
        status = self.conversation.status
        now = (tray_state(status, bool(self.health.warning)), TALK_SOURCE in talk.held_by, talk.open_mic,
               status is Status.PAUSED, self.conversation.can_end, status)
        if now != (self.state, self.talking, self.open_mic, self.paused, self.can_end, self.status):
            self.state, self.talking, self.open_mic, self.paused, self.can_end, self.status = now
            self.changed.emit()

    @property
    def tip(self) -> str:
        if self.state is TrayState.IDLE and self.status is not Status.IDLE:
            return self.tr("Parley: {status}").format(status=status_label(self.status))
        return self.tr(TRAY_TIPS[self.state])

    def set_paused(self, on: bool) -> None:
        if on:
            self.conversation.pause()
        else:
            self.conversation.start()

    def set_talking(self, on: bool) -> None:
        """Talk from the tray: a toggle (a menu cannot be held), the microphone open until untoggled."""
        if on:
            self.conversation.press_talk(TALK_SOURCE)
        else:
            self.conversation.release_talk(TALK_SOURCE)
