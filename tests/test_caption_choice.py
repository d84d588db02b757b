"""Which caption model goes with a conversation model: the demo STT beside the demo, else the first
Kyutai STT downloaded here, else none (nothing is downloaded to find out)."""

from __future__ import annotations

from app.conversation.caption_choice import caption_model_for, real_caption_models


def test_the_demo_gets_the_demo_stt_and_a_real_model_the_first_downloaded_stt():
    assert caption_model_for(True, present=lambda name: False) == "demo-stt"
    assert real_caption_models() == ("stt-1b-en_fr", "stt-2.6b-en")
    assert caption_model_for(False, present=lambda name: True) == "stt-1b-en_fr"
    assert caption_model_for(False, present=lambda name: name == "stt-2.6b-en") == "stt-2.6b-en"
    assert caption_model_for(False, present=lambda name: False) == ""


def test_with_nothing_downloaded_a_real_model_has_no_caption_model():
    """The tests' own cache holds no Kyutai STT download."""
    assert caption_model_for(False) == ""
