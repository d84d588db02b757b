"""One frame at the released models' shapes, at every precision this CPU offers, beside its floor.

A frame here is one token step through a model's temporal transformer with its KV cache filled to
the model's context (random weights built here: nothing is downloaded): Kyutai STT 1B, Moshi 7B's
temporal transformer and Pocket TTS's FlowLM; for Kyutai TTS 1.6B the whole LM step, its depth
transformer's 32 codebooks included (``bench.shapes_tts``). One row a step reads every weight once, so a frame is
bound by memory bandwidth; the bandwidth measured by this tool gives each row its floor (the bytes
a frame reads, weights and KV cache, over the bandwidth). Precisions: float32 (the exact path),
bfloat16 (weights, activations and cache; ATen's matmul), int8 and int4 (float32 activations and
cache, the engine's CPU kernels: ``engine.kernels``). The 7B is built and timed on a subset of its
layers and scaled linearly (``layers_built`` / ``layers`` in each row): its float32 weights alone
would take 28 GB. bfloat16, int8 and int4 are timed in the same run, frames interleaved; float32
alone before them (memory). The frame leaves out what is not the transformer (Mimi, the text head,
the 7B's depth transformer, Pocket TTS's flow network).

    python -m bench.bench_shapes [--models stt-1b moshi-7b pocket-tts kyutai-tts] [--frames 20] [--threads 2]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import torch

from bench.common import cpu_model, load_average, summary
from engine.kernels import int4_tiled, int8
from engine.kernels.int4 import TILES_ATTRIBUTE, Int4Weight
from engine.kernels.int8 import Int8Weight
from engine.kernels.quantize import quantize_lm
from engine.streaming.transformer import StreamingTransformer, TransformerConfig

RESULTS = Path(__file__).resolve().parent / "results"
PRECISIONS = ("float32", "bfloat16", "int8", "int4")
BANDWIDTH_BYTES = 512 * 2**20  # read per bandwidth measurement: far beyond the caches
FORCED_STEPS = 8  # teacher-forced steps compared with float32 (the same inputs for every precision)
HEAD_TOKENS = 8001  # a random text head over the outputs (the STT 1B's text vocabulary and padding)


@dataclass(frozen=True)
class Shape:
    """A model's temporal transformer as released, and how many of its layers this tool builds."""

    title: str
    d_model: int
    num_layers: int
    num_heads: int
    dim_feedforward: int  # as the model's config gives it (gated FFNs take 2/3 of it: ``gating_hidden``)
    context: int  # steps in the KV cache when the frame runs
    gating: str = "silu"
    norm: str = "rms_norm_f32"
    max_period: float = 10_000.0
    layers_built: int | None = None  # None: all
    whole_lm_step: bool = False  # the frame is the LM's whole step (bench.shapes_tts), not the transformer's

    @property
    def built(self) -> int:
        return self.layers_built or self.num_layers

    def config(self) -> TransformerConfig:
        return TransformerConfig(d_model=self.d_model, num_heads=self.num_heads, num_layers=self.built,
                                 dim_feedforward=self.dim_feedforward, norm=self.norm, gating=self.gating,
                                 max_period=self.max_period, context=self.context)


# engine/families/stt.py (kyutai's published stt-1b-en_fr), LMConfig.moshi_7b(), pocket-tts 4.0.1's
# english config (flow_lm.transformer: d_model 1024, hidden_scale 4, 16 heads, 6 layers, an ungated
# GELU MLP, LayerNorm; no context limit: 1000 steps here, 80 s of speech at 12.5 Hz)
SHAPES = {
    "stt-1b": Shape("Kyutai STT 1B", 2048, 16, 16, 8192, 750, max_period=100_000.0),
    "moshi-7b": Shape("Moshi 7B temporal transformer", 4096, 32, 32, 16896, 3000, layers_built=4),
    "pocket-tts": Shape("Pocket TTS FlowLM", 1024, 6, 16, 4096, 1000, gating="none", norm="layer_norm"),
    # engine/families/kyutai_tts.py (tts-1.6b-en_fr): its temporal transformer, and a depth transformer
    "kyutai-tts": Shape("Kyutai TTS 1.6B LM step", 2048, 16, 16, 8448, 500, whole_lm_step=True),
}


