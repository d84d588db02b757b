"""The conversation as turns, the way the window shows and exports it.

Both sides are built from the same per-frame observations, live (from the worker's frame stats) or
from a saved recording: whether the user was talking, the two levels, and the assistant's text
piece. A user turn is a stretch of frames in which the model heard the user above the speech level
(push-to-talk held, or the open microphone), which their recording says again when it is opened; an
assistant turn is a stretch of speech or text that ends after a silence or a gap in its text. The
two sides are independent, so when both talk at once their turns overlap in time instead of cutting
each other into fragments; a turn is marked as overlapping only where both sides were heard in the
same frames for more than ``OVERLAP_MIN_S`` (an assistant turn that spans a short silence the user
spoke into does not overlap). A stretch longer than ``SPLIT_AT_PAUSE_S`` goes on in a new turn at
its next pause, and one longer than ``MAX_TURN_S`` at once (the assistant's at a word boundary): the
window measures and paints the turns that grow every frame, and one that grew for an hour (the demo
babbles without pause; an open microphone hears a whole conversation) made that cost grow with it.

Captions (the person's words, where a caption model heard them: ``add_captions``) go into the
person's turns by their time: a piece that starts a word goes to the person's turn that covers
its time, else to their newest turn begun before it (a word said as the voice fell below
the speech level), else to their first turn (a word dated before the voice rose above it); a piece
that continues a word (no leading space) goes where the word began, so a word is never split between
turns. Pieces heard before the person has any turn wait for their first one (live, that turn may
begin after the pieces came; loaded, it is there first): a turn of their own would stand where live
and loaded transcripts differ.

Stored turn ends (``engine.files.captions``: where Talk was pressed or released, where a caption
model's voice-activity heads said the person's turn ended, and where such a model began to listen)
end the person's turns from the conversation's first one on: a turn starts where the person is
heard (push-to-talk or the speech level) and goes on through quiet stretches until the next end; the
frames already added after an end begin the next turn. Before the first end, silence ends their
turns. The long-turn splits above apply in both. Live and loaded turns follow this one rule with the
same ends (``load`` applies each before the first frame after it, where it cut the open turn live),
so a conversation opened or recovered has the turns it had live; a held Talk is one turn.
"""

from __future__ import annotations

import math
from bisect import bisect_right, insort
from dataclasses import dataclass, field

import numpy as np

