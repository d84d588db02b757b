"""One GPU check (< 5 minutes on a CUDA machine): CUDA graph vs eager parity, per-frame times,
int8, the reference on the same GPU, and the memory-bandwidth floor.

For the demo model (built locally, no download) and for a random-weight model with the full 7B
Moshi configuration (built on the device in bf16):

- eager ``FrameStep`` vs graph ``FrameStep`` from the same seed over ``--frames`` frames (sampled):
  the tokens must be identical (``parity``);
- per-frame time with CUDA events (median, p99): eager, graph, graph + int8 weight-only (and
  int8 with the unfused dequantisation, to see what the fused kernel buys);
- the reference ``moshi`` LMGen + Mimi (its own CUDA graphs, no torch.compile) on the same GPU;
- the bandwidth floor: bytes touched per frame (LM weights without embeddings, the temporal KV
  ring read by attention, Mimi's weights) / measured device-to-device copy bandwidth.

Graph frames run under ``torch.cuda.set_sync_debug_mode("error")`` (a host sync raises) and the
capture uses ``capture_error_mode="global"`` (inside ``FrameStep``).

    python -m bench.gpu_check                 # CUDA: writes bench/results/gpu_check.json
    python -m bench.gpu_check --smoke --out X # CPU, a tiny LM, a few frames (CI keeps it working)
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import sys
import time
from contextlib import nullcontext
from pathlib import Path

os.environ.setdefault("NO_TORCH_COMPILE", "1")  # the reference: compiling needs Triton and minutes

import torch  # noqa: E402

from bench.common import summary  # noqa: E402
from engine.codec.mimi import Mimi, MimiConfig, load_mimi  # noqa: E402
from engine.files.hub_layout import MIMI_NAME, MOSHI_NAME  # noqa: E402
from engine.kernels.quantize import _FUSED, quantize_lm_int8, weight_bytes  # noqa: E402
from engine.lm.generate import SamplingConfig, make_generator  # noqa: E402
from engine.lm.model import LMConfig, LMModel, load_lm  # noqa: E402
from engine.runtime.frame_step import FrameStep, sync_debug_error  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"

TINY = LMConfig(dim=64, num_heads=4, num_layers=2, text_card=100, depformer_dim=32, depformer_dim_feedforward=64,
                depformer_num_heads=2, depformer_num_layers=1, context=50)
TINY_REFERENCE = dict(dim=64, num_heads=4, num_layers=2, text_card=100, depformer_dim=32,
                      depformer_dim_feedforward=64, depformer_num_heads=2, depformer_num_layers=1, context=50)


class Clock:
    """Per-call milliseconds: CUDA events on a GPU, perf_counter on the CPU."""

    def __init__(self, device: torch.device):
        self.cuda = device.type == "cuda"

    def time(self, fn):
        if self.cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            out = fn()
            end.record()
            end.synchronize()
            return out, start.elapsed_time(end)
        t0 = time.perf_counter()
        out = fn()
        return out, (time.perf_counter() - t0) * 1e3


def run_ours(mimi, lm, inputs, device, graph: bool, seed: int = 7) -> dict:
    """Tokens of every frame and the times of the frames after the capture point."""
    gen = make_generator(lm, SamplingConfig())
    step = FrameStep(mimi, gen, {"mimi": mimi.init_state(1), "gen": gen.init_state(1, seed)}, use_cuda_graph=graph)
    clock, tokens, ms = Clock(device), [], []

    def guarded(pcm, i):
        replaying = step.graph_active and device.type == "cuda"
        with sync_debug_error() if replaying else nullcontext():  # replay: a host sync raises
            return step(pcm, i)

    for i, pcm in enumerate(inputs):
        timed = i > gen.first_output_frame + step.warmup  # after the capture frame: replay (or eager)
        (text, audio, _), t = clock.time(lambda pcm=pcm, i=i: guarded(pcm, i))
        tokens.append([int(text[0])] + audio[0].tolist())
        if timed:
            ms.append(t)
    return {"tokens": tokens, "times": summary(ms), "graph_active": step.graph_active,
            "fallback_reason": step.fallback_reason}


def run_reference(mimi, lm, inputs, device) -> dict:
    from moshi.models.lm import LMGen

    gen = LMGen(lm)
    clock, ms = Clock(device), []

    def frame(pcm):
        tokens = gen.step(mimi.encode(pcm))
        if tokens is not None:
            mimi.decode(tokens[:, 1:9])
        return tokens

    with torch.inference_mode(), mimi.streaming(1), gen.streaming(1):
        for i, pcm in enumerate(inputs):
            _, t = clock.time(lambda pcm=pcm: frame(pcm))
            if i > 3:
                ms.append(t)
    return {"times": summary(ms)}


def copy_bandwidth(device: torch.device, nbytes: int) -> float:
    """Device-to-device copy bandwidth in bytes/s, counting the read and the write."""
    src = torch.empty(nbytes, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    clock = Clock(device)
    dst.copy_(src)
    times = [clock.time(lambda: dst.copy_(src))[1] for _ in range(10)]
    return 2 * nbytes / (statistics.median(times) / 1e3)


def touched_bytes(mimi, lm, state_bytes_kv: int) -> int:
    """Weight bytes read per frame: the LM without its embedding tables (only 17 rows are read),
    the temporal KV ring (attention reads every slot, masked), and Mimi's weights."""
    embeddings = sum(p.numel() * p.element_size() for n, p in lm.named_parameters() if "emb" in n)
    codec = sum(p.numel() * p.element_size() for p in mimi.parameters())
    return weight_bytes(lm)["total"] - embeddings + state_bytes_kv + codec


