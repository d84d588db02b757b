"""bench/bench_shapes.py on a tiny shape: every precision is timed and given its bandwidth floor,
each reading fewer bytes a frame than the one before it, and the report says where it ran."""

from __future__ import annotations

import json

from bench.bench_shapes import FORCED_STEPS, PRECISIONS, Shape, main, run

TINY = Shape("tiny", 256, 4, 4, 1024, 32, layers_built=2)


def test_every_precision_is_timed_beside_its_floor():
    report = run({"tiny": TINY}, PRECISIONS, frames=3, warmup=1, threads=1)
    assert report["cpu"] and report["torch"] and report["threads"] == 1 and report["bandwidth_gb_s"] > 0
    rows = report["rows"]
    assert [r["precision"] for r in rows] == list(PRECISIONS)
    assert all(r["n"] == 3 and r["median_ms"] > 0 and r["floor_ms"] > 0 for r in rows)
    assert all(r["layers_built"] == 2 and r["layers"] == 4 for r in rows)  # timed on 2 layers, scaled to 4
    read = [r["bytes_per_frame"] for r in rows]
    assert read[0] > read[1] > read[2] > read[3]  # float32, bfloat16, int8, int4
    assert report["kernels"]["int8"] and report["kernels"]["int4"]  # the CPU's choices per weight shape
    agreement = {r["precision"]: r for r in rows}
    assert agreement["float32"]["token_agreement"] == 1.0 and agreement["float32"]["relative_error"] == 0.0
    assert agreement["int8"]["relative_error"] < 0.05 < agreement["int4"]["relative_error"] < 0.3
    assert all(r["forced_steps"] == FORCED_STEPS and r["mean_kl"] >= 0 for r in rows)


def test_the_command_writes_its_report(tmp_path, monkeypatch):
    monkeypatch.setattr("bench.bench_shapes.SHAPES", {"pocket-tts": Shape("tiny", 128, 1, 4, 256, 16, gating="none",
                                                                           norm="layer_norm")})
    out = tmp_path / "shapes.json"
    assert main(["--models", "pocket-tts", "--precisions", "int8", "--frames", "2", "--warmup", "1",
                 "--threads", "1", "--out", str(out)]) == 0
    assert [r["precision"] for r in json.loads(out.read_text())["rows"]] == ["int8"]