def memory_bandwidth_gb_s(repeats: int = 7) -> float:
    """GB/s of reading ``BANDWIDTH_BYTES`` of float32 (a sum, torch's threads): the median of
    ``repeats`` after one warm-up."""
    data = torch.ones(BANDWIDTH_BYTES // 4)
    times = []
    for _ in range(repeats + 1):
        started = time.perf_counter()
        data.sum()
        times.append(time.perf_counter() - started)
    return BANDWIDTH_BYTES / statistics.median(times[1:]) / 1e9


def build(shape: Shape, precision: str, seed: int = 0) -> StreamingTransformer:
    """The transformer with random weights at ``precision``, made one layer at a time (a quantised
    model never holds more than one float layer); int4 tiled for torch's fused kernel."""
    model = StreamingTransformer(shape.config(), device="meta").eval().requires_grad_(False)
    gen = torch.Generator().manual_seed(seed)
    dtype = torch.bfloat16 if precision == "bfloat16" else torch.float32
    for layer in model.layers:
        layer.to_empty(device="cpu")
        with torch.no_grad():
            for name, param in layer.named_parameters():
                if param.dim() == 2:
                    param.copy_(torch.randn(param.shape, generator=gen) * param.shape[1] ** -0.5)
                else:
                    param.fill_(1.0 if "weight" in name or "alpha" in name else 0.0)
        layer.to(dtype)
        if precision in ("int8", "int4"):
            quantize_lm(layer, Int8Weight if precision == "int8" else Int4Weight)
    if precision == "int4":
        int4_tiled.prepare_tiles(model)
    return model


def filled_state(model: StreamingTransformer, dtype: torch.dtype) -> dict:
    """A KV cache holding ``context`` past steps (random keys and values), as after a long stream."""
    state = model.init_state(1, device="cpu", dtype=dtype)
    capacity = state["positions"].shape[0]
    gen = torch.Generator().manual_seed(1)
    for cache in state["layers"].values():
        for t in cache.values():
            t.copy_(torch.randn(t.shape, generator=gen))
    state["positions"].copy_(torch.arange(capacity))
    state["offset"].fill_(capacity)
    return state


def bytes_per_frame(model: StreamingTransformer, state: dict) -> int:
    """What a frame reads: each matmul weight as its kernel reads it (int4: the tiles), the norms,
    and every layer's keys and values."""
    total = 0
    for module in model.modules():
        tiles = getattr(module, TILES_ATTRIBUTE, {})
        for name in getattr(module, "quantized_weights", {}):
            if name in tiles and tiles[name].by_rows:
                total += sum(fused.bytes() for fused in tiles[name].by_rows.values())
            else:
                total += sum(t.numel() * t.element_size() for t in getattr(module, name).tensors())
        total += sum(p.numel() * p.element_size() for p in module.parameters(recurse=False))
    cache = sum(t.numel() * t.element_size() for c in state["layers"].values() for t in c.values())
    return total + cache


@dataclass
class Timed:
    """One (model, precision): its frame, input and state, and its times (ms)."""

    precision: str
    frame: Callable[[], torch.Tensor]
    bytes: int
    ms: list
    forced: torch.Tensor  # [FORCED_STEPS, d_model] float32: the outputs of the teacher-forced steps

    @classmethod
    def of(cls, shape: Shape, precision: str) -> Timed:
        if shape.whole_lm_step:
            from bench import shapes_tts

            frame, frame_bytes, forced = shapes_tts.timed(precision, FORCED_STEPS)
            return cls(precision, frame, frame_bytes, [], forced)
        model = build(shape, precision)
        dtype = torch.bfloat16 if precision == "bfloat16" else torch.float32
        state = filled_state(model, dtype)
        inputs = torch.randn(FORCED_STEPS + 1, 1, 1, shape.d_model, generator=torch.Generator().manual_seed(2))
        with torch.inference_mode():
            forced = torch.cat([model(x.to(dtype), state).float().view(1, -1) for x in inputs[1:]])
        x = inputs[0].to(dtype)
        return cls(precision, lambda: model(x, state), bytes_per_frame(model, state), [], forced)

    def run(self) -> None:
        started = time.perf_counter()
        self.frame()
        self.ms.append((time.perf_counter() - started) * 1e3)


def agreement(forced: torch.Tensor, reference: torch.Tensor) -> dict:
    """How far teacher-forced outputs are from float32's (the same inputs and cache every step): the
    relative error of the outputs, and through a random text head, the steps whose greedy token
    agrees and the mean KL divergence (nats) of the token distribution, KL(float32 || this)."""
    head = torch.randn(HEAD_TOKENS, reference.shape[1], generator=torch.Generator().manual_seed(3))
    head *= reference.shape[1] ** -0.5 * 4  # logits spread over a few units, as a trained head's
    want, got = torch.log_softmax(reference @ head.T, -1), torch.log_softmax(forced @ head.T, -1)
    return {"forced_steps": reference.shape[0],
            "relative_error": round(float((forced - reference).norm() / reference.norm()), 5),
            "token_agreement": float((want.argmax(-1) == got.argmax(-1)).float().mean()),
            "mean_kl": round(float((want.exp() * (want - got)).sum(-1).clamp(min=0).mean()), 6)}


def time_interleaved(timed: list[Timed], frames: int, warmup: int) -> None:
    """Warm-up frames (each int8 weight shape's kernel is measured in the first), then ``frames``
    rounds, one frame of each in turn (ABBA order), so that drifting load reaches them alike."""
    with torch.inference_mode():
        for t in timed:
            for _ in range(warmup):
                t.frame()
        for i in range(frames):
            for t in (timed if i % 2 == 0 else reversed(timed)):
                t.run()


def measure(name: str, shape: Shape, precisions: tuple[str, ...], frames: int, warmup: int,
            bandwidth: float) -> list[dict]:
    """Rows of one model (``bandwidth`` in bytes a second): float32 alone, the others interleaved."""
    rows, reference = [], None
    groups = [[p] for p in precisions if p == "float32"] + [[p for p in precisions if p != "float32"]]
    for group in (g for g in groups if g):
        timed = [Timed.of(shape, p) for p in group]
        reference = next((t.forced for t in timed if t.precision == "float32"), reference)
        time_interleaved(timed, frames, warmup)
        scale = shape.num_layers / shape.built
        for t in timed:
            stats = summary([ms * scale for ms in t.ms])
            floor = t.bytes * scale / bandwidth * 1e3
            rows.append({"model": name, "title": shape.title, "precision": t.precision, **stats,
                         "floor_ms": round(floor, 2), "vs_floor": round(stats["median_ms"] / floor, 2),
                         "bytes_per_frame": int(t.bytes * scale), "layers_built": shape.built,
                         "layers": shape.num_layers, "context": shape.context,
                         **({} if reference is None else agreement(t.forced, reference))})
            print(_line(rows[-1]), flush=True)
        del timed, t  # the models: the next group is built in their memory
        gc.collect()
    return rows


def _line(row: dict) -> str:
    agrees = f"{row['token_agreement']:.0%}, {row['relative_error']:.3f}" if "token_agreement" in row else "-"
    return (f"| {row['title']} | {row['precision']} | {row['median_ms']:.1f} | {row['p95_ms']:.1f} | "
            f"{row['floor_ms']:.1f} | {row['vs_floor']:.1f}x | {row['bytes_per_frame'] / 1e9:.2f} | {agrees} |")


def kernel_choices() -> dict:
    """What the CPU's int8 and int4 kernels chose per weight shape, with their times (ms)."""
    int8_choices = {f"{k[2][0]}x{k[2][1]}": v for k, v in int8.KERNEL_CHOICES.items() if k[0] == "cpu"}
    int4_choices = {f"{k[0]}x{k[1]} g{k[2]}": {"ms": {str(d).removeprefix("torch."): ms for d, ms in v["ms"].items()},
                                               "compute": str(v["dtype"]).removeprefix("torch.")}
                    for k, v in int4_tiled.CPU_COMPUTE_CHOICES.items()}
    return {"int8": int8_choices, "int4": int4_choices}


def run(shapes: dict[str, Shape], precisions: tuple[str, ...], frames: int, warmup: int, threads: int) -> dict:
    torch.set_num_threads(threads)
    load_before = load_average()
    bandwidth = memory_bandwidth_gb_s()
    print(f"{cpu_model()}, torch {torch.__version__}, {threads} threads, load {load_before}, "
          f"memory bandwidth {bandwidth:.1f} GB/s", flush=True)
    print("| model | precision | median ms | p95 ms | floor ms | vs floor | GB a frame | vs float32: tokens, error |\n"
          + "|---" * 8 + "|")
    rows = [row for name, shape in shapes.items()
            for row in measure(name, shape, precisions, frames, warmup, bandwidth * 1e9)]
    return {"cpu": cpu_model(), "torch": torch.__version__, "threads": threads,
            "load_average_before": load_before, "load_average_after": load_average(),
            "bandwidth_gb_s": round(bandwidth, 2), "frames": frames, "warmup": warmup,
            "shapes": {name: asdict(shape) for name, shape in shapes.items()},
            "kernels": kernel_choices(), "rows": rows}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", nargs="+", choices=tuple(SHAPES), default=list(SHAPES))
    p.add_argument("--precisions", nargs="+", choices=PRECISIONS, default=list(PRECISIONS))
    p.add_argument("--frames", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--threads", type=int, default=torch.get_num_threads())
    p.add_argument("--out", type=Path, default=RESULTS / "shapes.json")
    args = p.parse_args(argv)
    report = run({name: SHAPES[name] for name in args.models}, tuple(args.precisions), args.frames, args.warmup,
                 args.threads)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