def kv_bytes(lm) -> int:
    state = lm.transformer.init_state(1, device="meta")
    return sum(kv["k"].numel() * kv["k"].element_size() * 2 for kv in state["layers"].values())


def build_ours(name: str, device: torch.device, dtype: torch.dtype):
    """(mimi, lm): the demo's files, or random weights with the 7B (or a tiny) configuration."""
    if name == "demo":
        folder = demo_folder()
        config = LMConfig.from_hub_config(json.loads((folder / "config.json").read_text()))
        return (load_mimi(folder / MIMI_NAME, device=device),
                load_lm(folder / MOSHI_NAME, config, device=device, dtype=dtype))
    torch.manual_seed(0)
    mimi = Mimi(MimiConfig()).to(device).eval().requires_grad_(False)
    mimi.prepare()
    config = TINY if name == "tiny" else LMConfig.moshi_7b()
    return mimi, LMModel(config, device=device, dtype=dtype).eval().requires_grad_(False)


def build_reference(name: str, device: torch.device, dtype: torch.dtype):
    """The reference package's (mimi, lm) for the same model (random weights of its own for 7B)."""
    from moshi.models import loaders

    if name == "demo":
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


def check(name: str, device: torch.device, dtype: torch.dtype, frames: int, bandwidth: float) -> dict:
    if name not in ("demo", "moshi-7b", "tiny"):
        raise ValueError(f"unknown model {name!r}: expected demo, moshi-7b or tiny")
    mimi, lm = build_ours(name, device, dtype)
    gen = torch.Generator().manual_seed(1)
    inputs = [(0.1 * torch.randn(1, 1, 1920, generator=gen)).to(device) for _ in range(frames)]
    eager = run_ours(mimi, lm, inputs, device, graph=False)
    graph = run_ours(mimi, lm, inputs, device, graph=True)
    floor_bytes = touched_bytes(mimi, lm, kv_bytes(lm))
    quantize_lm_int8(lm)
    int8 = run_ours(mimi, lm, inputs, device, graph=True)
    fused_key = (device.type, dtype)
    int8_unfused = None
    if _FUSED.get(fused_key):
        _FUSED[fused_key] = False
        int8_unfused = run_ours(mimi, lm, inputs, device, graph=True)["times"]
        _FUSED[fused_key] = True
    int8_floor_bytes = touched_bytes(mimi, lm, kv_bytes(lm))
    same = [a == b for a, b in zip(eager["tokens"], graph["tokens"])]
    int8_same = [a == b for a, b in zip(graph["tokens"], int8["tokens"])]
    del lm, mimi
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()
    ref_mimi, ref_lm = build_reference(name, device, dtype)
    reference = run_reference(ref_mimi, ref_lm, inputs, device)
    del ref_mimi, ref_lm
    gc.collect()
    result = {
        "frames": frames,
        "parity_graph_vs_eager": all(same), "frames_identical": sum(same),
        "graph_active": graph["graph_active"], "fallback_reason": graph["fallback_reason"],
        "eager": eager["times"], "graph": graph["times"], "graph_int8": int8["times"],
        "graph_int8_unfused": int8_unfused, "int8_fused_kernel": bool(_FUSED.get(fused_key)),
        "int8_frames_identical_to_bf16": sum(int8_same),
        "reference": reference["times"],
        "bytes_per_frame": floor_bytes, "bytes_per_frame_int8": int8_floor_bytes,
        "floor_ms": round(floor_bytes / bandwidth * 1e3, 3),
        "floor_ms_int8": round(int8_floor_bytes / bandwidth * 1e3, 3),
    }
    ours, ref = result["graph"].get("median_ms"), result["reference"].get("median_ms")
    result["ours_over_reference"] = round(ours / ref, 3) if ours and ref else None
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="CPU-friendly: tiny configs, a few frames")
    parser.add_argument("--frames", type=int, default=None, help="frames per run (default 60; smoke 5)")
    parser.add_argument("--models", nargs="+", default=None, help="demo, moshi-7b, tiny")
    parser.add_argument("--out", type=Path, default=None, help="JSON output (default bench/results/gpu_check.json)")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    device = torch.device("cuda" if torch.cuda.is_available() and not args.smoke else "cpu")
    if device.type == "cpu" and not args.smoke:
        print("no CUDA device: run with --smoke for the CPU check", file=sys.stderr)
        return 2
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    frames = args.frames or (5 if args.smoke else 60)
    models = args.models or (["tiny"] if args.smoke else ["demo", "moshi-7b"])
    bandwidth = copy_bandwidth(device, (64 << 20) if args.smoke else (1 << 30))
    report = {
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else platform.processor() or "cpu",
        "torch": torch.__version__, "dtype": str(dtype), "smoke": args.smoke,
        "copy_bandwidth_gb_s": round(bandwidth / 1e9, 1),
        "reference_cuda_graph": os.environ.get("NO_CUDA_GRAPH", "0") in ("", "0"),
        "models": {},
    }
    for name in models:
        report["models"][name] = check(name, device, dtype, frames, bandwidth)
    report["wall_s"] = round(time.perf_counter() - t0, 1)
    print_table(report)
    out = args.out or RESULTS / "gpu_check.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")
    failed = [n for n, r in report["models"].items() if not r["parity_graph_vs_eager"]]
    if failed:
        print(f"graph and eager tokens differ for: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


def print_table(report: dict) -> None:
    print(f"{report['device']}  torch {report['torch']}  {report['dtype']}  copy {report['copy_bandwidth_gb_s']} GB/s")
    head = f"{'model':10} {'run':18} {'median ms':>10} {'p99 ms':>8}"
    print(head)
    for name, r in report["models"].items():
        for run in ("eager", "graph", "graph_int8", "graph_int8_unfused", "reference"):
            t = r.get(run) or {}
            if t.get("n"):
                print(f"{name:10} {run:18} {t['median_ms']:>10.2f} {t['p99_ms']:>8.2f}")
        print(f"{name:10} floor bf16/int8: {r['floor_ms']:.2f} / {r['floor_ms_int8']:.2f} ms; parity "
              f"{r['frames_identical']}/{r['frames']}; graph {r['graph_active']} ({r['fallback_reason']}); "
              f"ours/reference {r['ours_over_reference']}")


if __name__ == "__main__":
    sys.exit(main())
