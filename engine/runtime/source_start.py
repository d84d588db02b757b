"""Where a source starts and ends, as kyutai's ``hibiki-zero`` 0.0.4 ``generate`` has it: ``max_delay``
frames of silence, encoded on their own, lead the stream (the generator reads what it is given at
its first steps as the past); the source's frames then go through a fresh encoder, the session's;
its end is marked at frame ``ceil(duration × frame rate)``, computed in the reference's floats."""

from __future__ import annotations

import math

import torch

from ..audio import FRAME_SIZE, SAMPLE_RATE
from ..codec.mimi import Mimi
from ..state import StateTree

FRAME_RATE = SAMPLE_RATE / FRAME_SIZE  # 12.5, exactly Mimi's frame_rate in the reference


def lead_in(mimi: Mimi, generator, gen_state: StateTree) -> int:
    """Step ``generator`` through the silence that leads a source where its rules ask for it; the steps taken."""
    if not generator.config.rules.leads_with_silence:
        return 0
    steps = generator.max_delay
    device = gen_state["tokens"]["cache"].device
    silence = torch.zeros(1, 1, steps * FRAME_SIZE, device=device, dtype=mimi.pcm_dtype)
    with torch.inference_mode():
        codes = mimi.encode_step(silence, mimi.init_state(1, device))  # its own encoder state
        for t in range(steps):
            generator.step(codes[:, :, t].contiguous(), gen_state)
    return steps


def source_frames(samples: int, ends_source: bool) -> int:
    """The frames a source of ``samples`` is fed as, before its end where it ``ends_source``: whole
    frames, or the reference's end index (a frame more at a few lengths, 13440 samples the first)."""
    frames = -(-samples // FRAME_SIZE)
    return max(frames, math.ceil(samples / SAMPLE_RATE * FRAME_RATE)) if ends_source else frames