from app.audio.levels import DISPLAY_FLOOR_DB, SILENCE_DB, SPEECH_DB
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
        self.captions: list[tuple[float, str]] = []  # the person's words: (seconds, text piece)
        self.by_ends = False  # a turn end was stored: ends, not silence, end the person's turns from then on
        self._open: dict[str, int] = {}  # the index of the turn each side is still in
        self._word_turn: int | None = None  # the turn the newest caption's word is in
        self._your_starts: list[tuple[float, int]] = []  # (start, index) of the person's turns, sorted
        self._batch: dict[int, list[str]] | None = None  # while loading: each turn's text pieces, joined once
        self._waiting: list[str] = []  # pieces heard before the person's first turn, which they go into

    def clear(self) -> None:
        self.turns.clear()
        self.pieces.clear()
        self.captions.clear()
        self._open.clear()
        self._word_turn = None
        self._your_starts.clear()
        self._waiting.clear()
        self.by_ends = False

    def add_frame(self, frame: FrameObservation) -> set[int]:
        """Extend the turns by one frame; returns the indices of the turns that changed (new ones included)."""
        changed: set[int] = set()
        end = frame.seconds + FRAME_SECONDS
        if frame.user_talking:
            self._end_if_long(YOU, frame.seconds)
            gap = float("inf") if self.by_ends else USER_GAP_S
            changed.add(self._extend(YOU, frame.seconds, end, frame.user_db, gap))
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
            if frame.text:
                self._add_text(index, frame.text)
                self.turns[index].last_text = frame.seconds
            changed.add(index)
        return changed

    def add_captions(self, pieces, turn_ends=()) -> set[int]:
        """Put the person's caption pieces ((seconds, text)) into their turns, and end their turn at
        each of ``turn_ends`` (seconds), in time order. Returns the indices of the turns that
        changed (new ones included)."""
        events = sorted([(seconds, 1, text) for seconds, text in pieces] + [(seconds, 0, "") for seconds in turn_ends],
                        key=lambda event: event[:2])  # stable: pieces of one time stay in their order
        changed: set[int] = set()
        for seconds, is_piece, text in events:
            if not is_piece:
                changed |= self._end_user_turn(seconds)
                continue
            index = self._caption_turn(seconds, text)
            self.captions.append((seconds, text))
            if index is None:  # no turn of the person's yet: their first takes it
                self._waiting.append(text)
                continue
            self._add_text(index, text)
            self._word_turn = index
            changed.add(index)
        return changed

    def add_turn(self, speaker: str, start: float, end: float, text: str) -> int:
        """A whole turn, as a conversation with a language model has them (its words are known as
        text, not frame by frame); its index. Its side's turn in progress ends before it."""
        self._open.pop(speaker, None)
        return self._new_turn(Turn(speaker, start, max(end, start + FRAME_SECONDS), text))

    def _caption_turn(self, seconds: float, text: str) -> int | None:
        if self._word_turn is not None and text and not text[0].isspace():
            return self._word_turn  # the rest of a word
        # The person's turns do not overlap one another: the latest begun by then covers it, where one does.
        begun = bisect_right(self._your_starts, (seconds, math.inf))
        if begun:
            return self._your_starts[begun - 1][1]
        if self._your_starts:  # their first turn: a word dated before their voice rose above the speech level
            return self._your_starts[0][1]
        return None  # heard before any turn of theirs

    def _new_turn(self, turn: Turn) -> int:
        index = len(self.turns)
        self.turns.append(turn)
        if turn.speaker == YOU:
            insort(self._your_starts, (turn.start, index))
            for text in self._waiting:
                self._add_text(index, text)
                self._word_turn = index
            self._waiting.clear()
        return index

    def _add_text(self, index: int, text: str) -> None:
        """A text piece at the end of a turn's words (the first without its leading space). While
        loading, the pieces are joined once at the end: adding each to a long turn's text copied it."""
        if self._batch is not None:
            self._batch.setdefault(index, []).append(text)
            return
        turn = self.turns[index]
        turn.text = (turn.text + text) if turn.text else text.lstrip()

    def _join_batch(self) -> None:
        for index, parts in (self._batch or {}).items():
            turn, text = self.turns[index], "".join(parts)
            turn.text = (turn.text + text) if turn.text else text.lstrip()
        self._batch = None

    def _end_user_turn(self, at: float) -> set[int]:
        """A stored end at ``at``: the person's open turn ends there, and its frames from ``at`` on go
        on in a new turn; from now on, ends (not silence) end their turns."""
        self.by_ends = True
        index = self._open.get(YOU)
        if index is None:
            return set()
        turn = self.turns[index]
        first = round(turn.start / FRAME_SECONDS)
        cut = max(first, _first_frame_after(at))
        before, after = {f for f in turn.heard if f < cut}, {f for f in turn.heard if f >= cut}
        if not before:  # it ended before this turn began: an end of an earlier one
            return set()
        del self._open[YOU]
        if not after:
            return {index}
        rest = Turn(YOU, min(after) * FRAME_SECONDS, turn.end, levels=turn.levels[min(after) - first:], heard=after)
        turn.levels, turn.heard = turn.levels[:max(before) + 1 - first], before
        turn.end = (max(before) + 1) * FRAME_SECONDS
        self._open[YOU] = self._new_turn(rest)
        return {index, self._open[YOU]}

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
            index = self._open[speaker] = self._new_turn(Turn(speaker, start, end))
        turn = self.turns[index]
        quiet = round((start - turn.end) / FRAME_SECONDS)  # quiet frames inside the turn
        turn.levels.extend([DISPLAY_FLOOR_DB] * max(0, quiet))  # quiet frames inside a turn
        turn.levels.append(db)
        turn.heard.add(round(start / FRAME_SECONDS))
        turn.end = end
        return index

    def load(self, entries, user_audio: np.ndarray | None = None, assistant_audio: np.ndarray | None = None,
             captions=(), turn_ends=()) -> None:
        """Rebuild from the engine's transcript ((frame_index, seconds, text) tuples), when the file
        has them the recorded audio of both sides (the user side is what the model heard), the
        person's captions ((seconds, text) pieces) and where the caption model ended their turns
        (seconds). Its time is linear in what it is given: the levels are measured for all frames
        at once, only the frames in which a side was heard or wrote text are stepped (a quiet
        frame changes no turn), and each turn's text is joined once."""
        self.clear()
        texts: dict[int, list[str]] = {}
        for frame_index, _seconds, text in entries:
            texts.setdefault(int(frame_index), []).append(text)
        user_rms, assistant_rms = _frame_rms(user_audio), _frame_rms(assistant_audio)
        heard = np.flatnonzero((_padded(user_rms, len(assistant_rms)) > SPEECH_RMS)
                               | (_padded(assistant_rms, len(user_rms)) > SPEECH_RMS))
        active = sorted(set(heard.tolist()).union(texts))
        ends, next_end = sorted(turn_ends), 0
        self._batch = {}
        try:
            for i in active:
                while next_end < len(ends) and _first_frame_after(ends[next_end]) <= i:
                    self._end_user_turn(ends[next_end])  # where the end cut the open turn live
                    next_end += 1
                you, assistant = _db_at(user_rms, i), _db_at(assistant_rms, i)
                self.add_frame(FrameObservation(i * FRAME_SECONDS, you > SPEECH_DB, you, assistant,
                                                "".join(texts.get(i, ()))))
            for seconds in ends[next_end:]:  # after the last frame: they end the open turn
                self._end_user_turn(seconds)
            self.add_captions(captions)
        finally:
            self._join_batch()

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


