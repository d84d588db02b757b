"""bench/memory_table.py: the committed table is what the tool writes now (never edited by hand),
and it says what the planning rule says."""

from __future__ import annotations

import json
from pathlib import Path

from bench import memory_table
from engine.runtime.pair_memory import ModelShape, need

COMMITTED = Path(__file__).resolve().parents[1] / "bench" / "results" / "memory-table.json"


def test_the_committed_memory_table_is_the_tool_s_output(tmp_path):
    written = tmp_path / "memory-table.json"
    assert memory_table.main(["--json", str(written)]) == 0
    assert json.loads(written.read_text()) == json.loads(COMMITTED.read_text()), \
        "run: python -m bench.memory_table --json bench/results/memory-table.json"


def test_the_table_adds_up_the_rule_s_needs():
    data = json.loads(COMMITTED.read_text())
    moshiko, stt = ModelShape.of_preset("moshiko"), ModelShape.of_preset("stt-2.6b-en")
    int8 = data["conversation_models"]["moshiko"]["precisions"]["int8"]
    assert int8["total_gb"] == round(need(moshiko, "int8").gb, 2)
    parts = int8["weights_gb"] + int8["kv_cache_gb"] + int8["mimi_gb"] + int8["allowance_gb"]
    assert abs(parts - int8["total_gb"]) < 0.02
    assert data["with_captions_gb"]["moshiko"]["stt-2.6b-en"]["int8"]["bfloat16"] == round(
        need(moshiko, "int8").gb + need(stt, "bfloat16", captions=True).gb, 2)
    assert "not_estimated" in data["conversation_models"]["hibiki-2b"]  # its architecture is not known here
    assert data["auto_plans_by_card_gb"]["24"]["moshiko"]["stt-1b-en_fr"] == "int8 + bfloat16"
    assert data["auto_plans_by_card_gb"]["8"]["moshiko"]["stt-1b-en_fr"] == "does not fit"
