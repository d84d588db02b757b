"""The health panel's figure for a conversation with a language model: the first audio and its
parts in the interface's language, "-" for a turn that was not answered aloud."""

from __future__ import annotations

from app.chat.cascade import TurnTimes
from app.conversation.chat_latency import answers_latency_text, first_audio_text
from app.i18n import install_translators, remove_translators

TIMES = TurnTimes(stt_flush=520.0, first_token=120.0, first_clause=170.0, voice_first_frame=149.4,
                  first_audio=840.0, total=3000.0)


def test_the_first_audio_is_shown_with_its_parts_in_order(qapp):
    assert first_audio_text(TIMES) == ("0.84 s (your last words 0.52 s, the language model 0.12 s, its first "
                                       "clause 0.05 s, the voice 0.15 s)")


def test_a_turn_without_audio_shows_a_dash(qapp):
    assert first_audio_text(None) == "-"
    assert first_audio_text(TurnTimes(300.0, None, None, None, None, 310.0)) == "-"


def test_french_names_the_parts_and_writes_its_decimal_comma(qapp):
    translators = install_translators(qapp, "fr")
    try:
        assert first_audio_text(TIMES) == ("0,84 s (vos derniers mots 0,52 s, le modèle de langage 0,12 s, sa "
                                           "première proposition 0,05 s, la voix 0,15 s)")
    finally:
        remove_translators(qapp, translators)


def test_the_health_panel_gives_each_part_s_median_over_the_answers_heard_and_the_95th_percentile(qapp):
    slower = TurnTimes(stt_flush=540.0, first_token=160.0, first_clause=230.0, voice_first_frame=150.6,
                       first_audio=940.0, total=3100.0)
    silent = TurnTimes(300.0, None, None, None, None, 310.0)  # not answered aloud: not counted
    assert answers_latency_text([]) == answers_latency_text([silent]) == "-"
    assert answers_latency_text([TIMES, silent, slower, TIMES]) == (
        "0.84 s (your last words 0.52 s, the language model 0.12 s, its first clause 0.05 s, the voice 0.15 s): "
        "the median of the answers so far; 95th percentile 0.93 s")
