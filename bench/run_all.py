"""``make bench``: run every benchmark module, one subprocess each (own torch threads, own memory).

Modules that exist are run in this order: bench_mimi, bench_lm, bench_frame, bench_rss (the slow
one: 7500 frames). Each writes its own results (bench_frame and bench_rss write JSON into
bench/results/); this script writes bench/results/run_all.json with every module's exit code,
wall time and the tail of its output. The GPU check (bench.gpu_check) is separate: it needs CUDA.

    .venv/bin/python -m bench.run_all [--only bench_frame ...] [--rss-frames 7500]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
MODULES = ("bench_mimi", "bench_lm", "bench_frame", "bench_rss")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", nargs="+", choices=MODULES, default=None)
    p.add_argument("--rss-frames", type=int, default=7500)
    args = p.parse_args(argv)
    chosen = [m for m in (args.only or MODULES) if (BENCH / f"{m}.py").is_file()]
    summary = {}
    for name in chosen:
        extra = ["--frames", str(args.rss_frames)] if name == "bench_rss" else []
        print(f"== {name}", flush=True)
        t0 = time.perf_counter()
        lines = []
        with subprocess.Popen([sys.executable, "-m", f"bench.{name}", *extra], cwd=BENCH.parent,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proc:
            for line in proc.stdout:  # shown live: bench_rss runs for many minutes
                print(line, end="", flush=True)
                lines.append(line.rstrip("\n"))
        summary[name] = {"returncode": proc.returncode, "wall_s": round(time.perf_counter() - t0, 1),
                         "output_tail": lines[-30:]}
    out = BENCH / "results" / "run_all.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(summary, indent=2) + "\n")
    failed = [n for n, r in summary.items() if r["returncode"] != 0]
    print(f"wrote {out}" + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
