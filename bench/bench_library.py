"""Listing saved conversations from their headers: ``--files`` conversations (default 500) in a
temporary folder, listed by ``app.conversation_list.list_conversations`` (what `parley
conversations` and the library panel read), ``--repeats`` times; median and worst wall time.

The files are one real demo-model conversation (``--frames`` frames, saved by a session) linked
``--files`` times under different names: real files with real headers, without writing
``--files`` copies of their tensor data (listing never reads it).

    .venv/bin/python -m bench.bench_library [--files 500] [--frames 30] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from app.conversation_list import list_conversations
from bench.common import cpu_model
from engine import FRAME_SIZE, load_model

RESULTS = Path(__file__).resolve().parent / "results"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--files", type=int, default=500)
    p.add_argument("--frames", type=int, default=30)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="parley-bench-library-") as tmp:
        folder = Path(tmp)
        session = load_model("demo", device="cpu", precision="float32").new_session(seed=1)
        rng = np.random.default_rng(0)
        for _ in range(args.frames):
            session.step((0.1 * rng.standard_normal(FRAME_SIZE)).astype(np.float32))
        original = folder / "original.parley.src"
        session.save(original)
        for i in range(args.files):
            os.link(original, folder / f"conversation {i:04d}.parley")
        times = []
        for _ in range(args.repeats):
            started = time.perf_counter()
            entries = list_conversations(folder)
            times.append(time.perf_counter() - started)
        assert len(entries) == args.files and all(e.info is not None for e in entries)
        result = {
            "command": f"python -m bench.bench_library --files {args.files} --frames {args.frames} "
                       f"--repeats {args.repeats}",
            "cpu": cpu_model(), "cpus": os.cpu_count(), "files": args.files,
            "file_bytes": original.stat().st_size, "median_s": statistics.median(times), "max_s": max(times),
            "first_s": times[0],
        }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "library.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
