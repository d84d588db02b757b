"""Streaming Mimi at the released size, float32 on the CPU: encode + decode of one 80 ms frame,
ours (``engine.codec.mimi``) vs the reference ``moshi`` package, with 2 and with 1 torch threads.

Both load the same random checkpoint (released key layout) in the same process and stream the
same speech; every timed frame runs the reference and then ours, back to back, so machine noise
hits both alike. Reports medians (and p90) over the timed frames after a warm-up, and the ratio
ours / reference (target <= 0.5). Writes ``bench/results/mimi.json`` (or ``--out``). ``--bf16``
lets the kernel plan give matmuls bfloat16 weights where it measures them faster, as precision
bfloat16 (``auto`` on a CPU with AMX or AVX512-BF16) does; the reference stays float32.

    .venv/bin/python -m bench.bench_mimi [--frames 40] [--warmup 8] [--threads 2 1] [--bf16]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import sys
import tempfile
import time

os.environ.setdefault("NO_TORCH_COMPILE", "1")
os.environ.setdefault("NO_CUDA_GRAPH", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from safetensors.torch import save_file  # noqa: E402

from bench.common import cpu_model, summary  # noqa: E402
from engine.audio import (
    FRAME_SIZE,  # noqa: E402
    read_wav,  # noqa: E402
)
from engine.codec.mimi import Mimi, load_mimi  # noqa: E402
from engine.runtime.kernel_plan import plan_kernels  # noqa: E402

AUDIO = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "story_16k.wav")
RESULTS = os.path.join(os.path.dirname(__file__), "results", "mimi.json")


def random_checkpoint(path: str) -> None:
    """Random weights with unit gain and codebooks around the latent scale, in the released layout."""
    torch.manual_seed(0)
    with torch.device("meta"):
        shapes = {k: (v.shape, v.dtype) for k, v in Mimi().state_dict().items()}
    weights = {}
    for name, (shape, dtype) in shapes.items():
        if name.endswith("_initialized"):
            weights[name] = torch.ones(shape)
        elif name.endswith("cluster_usage"):
            weights[name] = 0.5 + torch.rand(shape)
        elif name.endswith(".scale"):
            weights[name] = torch.full(shape, 0.1)
        elif "norm" in name:
            weights[name] = torch.ones(shape) if name.endswith("weight") else torch.zeros(shape)
        else:
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
            weights[name] = torch.randn(shape, dtype=dtype) / fan_in ** 0.5
    save_file(weights, path)


def speech_frames(count: int) -> list[torch.Tensor]:
    pcm = read_wav(AUDIO)
    pcm = np.resize(pcm, count * FRAME_SIZE)
    return list(torch.from_numpy(pcm).view(1, 1, -1).split(FRAME_SIZE, dim=-1))


def plan_mimi(ours, fingerprint: str, allow_bf16: bool):
    """The kernel plan for this thread count, as a loaded model gets it (one frame records the shapes)."""
    silence = torch.zeros(1, 1, FRAME_SIZE)

    def frame() -> None:
        with torch.inference_mode():
            state = ours.init_state(1)
            ours.decode_step(ours.encode_step(silence, state), state)

    return plan_kernels([ours], frame, fingerprint, torch.float32, allow_bf16)


def run(ref, ours, frames, warmup: int, threads: int, fingerprint: str, allow_bf16: bool) -> dict:
    torch.set_num_threads(threads)
    plan = plan_mimi(ours, fingerprint, allow_bf16)
    state = ours.init_state(1)
    times = {"ref_encode": [], "ref_decode": [], "our_encode": [], "our_decode": []}
    with torch.inference_mode(), ref.streaming(1):
        for i, frame in enumerate(frames):
            t0 = time.perf_counter()
            codes = ref.encode(frame)
            t1 = time.perf_counter()
            ref.decode(codes)
            t2 = time.perf_counter()
            ours_codes = ours.encode_step(frame, state)
            t3 = time.perf_counter()
            ours.decode_step(ours_codes, state)
            t4 = time.perf_counter()
            if i >= warmup:
                for key, dt in zip(times, (t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
                    times[key].append(dt * 1e3)
    ref_total = [a + b for a, b in zip(times["ref_encode"], times["ref_decode"])]
    our_total = [a + b for a, b in zip(times["our_encode"], times["our_decode"])]
    result = {"threads": threads, "timed_frames": len(ref_total)}
    for key, values in list(times.items()) + [("ref_total", ref_total), ("our_total", our_total)]:
        stats = summary(values)
        result[f"{key}_ms_median"], result[f"{key}_ms_p95"] = stats["median_ms"], stats["p95_ms"]
    result["ratio_ours_over_ref"] = round(result["our_total_ms_median"] / result["ref_total_ms_median"], 3)
    result["ratio_ours_over_ref_p95"] = round(result["our_total_ms_p95"] / result["ref_total_ms_p95"], 3)
    result["kernel_plan"] = plan.as_json()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=40, help="timed frames per thread setting")
    parser.add_argument("--warmup", type=int, default=8)
    parser.add_argument("--threads", type=int, nargs="+", default=[2, 1])
    parser.add_argument("--bf16", action="store_true", help="allow bfloat16 matmul weights (ours only)")
    parser.add_argument("--out", default=RESULTS)
    args = parser.parse_args()

    from moshi.models.loaders import get_mimi

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mimi.safetensors")
        random_checkpoint(path)
        ref = get_mimi(path, device="cpu")
        ours = load_mimi(path)
        with open(path, "rb") as f:
            fingerprint = "bench-mimi-" + hashlib.sha256(f.read()).hexdigest()[:16]
    frames = speech_frames(args.frames + args.warmup)
    results = [run(ref, ours, frames, args.warmup, n, fingerprint, args.bf16) for n in args.threads]
    weights = "ours: bf16 matmul weights where measured faster, fp32 elsewhere; reference fp32" if args.bf16 else "fp32"
    report = {
        "benchmark": f"Mimi streaming encode+decode of one 1920-sample frame, released size, {weights}, CPU",
        "machine": {"cpu": cpu_model(), "logical_cpus": os.cpu_count(), "platform": platform.platform(),
                    "torch": torch.__version__, "loadavg_at_end": os.getloadavg()},
        "command": " ".join([".venv/bin/python -m bench.bench_mimi", *sys.argv[1:]]),
        "results": results,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(report, f, indent=2)
    for r in results:
        print(f"{r['threads']} thread(s): reference {r['ref_encode_ms_median']:.1f} + {r['ref_decode_ms_median']:.1f}"
              f" = {r['ref_total_ms_median']:.1f} ms, ours {r['our_encode_ms_median']:.1f} + "
              f"{r['our_decode_ms_median']:.1f} = {r['our_total_ms_median']:.1f} ms, "
              f"ratio {r['ratio_ours_over_ref']:.2f} (p95 {r['ratio_ours_over_ref_p95']:.2f}), "
              f"kernels {r['kernel_plan']['source']}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
