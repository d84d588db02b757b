"""Listing saved conversations from their headers: ``--files`` conversations (default 500) in a
temporary folder, listed by ``app.library.listing.list_conversations`` (what `parley
conversations` and the library panel read), ``--repeats`` times; median and worst wall time.

The files are one real demo-model conversation (``--frames`` frames, saved by a session) linked
``--files`` times under different names: real files with real headers, without writing
``--files`` copies of their tensor data (listing never reads it).

    .venv/bin/python -m bench.bench_library [--files 500] [--frames 30] [--repeats 5]

``--window``: the library as the window shows it (``LibraryModel`` in a ``LibraryPanel``,
offscreen) over ``--files`` conversations whose header holds a long transcript (``--pieces``
pieces of text) plus the crafted files of ``craft_damaged_files``: how long until the GUI thread
answers a timer after the library is created, its longest stall while the list fills in, the time
until every file is a row, how much the resident memory grew, and a search for a word that only the
end of each transcript holds (read from the files on demand). Result: ``library_window.json``.

    .venv/bin/python -m bench.bench_library --window [--files 5000] [--pieces 7500]
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

from app.library.listing import list_conversations
from bench.common import cpu_model, rss_bytes
from engine import FRAME_SIZE, load_model
from engine.files.conversation import read_conversation, write_conversation

RESULTS = Path(__file__).resolve().parent / "results"


LAST_WORD = "zanzibar"  # ends every long transcript: found only by reading the whole of it
SAFETENSORS_LENGTH = 8  # bytes of the header length that starts a safetensors file


def save_demo_conversation(path: Path, frames: int) -> None:
    session = load_model("demo", device="cpu", precision="float32").new_session(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(frames):
        session.step((0.1 * rng.standard_normal(FRAME_SIZE)).astype(np.float32))
    session.save(path)


def with_long_transcript(source: Path, target: Path, pieces: int) -> None:
    """``source`` saved again at ``target`` with a transcript of ``pieces`` pieces, ``LAST_WORD`` last:
    the header of a conversation of at least ``pieces`` frames (a transcript has at most one piece a
    frame), over ``source``'s tensors (listing and search never read them)."""
    stored = read_conversation(source)
    meta = {k: v for k, v in stored.meta.items() if k not in ("format", "version", "checksum")}
    transcript = [[i, round(i * 0.08, 2), f" word{i % 977}" if i < pieces - 1 else " " + LAST_WORD]
                  for i in range(pieces)]
    frames = max(meta["frames"], pieces)
    write_conversation(target, stored.tensors, {**meta, "frames": frames, "transcript": transcript})


def _header_file(path: Path, header: bytes) -> None:
    path.write_bytes(len(header).to_bytes(SAFETENSORS_LENGTH, "little") + header)


def craft_damaged_files(folder: Path, good: Path) -> dict[str, str]:
    """Files named ``*.parley`` that are not readable conversations, beside ``good`` (a real one):
    {name: what it is}. A pipe and a link to it only where the system has pipes (not Windows)."""
    meta = {k: v for k, v in read_conversation(good).meta.items() if k in ("format", "version")}
    parley = json.dumps({**meta, "frames": 0}).replace('"frames": 0', '"frames": 1e400')
    crafted = {"frames 1e400.parley": "a 150-byte header whose frame count is 1e400",
               "nested.parley": "a header of JSON nested 100,000 deep",
               "zero bytes.parley": "an empty file", "cut.parley": "a conversation cut after 4 KB",
               "folder.parley": "a folder"}
    _header_file(folder / "frames 1e400.parley", json.dumps({"__metadata__": {"parley": parley}}).encode())
    depth = 100_000
    _header_file(folder / "nested.parley", b'{"x": ' + b"[" * depth + b"]" * depth + b"}")
    (folder / "zero bytes.parley").write_bytes(b"")
    (folder / "cut.parley").write_bytes(good.read_bytes()[:4096])
    (folder / "folder.parley").mkdir()
    if hasattr(os, "mkfifo"):
        os.symlink(folder / "missing", folder / "dangling.parley")
        os.mkfifo(folder / "pipe.parley")
        os.symlink(folder / "pipe.parley", folder / "link to pipe.parley")
        crafted.update({"pipe.parley": "a FIFO", "link to pipe.parley": "a link to the FIFO",
                        "dangling.parley": "a link to nothing"})
    return crafted


