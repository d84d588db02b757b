"""Kyutai TTS 1.6B's frame for ``bench.bench_shapes``: the whole LM step as ``parley say`` runs it
(the 16 temporal layers with their KV cache filled to the 500-step context and cross-attention to a
released voice's 5 x 125 slots, the summed conditions, the text head, then 32 codebooks through the
scheduled 4-layer depth transformer, sampling at the released temperature), random weights at the
released shapes (``bench.tts_model``). Mimi's decode is left out, as the other rows leave it out.
Its floor reads each distinct weight once (the embedding tables but their rows and the conditioners,
used once a voice, left out), the KV cache and the voice's keys and values: a floor, not a bound a
frame can reach, as the depth transformer's 32 steps read 32 weight sets of which 11 are distinct
(steps 8-31 share theirs by eight): 21 more sets of 42 M weights, 3.5 GB more in float32."""

from __future__ import annotations

import torch

from bench import tts_model
from engine.kernels import int4_tiled
from engine.lm.step import Forcing, Probe

NAME = "kyutai-tts"
_TABLES = ("text_emb.weight", "depformer_text_emb.weight")


def timed(precision: str, forced_steps: int, name: str = NAME):
    """(frame, bytes a frame reads, the forced steps' temporal outputs [forced_steps, dim] float32)."""
    dtype = torch.bfloat16 if precision == "bfloat16" else torch.float32
    cpu = torch.device("cpu")
    generator = tts_model.build_generator(name, cpu, dtype, precision)
    if precision == "int4":
        int4_tiled.prepare_tiles(generator.lm)
    state = tts_model.voiced_state(generator, name)
    _fill_temporal_cache(state["lm"]["temporal"])
    state["tokens"]["offset"].fill_(1000)  # past every delay: all 32 codebooks are written
    user = torch.empty(1, 0, dtype=torch.long)
    g = torch.Generator().manual_seed(2)
    config = generator.config
    tokens = [torch.cat([torch.randint(0, config.text_card, (1, 1), generator=g),
                         torch.randint(0, config.card, (1, config.dep_q), generator=g)], dim=1)
              for _ in range(forced_steps)]
    hidden = []
    with torch.inference_mode():
        for t in tokens:
            generator.step(user, state, Forcing(t, sample=True), Probe(hidden=lambda h: hidden.append(h.float())))
    forced = torch.cat([h.view(1, -1) for h in hidden])
    choice = torch.tensor([[config.text_card, 3]])

    def frame():
        return generator.step(user, state, Forcing(text_choice=choice))

    return frame, _bytes(generator.lm, state["lm"]["temporal"]), forced


def _fill_temporal_cache(temporal: dict) -> None:
    """The ring full of random past keys and values, as after a long stream (the voice's kept)."""
    g = torch.Generator().manual_seed(1)
    for cache in temporal["layers"].values():
        for key in ("k", "v"):
            cache[key].copy_(torch.randn(cache[key].shape, generator=g))
    capacity = temporal["positions"].shape[0]
    temporal["positions"].copy_(torch.arange(capacity))
    temporal["offset"].fill_(capacity)


def _bytes(lm: torch.nn.Module, temporal: dict) -> int:
    from bench.bench_shapes import bytes_per_frame

    total = bytes_per_frame(lm, temporal)  # every weight once, and the temporal keys and values
    for name, p in lm.named_parameters():
        if name in _TABLES or (name.startswith(("emb.", "depformer_emb.")) and name.endswith(".weight")
                               and "low_rank" not in name) or name.startswith("condition_provider."):
            total -= p.numel() * p.element_size()
    return total
