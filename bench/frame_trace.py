"""Each offline frame timed on its own: what makes the slow frames slow (``parley offline``'s tail).

The demo model steps ``--frames`` frames of the speech recording (25 frames of speech, 25 of
silence, in turn, as Talk pressed and released) one after another, and each frame records its
wall time, the stepping thread's own CPU time (``time.thread_time``), and where the OS says
(Linux: ``getrusage(RUSAGE_THREAD)``) its minor page faults (fresh memory touched: an allocation
the allocator had to map) and involuntary context switches (the thread was taken off its core).
With one thread, a frame whose CPU time is as usual but whose wall time is long waited for a core
(the machine, not the frame); a frame whose CPU time is long did more work or met cold caches.

Reported: ``cpu``, ``load_average`` (1 minute, at the start and the end; None where the OS has
none), ``threads``, ``precision``, ``frames`` (after ``WARMUP_FRAMES``), ``wall_ms`` / ``cpu_ms``
(median, p95 and their ratio), ``stages_ms`` (the model's own clock per stage, median and p95),
``faults_per_frame`` and ``switches_per_frame`` (median, max; None where not counted),
``slowest`` (the frames above the wall p95: index, wall, CPU, faults), ``by_phase`` (for the
periods that could make frames slow in turn, the KV rings' capacities among them: the median
CPU of the slowest phase over the median of all), and ``rows`` (every frame, for a plot).

    .venv/bin/python -m bench.frame_trace --frames 300 --threads 1 --json bench/results/frame-trace.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

import engine
from app.engine_thread.real_time import TAIL_PERCENTILE, WARMUP_FRAMES
from bench.common import cpu_model, load_average
from engine.files.demo import ensure_demo_model

SPEECH = Path(__file__).resolve().parents[1] / "assets" / "hello_24k.wav"
TALK_FRAMES = 25  # speech this many frames, then silence as long, in turn
PERIODS = (2, 3, 4, 5, 8, 10, 16, 20, 25, 32, 50)  # besides the rings' capacities


def _thread_usage() -> tuple[int, int] | None:
    """(minor faults, involuntary switches) of this thread so far, where the OS counts them."""
    try:
        import resource

        usage = resource.getrusage(resource.RUSAGE_THREAD)
    except (ImportError, AttributeError, OSError):
        return None
    return usage.ru_minflt, usage.ru_nivcsw


def trace(frames: int, precision: str) -> tuple[list[dict], object]:
    model = engine.load_model(str(ensure_demo_model()), device="cpu", precision=precision)
    session = model.new_session(sampling=engine.SamplingConfig(), seed=1)
    speech = engine.to_16_bit(engine.read_wav(SPEECH))
    in_speech = speech.size // engine.FRAME_SIZE
    silence = np.zeros(engine.FRAME_SIZE, np.float32)
    rows = []
    for i in range(frames):
        j = i % in_speech
        talking = (i // TALK_FRAMES) % 2 == 0
        pcm = speech[j * engine.FRAME_SIZE:(j + 1) * engine.FRAME_SIZE] if talking else silence
        usage, cpu, wall = _thread_usage(), time.thread_time(), time.perf_counter()
        result = session.step(pcm)
        wall, cpu, after = time.perf_counter() - wall, time.thread_time() - cpu, _thread_usage()
        t = result.timings
        rows.append({"frame": i, "wall_ms": round(wall * 1000.0, 3), "cpu_ms": round(cpu * 1000.0, 3),
                     "faults": after[0] - usage[0] if usage else None,
                     "switches": after[1] - usage[1] if usage else None,
                     "encode_ms": round(t.encode_ms, 3), "lm_ms": round(t.lm_ms, 3), "depth_ms": round(t.depth_ms, 3),
                     "decode_ms": round(t.decode_ms, 3)})
    return rows, result


def _spread(values: list[float]) -> dict:
    median, p95 = float(np.median(values)), float(np.percentile(values, TAIL_PERCENTILE))
    return {"median": round(median, 2), "p95": round(p95, 2), "p95_over_median": round(p95 / median, 3)}


def by_phase(rows: list[dict], periods: tuple[int, ...]) -> dict[str, dict]:
    """Per period: the phase whose frames' median CPU time is highest, over the median of all."""
    cpu = np.array([r["cpu_ms"] for r in rows])
    index = np.array([r["frame"] for r in rows])
    overall = float(np.median(cpu))
    out = {}
    for period in sorted(set(periods)):
        if len(rows) < 3 * period:  # fewer than three frames a phase say nothing
            continue
        medians = [float(np.median(cpu[index % period == k])) for k in range(period)]
        worst = int(np.argmax(medians))
        out[str(period)] = {"phase": worst, "ratio": round(medians[worst] / overall, 3)}
    return out


def summarise(rows: list[dict], rings: tuple[int, ...]) -> dict:
    steady = rows[WARMUP_FRAMES:]
    wall = [r["wall_ms"] for r in steady]
    threshold = float(np.percentile(wall, TAIL_PERCENTILE))
    counted = steady[0]["faults"] is not None

    def counts(key: str) -> dict | None:
        values = [r[key] for r in steady]
        return {"median": float(np.median(values)), "max": int(max(values))} if counted else None

    return {
        "frames": len(steady),
        "wall_ms": _spread(wall),
        "cpu_ms": _spread([r["cpu_ms"] for r in steady]),
        "stages_ms": {s: _spread([r[f"{s}_ms"] for r in steady]) for s in ("encode", "lm", "depth", "decode")},
        "faults_per_frame": counts("faults"),
        "switches_per_frame": counts("switches"),
        "slowest": [{k: r[k] for k in ("frame", "wall_ms", "cpu_ms", "faults")} for r in steady
                    if r["wall_ms"] > threshold],
        "by_phase": by_phase(steady, PERIODS + rings),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--precision", default="auto", choices=[p.value for p in engine.Precision])
    parser.add_argument("--json", help="write the result here")
    args = parser.parse_args(argv)
    if args.frames < WARMUP_FRAMES + 20:
        parser.error(f"--frames must be at least {WARMUP_FRAMES + 20}")
    torch.set_num_threads(args.threads)
    load_before = load_average()
    rows, last = trace(args.frames, args.precision)
    rings = tuple(c.capacity for c in last.caches)
    report = {"cpu": cpu_model(), "load_average": [load_before, load_average()], "threads": torch.get_num_threads(),
              "precision": args.precision, "ring_capacities": list(rings), **summarise(rows, rings), "rows": rows}
    text = json.dumps(report, indent=1)
    print(json.dumps({k: v for k, v in report.items() if k != "rows"}, indent=1))
    if args.json:
        engine.write_atomically(args.json, (text + "\n").encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
