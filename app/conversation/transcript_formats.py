"""The transcript as files other programs read: plain text, JSON, SubRip, WebVTT and Markdown.

Both sides go into every format, each turn at its time from the start of the conversation, each
side by its name (an interpreter's: the original and the interpreter, ``app.conversation.sides``). A
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

from app.conversation.sides import file_side_name
from app.conversation.transcript import YOU, Transcript, Turn, clock
from engine import INVISIBLE_CHARACTERS, SubtitleCue, plain_words, srt_subtitles, vtt_subtitles, write_atomically

MARKDOWN_SPECIALS = "\\`*_[]<>#|"


def words(turn: Turn) -> str:
    """A turn's words on one line (no control or reordering characters), or what there is instead of words."""
    text = plain_words(turn.text)
    if text:
        return text
    return f"({turn.duration:.1f} s of speech)" if turn.speaker == YOU else "(speech without words)"


def as_text(turns: Sequence[Turn], interpreting: bool = False) -> str:
    return "\n".join(f"[{clock(t.start)}] {file_side_name(t.speaker, interpreting)}: {words(t)}"
                     for t in turns) + "\n"


def as_json(turns: Sequence[Turn], pieces: Sequence[tuple[float, str]]) -> str:
    return json.dumps({"turns": [{"speaker": t.speaker, "start": round(t.start, 3), "end": round(t.end, 3),
                                  "text": plain_words(t.text)} for t in turns],
                       "pieces": [{"seconds": s, "text": INVISIBLE_CHARACTERS.sub(" ", text)} for s, text in pieces]},
                      indent=2)


def _cues(turns: Sequence[Turn], interpreting: bool) -> list[SubtitleCue]:
    return [SubtitleCue(t.start, t.end, words(t), file_side_name(t.speaker, interpreting)) for t in turns]


def as_srt(turns: Sequence[Turn], interpreting: bool = False) -> str:
    """SubRip: numbered cues, the speaker's name in front of the words."""
    return srt_subtitles(_cues(turns, interpreting))


def as_webvtt(turns: Sequence[Turn], interpreting: bool = False) -> str:
    """WebVTT: each cue a voice span (``<v You>``)."""
    return vtt_subtitles(_cues(turns, interpreting))


def as_markdown(turns: Sequence[Turn], title: str, when: datetime, interpreting: bool = False) -> str:
    """A document to read or paste: the title, then one paragraph per turn."""
    def escaped(text: str) -> str:
        return "".join("\\" + c if c in MARKDOWN_SPECIALS else c for c in text)

    lines = [f"# {escaped(plain_words(title))}", "", f"*Exported from Parley on {when:%Y-%m-%d %H:%M}. "
             "Times are from the start of the conversation.*", ""]
    for t in turns:
        lines += [f"**{file_side_name(t.speaker, interpreting)}** ({clock(t.start)}): {escaped(words(t))}", ""]
    return "\n".join(lines)


@dataclass(frozen=True)
class ExportFormat:
    name: str  # as the export dialog lists it
    suffix: str
    # (turns, pieces, title, when, interpreting) -> the file's text
    write: Callable[..., str]

    @property
    def dialog_filter(self) -> str:
        return f"{self.name} (*{self.suffix})"


FORMATS = (
    ExportFormat("Text", ".txt",
                 lambda turns, _pieces, _title, _when, interpreting=False: as_text(turns, interpreting)),
    ExportFormat("JSON", ".json", lambda turns, pieces, _title, _when, _interpreting=False: as_json(turns, pieces)),
    ExportFormat("SubRip subtitles", ".srt",
                 lambda turns, _pieces, _title, _when, interpreting=False: as_srt(turns, interpreting)),
    ExportFormat("WebVTT subtitles", ".vtt",
                 lambda turns, _pieces, _title, _when, interpreting=False: as_webvtt(turns, interpreting)),
    ExportFormat("Markdown", ".md",
                 lambda turns, _pieces, title, when, interpreting=False: as_markdown(turns, title, when, interpreting)),
)


def format_for(suffix: str) -> ExportFormat:
    """The format a file's suffix names; plain text for any other suffix."""
    return next((f for f in FORMATS if f.suffix == suffix.lower()), FORMATS[0])


def format_named_by_filter(dialog_filter: str) -> ExportFormat:
    """The format whose dialog filter the person chose (the first where none matches)."""
    return next((f for f in FORMATS if f.dialog_filter == dialog_filter), FORMATS[0])


def export_transcript(transcript: Transcript, path: str, title: str, when: datetime | None = None,
                      interpreting: bool = False) -> None:
    """Write ``transcript`` (an interpreter's where ``interpreting``) in the format ``path``'s suffix
    names, atomically (a failed write leaves no broken file and the one it would have replaced as it was)."""
    target = Path(path)
    text = format_for(target.suffix).write(transcript.turns, transcript.pieces, title, when or datetime.now(),
                                           interpreting)
    write_atomically(target, text.encode("utf-8"), private=True)
