"""Kyutai TTS's frames to its voice, as the reference's ``TTSModel.simple_generate`` decodes them."""

from __future__ import annotations

import torch

from ..codec.mimi import Mimi
from ..lm.step import StepResult

CLICK_FRAMES = 2  # decoded frames the reference drops ("a little click at the beginning")


class SpeechDecoder:
    """Aligned batch-1 frames in, the voice out a frame at a time: the frames after the audio delay
    decoded one at a time and clipped to [-1, 1], the first two dropped, none kept past the text's
    end step. ``push`` returns [1920] samples or None (nothing to play for this frame)."""

    def __init__(self, mimi: Mimi, delay_steps: int, device: torch.device):
        self.mimi, self.delay_steps = mimi, delay_steps
        self.state = mimi.init_state(1, device)
        self.frames = 0  # aligned frames pushed

    def push(self, frame: StepResult, end_step: int | None) -> torch.Tensor | None:
        index = self.frames - self.delay_steps - CLICK_FRAMES  # its place among the kept frames
        self.frames += 1
        if index + CLICK_FRAMES < 0:
            return None
        pcm = self.mimi.decode_step(frame.audio[:, :self.mimi.num_codebooks, None], self.state).clamp(-1, 1)
        if index < 0 or (end_step is not None and index >= end_step):
            return None
        return pcm[0, 0]

