"""bench/frame_trace.py: every offline frame timed on its own, and the summary that says whether
slow frames come in turn (a periodic cost of ours) or at random (the machine)."""

from __future__ import annotations

import json

import torch

from app.engine_thread.real_time import WARMUP_FRAMES
from bench import frame_trace


def _rows(cpu_ms: list[float]) -> list[dict]:
    return [{"frame": i, "wall_ms": ms, "cpu_ms": ms, "faults": 0, "switches": 0, "encode_ms": 1.0, "lm_ms": 1.0,
             "depth_ms": 1.0, "decode_ms": 1.0} for i, ms in enumerate(cpu_ms)]


def test_a_cost_that_comes_every_few_frames_shows_at_its_period_and_phase():
    rows = _rows([60.0 if i % 25 == 7 else 40.0 for i in range(WARMUP_FRAMES + 250)])
    summary = frame_trace.summarise(rows, rings=(280,))
    assert summary["by_phase"]["25"] == {"phase": 7, "ratio": 1.5}
    assert summary["by_phase"]["50"]["ratio"] == 1.5  # a multiple of the period shows it too
    assert summary["by_phase"]["8"]["ratio"] == summary["by_phase"]["20"]["ratio"] == 1.0
    assert "280" not in summary["by_phase"]  # too few frames to say anything about a ring that long
    assert {r["frame"] % 25 for r in summary["slowest"]} == {7} and len(summary["slowest"]) == 10


def test_the_trace_times_each_frame_of_the_demo_model(tmp_path):
    out = tmp_path / "trace.json"
    frames = WARMUP_FRAMES + 20
    before = torch.get_num_threads()
    try:
        assert frame_trace.main(["--frames", str(frames), "--threads", "1", "--precision", "float32",
                                 "--json", str(out)]) == 0
    finally:
        torch.set_num_threads(before)
    report = json.loads(out.read_text())
    assert report["cpu"] and report["threads"] == 1 and report["frames"] == 20 and len(report["rows"]) == frames
    assert all(0 < r["cpu_ms"] <= r["wall_ms"] * 1.05 + 1.0 for r in report["rows"])  # one thread: CPU within wall
    assert report["wall_ms"]["median"] <= report["wall_ms"]["p95"]
    assert report["ring_capacities"] and all(n > 0 for n in report["ring_capacities"])
