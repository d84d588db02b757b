"""Timed text as people read it: caption cues from transcribed words, written as SubRip (``.srt``),
WebVTT (``.vtt``) or plain text (``.txt``).

A cue gathers consecutive words until it holds ``MAX_CUE_WORDS`` or the next word starts more than
``MAX_CUE_GAP_SECONDS`` after the previous one ended (a pause starts a new cue).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

MAX_CUE_WORDS = 12
MAX_CUE_GAP_SECONDS = 1.0
FORMATS = ("srt", "vtt", "txt")  # the file name extensions ``render`` writes


class TimedWord(Protocol):
    text: str
    start: float
    end: float


@dataclass(frozen=True)
class Cue:
    start: float
    end: float
    text: str
    voice: str = ""  # who speaks ("You", "Assistant"; "" where one voice speaks throughout)


def cues(words: Sequence[TimedWord]) -> list[Cue]:
    groups: list[list[TimedWord]] = []
    for word in words:
        if not groups or len(groups[-1]) >= MAX_CUE_WORDS or word.start - groups[-1][-1].end > MAX_CUE_GAP_SECONDS:
            groups.append([word])
        else:
            groups[-1].append(word)
    return [Cue(g[0].start, max(g[-1].end, g[0].start), " ".join(w.text for w in g)) for g in groups]


def _clock(seconds: float, decimal: str) -> str:
    ms = max(0, round(seconds * 1000))
    return f"{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d}{decimal}{ms % 1000:03d}"


def _one_line(text: str) -> str:
    """A cue's text on one line, never a blank one (a blank line ends a cue in both formats), and
    without the "-->" that marks a timing line."""
    return " ".join(text.split()).replace("-->", "->")


def _vtt_text(text: str) -> str:
    """Text, not markup: WebVTT reads "<" as a tag and "&" as an entity."""
    return _one_line(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def srt(items: Sequence[Cue]) -> str:
    """SubRip: numbered cues, a voice's name in front of its words."""
    return "".join(f"{i}\n{_clock(c.start, ',')} --> {_clock(c.end, ',')}\n"
                   f"{c.voice + ': ' if c.voice else ''}{_one_line(c.text)}\n\n" for i, c in enumerate(items, 1))


def vtt(items: Sequence[Cue]) -> str:
    """WebVTT: a voice as a voice span (``<v You>``), which players show or style as the speaker."""
    return "WEBVTT\n\n" + "".join(f"{_clock(c.start, '.')} --> {_clock(c.end, '.')}\n"
                                  f"{f'<v {c.voice}>' if c.voice else ''}{_vtt_text(c.text)}\n\n" for c in items)


def render(words: Sequence[TimedWord], kind: str) -> str:
    """``words`` in the format ``kind`` (one of ``FORMATS``)."""
    if kind == "srt":
        return srt(cues(words))
    if kind == "vtt":
        return vtt(cues(words))
    if kind == "txt":
        text = " ".join(w.text for w in words)
        return text + "\n" if text else ""
    raise ValueError(f"unknown caption format {kind!r}: expected one of {', '.join(FORMATS)}")
