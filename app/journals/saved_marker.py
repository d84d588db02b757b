"""Which part of a crash journal a save already covers.

A conversation goes on after it is saved, so its journal must too (a crash later would lose what
was said since). When the person saves, the worker writes beside the journal how many frames the
saved file holds; a journal found at the next start that holds no more than that needs no
recovery and is removed with its marker, as if the save had removed it. A marker whose file is gone
(deleted from the library, or outside the app) is no marker: nothing is saved any more, so the
whole journal is offered and nothing claims a save.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from engine import is_regular_file, write_atomically

SUFFIX = ".saved"


@dataclass(frozen=True)
class SavedMark:
    frames: int  # frames of the conversation in the saved file
    file: str  # where it was saved


def marker_path(journal: Path) -> Path:
    return journal.with_suffix(journal.suffix + SUFFIX)


def mark_saved(journal: Path, frames: int, file: str) -> None:
    write_atomically(marker_path(journal), (json.dumps({"frames": frames, "file": file}) + "\n").encode(),
                     private=True)


def read_mark(journal: Path) -> SavedMark | None:
    """The save recorded beside ``journal``; None when there is none, it cannot be read, or the
    saved file is no longer there."""
    try:
        data = json.loads(marker_path(journal).read_text())
        mark = SavedMark(int(data["frames"]), str(data["file"]))
    except Exception:  # noqa: BLE001 - a damaged marker (1e400 frames, deep nesting...) is no marker
        return None
    return mark if is_regular_file(mark.file) else None


def remove_mark(journal: Path) -> None:
    marker_path(journal).unlink(missing_ok=True)
