"""The live transcript said to screen readers: each turn once it has ended, politely (after what the
reader is saying). Widget-free: ``announce`` carries the words; the window hands them to Qt's
accessibility layer (``app.widgets.announce``).

A turn has ended when its side started a newer one, or has been quiet for longer than the gap
that would end it (the transcript's own rule), or the conversation stopped. Turns already there
when a conversation is opened are not read out.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from app.conversation.transcript import ASSISTANT, ASSISTANT_GAP_S, USER_GAP_S, YOU, Turn
from engine import FRAME_SECONDS

GAPS = {YOU: USER_GAP_S, ASSISTANT: ASSISTANT_GAP_S}


class TurnSentences(QObject):
    """A turn said in words, a conversation's or an interpreter's (whose sentences name the original
    speech and the interpreter, as ``app.conversation.sides`` names the sides). A QObject for
    ``self.tr``: the only call in which pyside6-lupdate reads a plural's count from a variable."""

    def say(self, turn: Turn, interpreting: bool) -> str:
        if turn.speaker != YOU and turn.text and turn.text.strip():
            words = turn.text.strip()
            return (self.tr("Interpreter: {text}") if interpreting else self.tr("Assistant: {text}")).format(text=words)
        seconds = max(1, round(turn.duration))
        if interpreting:  # the original speech it heard, the interpretation
            if turn.speaker == YOU:
                return self.tr("The interpreter heard %n seconds of speech.", "", seconds)
            return self.tr("The interpreter spoke for %n seconds.", "", seconds)
        if turn.speaker == YOU:
            return self.tr("You spoke for %n seconds.", "", seconds)
        return self.tr("The assistant spoke for %n seconds.", "", seconds)


def turn_announcement(turn: Turn, interpreting: bool = False) -> str:
    """``turn`` said in words (an interpreter's where ``interpreting``)."""
    return TurnSentences().say(turn, interpreting)


class TurnAnnouncer(QObject):
    announce = Signal(str)

    def __init__(self, conversation, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.turns = conversation.turns
        self.transcript = conversation.turns.transcript
        self.said: set[int] = set()
        self.first_unsaid = 0  # every turn before it was said
        conversation.frame.connect(lambda stats: self.frame_seen(stats.seconds + FRAME_SECONDS))
        conversation.live_changed.connect(lambda live: None if live else self.frame_seen(float("inf")))
        conversation.conversation_replaced.connect(self._skip_existing)

    def _skip_existing(self) -> None:
        self.said.clear()
        self.first_unsaid = len(self.transcript.turns)

    def frame_seen(self, now: float) -> None:
        """Say the turns that have ended by conversation time ``now`` (inf: all of them)."""
        turns = self.transcript.turns
        for index in range(self.first_unsaid, len(turns)):
            if index in self.said:
                continue
            turn = turns[index]
            newer = any(later.speaker == turn.speaker for later in turns[index + 1:])
            if newer or now - turn.end > GAPS[turn.speaker]:
                self.said.add(index)
                self.announce.emit(turn_announcement(turn, self.turns.interpreting))
        while self.first_unsaid in self.said:
            self.said.discard(self.first_unsaid)
            self.first_unsaid += 1
