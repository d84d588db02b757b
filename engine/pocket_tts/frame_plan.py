"""Whole frames decide between two kernel plans at load: the per-shape choice (``kernels``, timed
on one weight again and again, which a cache holds) and the float16-weight kernel on every weight
exact in float16. A frame streams more weights than any cache holds, so a weight small enough to
stay cached while it is timed alone is read from memory in a frame, where half the bytes may pay
more than the per-shape timing saw. The two plans alternate frame by frame on a scratch state and
the one with the lower median CPU time stays. Both are exact (float32 up to summation order)."""

from __future__ import annotations

import time

import torch
from torch import nn

from ..kernels.half_weight import HalfWeightMatmul
from ..kernels.packed import PackedLinear

FRAMES = 7  # timed frames of each plan, after one each to warm up


def _linears(module: nn.Module) -> list[PackedLinear]:
    found = [m for m in module.modules() if isinstance(m, PackedLinear)]
    found += [m for owner in module.modules() for m in getattr(owner, "hidden_linears", list)()]
    return [m for m in found if m.weight.dtype == torch.float32]


def _scratch_frames(flow_lm, codec, frames: int):
    state, decoder = flow_lm.init_state(frames), codec.init_state()
    noise = torch.zeros(1, flow_lm.cfg.latent_dim)
    previous = [None]

    def frame() -> None:
        latent, _ = flow_lm.step(previous[0], state, noise)
        codec.decode(latent * flow_lm.emb_std + flow_lm.emb_mean, decoder)
        previous[0] = latent.view(1, 1, -1)
    return frame


def prefer_half_weights(flow_lm: nn.Module, codec: nn.Module) -> bool:
    """Keeps the faster of the two plans for the FlowLM and the codec's decoder transformer;
    True where the float16 weights won."""
    linears = _linears(flow_lm) + _linears(codec.decoder_transformer)
    planned = {m: m._matmul for m in linears}
    halves = {}
    for m in linears:
        if not isinstance(m._matmul, HalfWeightMatmul):
            half = HalfWeightMatmul()
            if half.pack(m.weight):
                halves[m] = half
    if not halves:
        return False
    plans = {"planned": planned, "half": {**planned, **halves}}
    frame = _scratch_frames(flow_lm, codec, 2 * (FRAMES + 1))
    times: dict[str, list[float]] = {name: [] for name in plans}
    with torch.no_grad():
        for i in range(FRAMES + 1):
            for name, plan in plans.items():
                for m, matmul in plan.items():
                    m._matmul = matmul
                start = time.thread_time()
                frame()
                if i:
                    times[name].append(time.thread_time() - start)
    best = min(times, key=lambda name: sorted(times[name])[FRAMES // 2])
    for m, matmul in plans[best].items():
        m._matmul = matmul
    return best == "half"