def bench_window(args) -> dict:
    """See the module's docstring (``--window``)."""
    from PySide6.QtCore import QElapsedTimer, QTimer
    from PySide6.QtWidgets import QApplication

    from app.library.model import LibraryModel
    from app.library.panel import LibraryPanel

    qt = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory(prefix="parley-bench-library-") as tmp:
        folder = Path(tmp) / "conversations"
        folder.mkdir()
        short = Path(tmp) / "short.parley.src"
        save_demo_conversation(short, args.frames)
        original = Path(tmp) / "long.parley.src"
        with_long_transcript(short, original, args.pieces)
        for i in range(args.files):
            os.link(original, folder / f"conversation {i:04d}.parley")
        crafted = craft_damaged_files(folder, original)
        names = {p.name for p in folder.iterdir()}
        ticks: list[float] = []
        peak = [rss_bytes()]
        clock = QElapsedTimer()
        timer = QTimer()
        timer.setInterval(10)
        timer.timeout.connect(lambda: (ticks.append(clock.nsecsElapsed() / 1e9), peak.append(rss_bytes())))
        before = rss_bytes()
        clock.start()
        timer.start()
        library = LibraryModel(folder)
        panel = LibraryPanel(library)
        panel.show()
        created_s = clock.nsecsElapsed() / 1e9
        while library.scanning or not ticks:
            qt.processEvents()
            time.sleep(0.002)
        listed_s = clock.nsecsElapsed() / 1e9
        rows = {e.path.name: e for e in library.entries}
        damaged = {name: rows[name].error for name in crafted if name in rows and rows[name].info is None}
        assert set(rows) == names, names - set(rows)
        assert set(damaged) == set(crafted), set(crafted) - set(damaged)
        gaps = np.diff([0.0, *ticks])
        after = rss_bytes()
        search_started = time.perf_counter()
        panel.search.setText(LAST_WORD)
        while panel.filter.searching:
            qt.processEvents()
            time.sleep(0.002)
        search_s = time.perf_counter() - search_started
        found = panel.filter.rowCount()
        timer.stop()
        return {
            "command": f"python -m bench.bench_library --window --files {args.files} --pieces {args.pieces} "
                       f"--frames {args.frames}",
            "cpu": cpu_model(), "cpus": os.cpu_count(), "conversations": args.files, "crafted": crafted,
            "header_bytes": int.from_bytes(original.read_bytes()[:SAFETENSORS_LENGTH], "little"),
            "library_created_s": round(created_s, 3), "first_timer_tick_s": round(ticks[0], 3),
            "longest_gui_stall_s": round(float(gaps.max()), 3), "all_listed_s": round(listed_s, 2),
            "rows": len(rows), "damaged_rows": damaged,
            "rss_growth_mib": round((after - before) / 2**20, 1),
            "rss_peak_growth_mib": round((max(peak) - before) / 2**20, 1),
            "search_s": round(search_s, 2), "search_found": found,
        }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--files", type=int, default=None, help="500; 5000 with --window")
    p.add_argument("--frames", type=int, default=30)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--window", action="store_true", help="the library panel over long transcripts and crafted files")
    p.add_argument("--pieces", type=int, default=7500, help="--window: text pieces in each transcript")
    args = p.parse_args(argv)
    if args.window:
        args.files = 5000 if args.files is None else args.files
        result = bench_window(args)
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "library_window.json").write_text(json.dumps(result, indent=2) + "\n")
        print(json.dumps(result))
        return 0
    args.files = 500 if args.files is None else args.files
    with tempfile.TemporaryDirectory(prefix="parley-bench-library-") as tmp:
        folder = Path(tmp)
        original = folder / "original.parley.src"
        save_demo_conversation(original, args.frames)
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
