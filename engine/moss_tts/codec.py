"""MOSS-Audio-Tokenizer's streaming decoder: codes -> 24 kHz PCM, its state as data.

State: one ring cache per decoder transformer, capacity = that transformer's context (the
reference's). A decode call writes all its steps' keys first, then attends; so a query sees the
keys no older than ``context`` steps before the *end of the call*, and two chunkings of the same
codes agree only while the stream is shorter than the window. ``decode`` is one reference call
(``decode`` inside ``streaming()``); ``decode_stream`` chunks as MOSS-TTS-Realtime does.
"""

from __future__ import annotations

import torch
from torch import nn

from ..state import StateTree
from ..streaming.kv_cache import RingSpec
from ..streaming.transformer import StreamingTransformer, TransformerConfig
from .codec_config import CodecConfig, PatchStage, TransformerStage
from .codec_quantizer import QuantizerDecoder

REALTIME_CHUNK_FRAMES = 3  # MOSS-TTS-Realtime's example decodes 3 frames a call (decode_chunk_frames)


def call_sizes(frames: int, chunk_frames: int, initial_chunk_frames: int | None = None) -> list[int]:
    """The frames of each decode call the reference's ``AudioStreamDecoder`` (no overlap) makes for a
    stream of ``frames``: ``chunk_frames`` a call, or ``initial_chunk_frames`` growing by one a call up
    to it; the remainder in a last call (``flush``)."""
    if chunk_frames < 1 or (initial_chunk_frames is not None and initial_chunk_frames < 1):
        raise ValueError("a decode call takes at least one frame")
    sizes: list[int] = []
    left = frames
    while True:
        size = chunk_frames if initial_chunk_frames is None else min(initial_chunk_frames + len(sizes), chunk_frames)
        if left < size:
            break
        sizes.append(size)
        left -= size
    return sizes + ([left] if left else [])


class CallTransformer(StreamingTransformer):
    """A streaming transformer that takes each call in one attention pass (no frame splitting)."""

    def forward(self, x: torch.Tensor, state: StateTree, step: int = 0) -> torch.Tensor:
        self._check_input(x, state, step)
        if x.shape[1] > self.cfg.ring.capacity:
            raise ValueError(f"a call of {x.shape[1]} steps overflows a ring of {self.cfg.ring.capacity}")
        return self._forward_chunk(x, state, step)


def transformer_config(stage: TransformerStage) -> TransformerConfig:
    """Capacity == context (one step per frame, one step per call sizes no extra slots): with all
    of a call's keys written before it attends, the window ends at the call's last step."""
    return TransformerConfig(d_model=stage.d_model, num_heads=stage.num_heads, num_layers=stage.num_layers,
                             dim_feedforward=stage.dim_feedforward, norm="layer_norm", gating="none",
                             layer_scale=stage.layer_scale, positional_embedding="rope",
                             max_period=stage.max_period, context=stage.context, steps_per_frame=1,
                             max_steps_per_call=1)


class ProjectedTransformer(nn.Module):
    """[B, T, input] -> [B, T, output] through a d_model transformer (projections where widths differ)."""

    def __init__(self, stage: TransformerStage):
        super().__init__()
        self.input_proj = nn.Linear(stage.input_dimension, stage.d_model, bias=False) \
            if stage.input_dimension != stage.d_model else nn.Identity()
        self.transformer = CallTransformer(transformer_config(stage))
        self.output_proj = nn.Linear(stage.d_model, stage.output_dimension, bias=False) \
            if stage.output_dimension != stage.d_model else nn.Identity()

    def forward(self, x: torch.Tensor, state: StateTree) -> torch.Tensor:
        return self.output_proj(self.transformer(self.input_proj(x), state))


class Patch(nn.Module):
    def __init__(self, stage: PatchStage):
        super().__init__()
        self.size = stage.patch_size

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """[B, T, C * size] -> [B, T * size, C]: channel c * size + j of step t is channel c of step t * size + j."""
        batch, steps, width = x.shape
        return x.view(batch, steps, width // self.size, self.size).transpose(2, 3).reshape(batch, steps * self.size, -1)


class MossCodecDecoder(nn.Module):
    """The decoder half of the codec; parameter names are the released file's (``quantizer.*``, ``decoder.*``)."""

    def __init__(self, cfg: CodecConfig):
        super().__init__()
        self.cfg = cfg
        self.quantizer = QuantizerDecoder(cfg.quantizer)
        self.decoder = nn.ModuleList(Patch(s) if isinstance(s, PatchStage) else ProjectedTransformer(s)
                                     for s in cfg.decoder)

    def init_state(self, batch_size: int = 1) -> StateTree:
        return {str(i): stage.transformer.init_state(batch_size) for i, stage in enumerate(self.decoder)
                if isinstance(stage, ProjectedTransformer)}

    def reset_state(self, state: StateTree) -> None:
        for stage_state in state.values():
            RingSpec.reset(stage_state)

    def decode(self, codes: torch.Tensor, state: StateTree) -> torch.Tensor:
        """codes [B, n, T] (the first n codebooks; 1 <= T <= ``cfg.max_frames_per_call()``) -> PCM
        [B, T * samples per frame], continuing the stream ``state`` holds."""
        self._check_codes(codes)
        x = self.quantizer(codes).transpose(1, 2)  # [B, T, channels]
        for i, stage in enumerate(self.decoder):
            x = stage(x) if isinstance(stage, Patch) else stage(x, state[str(i)])
        return x.reshape(x.shape[0], -1)

    def decode_stream(self, codes: torch.Tensor, state: StateTree, chunk_frames: int = REALTIME_CHUNK_FRAMES,
                      initial_chunk_frames: int | None = None) -> torch.Tensor:
        """``decode`` over ``codes`` in the calls ``call_sizes`` plans."""
        sizes = call_sizes(codes.shape[2], chunk_frames, initial_chunk_frames)
        return torch.cat([self.decode(part, state) for part in codes.split(sizes, dim=2)], dim=1)

    def _check_codes(self, codes: torch.Tensor) -> None:
        q = self.cfg.quantizer
        if codes.dim() != 3 or not 1 <= codes.shape[1] <= q.num_quantizers:
            raise ValueError(f"expected codes [batch, 1..{q.num_quantizers} codebooks, frames], got "
                             f"{tuple(codes.shape)}")
        if not 1 <= codes.shape[2] <= self.cfg.max_frames_per_call():
            raise ValueError(f"a decode call takes 1 to {self.cfg.max_frames_per_call()} frames, got {codes.shape[2]}")
        if codes.dtype not in (torch.int32, torch.int64):
            raise ValueError(f"expected integer codes, got {codes.dtype}")
