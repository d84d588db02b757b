"""Opening files that anyone may have put where Parley looks: only regular files, without
blocking (a FIFO, a device or a link to one named like a conversation, a voice or a song is
refused, never read or waited on). For every reader of such files: conversations, journals,
voices, personas, audio."""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO


def is_regular_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a regular file (following links), found with ``stat`` alone: nothing is
    opened, so a FIFO, a device or a link to one never blocks the caller. For listing a folder."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):  # ValueError: a NUL in the name
        return False


def open_regular(path: str | os.PathLike) -> BinaryIO:
    """Open ``path`` for reading only if it is a regular file. It is opened without blocking
    (``O_NONBLOCK``, where the OS has it) and checked on the open descriptor, so a FIFO that
    replaces a file between a listing and this open is refused instead of waiting for a writer.
    Raises ``OSError`` (its ``strerror`` says why) for anything else."""
    flags = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file (a folder, pipe or device)", os.fspath(path))
        return os.fdopen(fd, "rb")  # O_NONBLOCK does not change reads of a regular file
    except BaseException:
        os.close(fd)
        raise
