"""A turn's latency split (``TurnTimes``): end of speech → first audio in parts that add up, the
wait for the rest of the model's first clause shown as its own part (Parley's share counts it)."""

from __future__ import annotations

import pytest

from app.chat.cascade import TurnTimes


def test_the_parts_add_up_to_the_first_audio_and_show_the_clause_wait():
    # flush 300, request → first token 120, → first clause 200, first clause given → first frame 90,
    # and 4 ms of hand-offs: the first frame 594 ms after the end of speech
    t = TurnTimes(stt_flush=300.0, first_token=120.0, first_clause=200.0, voice_first_frame=90.0,
                  first_audio=594.0, total=2000.0)
    parts = t.parts()
    assert parts == {"stt_flush": 300.0, "model_first_token": 120.0, "clause_wait": 80.0,
                     "voice_first_frame": 90.0, "handoffs": pytest.approx(4.0)}
    assert sum(parts.values()) == pytest.approx(t.first_audio)
    assert t.parley_share == pytest.approx(sum(v for k, v in parts.items() if k != "model_first_token"))


def test_a_turn_without_audio_has_no_parts():
    assert TurnTimes(250.0, None, None, None, None, 260.0).parts() is None
    assert TurnTimes(250.0, 40.0, None, None, None, 900.0).parts() is None
