"""bench/bench_chat.py on small random models (the demo STT, a small Pocket TTS) against the real
tiny llama.cpp server: the command writes its report, each turn's parts add up to its first audio,
Parley's share is the first audio less the model's first token, and the report says where it ran."""

from __future__ import annotations

import json
import re

import pytest

from bench.bench_chat import PARTS, main
from bench.common import cpu_slug

pytest.importorskip("pocket_tts")
pytest.importorskip("llama_cpp.server", reason="make test installs llama-cpp-python[server]")


def test_the_small_bench_writes_a_split_that_adds_up(tmp_path):
    out = tmp_path / "chat.json"
    assert main(["--small", "--turns", "2", "--threads", "1", "--work", str(tmp_path / "work"),
                 "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["cpu"] and report["threads"] == 1 and report["turns"] == len(report["per_turn"]) == 2
    for row in report["per_turn"]:
        ms = row["ms"]
        assert row["heard"] and row["answer"] and row["clauses"] >= 1 and row["first_clause_words"] >= 1
        assert ms["turn_decision"] == 0 and min(ms[k] for k in PARTS) >= 0 and ms["model_first_token"] > 0
        assert sum(ms[k] for k in PARTS) == pytest.approx(ms["first_audio"], abs=0.05)
        assert ms["parley_share"] == pytest.approx(ms["first_audio"] - ms["model_first_token"], abs=0.05)
        assert ms["first_audio"] <= ms["total"] and ms["stt_feed"] > 0
    assert report["parts_add_up_ms"] < 0.05
    firsts = sorted(r["ms"]["first_audio"] for r in report["per_turn"])
    assert report["ms"]["first_audio"] == {"n": 2, "median_ms": pytest.approx(sum(firsts) / 2, abs=0.06),
                                           "p95_ms": pytest.approx(firsts[1], abs=0.06),
                                           "p99_ms": pytest.approx(firsts[1], abs=0.06)}
    assert report["stt"]["real_time_factor"] > 0 and report["voice"]["real_time_factor"] > 0
    assert report["goal"]["parley_share_ms"] == 400 and report["not_measured"]


def test_the_results_folder_is_named_after_the_cpu():
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", cpu_slug())