def _first_frame_after(seconds: float) -> int:
    """The first frame that starts at or after ``seconds`` (a turn end cuts a turn there)."""
    return math.ceil(seconds / FRAME_SECONDS - 1e-6)


LEVEL_CHUNK_FRAMES = 4096  # frames measured at a time (bounds the float64 copy to ~63 MB)
SPEECH_RMS = 10 ** (SPEECH_DB / 20) * (1 - 1e-9)  # at most the RMS of a frame heard (a superset: rounding)


def _frame_rms(audio: np.ndarray | None) -> np.ndarray:
    """The RMS of each 80 ms frame of ``audio`` (a cut last frame included), as ``level_db``
    measures it, for all frames at once."""
    if audio is None or len(audio) == 0:
        return np.zeros(0)
    whole = len(audio) // FRAME_SIZE
    squares = [np.mean(np.square(audio[start * FRAME_SIZE:min(whole, start + LEVEL_CHUNK_FRAMES) * FRAME_SIZE]
                                 .reshape(-1, FRAME_SIZE), dtype=np.float64), axis=1)
               for start in range(0, whole, LEVEL_CHUNK_FRAMES)]
    if len(audio) % FRAME_SIZE:
        squares.append(np.mean(np.square(audio[whole * FRAME_SIZE:], dtype=np.float64), keepdims=True))
    return np.sqrt(np.concatenate(squares))


def _padded(rms: np.ndarray, frames: int) -> np.ndarray:
    return np.pad(rms, (0, max(0, frames - len(rms))))


def _db_at(rms: np.ndarray, index: int) -> float:
    """``level_db`` of the frame at ``index`` from its RMS (silence past the recording's end)."""
    value = float(rms[index]) if index < len(rms) else 0.0
    return SILENCE_DB if value <= 1e-6 else max(SILENCE_DB, 20.0 * math.log10(value))


def clock(seconds: float) -> str:
    minutes, rest = divmod(seconds, 60.0)
    return f"{int(minutes):02d}:{rest:04.1f}"
