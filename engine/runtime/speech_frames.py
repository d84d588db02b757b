"""Kyutai TTS's frames to its voice, as the reference's ``TTSModel.simple_generate`` decodes them."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from ..codec.mimi import Mimi
from ..lm.step import StepResult


def speech_pcm(mimi: Mimi, frames: Sequence[StepResult], delay_steps: int, end_step: int | None) -> torch.Tensor:
    """The voice of batch-1 ``frames`` [samples]: the frames after the audio delay decoded one at a
    time and clipped to [-1, 1], the first two dropped (the reference's cut of a click), ending at
    the text's end step (None: all)."""
    state = mimi.init_state(1, frames[0].audio.device) if frames else None
    pcm = [mimi.decode_step(f.audio[:, :mimi.num_codebooks, None], state).clamp(-1, 1) for f in frames[delay_steps:]]
    kept = pcm[2:][:end_step]
    return torch.cat([p[0, 0] for p in kept]) if kept else torch.zeros(0)
