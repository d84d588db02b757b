"""The transcript as files other programs read: plain text, JSON, SubRip, WebVTT and Markdown.

Both sides go into every format, each turn at its time from the start of the conversation. A
turn's words are what the model said (the assistant) or what a caption model heard (the person);
a turn without words says how long that side spoke. Subtitle players show overlapping cues
together, so turns that overlap in time stay as they were spoken.

``FORMATS`` is the one table of the formats: the file suffix picks the writer, and the export
dialog's filters are built from it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from app.conversation.transcript import ASSISTANT, YOU, Transcript, Turn, clock
from engine import write_atomically

SPEAKER_NAMES = {YOU: "You", ASSISTANT: "Assistant"}
MARKDOWN_SPECIALS = "\\`*_[]<>#|"


def words(turn: Turn) -> str:
    """A turn's words on one line, or what there is instead of words."""
    text = " ".join(turn.text.split())
    if text:
        return text
    return f"({turn.duration:.1f} s of speech)" if turn.speaker == YOU else "(speech without words)"


def _timestamp(seconds: float, decimal_mark: str) -> str:
    """HH:MM:SS followed by the milliseconds, as SubRip (",") and WebVTT (".") write a cue's time."""
    ms = max(0, round(seconds * 1000))
    hours, ms = divmod(ms, 3_600_000)
    minutes, ms = divmod(ms, 60_000)
    secs, ms = divmod(ms, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}{decimal_mark}{ms:03d}"


def _cue_text(turn: Turn) -> str:
    """Words that cannot end a cue early: no blank line (one line anyway) and no "-->" arrow."""
    return words(turn).replace("-->", "->")


def as_text(turns: Sequence[Turn]) -> str:
    return "\n".join(f"[{clock(t.start)}] {SPEAKER_NAMES[t.speaker]}: {words(t)}" for t in turns) + "\n"


def as_json(turns: Sequence[Turn], pieces: Sequence[tuple[float, str]]) -> str:
    return json.dumps({"turns": [{"speaker": t.speaker, "start": round(t.start, 3), "end": round(t.end, 3),
                                  "text": t.text.strip()} for t in turns],
                       "pieces": [{"seconds": s, "text": text} for s, text in pieces]}, indent=2)


def as_srt(turns: Sequence[Turn]) -> str:
    """SubRip: numbered cues, the speaker's name in front of the words."""
    cues = [f"{n}\n{_timestamp(t.start, ',')} --> {_timestamp(t.end, ',')}\n"
            f"{SPEAKER_NAMES[t.speaker]}: {_cue_text(t)}\n" for n, t in enumerate(turns, 1)]
    return "\n".join(cues)


def as_webvtt(turns: Sequence[Turn]) -> str:
    """WebVTT: each cue a voice span (``<v You>``), which players show or style as the speaker."""
    def escaped(text: str) -> str:
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

    cues = [f"{_timestamp(t.start, '.')} --> {_timestamp(t.end, '.')}\n"
            f"<v {SPEAKER_NAMES[t.speaker]}>{escaped(_cue_text(t))}\n" for t in turns]
    return "\n".join(["WEBVTT\n", *cues])


def as_markdown(turns: Sequence[Turn], title: str, when: datetime) -> str:
    """A document to read or paste: the title, then one paragraph per turn."""
    def escaped(text: str) -> str:
        return "".join("\\" + c if c in MARKDOWN_SPECIALS else c for c in text)

    lines = [f"# {escaped(title)}", "", f"*Exported from Parley on {when:%Y-%m-%d %H:%M}. "
             "Times are from the start of the conversation.*", ""]
    for t in turns:
        lines += [f"**{SPEAKER_NAMES[t.speaker]}** ({clock(t.start)}): {escaped(words(t))}", ""]
    return "\n".join(lines)


@dataclass(frozen=True)
class ExportFormat:
    name: str  # as the export dialog lists it
    suffix: str
    write: Callable[[Sequence[Turn], Sequence[tuple[float, str]], str, datetime], str]

    @property
    def dialog_filter(self) -> str:
        return f"{self.name} (*{self.suffix})"


FORMATS = (
    ExportFormat("Text", ".txt", lambda turns, _pieces, _title, _when: as_text(turns)),
    ExportFormat("JSON", ".json", lambda turns, pieces, _title, _when: as_json(turns, pieces)),
    ExportFormat("SubRip subtitles", ".srt", lambda turns, _pieces, _title, _when: as_srt(turns)),
    ExportFormat("WebVTT subtitles", ".vtt", lambda turns, _pieces, _title, _when: as_webvtt(turns)),
    ExportFormat("Markdown", ".md", lambda turns, _pieces, title, when: as_markdown(turns, title, when)),
)


def format_for(suffix: str) -> ExportFormat:
    """The format a file's suffix names; plain text for any other suffix."""
    return next((f for f in FORMATS if f.suffix == suffix.lower()), FORMATS[0])


def format_named_by_filter(dialog_filter: str) -> ExportFormat:
    """The format whose dialog filter the person chose (the first where none matches)."""
    return next((f for f in FORMATS if f.dialog_filter == dialog_filter), FORMATS[0])


def export_transcript(transcript: Transcript, path: str, title: str, when: datetime | None = None) -> None:
    """Write ``transcript`` in the format ``path``'s suffix names, atomically (a failed write leaves
    no broken file and the one it would have replaced as it was)."""
    target = Path(path)
    text = format_for(target.suffix).write(transcript.turns, transcript.pieces, title, when or datetime.now())
    write_atomically(target, text.encode("utf-8"), private=True)
