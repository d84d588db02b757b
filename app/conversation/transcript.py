"""The conversation as turns, the way the window shows and exports it.

Both sides are built from the same per-frame observations, live (from the worker's frame stats)
or from a saved recording: whether the user was talking, the two levels, and the assistant's text
piece. A user turn is a stretch of frames in which the user talked (push-to-talk held, or the
open microphone above the speech level); an assistant turn is a stretch of speech or text that
ends after a silence or a gap in its text. The two sides are independent, so when both talk at
once their turns overlap in time instead of cutting each other into fragments; a turn is marked
as overlapping only where both sides were heard in the same frames for more than
``OVERLAP_MIN_S`` (an assistant turn that spans a short silence the user spoke into does not
overlap). A stretch longer than ``SPLIT_AT_PAUSE_S`` goes on in a new turn at its next pause, and
one longer than ``MAX_TURN_S`` at once (the assistant's at a word boundary): the window measures
and paints the turns that grow every frame, and one that grew for an hour (the demo babbles without
pause; an open microphone hears a whole conversation) made that cost grow with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from app.audio.levels import DISPLAY_FLOOR_DB, SPEECH_DB, level_db
from engine import FRAME_SECONDS, FRAME_SIZE

USER_GAP_S = 0.5  # the user quiet for longer than this ends their turn
ASSISTANT_GAP_S = 1.5  # the assistant silent, or without new text, for longer than this ends its turn
SPLIT_AT_PAUSE_S = 12.0  # a longer stretch of either side goes on in a new turn at its next pause
PAUSE_S = 0.24  # three quiet frames inside a turn: a pause
MAX_TURN_S = 30.0  # a longer stretch of either side goes on in a new turn, pause or not
OVERLAP_MIN_S = 0.5  # both sides heard at once for longer than this: the turns are marked as overlapping
YOU, ASSISTANT = "you", "assistant"


@dataclass
class Turn:
    speaker: str  # YOU | ASSISTANT
    start: float  # conversation seconds of its first frame
    end: float  # conversation seconds at the end of its last active frame
    text: str = ""  # the words: the assistant's, or the person's where a caption model heard them
    levels: list[float] = field(default_factory=list)  # dBFS per frame, for the level strip
    last_text: float | None = None  # seconds of the newest text piece
    heard: set[int] = field(default_factory=set)  # the frames (indices) in which this side was heard

    @property
    def duration(self) -> float:
        return self.end - self.start

    def overlaps(self, other: Turn) -> bool:
        return self.start < other.end and other.start < self.end

    def heard_together_s(self, other: Turn) -> float:
        """How long both turns' speakers were heard at once."""
        return len(self.heard & other.heard) * FRAME_SECONDS if self.overlaps(other) else 0.0


@dataclass(frozen=True)
class FrameObservation:
    """One 80 ms frame as the turns see it."""

    seconds: float  # conversation time at the start of the frame
    user_talking: bool
    user_db: float
    assistant_db: float
    text: str


