"""Captions of what the person says beside a conversation: each frame the session heard steps a
speech-to-text model; times are conversation times (from ``start_frame``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..audio import FRAME_SECONDS, FRAME_SIZE
from .transcriber import CaptionStep, SpeechToText, TranscriptionStream
from .voice_activity import TurnEnds


@dataclass(frozen=True)
class CaptionUpdate:
    """What one ``hear`` (or ``finish``) added: the steps with text, dated in the conversation, and
    the last step's voice-activity heads (empty where the model has none or no step ran)."""

    pieces: tuple[CaptionStep, ...]
    voice_activity: tuple[tuple[float, ...], ...] = ()
    turn_ends: tuple[float, ...] = ()  # where the heads say the person's turn ended (``voice_activity``)

    @property
    def text(self) -> str:
        """The text the person's turn gains (its pieces joined; a piece may start a word with a space)."""
        return "".join(p.text for p in self.pieces)


class Captioner:
    """One speech-to-text stream over the person's side of a conversation. Not thread-safe."""

    def __init__(self, model: SpeechToText, start_frame: int = 0):
        if start_frame < 0:
            raise ValueError(f"start_frame must be >= 0, got {start_frame}")
        self.model = model
        self.start_frame = start_frame
        self._stream: TranscriptionStream = model.new_stream()
        self._text: list[str] = []
        self._turn_ends = TurnEnds()

    @property
    def text(self) -> str:
        """Everything captioned so far."""
        return "".join(self._text).strip()

    def hear(self, pcm: np.ndarray) -> CaptionUpdate:
        """The next frame the conversation heard (float32 [FRAME_SIZE] at 24 kHz)."""
        if np.shape(pcm) != (FRAME_SIZE,):
            raise ValueError(f"expected one frame of {FRAME_SIZE} samples, got shape {np.shape(pcm)}")
        return self._update(self._stream.feed(pcm))

    def prime(self) -> CaptionUpdate:
        """Step over the silence the model hears before the person's audio now, so the first ``hear``
        need not step it all in one frame's time; the result is the same."""
        return self._update(self._stream.feed(np.zeros(0, np.float32)))

    def finish(self) -> CaptionUpdate:
        """The words still behind the model's delay (the conversation paused or ended)."""
        return self._update(self._stream.finish())

    def _update(self, steps: list[CaptionStep]) -> CaptionUpdate:
        offset = self.start_frame * FRAME_SECONDS
        pieces = tuple(CaptionStep(s.step, s.token, s.text, s.seconds + offset, s.voice_activity)
                       for s in steps if s.text)
        self._text.extend(p.text for p in pieces)
        ends = tuple(s.seconds + offset for s in steps if self._turn_ends.observe(s.voice_activity))
        return CaptionUpdate(pieces, steps[-1].voice_activity if steps else (), ends)
