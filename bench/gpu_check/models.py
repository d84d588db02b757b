"""The models the check runs: the demo's files, or random weights in the 7B (or a tiny) Moshi and
PersonaPlex configurations built as a load builds them; the reference package's for the same model."""

from __future__ import annotations

import gc
import json
import time
from dataclasses import asdict, replace
from pathlib import Path

import torch

from engine.codec.mimi import Mimi, MimiConfig, load_mimi
from engine.files.hub_layout import MIMI_NAME, MOSHI_NAME
from engine.kernels import int4_tiled
from engine.kernels.quantize import load_targets, quantizer
from engine.lm.model import LMConfig, LMModel, load_lm, share_stored_steps

DEMO = "demo"  # the one bench model read from files (the demo's): ours and the reference load the same weights
TINY = LMConfig(dim=64, num_heads=4, num_layers=2, text_card=100, depformer_dim=32, depformer_dim_feedforward=64,
                depformer_num_heads=2, depformer_num_layers=1, context=50)
TINY_REFERENCE = dict(dim=64, num_heads=4, num_layers=2, text_card=100, depformer_dim=32,
                      depformer_dim_feedforward=64, depformer_num_heads=2, depformer_num_layers=1, context=50)


def build_ours(name: str, device: torch.device, dtype: torch.dtype, precision: str = "bfloat16"):
    """(mimi, lm): the demo's files, or random weights with the 7B (or a tiny) configuration, in
    the released layout (PersonaPlex: 8 stored depth-transformer steps, held once), with the LM's
    matmul weights at ``precision`` (int4: tiled for the fused kernel as a load does, on a GPU each
    tiled weight then held once, as tiles: ``engine.kernels.int4_tiled.prepare_tiles``)."""
    if name == DEMO:
        folder = demo_folder()
        mimi = load_mimi(folder / MIMI_NAME, device=device)
        lm = load_lm(folder / MOSHI_NAME, build_config(name), device=device, dtype=dtype, quantize=quantizer(precision))
    else:
        torch.manual_seed(0)
        mimi = Mimi(MimiConfig()).to(device).eval().requires_grad_(False)
        mimi.prepare()
        lm = random_lm(build_config(name), device, dtype, precision)
    if precision == "int4":
        print(f"{name}: {int4_tiled.prepare_tiles(lm).summary()}", flush=True)
    return mimi, lm


def random_lm(config: LMConfig, device: torch.device, dtype: torch.dtype, precision: str) -> LMModel:
    """An LM with seeded random weights, built as a load builds it: on the meta device, PersonaPlex's
    steps shared as its released 8-step file would have them, quantised there, then each weight
    filled in place (a quantised one quantises its float rows), so that no float copy of a
    quantised LM occupies the device. Every precision draws the same float weights."""
    with torch.device("meta"):
        lm = LMModel(config, dtype=dtype)
    if config.rules.stored_depth_steps:
        released = LMModel(replace(config, dep_q=config.dep_q // 2, model_type="moshi"), device="meta")
        shapes = {k: tuple(v.shape) for k, v in released.state_dict().items()}
        share_stored_steps(lm, {**shapes, "depformer_emb.7.weight": (config.card + 1, config.depformer_dim)})
    quantize = quantizer(precision)
    if quantize is not None:
        quantize(lm)
    lm = lm.to_empty(device=device)
    gen = torch.Generator(device=device).manual_seed(0)
    with torch.no_grad():
        for key, target in sorted(load_targets(lm).items()):
            shape = tuple(target.shape)
            if len(shape) != 2:  # the norms' gains (and layer scales)
                target.copy_(torch.ones(shape, device=device))
                continue
            w = torch.randn(shape, generator=gen, device=device)
            target.copy_(w if "emb" in key else w * shape[1] ** -0.5)
    return lm.eval().requires_grad_(False)


def build_config(name: str) -> LMConfig:
    if name == DEMO:
        return LMConfig.from_hub_config(json.loads((demo_folder() / "config.json").read_text()))
    tiny_personaplex = LMConfig.from_hub_config({**asdict(TINY), "model_type": "personaplex"})
    return {"tiny": TINY, "tiny-personaplex": tiny_personaplex,
            "moshi-7b": LMConfig.moshi_7b(), "personaplex-7b": LMConfig.personaplex_7b()}[name]


def build_reference(name: str, device: torch.device, dtype: torch.dtype):
    """The reference package's (mimi, lm) for the same model (random weights of its own for 7B)."""
    from moshi.models import loaders

    if name == DEMO:
        folder = demo_folder()
        info = loaders.CheckpointInfo.from_hf_repo(
            "local", moshi_weights=folder / MOSHI_NAME, mimi_weights=folder / MIMI_NAME,
            tokenizer=next(folder.glob("*.model")), config_path=folder / "config.json")
        return info.get_mimi(device=device), info.get_moshi(device=device, dtype=dtype)
    overrides = TINY_REFERENCE if name == "tiny" else {}
    return (loaders.get_mimi(None, device=device),
            loaders.get_moshi_lm(None, device=device, dtype=dtype, lm_kwargs_overrides=overrides))


def demo_folder() -> Path:
    from engine.files.demo import ensure_demo_model

    return ensure_demo_model()


def build_quantised(name: str, precision: str, device: torch.device, dtype: torch.dtype):
    """(mimi, lm, seconds): ``build_ours`` at ``precision``, timed."""
    t0 = time.perf_counter()
    mimi, lm = build_ours(name, device, dtype, precision)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return mimi, lm, round(time.perf_counter() - t0, 2)


def release(device: torch.device) -> None:
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()
