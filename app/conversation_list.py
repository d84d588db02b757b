"""The saved conversations of a folder, as the library and `parley conversations` list them.

Only file headers are read (``engine.read_conversation_info``). A file that cannot be read is
listed with the reason, never dropped and never a reason to stop the listing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from engine import ConversationFileError, ConversationInfo, read_conversation_info

SUFFIX = ".parley"
TITLE_WORDS = 8
# Names the app proposes when saving; a file still called that has no name of the user's.
UNNAMED = re.compile(r"(conversation|untitled)([ _-]*\(?\d+\)?)*", re.IGNORECASE)


@dataclass(frozen=True)
class ConversationEntry:
    path: Path
    info: ConversationInfo | None  # None: unreadable (see error)
    error: str = ""

    @property
    def title(self) -> str:
        """The user's name for it (the file name), or the first words of the assistant's text."""
        stem = self.path.stem
        if self.info is None or not UNNAMED.fullmatch(stem):
            return stem
        words = self.info.text.split()
        if not words:
            return stem
        return " ".join(words[:TITLE_WORDS]) + ("…" if len(words) > TITLE_WORDS else "")

    def as_json(self) -> dict:
        info = self.info
        if info is None:
            return {"path": str(self.path), "title": self.title, "error": self.error}
        return {"path": str(self.path), "title": self.title, "created": info.created,
                "seconds": round(info.seconds, 2), "model": info.model, "bytes": info.bytes}

    def as_line(self) -> str:
        info = self.info
        if info is None:
            return f"{self.path}\tunreadable: {self.error}"
        return "\t".join((str(self.path), self.title, info.created, f"{info.seconds:.1f} s", info.model,
                          human_size(info.bytes)))


def read_entry(path: Path) -> ConversationEntry:
    try:
        return ConversationEntry(path, read_conversation_info(path))
    except ConversationFileError as e:
        return ConversationEntry(path, None, str(e))


def list_conversations(folder: Path) -> list[ConversationEntry]:
    """Every ``*.parley`` file in ``folder`` (not its subfolders), newest first."""
    entries = [read_entry(p) for p in folder.glob(f"*{SUFFIX}") if p.is_file()]
    return sorted(entries, key=lambda e: (e.info.created if e.info else "", e.path.name), reverse=True)


def human_size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    size, unit = n / 1024, "KB"
    for bigger in ("MB", "GB"):
        if size < 1024:
            break
        size, unit = size / 1024, bigger
    return f"{size:.1f} {unit}"
