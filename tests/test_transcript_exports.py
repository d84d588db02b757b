"""The transcript's export formats, each read back by a parser that is not ours (SubRip by `srt`,
WebVTT by `webvtt-py`): both sides, their times, their words, overlapping turns and words that
look like markup."""

from __future__ import annotations

import html
import json
import re
from datetime import datetime, timedelta

import pytest
import srt
import webvtt

from app.conversation.transcript import ASSISTANT, YOU, FrameObservation, Transcript
from app.conversation.transcript_formats import (
    FORMATS,
    as_markdown,
    as_srt,
    as_text,
    as_webvtt,
    export_transcript,
    format_named_by_filter,
    words,
)
from engine import FRAME_SECONDS

WHEN = datetime(2026, 12, 6, 14, 5)
TRICKY = " a <b> & c --> d *e* [f](g)"  # markup of every format, and a cue's arrow


def sample_transcript() -> Transcript:
    """The assistant speaks, the person speaks (frames 37-46), the assistant answers while the
    person still speaks (frames 44-52: the turns overlap) with words that look like markup."""
    t = Transcript()
    texts = {1: "Hel", 2: "lo", 3: " there", 44: TRICKY}
    for i in range(53):
        user = 37 <= i < 47
        t.add_frame(FrameObservation(i * FRAME_SECONDS, user, -20.0 if user else -120.0,
                                     -20.0 if i in texts or 44 <= i < 53 else -120.0, texts.get(i, "")))
    return t


def with_caption(t: Transcript, text: str) -> Transcript:
    """The person's turn as a caption model would fill it."""
    next(turn for turn in t.turns if turn.speaker == YOU).text = text
    return t


def test_the_sample_has_both_sides_and_an_overlap():
    turns = sample_transcript().turns
    assert [t.speaker for t in turns] == [ASSISTANT, YOU, ASSISTANT]
    assert turns[2].start < turns[1].end  # the answer began before the person stopped


def test_plain_text_lists_each_turn_with_its_time():
    assert as_text(sample_transcript().turns) == (
        "[00:00.1] Assistant: Hello there\n[00:03.0] You: (0.8 s of speech)\n"
        f"[00:03.5] Assistant: {TRICKY.strip()}\n")


def test_a_caption_replaces_the_length_of_the_persons_turn():
    t = with_caption(sample_transcript(), "what  time\nis it")
    assert words(t.turns[1]) == "what time is it"
    assert "You: what time is it" in as_text(t.turns)


@pytest.mark.parametrize("captioned", [False, True])
def test_subrip_reads_back_with_both_sides_times_and_words(captioned):
    t = sample_transcript()
    if captioned:
        with_caption(t, "what time is it")
    cues = list(srt.parse(as_srt(t.turns)))
    assert [c.index for c in cues] == [1, 2, 3]
    for cue, turn in zip(cues, t.turns, strict=True):
        assert cue.start == timedelta(milliseconds=round(turn.start * 1000))
        assert cue.end == timedelta(milliseconds=round(turn.end * 1000))
        speaker, text = cue.content.split(": ", 1)
        assert speaker == {YOU: "You", ASSISTANT: "Assistant"}[turn.speaker]
        assert text == words(turn).replace("-->", "->")
    assert cues[1].end > cues[2].start  # overlapping cues stay as spoken
    assert cues[1].content == ("You: what time is it" if captioned else "You: (0.8 s of speech)")


def test_webvtt_reads_back_with_voices_times_and_escaped_words():
    t = with_caption(sample_transcript(), "is 5 < 6?")
    cues = webvtt.from_string(as_webvtt(t.turns)).captions
    assert [c.voice for c in cues] == ["Assistant", "You", "Assistant"]
    for cue, turn in zip(cues, t.turns, strict=True):
        assert cue.start_in_seconds + int(cue.start[-3:]) / 1000 == pytest.approx(turn.start, abs=1e-3)
        assert cue.end_in_seconds + int(cue.end[-3:]) / 1000 == pytest.approx(turn.end, abs=1e-3)
        assert html.unescape(cue.text) == words(turn).replace("-->", "->")
    assert "<b>" not in as_webvtt(t.turns)  # the words' markup is text, not tags


