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

Captions (the person's words, where a caption model heard them: ``add_captions``) go into the
person's turns by their time: a piece that starts a word goes to the person's turn that covers
its time, else to their newest turn begun before it (a word said as the voice fell below
the speech level), else to a turn of its own; a piece that continues a word (no leading space)
goes where the word began, so a word is never split between turns.

With a caption model that has voice-activity heads (``voice_turns``), those heads end the person's
turns instead of their silence: a turn starts where the person is heard (push-to-talk or the
speech level, as without them) and goes on through quiet stretches until the model says the turn
ended (``engine.runtime.voice_activity``); the frames already added after that time begin the
next turn. The long-turn splits above still apply. The ends are stored with the conversation
(``engine.files.captions``), and ``load`` ends the turns where they were ended live: each end before
the first frame after it, so that those frames begin the next turn as they did when the end came;
a conversation stored without ends (one from before them, or captioned by a model without the
heads, or whose heads ended no turn yet) has its turns split by silence.
"""

from __future__ import annotations

import math
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
        self.captions: list[tuple[float, str]] = []  # the person's words: (seconds, text piece)
        self.voice_turns = False  # a caption model's voice-activity heads end the person's turns
        self._open: dict[str, int] = {}  # the index of the turn each side is still in
        self._word_turn: int | None = None  # the turn the newest caption's word is in

    def clear(self) -> None:
        self.turns.clear()
        self.pieces.clear()
        self.captions.clear()
        self._open.clear()
        self._word_turn = None

    def add_frame(self, frame: FrameObservation) -> set[int]:
        """Extend the turns by one frame; returns the indices of the turns that changed (new ones included)."""
        changed: set[int] = set()
        end = frame.seconds + FRAME_SECONDS
        if frame.user_talking:
            self._end_if_long(YOU, frame.seconds)
            gap = float("inf") if self.voice_turns else USER_GAP_S
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
            turn = self.turns[index]
            if frame.text:
                turn.text = (turn.text + frame.text) if turn.text else frame.text.lstrip()
                turn.last_text = frame.seconds
            changed.add(index)
        return changed

    def add_captions(self, pieces, turn_ends=()) -> set[int]:
        """Put the person's caption pieces ((seconds, text)) into their turns, and end their turn at
        each of ``turn_ends`` (seconds; only with ``voice_turns``), in time order. Returns the
        indices of the turns that changed (new ones included)."""
        events = sorted([(seconds, 1, text) for seconds, text in pieces]
                        + [(seconds, 0, "") for seconds in (turn_ends if self.voice_turns else ())],
                        key=lambda event: event[:2])  # stable: pieces of one time stay in their order
        changed: set[int] = set()
        for seconds, is_piece, text in events:
            if not is_piece:
                changed |= self._end_user_turn(seconds)
                continue
            index = self._caption_turn(seconds, text)
            turn = self.turns[index]
            turn.text = (turn.text + text) if turn.text else text.lstrip()
            self.captions.append((seconds, text))
            self._word_turn = index
            changed.add(index)
        return changed

    def _caption_turn(self, seconds: float, text: str) -> int:
        if self._word_turn is not None and text and not text[0].isspace():
            return self._word_turn  # the rest of a word
        # The person's turns do not overlap one another: the latest begun by then covers it, where one does.
        begun = [(t.start, i) for i, t in enumerate(self.turns) if t.speaker == YOU and t.start <= seconds]
        if begun:
            return max(begun)[1]
        self.turns.append(Turn(YOU, seconds, seconds + FRAME_SECONDS))  # heard before any turn of theirs
        return len(self.turns) - 1

    def _end_user_turn(self, at: float) -> set[int]:
        """The caption model says the person's turn ended at ``at``: their open turn ends there, and
        its frames from ``at`` on go on in a new turn."""
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
        self.turns.append(rest)
        self._open[YOU] = len(self.turns) - 1
        return {index, len(self.turns) - 1}

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

    def load(self, entries, user_audio: np.ndarray | None = None, assistant_audio: np.ndarray | None = None,
             captions=(), turn_ends=()) -> None:
        """Rebuild from the engine's transcript ((frame_index, seconds, text) tuples), when the file
        has them the recorded audio of both sides (the user side is what the model heard), the
        person's captions ((seconds, text) pieces) and where the caption model ended their turns
        (seconds)."""
        self.clear()
        texts: dict[int, str] = {}
        for frame_index, _seconds, text in entries:
            texts[int(frame_index)] = texts.get(int(frame_index), "") + text
        frames = max([len(a) // FRAME_SIZE for a in (user_audio, assistant_audio) if a is not None]
                     + [max(texts, default=-1) + 1])
        ends = sorted(turn_ends)
        voice_turns, self.voice_turns = self.voice_turns, bool(ends)  # no ends stored: silence splits
        for i in range(frames):
            while ends and _first_frame_after(ends[0]) <= i:  # where the end cut the open turn live
                self._end_user_turn(ends.pop(0))
            user_db = _frame_db(user_audio, i)
            self.add_frame(FrameObservation(i * FRAME_SECONDS, user_db > SPEECH_DB, user_db,
                                            _frame_db(assistant_audio, i), texts.get(i, "")))
        for seconds in ends:  # after the last frame: they end the open turn
            self._end_user_turn(seconds)
        self.voice_turns = voice_turns
        self.add_captions(captions)

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


def _frame_db(audio: np.ndarray | None, index: int) -> float:
    if audio is None:
        return level_db(np.zeros(0, np.float32))
    return level_db(audio[index * FRAME_SIZE:(index + 1) * FRAME_SIZE])


def clock(seconds: float) -> str:
    minutes, rest = divmod(seconds, 60.0)
    return f"{int(minutes):02d}:{rest:04.1f}"
