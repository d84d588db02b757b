"""Opening files anyone may have put where Parley looks: only regular files, without blocking (a FIFO
or device named like a conversation or a voice is refused, never read or waited on)."""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO


def is_regular_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a regular file (following links), by ``stat`` alone: nothing is opened."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):  # ValueError: a NUL in the name
        return False


def open_regular(path: str | os.PathLike) -> BinaryIO:
    """Open ``path`` for reading if it is a regular file (else ``OSError``). Opened with ``O_NONBLOCK`` and
    checked on the descriptor, so a FIFO swapped in after a listing is refused, not waited on."""
    flags = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file (a folder, pipe or device)", os.fspath(path))
        return os.fdopen(fd, "rb")  # O_NONBLOCK does not change reads of a regular file
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | os.PathLike, most: int) -> bytes | None:
    """The bytes of the regular file ``path``, or None where it holds more than ``most`` (only
    ``most + 1`` are read). ``OSError`` as ``open_regular``."""
    with open_regular(path) as f:
        data = f.read(most + 1)
    return data if len(data) <= most else None
