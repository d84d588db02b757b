"""The values of a restored state, not only its shapes: an out-of-range token id (on CUDA a device-side
assert that ends the process's use of the GPU), NaN, or ring offsets that disagree with the counters."""

from __future__ import annotations

from collections.abc import Mapping

import torch

from ..audio import FRAME_SIZE
from .model import UNGENERATED_TOKEN

SCAN_ELEMENTS = 1 << 20
TOKEN_CACHE, TOKEN_OFFSET, TEMPORAL_OFFSET = "gen.tokens.cache", "gen.tokens.offset", "gen.lm.temporal.offset"


def check(record, lm_config=None) -> None:
    """Check a ``SavedConversation``'s counters, offsets, floats and (with ``lm_config``) token ids."""
    state: Mapping[str, torch.Tensor] = record.state
    if not record.decoded_frames <= record.frames <= record.generator_steps:
        raise ValueError(f"inconsistent counters: {record.frames} frames, {record.generator_steps} generator "
                         f"steps, {record.decoded_frames} decoded frames")
    for name, tensor in state.items():
        if tensor.is_floating_point() and not all_finite(tensor):
            raise ValueError(f"{name} holds NaN or infinite values")
        if name.endswith(".positions"):
            _check_ring(name.removesuffix(".positions"), tensor, state)
    if TEMPORAL_OFFSET in state and int(state[TEMPORAL_OFFSET].max()) != record.generator_steps:
        raise ValueError(f"the temporal transformer is at step {int(state[TEMPORAL_OFFSET].max())}, the "
                         f"conversation at {record.generator_steps}")
    if TOKEN_OFFSET in state and int(state[TOKEN_OFFSET].max()) - record.generator_steps not in (0, 1):
        raise ValueError(f"the token cache is at step {int(state[TOKEN_OFFSET].max())}, the conversation at "
                         f"{record.generator_steps}")
    if lm_config is not None and TOKEN_CACHE in state:
        check_token_cache(state[TOKEN_CACHE], lm_config, TOKEN_CACHE)
    for side in (record.user_audio, record.assistant_audio):
        if side is not None and side.size > record.frames * FRAME_SIZE:
            raise ValueError(f"{side.size} recorded samples for {record.frames} frames")


def check_token_cache(cache: torch.Tensor, lm_config, where: str) -> None:
    """A token cache [B, 1 + streams, columns] within [-2, text_card] / [-2, card] (-2: not generated)."""
    if cache.dtype != torch.long or cache.dim() != 3 or cache.numel() == 0:
        raise ValueError(f"{where} is not a token cache")
    low = int(cache.min())
    text_high, audio_high = int(cache[:, 0].max()), int(cache[:, 1:].max()) if cache.shape[1] > 1 else 0
    if low < UNGENERATED_TOKEN or text_high > lm_config.text_card or audio_high > lm_config.card:
        raise ValueError(f"{where} holds token ids outside this model's cards (text up to {lm_config.text_card}, "
                         f"audio up to {lm_config.card}; found {low}..{max(text_high, audio_high)})")


def all_finite(tensor: torch.Tensor) -> bool:
    """Whether every value is finite, scanning ``SCAN_ELEMENTS`` at a time."""
    flat = tensor.reshape(-1)
    return all(bool(torch.isfinite(flat[i:i + SCAN_ELEMENTS]).all()) for i in range(0, flat.numel(), SCAN_ELEMENTS))


def _check_ring(prefix: str, positions: torch.Tensor, state: Mapping[str, torch.Tensor]) -> None:
    """A ring KV cache: each slot holds a position written before its offset, or -1 (empty)."""
    offset = state.get(f"{prefix}.offset")
    if offset is None or offset.numel() == 0 or positions.numel() == 0:
        return
    at = int(offset.max())
    if int(offset.min()) < 0 or int(positions.min()) < -1 or int(positions.max()) >= at:
        raise ValueError(f"{prefix}: its slots' positions ({int(positions.min())}..{int(positions.max())}) do not fit "
                         f"its offset {at}")
