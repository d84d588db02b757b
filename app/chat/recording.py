"""A conversation with the language model as its file keeps it (``engine.ChatConversation``): one
timeline of both sides' audio, each exchange after the one before (the person's turn, then the
answer as it was played), with the words on it as every conversation file places them, so that the
library, replay and the exports treat it as any other conversation.

On the timeline the person's words are at the times the speech to text wrote them (clamped to their
turn, from its first frame heard above the speech level on), and their turn ends where their audio
does; the answer's words are spread evenly over its audio (the voice speaks at an even enough pace),
and an answer the voice made no sound of still takes a frame a few words, so that its words have a
place. The model's time to answer is not on it;
after each answer comes a pause a little longer than the one that ends the assistant's turns
(``app.conversation.transcript``), so that each answer is a turn of its own however short the
person's next turn is."""

from __future__ import annotations

import math

import numpy as np

from app.audio.levels import SPEECH_DB, level_db
from engine import FRAME_SECONDS, FRAME_SIZE, ChatConversation, LanguageModelSide, to_16_bit

WORDS_PER_SILENT_FRAME = 4  # an answer with no audio: how many of its words share a frame
# The silence after each answer: longer than the gap that ends an assistant's turn (1.5 s,
# ``app.conversation.transcript.ASSISTANT_GAP_S``, which this package may not import: it imports this one).
PAUSE_FRAMES = 25


class ChatTimeline:
    """Grows by one exchange at a time, on the thread that has them; ``conversation`` is a copy."""

    def __init__(self, side: LanguageModelSide, saved: ChatConversation | None = None) -> None:
        self.side = side
        self.frames = saved.frames if saved is not None else 0
        self._user = [saved.user_audio] if saved is not None else []
        self._assistant = [saved.assistant_audio] if saved is not None else []
        self._transcript = list(saved.transcript) if saved is not None else []
        self._captions = list(saved.captions) if saved is not None else []
        self._turn_ends = list(saved.turn_ends) if saved is not None else []

    @property
    def exchanges(self) -> int:
        """The person's turns on it."""
        return len(self._turn_ends)

    def add_exchange(self, person: np.ndarray, words, answer_audio: np.ndarray, answer_text: str) -> None:
        """The person's turn (``person``: float32 mono samples at 24 kHz; ``words``: ``engine.Word``s
        timed from its start), then the answer as it was played and its words."""
        start = self.frames * FRAME_SECONDS
        self._add_audio(person, user=True)
        end = self.frames * FRAME_SECONDS
        # Not before the middle of the turn's first frame heard above the speech level, where the
        # reopened turn begins (a word dated before it would go to the person's previous turn).
        heard = next((i for i in range(len(person) // FRAME_SIZE)
                      if level_db(person[i * FRAME_SIZE:(i + 1) * FRAME_SIZE]) > SPEECH_DB), 0)
        first = min(start + (heard + 0.5) * FRAME_SECONDS, end)
        for word in words:
            self._captions.append((round(min(max(start + word.start, first), end), 3), " " + word.text))
        self._turn_ends.append(round(end, 3))  # as the file keeps it
        first = self.frames
        self._add_audio(answer_audio, user=False)
        said = answer_text.split()
        if said and self.frames == first:  # no sound of it: its words still take their place
            self._add_audio(np.zeros(math.ceil(len(said) / WORDS_PER_SILENT_FRAME) * FRAME_SIZE, np.float32),
                            user=False)
        span = self.frames - first
        for frame in range(span):
            piece = " ".join(said[len(said) * frame // span:len(said) * (frame + 1) // span])
            if piece:
                index = first + frame
                self._transcript.append((index, round(index * FRAME_SECONDS, 3), " " + piece))
        self._add_audio(np.zeros(PAUSE_FRAMES * FRAME_SIZE, np.float32), user=False)

    def _add_audio(self, samples: np.ndarray, user: bool) -> None:
        """``samples`` on one side (silence on the other), padded to whole frames."""
        frames = math.ceil(len(samples) / FRAME_SIZE)
        if not frames:
            return
        padded = np.zeros(frames * FRAME_SIZE, np.float32)
        padded[:len(samples)] = to_16_bit(np.asarray(samples, np.float32).reshape(-1))  # as the file keeps them
        silence = np.zeros_like(padded)
        self._user.append(padded if user else silence)
        self._assistant.append(silence if user else padded)
        self.frames += frames

    def conversation(self, messages) -> ChatConversation:
        """The file's contents now, with the language model's ``messages``."""
        def joined(parts: list[np.ndarray]) -> np.ndarray:
            return np.concatenate(parts) if parts else np.zeros(0, np.float32)

        return ChatConversation(self.side, tuple(dict(m) for m in messages), self.frames, tuple(self._transcript),
                                tuple(self._captions), tuple(self._turn_ends), joined(self._user),
                                joined(self._assistant))
