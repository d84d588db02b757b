"""The pair rule for three (engine.runtime.voice_memory): Kyutai TTS (the voice) and Kyutai STT (the
ear) beside a language model another program serves; and the memory table's rows for them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.runtime.gpu_memory import Gpu
from engine.runtime.pair_memory import ModelShape, need, plan_pair
from engine.runtime.voice_memory import SPEECH_RUNTIME_GB, plan_voices, room_beside

COMMITTED = Path(__file__).resolve().parents[1] / "bench" / "results" / "memory-table.json"


def card(total_gb: float) -> Gpu:
    return Gpu(f"NVIDIA GPU of {total_gb:g} GB", total_gb, total_gb - 0.5, (8, 9), {"bfloat16": 9.0, "int8": 9.0})


@pytest.fixture(scope="module")
def voice_and_ear():
    return ModelShape.of_preset("kyutai-tts"), ModelShape.of_preset("stt-1b-en_fr")


def test_the_language_model_comes_off_the_free_memory_and_the_voice_has_its_own_allowance(voice_and_ear):
    voice, ear = voice_and_ear
    gpu = card(16)
    plan = plan_voices(voice, ear, gpu, 3.0)
    assert plan.free_gb == pytest.approx(gpu.free_gb - 3.0)
    assert plan == plan_pair(voice, ear, room_beside(gpu, 3.0), allowance_gb=SPEECH_RUNTIME_GB)
    # the voice's allowance, not the conversation model's measured on this GPU (9 GB here)
    assert plan.chosen.conversation.allowance_gb == SPEECH_RUNTIME_GB
    assert plan.chosen.conversation.gb == pytest.approx(need(voice, "bfloat16", allowance_gb=SPEECH_RUNTIME_GB).gb)
    assert (plan.chosen.conversation.precision, plan.chosen.captions.precision) == ("bfloat16", "bfloat16")


def test_the_voice_keeps_priority_and_too_large_a_language_model_leaves_no_room(voice_and_ear):
    voice, ear = voice_and_ear
    gpu = card(12)
    bf16_voice = need(voice, "bfloat16", allowance_gb=SPEECH_RUNTIME_GB).gb
    int8_ear = need(ear, "int8", captions=True).gb
    bf16_ear = need(ear, "bfloat16", captions=True).gb
    beside = gpu.free_gb - bf16_voice - (int8_ear + bf16_ear) / 2  # room for the bfloat16 voice and the int8 ear only
    plan = plan_voices(voice, ear, gpu, beside)
    assert (plan.chosen.conversation.precision, plan.chosen.captions.precision) == ("bfloat16", "int8")
    assert not plan_voices(voice, ear, gpu, gpu.free_gb - 1.0).fits
    with pytest.raises(ValueError, match="non-negative"):
        plan_voices(voice, ear, gpu, -1.0)


def test_the_memory_table_s_rows_for_the_voices_follow_the_rule():
    from bench.memory_table import language_model_gb

    voices = json.loads(COMMITTED.read_text())["voices_beside_a_language_model"]
    assert set(voices["plans"]) == {"8", "12", "16", "24"}
    row = voices["plans"]["24"]["llama-3.1-8b Q4_K_M"]
    assert row["plan"] == "bfloat16 + bfloat16"
    assert row["total_gb"] == pytest.approx(language_model_gb("llama-3.1-8b", "Q4_K_M") + voices["voice_gb"]["bfloat16"]
                                            + voices["ear_gb"]["bfloat16"], abs=0.02)
    assert all(v["plan"] == "does not fit" for v in voices["plans"]["8"].values())  # errs high: unmeasured
