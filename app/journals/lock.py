"""One writer per crash journal: a lock file beside each live journal, held by its window.

A window locks ``x.journal.lock`` before it creates ``x.journal`` and keeps it locked while the
journal is live; it removes the journal before it lets the lock go. The lock is the operating
system's (``fcntl.flock`` on Linux and macOS, ``msvcrt.locking`` on Windows), which the system
drops when the process ends, however it ends: a crashed run's journal is free to take, a live
one never is, and no stale process id needs judging.

The rule for a second window (a second instance of the app, by the same user): it runs. It
journals its own conversations under its own locks, and offers, removes or recovers only a
journal whose lock it could take, holding that lock while it does; another window's live journal
is never offered, touched or deleted.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

SUFFIX = ".lock"

if os.name == "nt":
    import msvcrt

    def _lock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # OSError when another handle holds it

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
else:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # per open file: a second open conflicts too

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


def lock_path(journal: Path) -> Path:
    return journal.with_name(journal.name + SUFFIX)


class JournalLock:
    """A held lock on one journal; ``release()`` once the journal is removed or left for later."""

    def __init__(self, journal: Path, fd: int) -> None:
        self.journal, self._fd = journal, fd

    @classmethod
    def try_acquire(cls, journal: Path) -> JournalLock | None:
        """The lock of ``journal``, or None while another window (or another lock here) holds it.
        Raises OSError when the lock file cannot be created at all (a read-only or full disk)."""
        fd = os.open(lock_path(journal), os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o600)
        try:
            _lock(fd)
        except OSError:
            os.close(fd)
            return None
        return cls(journal, fd)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Let the lock go and remove its file (idempotent)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        if os.name != "nt":  # removed while held: a window that opens it next makes a new one
            lock_path(self.journal).unlink(missing_ok=True)
        _unlock(fd)
        os.close(fd)
        if os.name == "nt":  # an open file cannot be removed there
            with contextlib.suppress(OSError):  # another window has it open: left, harmless, reused
                lock_path(self.journal).unlink(missing_ok=True)
