"""The journals a previous run left behind: found at start, each locked by this window, read on a
thread so that the window starts at once.

The engine thread journals every conversation into the state folder (``paths.journal_dir``) and removes
the journal on a clean exit or when the conversation ends by choice, so a journal found at start
belongs to a run that crashed, unless another window holds it: each live journal is locked
(``app.journals.lock``), and only a journal whose lock this window took is offered, removed or
recovered. One whose frames were all saved (``app.journals.saved_marker``) is removed instead of offered.
One that cannot be read at all is offered for deletion, after those that can be recovered.
"""

from __future__ import annotations

import logging
import stat
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

import engine
from app.journals.lock import JournalLock
from app.journals.saved_marker import read_mark, remove_mark

log = logging.getLogger(__name__)


@dataclass
class PendingJournal:
    path: Path
    frames: int  # whole frames in it
    lock: JournalLock  # held by this window until the journal is recovered, discarded or left for later
    problem: str = ""  # why nothing can be recovered from it ("" for a journal that can be)


SUFFIX = ".journal"  # a speech model's conversation: its frames (``engine.read_journal``)
CHAT_SUFFIX = ".chat-journal"  # a conversation with your language model: a whole chat conversation file


def journals_in(folder: Path, suffix: str = SUFFIX) -> list[Path]:
    """The journals in ``folder`` now: listed before this window starts one of its own."""
    try:
        return list(folder.glob("*" + suffix))
    except OSError as e:
        log.warning("journals in %s cannot be listed: %s", folder, e)
        return []


def pending_journals_in_background(folder: Path, suffix: str = SUFFIX) -> Future:
    """``pending_journals`` of the journals of one kind (``suffix``) in ``folder`` now, read on a
    thread: reading them (each is every frame's microphone audio) must not hold up the window's
    start. The future's result is the list."""
    future: Future = Future()
    paths = journals_in(folder, suffix)  # listed here, so that this window's own new journal is never among them

    def read() -> None:
        try:
            future.set_result(pending_journals(folder, paths))
        except Exception as e:  # noqa: BLE001 - no journal can stop the start; each is logged
            log.exception("looking for journals to recover failed")
            future.set_exception(e)

    threading.Thread(target=read, name="parley-journals", daemon=True).start()
    return future


def frames_in(journal: Path) -> int:
    """The whole frames a journal of either kind holds (raises for one that cannot be read)."""
    if journal.name.endswith(CHAT_SUFFIX):
        return engine.read_conversation_info(journal).frames
    return engine.scan_journal(journal).frames


def pending_journals(folder: Path, paths: list[Path] | None = None) -> list[PendingJournal]:
    """Journals left by runs that crashed (those of ``folder``, or ``paths`` of it: by default a
    speech model's), newest first, each locked by this window. A journal
    another window holds (live) is skipped untouched. One without a whole frame (a crash before the
    conversation began), or with no frame more than its last save, holds nothing to recover and is
    removed; one that cannot be read at all comes last, with its problem (the person is asked
    whether to delete it), and is logged; anything that is not a regular file is never opened."""
    found, unreadable = [], []
    for path in journals_in(folder) if paths is None else paths:
        try:
            st = path.stat()
            if not stat.S_ISREG(st.st_mode):
                log.warning("%s is not a regular file: skipped", path)
                continue
            lock = JournalLock.try_acquire(path)
        except OSError as e:
            log.warning("journal %s cannot be looked at: %s", path, e)
            continue
        if lock is None:
            continue  # another window's live conversation
        try:
            frames = frames_in(path)
        except Exception as e:  # noqa: BLE001 - whatever one file raises (OverflowError...) is its damage
            log.warning("journal %s cannot be recovered: %s", path, e)
            unreadable.append((st.st_mtime, PendingJournal(path, 0, lock, str(e) or type(e).__name__)))
            continue
        mark = read_mark(path)
        if frames == 0 or (mark is not None and frames <= mark.frames):
            path.unlink(missing_ok=True)
            remove_mark(path)
            lock.release()
            continue
        found.append((st.st_mtime, PendingJournal(path, frames, lock)))
    return [pending for group in (found, unreadable)
            for _mtime, pending in sorted(group, key=lambda item: item[0], reverse=True)]