class Transcript:
    """The turns of one conversation and every text piece of the assistant, with its time."""

    def __init__(self) -> None:
        self.turns: list[Turn] = []
        self.pieces: list[tuple[float, str]] = []
        self._open: dict[str, int] = {}  # the index of the turn each side is still in

    def clear(self) -> None:
        self.turns.clear()
        self.pieces.clear()
        self._open.clear()

    def add_frame(self, frame: FrameObservation) -> set[int]:
        """Extend the turns by one frame; returns the indices of the turns that changed (new ones included)."""
        changed: set[int] = set()
        end = frame.seconds + FRAME_SECONDS
        if frame.user_talking:
            self._end_if_long(YOU, frame.seconds)
            changed.add(self._extend(YOU, frame.seconds, end, frame.user_db, USER_GAP_S))
        if frame.text:
            self.pieces.append((frame.seconds, frame.text))
            current = self.turns[self._open[ASSISTANT]] if ASSISTANT in self._open else None
            if current is not None and current.last_text is not None \
                    and frame.seconds - current.last_text > ASSISTANT_GAP_S:
                del self._open[ASSISTANT]  # a gap in its text: the next words are a new turn
        if frame.text or frame.assistant_db > SPEECH_DB:
            if not frame.text or frame.text[0].isspace():  # a word is never split between turns
                self._end_if_long(ASSISTANT, frame.seconds)
            index = self._extend(ASSISTANT, frame.seconds, end, frame.assistant_db, ASSISTANT_GAP_S)
            turn = self.turns[index]
            if frame.text:
                turn.text = (turn.text + frame.text) if turn.text else frame.text.lstrip()
                turn.last_text = frame.seconds
            changed.add(index)
        return changed

    def _end_if_long(self, speaker: str, now: float) -> None:
        """A long turn ends at its first pause after ``SPLIT_AT_PAUSE_S``, and at ``MAX_TURN_S`` in any case."""
        index = self._open.get(speaker)
        if index is None:
            return
        turn = self.turns[index]
        paused = now - turn.end >= PAUSE_S  # quiet since the turn's last frame
        if now - turn.start >= MAX_TURN_S or (now - turn.start >= SPLIT_AT_PAUSE_S and paused):
            del self._open[speaker]

    def _extend(self, speaker: str, start: float, end: float, db: float, gap: float) -> int:
        index = self._open.get(speaker)
        if index is None or start - self.turns[index].end > gap:
            index = len(self.turns)
            self.turns.append(Turn(speaker, start, end))
            self._open[speaker] = index
        turn = self.turns[index]
        quiet = round((start - turn.end) / FRAME_SECONDS)  # quiet frames inside the turn
        turn.levels.extend([DISPLAY_FLOOR_DB] * max(0, quiet))  # quiet frames inside a turn
        turn.levels.append(db)
        turn.heard.add(round(start / FRAME_SECONDS))
        turn.end = end
        return index

    def load(self, entries, user_audio: np.ndarray | None = None, assistant_audio: np.ndarray | None = None) -> None:
        """Rebuild from the engine's transcript ((frame_index, seconds, text) tuples) and, when the
        file has them, the recorded audio of both sides (the user side is what the model heard)."""
        self.clear()
        texts: dict[int, str] = {}
        for frame_index, _seconds, text in entries:
            texts[int(frame_index)] = texts.get(int(frame_index), "") + text
        frames = max([len(a) // FRAME_SIZE for a in (user_audio, assistant_audio) if a is not None]
                     + [max(texts, default=-1) + 1])
        for i in range(frames):
            user_db = _frame_db(user_audio, i)
            self.add_frame(FrameObservation(i * FRAME_SECONDS, user_db > SPEECH_DB, user_db,
                                            _frame_db(assistant_audio, i), texts.get(i, "")))

    def overlapping(self, index: int) -> bool:
        """Whether both sides were heard at once, for more than ``OVERLAP_MIN_S``, in the turn at
        ``index`` and a turn of the other side."""
        turn = self.turns[index]
        return any(other.speaker != turn.speaker and other.heard_together_s(turn) > OVERLAP_MIN_S
                   for other in self.turns[max(0, index - 8):index + 8])

    def turn_at(self, seconds: float) -> int | None:
        """The newest turn that covers ``seconds`` (replay follows it), else None."""
        for i in range(len(self.turns) - 1, -1, -1):
            if self.turns[i].start <= seconds < self.turns[i].end:
                return i
        return None


def _frame_db(audio: np.ndarray | None, index: int) -> float:
    if audio is None:
        return level_db(np.zeros(0, np.float32))
    return level_db(audio[index * FRAME_SIZE:(index + 1) * FRAME_SIZE])


def clock(seconds: float) -> str:
    minutes, rest = divmod(seconds, 60.0)
    return f"{int(minutes):02d}:{rest:04.1f}"
