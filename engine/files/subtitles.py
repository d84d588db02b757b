"""Caption cues from transcribed words, as SubRip, WebVTT or plain text; a cue ends at
``MAX_CUE_WORDS`` words or a pause over ``MAX_CUE_GAP_SECONDS``."""

from __future__ import annotations

import re
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


# Control characters (C0, DEL, C1) and the invisible marks that reorder text (bidirectional
# overrides, embeddings and isolates: an RLO shows "txt.exe" as "exe.txt"): no transcript holds them.
INVISIBLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_ARROW = re.compile("-{2,}>")  # "-->" marks a timing line; "--->" holds one too


def plain(text: str) -> str:
    """``text`` on one line: whitespace runs, control and reordering characters as one space."""
    return " ".join(INVISIBLE.sub(" ", text).split())


def _one_line(text: str) -> str:
    """A cue's text on one line, never blank (that ends a cue) and without a timing line's "-->"."""
    return _ARROW.sub("->", plain(text))


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
