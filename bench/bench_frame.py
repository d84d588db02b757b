"""The whole offline frame (Mimi encode + LM step + Mimi decode) on the demo model, ours
(``engine.runtime.session``) vs the reference package (``moshi`` LMGen + Mimi loaded from the same demo
model folder) on the CPU, with 1 and 2 torch threads. Ours runs at each ``--precision`` (float32,
the reference's exact results; auto, what the app runs: bfloat16 matmul weights where this CPU
multiplies bfloat16 natively and the kernel plan measured them faster); the reference in float32.

Both run in the same process, frame by frame interleaved (the order alternates every frame), so
machine noise hits both alike. Reports the median and p95 over the timed frames after warm-up,
and checks issue 4's targets: ours <= 0.5x the reference and < 80 ms, at the median and at p95.

``sweep_ms`` splits the frame: every matmul and convolution of a frame run once, in order, alone
(``engine.runtime.kernel_plan.sweep_ms``), with our planned kernels (``ours``) and with ATen's
float32 ones (``reference_kernels``: how the reference computes them). Where the frame streams
more weight bytes than a core's caches hold, these are bound by memory bandwidth; the rest of
each frame (``*_rest_ms``) is the other ops and Python.

    .venv/bin/python -m bench.bench_frame [--frames 40] [--warmup 6] [--threads 1 2] [--precision float32 auto]

``--paired`` compares the precisions with each other instead, on a machine others load too: every
precision's model is loaded once, and each frame runs every precision's session, in an order that
rotates from frame to frame (the reference is left out), so that a burst of load hits them alike;
the load average is recorded at the start and the end.

    .venv/bin/python -m bench.bench_frame --paired --threads 2 --precision float32 bfloat16 int8 int4 \
        --out bench/results/<cpu>/frame-precisions.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("NO_TORCH_COMPILE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from bench.common import cpu_model, load_average, summary  # noqa: E402
from engine import load_model  # noqa: E402
from engine.files.demo import ensure_demo_model  # noqa: E402
from engine.files.hub_layout import MIMI_NAME, MOSHI_NAME  # noqa: E402
from engine.lm.generate import SamplingConfig  # noqa: E402
from engine.runtime.kernel_plan import silent_frame_runner, sweep_ms  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"

TARGET_RATIO, TARGET_MS = 0.5, 80.0


def reference_frame_fn(folder: Path):
    """A closure running one reference frame (inside its streaming contexts)."""
    from moshi.models import loaders
    from moshi.models.lm import LMGen

    info = loaders.CheckpointInfo.from_hf_repo(
        "local", moshi_weights=folder / MOSHI_NAME, mimi_weights=folder / MIMI_NAME,
        tokenizer=next(folder.glob("*.model")), config_path=folder / "config.json")
    mimi = info.get_mimi(device="cpu")
    gen = LMGen(info.get_moshi(device="cpu", dtype=torch.float32))
    mimi.streaming_forever(1)
    gen.streaming_forever(1)

    def frame(pcm: np.ndarray) -> None:
        with torch.inference_mode():
            tokens = gen.step(mimi.encode(torch.from_numpy(pcm).view(1, 1, -1)))
            if tokens is not None:
                mimi.decode(tokens[:, 1:]).view(-1).numpy()

    return frame


def run(threads: int, precision: str, frames: int, warmup: int, folder: Path, audio: np.ndarray) -> dict:
    torch.set_num_threads(threads)
    model = load_model(str(folder), device="cpu", precision=precision)
    session = model.new_session(SamplingConfig(), seed=1)
    reference = reference_frame_fn(folder)
    times = {"ours": [], "reference": []}
    for i in range(warmup + frames):
        pcm = audio[i * 1920:(i + 1) * 1920]
        order = [("ours", session.step), ("reference", reference)]
        for name, fn in order if i % 2 == 0 else order[::-1]:
            t0 = time.perf_counter()
            fn(pcm)
            if i >= warmup:
                times[name].append((time.perf_counter() - t0) * 1e3)
    out = {"threads": threads, "precision": precision, "resolved_precision": model.info.precision.value,
           "frames": frames, "kernel_plan": model.kernel_plan.as_json()}
    for name, ms in times.items():
        out[name] = summary(ms)
    for stat in ("median_ms", "p95_ms"):
        ours, ref = out["ours"][stat], out["reference"][stat]
        out[f"ratio_{stat[:-3]}"] = round(ours / ref, 3)
        out[f"meets_target_{stat[:-3]}"] = ours <= TARGET_RATIO * ref and ours < TARGET_MS
    modules, silent = [model.mimi, model.lm], silent_frame_runner(lambda: model.new_session(record_audio=False))
    sweep = {"ours": sweep_ms(modules, silent), "reference_kernels": sweep_ms(modules, silent, reference_kernels=True)}
    out["sweep_ms"] = {k: round(v, 2) for k, v in sweep.items()}
    out["ours_rest_ms"] = round(out["ours"]["median_ms"] - sweep["ours"], 2)
    out["reference_rest_ms"] = round(out["reference"]["median_ms"] - sweep["reference_kernels"], 2)
    return out


def run_paired(threads: int, precisions: list[str], frames: int, warmup: int, folder: Path,
               audio: np.ndarray) -> dict:
    """Every precision's frame on the same audio, frame by frame, the order rotating each frame."""
    torch.set_num_threads(threads)
    models = {p: load_model(str(folder), device="cpu", precision=p) for p in precisions}
    sessions = {p: m.new_session(SamplingConfig(), seed=1) for p, m in models.items()}
    times: dict[str, list[float]] = {p: [] for p in precisions}
    load = {"start": load_average()}
    for i in range(warmup + frames):
        pcm = audio[i * 1920:(i + 1) * 1920]
        shift = i % len(precisions)
        for precision in precisions[shift:] + precisions[:shift]:
            t0 = time.perf_counter()
            sessions[precision].step(pcm)
            if i >= warmup:
                times[precision].append((time.perf_counter() - t0) * 1e3)
    load["end"] = load_average()
    out = {"threads": threads, "frames": frames, "warmup": warmup, "load_average": load, "precisions": {}}
    for precision, ms in times.items():
        model = models[precision]
        out["precisions"][precision] = {
            "resolved_precision": model.info.precision.value, **summary(ms),
            "kernel_plan": model.kernel_plan.summary(),
            "int4_tiling": None if model.int4_tiling is None else model.int4_tiling.summary()}
    base = out["precisions"][precisions[0]]
    for r in out["precisions"].values():
        r[f"ratio_median_to_{precisions[0]}"] = round(r["median_ms"] / base["median_ms"], 3)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=40)
    p.add_argument("--warmup", type=int, default=6)
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--precision", nargs="+", default=["float32", "auto"],
                   choices=["float32", "auto", "bfloat16", "int8", "int4"])
    p.add_argument("--paired", action="store_true", help="the precisions against each other, frames interleaved")
    p.add_argument("--out", type=Path, default=RESULTS / "frame.json")
    args = p.parse_args(argv)
    if args.frames < 30:
        p.error("use at least 30 timed frames")
    folder = ensure_demo_model()
    rng = np.random.default_rng(0)
    audio = rng.normal(0, 0.1, (args.frames + args.warmup) * 1920).astype(np.float32)
    report = {"torch": torch.__version__, "cpu": cpu_model(), "cores": os.cpu_count(),
              "command": " ".join(["python -m bench.bench_frame", *(sys.argv[1:] if argv is None else argv)]),
              "runs": []}
    if args.paired:
        return write_paired(args, folder, audio, report)
    print(f"{'threads':>7} {'precision':>18} {'ours med':>9} {'ours p95':>9} {'ref med':>9} {'ref p95':>9} "
          f"{'ratio med':>9} {'ratio p95':>9}  targets (<= {TARGET_RATIO}x and < {TARGET_MS:.0f} ms)")
    for threads, precision in [(t, p) for t in args.threads for p in args.precision]:
        r = run(threads, precision, args.frames, args.warmup, folder, audio)
        report["runs"].append(r)
        label = f"{precision}->{r['resolved_precision']}" if precision == "auto" else precision
        print(f"{threads:>7} {label:>18} {r['ours']['median_ms']:>9.1f} {r['ours']['p95_ms']:>9.1f} "
              f"{r['reference']['median_ms']:>9.1f} {r['reference']['p95_ms']:>9.1f} {r['ratio_median']:>9.3f} "
              f"{r['ratio_p95']:>9.3f}  median {'met' if r['meets_target_median'] else 'MISSED'}, "
              f"p95 {'met' if r['meets_target_p95'] else 'MISSED'}; matmuls+convs alone "
              f"{r['sweep_ms']['ours']:.1f} / {r['sweep_ms']['reference_kernels']:.1f} ms, the rest "
              f"{r['ours_rest_ms']:.1f} / {r['reference_rest_ms']:.1f} ms", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


def write_paired(args, folder: Path, audio: np.ndarray, report: dict) -> int:
    for threads in args.threads:
        r = run_paired(threads, args.precision, args.frames, args.warmup, folder, audio)
        report["runs"].append(r)
        print(f"{threads} threads, load average {r['load_average']['start']} -> {r['load_average']['end']}")
        for precision, p in r["precisions"].items():
            ratio = p[f"ratio_median_to_{args.precision[0]}"]
            print(f"  {precision:>9} ({p['resolved_precision']}): median {p['median_ms']:.1f} ms, "
                  f"p95 {p['p95_ms']:.1f} ms, {ratio:.3f}x {args.precision[0]}", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
