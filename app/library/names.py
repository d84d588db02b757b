"""The names the app proposes for a conversation's file: a dated title, "Conversation 2026-12-06 14.05".

A dated title says which conversation it is in the library (the demo's text would make a
gibberish one) and never needs renaming to be told apart; the user renames it at will.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from app.library.listing import SUFFIX


def dated_title(when: datetime) -> str:
    """"Conversation 2026-12-06 14.05": dots in the time, since ":" is not allowed in Windows file names."""
    return f"Conversation {when:%Y-%m-%d %H.%M}"


def new_conversation_path(folder: Path, when: datetime | None = None, suffix: str = SUFFIX) -> Path:
    """A file in ``folder`` named with the dated title of ``when`` (now), not yet taken: a second
    one in the same minute is "… (2)"."""
    title = dated_title(when or datetime.now())
    path, n = folder / f"{title}{suffix}", 2
    while path.exists():
        path, n = folder / f"{title} ({n}){suffix}", n + 1
    return path
