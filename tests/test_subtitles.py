"""Caption cues and their file formats: cues split at pauses and at MAX_CUE_WORDS, clock times past
an hour, text that could end a cue (a newline, WebVTT's arrow) kept on its one line."""

from __future__ import annotations

import pytest

from engine.files.subtitles import MAX_CUE_GAP_SECONDS, MAX_CUE_WORDS, Cue, cues, render, srt, vtt
from engine.runtime.transcriber import Word


def test_cues_break_at_a_pause_and_at_the_word_limit():
    many = [Word(f"w{i}", i * 0.3, i * 0.3 + 0.2) for i in range(MAX_CUE_WORDS + 2)]
    pause = MAX_CUE_WORDS * 0.3 + 0.2 + MAX_CUE_GAP_SECONDS + 0.5
    got = cues([*many, Word("after", pause, pause + 0.3)])
    assert [len(c.text.split()) for c in got] == [MAX_CUE_WORDS, 2, 1]
    assert got[0] == Cue(0.0, many[MAX_CUE_WORDS - 1].end, " ".join(w.text for w in many[:MAX_CUE_WORDS]))
    assert got[2].text == "after" and got[2].start == pause


def test_formats():
    items = [Cue(3723.4567, 3725.0, "one\ntwo"), Cue(0.0, 0.5, "a --> b <c> & d")]
    assert srt(items) == ("1\n01:02:03,457 --> 01:02:05,000\none two\n\n"
                          "2\n00:00:00,000 --> 00:00:00,500\na -> b <c> & d\n\n")
    assert vtt(items) == ("WEBVTT\n\n01:02:03.457 --> 01:02:05.000\none two\n\n"
                          "00:00:00.000 --> 00:00:00.500\na -&gt; b &lt;c&gt; &amp; d\n\n")
    voiced = [Cue(1.0, 2.0, "hi", "You")]
    assert srt(voiced) == "1\n00:00:01,000 --> 00:00:02,000\nYou: hi\n\n"
    assert vtt(voiced) == "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<v You>hi\n\n"
    assert render([], "srt") == "" and render([], "txt") == "" and render([], "vtt") == "WEBVTT\n\n"
    with pytest.raises(ValueError, match="unknown caption format 'md'"):
        render([], "md")


@pytest.mark.parametrize("arrow", ["-->", "--->", "---->", "- -->"])
def test_no_cue_text_holds_a_timing_arrow(arrow):
    """"--->" became "-->" (the arrow found one dash in), which ends a SubRip cue's text."""
    for kind in (srt, vtt):
        body = kind([Cue(0.0, 1.0, f"a {arrow} b")])
        assert sum(line.count("-->") for line in body.splitlines()) == 1, body
