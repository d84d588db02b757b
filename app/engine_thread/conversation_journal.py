"""The crash journal of the conversation the engine thread runs: started with each conversation
under a new name and lock, every frame the session recorded first; a journal that fails to write
(a full disk) is said (``JournalState``) and tried again every ``retry_s`` while the frames are
recorded in memory; removed when the conversation ends by the person's choice. A save is noted
beside it (``app.journals.saved_marker``), so that a crash offers only what was not saved."""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from pathlib import Path

import engine
from app.engine_thread import messages as m
from app.journals.lock import JournalLock
from app.journals.saved_marker import mark_saved, read_mark, remove_mark

log = logging.getLogger(__name__)

RETRY_S = 5.0  # how often a journal that failed to write (a full disk) is started again


class ConversationJournal:
    def __init__(self, folder: Path | None, emit: Callable[[object], None]) -> None:
        """``folder``: where each conversation's journal is written (None: no journals)."""
        self.folder = folder
        self.emit = emit
        self.path: Path | None = None  # the current conversation's journal
        self.problem = ""  # why journaling stopped ("" while it runs or there is none)
        self.retry_s = RETRY_S
        self._retry_at = 0.0
        self._recorder = None  # the current conversation's engine FrameRecorder (with its journal)
        self._lock: JournalLock | None = None  # held while ``path`` is live

    def follow(self, session) -> None:
        """Journal the conversation ``session`` now is, when it can be (a conversation restored from a
        full snapshot has no recorded frames to journal from); the previous one's must be ``end``ed."""
        if self.folder is None:
            return
        if session.frames and not engine.can_save_compact(session):
            self._say("")  # none to protect: not a stopped one
            return
        self._start(session)

    def check(self, session) -> None:
        """After frames: a journal write that failed is said; a stopped journal is retried."""
        if self.folder is None:
            return
        if self.problem:
            if time.monotonic() >= self._retry_at and session is not None:
                self._start(session)
            return
        writer = getattr(self._recorder, "journal", None)
        if writer is not None and writer.error:
            self._stopped(writer.error)

    def note_saved(self, frames: int, file: str) -> None:
        """The conversation's first ``frames`` frames were saved to ``file``."""
        if self.path is None:
            return
        try:
            mark_saved(self.path, frames, file)
        except OSError as e:  # the journal stays whole: a crash offers all of it
            log.warning("could not note the save beside the journal: %s", e)

    def end(self) -> None:
        """The conversation ended by the person's choice: its journal, mark and lock go."""
        if self._recorder is not None:
            close_recorder(self._recorder, self.path)
        if self.path is not None:
            remove_mark(self.path)
        if self._lock is not None:
            self._lock.release()
        self._recorder, self.path, self._lock = None, None, None

    def _start(self, session) -> None:
        """Journal ``session`` (every frame it recorded first) under a new name and lock. When that
        fails the frames are recorded in memory meanwhile and ``check`` tries again; the journal it
        replaces goes."""
        path = self.folder / f"conversation-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}.journal"
        lock = None
        try:
            lock = JournalLock.try_acquire(path)
            if lock is None:
                raise OSError(f"{path.name} is locked by another window")
            recorder = engine.record_frames(session, path)
        except (OSError, ValueError) as e:
            if lock is not None:
                path.unlink(missing_ok=True)  # what a failed start wrote
                lock.release()
            if self._recorder is None:  # recorded in memory: a journal started later holds these frames
                self._recorder = engine.record_frames(session)
            self._stopped(f"no crash journal for this conversation: {getattr(e, 'strerror', None) or e}")
            return
        old, old_path, old_lock = self._recorder, self.path, self._lock
        self._recorder, self.path, self._lock = recorder, path, lock
        if old is not None:  # the one that failed: the new journal holds all of it
            close_recorder(old, old_path)
        if old_path is not None:
            if (mark := read_mark(old_path)) is not None:
                mark_saved(path, mark.frames, mark.file)
            remove_mark(old_path)
        if old_lock is not None:
            old_lock.release()
        self._say("")

    def _stopped(self, why: str) -> None:
        self._retry_at = time.monotonic() + self.retry_s
        self._say(why)

    def _say(self, why: str) -> None:
        if why != self.problem:
            log.log(logging.ERROR if why else logging.INFO, "%s", why or "crash protection resumed")
            self.problem = why
            self.emit(m.JournalState(why))


def close_recorder(recorder, journal: Path | None) -> None:
    """Close a conversation's recorder and remove its journal, also when the journal's last write
    fails on closing (a full disk: the file's buffer cannot be flushed)."""
    try:
        recorder.close(remove=True)
    except OSError as e:
        log.warning("the journal %s failed on closing: %s", journal, e)
        if journal is not None:
            journal.unlink(missing_ok=True)