def test_times_past_an_hour_keep_their_hours():
    t = sample_transcript()
    t.turns[0].start, t.turns[0].end = 3723.25, 3725.5
    cue = next(srt.parse(as_srt(t.turns[:1])))
    assert (cue.start, cue.end) == (timedelta(seconds=3723.25), timedelta(seconds=3725.5))
    assert as_webvtt(t.turns[:1]).splitlines()[2] == "01:02:03.250 --> 01:02:05.500"


def test_markdown_has_the_title_and_one_paragraph_per_turn_with_markup_escaped():
    text = as_markdown(with_caption(sample_transcript(), "what *time*").turns, "Talk_with [Ana]", WHEN)
    lines = text.splitlines()
    assert lines[0] == r"# Talk\_with \[Ana\]"
    assert "2026-12-06 14:05" in lines[2]
    paragraphs = [line for line in lines if line.startswith("**")]
    assert paragraphs == [
        "**Assistant** (00:00.1): Hello there",
        r"**You** (00:03.0): what \*time\*",
        r"**Assistant** (00:03.5): a \<b\> & c --\> d \*e\* \[f\](g)",
    ]
    # The escapes undo to the words: what a Markdown renderer shows.
    shown = re.sub(r"\\(.)", r"\1", paragraphs[2].split(": ", 1)[1])
    assert shown == TRICKY.strip()


def test_an_empty_conversation_exports_valid_empty_files(tmp_path):
    for f in FORMATS:
        export_transcript(Transcript(), str(tmp_path / f"empty{f.suffix}"), "Empty", WHEN)
    assert list(srt.parse((tmp_path / "empty.srt").read_text(encoding="utf-8"))) == []
    assert webvtt.read(str(tmp_path / "empty.vtt")).captions == []
    assert json.loads((tmp_path / "empty.json").read_text(encoding="utf-8")) == {"turns": [], "pieces": []}


def test_the_suffix_picks_the_format_and_the_dialog_filter_names_it(tmp_path):
    t = sample_transcript()
    for f in FORMATS:
        export_transcript(t, str(tmp_path / f"t{f.suffix.upper()}"), "Talk", WHEN)  # ".SRT" is SubRip too
        assert (tmp_path / f"t{f.suffix.upper()}").read_text(encoding="utf-8") == f.write(t.turns, t.pieces,
                                                                                          "Talk", WHEN)
        assert format_named_by_filter(f.dialog_filter) is f
    data = json.loads((tmp_path / "t.JSON").read_text(encoding="utf-8"))
    assert [turn["speaker"] for turn in data["turns"]] == ["assistant", "you", "assistant"]
    assert data["turns"][1]["end"] - data["turns"][1]["start"] == pytest.approx(0.8)
    assert [p["text"] for p in data["pieces"]] == ["Hel", "lo", " there", TRICKY]
    export_transcript(t, str(tmp_path / "t.log"), "Talk", WHEN)
    assert (tmp_path / "t.log").read_text(encoding="utf-8") == as_text(t.turns)  # another suffix: text


def test_a_failed_export_leaves_no_partial_file_behind(tmp_path):
    target = tmp_path / "missing-folder" / "t.srt"
    with pytest.raises(OSError):
        export_transcript(sample_transcript(), str(target), "Talk", WHEN)
    assert not target.parent.exists()
    occupied = tmp_path / "t.vtt"
    occupied.mkdir()  # the final rename fails after the data was written
    (occupied / "inside").write_text("precious", encoding="utf-8")
    with pytest.raises(OSError):
        export_transcript(sample_transcript(), str(occupied), "Talk", WHEN)
    assert (occupied / "inside").read_text(encoding="utf-8") == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.vtt"]  # no temp file left


@pytest.mark.parametrize("mark", ["\u202e", "\u2066", "\u200f", "\x1b]0;owned\x07", "\x85"])
def test_no_export_holds_a_control_or_reordering_character(mark, tmp_path):
    """An RLO in a caption showed "gpj.exe" as "exe.jpg" in every export; an escape sequence reached a terminal."""
    t = with_caption(sample_transcript(), f"my file gpj{mark}.exe")
    for fmt in FORMATS:
        path = tmp_path / f"t{fmt.suffix}"
        export_transcript(t, str(path), f"title {mark}", WHEN)
        text = path.read_text(encoding="utf-8")
        if fmt.suffix == ".json":
            text = json.dumps(json.loads(text), ensure_ascii=False)
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f]", text), fmt.suffix
        assert "gpj" in text and ".exe" in text
