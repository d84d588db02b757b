"""The saved conversations of a folder, as the library and `parley conversations` list them.

Only the start of each file's header is read (``engine.read_conversation_summary``: a capped read,
however long the transcript), so listing thousands of long conversations reads kilobytes each. A
file that cannot be read is listed with the reason, never dropped and never a reason to stop the
listing: whatever reading one file raises is that file's damage. Anything that is not a regular
file (a pipe, a device, a folder, or a link to one) is listed as such without being opened: opening
a pipe blocks.

An entry keeps only the start of the assistant's text (its title); search reads the transcript
from the file when asked (``transcript_text``), so listing thousands of long conversations holds
a few kilobytes each.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from app.i18n import translate
from app.paths import folder_problem
from engine import (
    INVISIBLE_CHARACTERS,
    ConversationFileError,
    ConversationSummary,
    read_conversation_info,
    read_conversation_summary,
)

SUFFIX = ".parley"
TITLE_WORDS = 8
PREVIEW_CHARS = 200  # of the assistant's text an entry keeps: enough for its title
# Names the app proposes when saving; a file still called that has no name of the user's.
UNNAMED = re.compile(r"(conversation|untitled)([ _-]*\(?\d+\)?)*", re.IGNORECASE)


@dataclass(frozen=True)
class ConversationEntry:
    path: Path
    info: ConversationSummary | None  # None: unreadable (see error); its text is not kept (see preview)
    error: str = ""
    preview: str = ""  # the start of the assistant's text

    @property
    def title(self) -> str:
        """The user's name for it (the file name), or for a file named as the app proposes or
        with a blank name, the first words of the assistant's text (else the whole file name)."""
        stem = self.path.stem
        unnamed = not stem.strip() or UNNAMED.fullmatch(stem)
        words = self.preview.split() if unnamed and self.info is not None else []
        if not words:
            return stem if stem.strip() else self.path.name
        return " ".join(words[:TITLE_WORDS]) + ("…" if len(words) > TITLE_WORDS else "")

    def as_json(self) -> dict:
        """Names as text: bytes of a file name that are not UTF-8 are written ``\\xNN``."""
        info, path, title = self.info, _name_text(str(self.path)), _name_text(self.title)
        if info is None:
            return {"path": path, "title": title, "error": _name_text(self.error)}
        return {"path": path, "title": title, "created": info.created,
                "seconds": round(info.seconds, 2), "model": info.model, "bytes": info.bytes, "persona": info.persona}

    def as_line(self) -> str:
        """One tab-separated line, safe for a terminal: every field's control characters escaped."""
        info = self.info
        if info is None:
            return f"{printable(str(self.path))}\tunreadable: {printable(self.error)}"
        return "\t".join(printable(field) for field in (str(self.path), self.title, info.created,
                                                        f"{info.seconds:.1f} s", info.model, human_size(info.bytes)))


def _name_text(text: str) -> str:
    """``text`` as valid Unicode: the bytes of a file name that are not UTF-8 (Python's surrogate
    escapes) as ``\\xNN``, any other lone surrogate (a header may hold one) as ``\\uNNNN``."""
    return "".join(f"\\x{ord(c) - 0xDC00:02x}" if 0xDC80 <= ord(c) <= 0xDCFF
                   else f"\\u{ord(c):04x}" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)


def printable(text: str) -> str:
    """``text`` as a terminal may show it (``_name_text``), its control characters (C0, DEL, C1: an
    escape sequence in a title would set the terminal's title or worse), tabs and newlines included,
    as ``\\xNN``, and the marks that reorder text (an RLO shows "gpj.exe" as "exe.jpg") as ``\\uNNNN``."""
    return "".join(_escaped(c) if INVISIBLE_CHARACTERS.match(c) else c for c in _name_text(text))


def _escaped(c: str) -> str:
    return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"


FileKey = tuple[int, int]  # (size, mtime_ns): an entry is read again when its file's key changes


def file_problem(path: Path) -> tuple[FileKey | None, str]:
    """(the file's key, "") for a regular file (a link is followed); (None, why) for anything that
    must not be opened as a conversation: a pipe or device would block the reader, a folder fails."""
    try:
        st = os.stat(path)
    except (OSError, ValueError) as e:  # a dangling link, removed while listing
        return None, translate("Library", "{file} cannot be read: {problem}").format(
            file=path.name, problem=getattr(e, "strerror", None) or e)
    if stat.S_ISDIR(st.st_mode):
        return None, translate("Library", "{file} is a folder, not a conversation.").format(file=path.name)
    if not stat.S_ISREG(st.st_mode):
        return None, translate("Library", "{file} is not a regular file (a pipe or a device); it was not "
                               "opened.").format(file=path.name)
    return (st.st_size, st.st_mtime_ns), ""


def read_entry(path: Path) -> ConversationEntry:
    return read_entry_keyed(path)[1]


def read_entry_keyed(path: Path) -> tuple[FileKey | None, ConversationEntry]:
    key, problem = file_problem(path)
    if problem:
        return None, ConversationEntry(path, None, problem)
    try:
        info = read_conversation_summary(path)
    except ConversationFileError as e:
        return key, ConversationEntry(path, None, str(e))
    except Exception as e:  # noqa: BLE001 - OverflowError, RecursionError, MemoryError...: this file's damage
        return key, ConversationEntry(path, None, translate("Library", "{file} is damaged ({problem}).").format(
            file=path.name, problem=f"{type(e).__name__}: {e}"))
    return key, ConversationEntry(path, replace(info, text=""), preview=info.text[:PREVIEW_CHARS])


def scan(folder: Path, known: Mapping[Path, tuple[FileKey, ConversationEntry]] = {}
         ) -> Iterator[tuple[Path, FileKey | None, ConversationEntry]]:
    """(path, key, entry) of every ``*.parley`` name in ``folder`` (not its subfolders); an entry of
    ``known`` whose file has the same key is reused instead of read again."""
    for path in folder.glob(f"*{SUFFIX}"):
        old = known.get(path)
        if old is not None and file_problem(path)[0] == old[0]:
            yield path, *old
        else:
            yield path, *read_entry_keyed(path)


def newest_first(entries) -> list[ConversationEntry]:
    return sorted(entries, key=lambda e: (e.info.created if e.info else "", e.path.name), reverse=True)


def listing_problem(folder: Path) -> str:
    """Why ``folder`` cannot be listed, "" when it can (a glob of it says nothing: it finds no file)."""
    try:
        with os.scandir(folder):
            return ""
    except OSError as e:
        return folder_problem(folder, "conversations", e)


def list_conversations(folder: Path) -> list[ConversationEntry]:
    """Every ``*.parley`` name in ``folder`` (not its subfolders), newest first."""
    return newest_first(entry for _path, _key, entry in scan(folder))


def transcript_text(path: Path) -> str:
    """The words of both sides, read from the file's header: the assistant's and, where a caption
    model heard them, the person's ("" for a file that cannot be read)."""
    if file_problem(path)[1]:
        return ""
    try:
        info = read_conversation_info(path)
        return f"{info.text}\n{info.caption_text}"
    except Exception:  # noqa: BLE001 - a damaged file holds no text to find
        return ""


def human_size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    size, unit = n / 1024, "KB"
    for bigger in ("MB", "GB"):
        if size < 1024:
            break
        size, unit = size / 1024, bigger
    return f"{size:.1f} {unit}"
