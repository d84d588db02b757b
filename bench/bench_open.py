"""Opening a saved conversation: wall time and peak memory, for the two ways the app opens one.

A demo conversation is stepped to the model's full context (3000 frames by default, 4 minutes of
audio) and saved once; then, each in a fresh process, (a) ``Session.load`` on a loaded model (a new
session) and (b) ``session.restore`` into the running session (what the app does), reporting the
wall time of the open and how far the peak RSS rises above the RSS before it (Linux only).

    .venv/bin/python -m bench.bench_open [--frames 3000] [--file PATH] [--json bench/results/open.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from bench.common import cpu_model

RESULTS = Path(__file__).resolve().parent / "results" / "open.json"


def reset_peak_rss() -> None:
    """Linux: make the kernel's peak-RSS mark (VmHWM) start again from the current RSS."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def rss_mib(field: str) -> float:
    """``VmRSS`` (now) or ``VmHWM`` (peak since the last reset) from /proc/self/status."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
    raise OSError(f"{field} not in /proc/self/status")


def make_conversation(path: Path, frames: int) -> None:
    import engine

    model = engine.load_model("demo", device="cpu", precision="float32")
    session = model.new_session(engine.SamplingConfig(), seed=1)
    rng = np.random.default_rng(0)
    for _ in range(frames):
        session.step((0.05 * rng.standard_normal(engine.FRAME_SIZE)).astype(np.float32))
    session.save(path)


def measure(path: Path, how: str) -> dict:
    """In this process: load the model and a fresh session, then open ``path`` ``how``."""
    import engine

    model = engine.load_model("demo", device="cpu", precision="float32")
    session = model.new_session(engine.SamplingConfig(), seed=1)
    reset_peak_rss()
    before = rss_mib("VmRSS")
    t0 = time.perf_counter()
    if how == "restore":
        session.restore(path)
    else:
        session = engine.Session.load(path, model)
    seconds = time.perf_counter() - t0
    return {"how": how, "seconds": round(seconds, 3), "peak_rss_growth_mib": round(rss_mib("VmHWM") - before, 1),
            "frames": session.frames}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=3000)
    p.add_argument("--file", type=Path, default=Path("/tmp/parley-bench-open.parley"))
    p.add_argument("--json", type=Path, default=RESULTS)
    p.add_argument("--measure", choices=["load", "restore"], help=argparse.SUPPRESS)  # the child's job
    args = p.parse_args()
    if args.measure:
        print(json.dumps(measure(args.file, args.measure)))
        return
    if not args.file.exists():
        make_conversation(args.file, args.frames)
    runs = []
    for how in ("load", "restore"):
        out = subprocess.run([sys.executable, "-m", "bench.bench_open", "--file", str(args.file), "--measure", how],
                             capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(runs[-1], flush=True)
    report = {"cpu": cpu_model(), "cores": os.cpu_count(), "file_mib": round(args.file.stat().st_size / 2**20, 1),
              "command": "python -m bench.bench_open " + " ".join(sys.argv[1:]), "runs": runs}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
