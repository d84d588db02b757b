"""Writing files: a user's file is either the old one or the complete new one, never a mix; and
what holds a person's conversation is readable by that person only."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path
from typing import BinaryIO

PRIVATE_MODE = 0o600  # conversations and journals (the person's own voice): readable by the user only
# Temp names are short and independent of the target's name, so that any name the file system
# allows for the target (up to 255 bytes) can be saved: ".parley-" + 8 random characters + ".tmp".
_TEMP_PREFIX, _TEMP_SUFFIX = ".parley-", ".tmp"


class WriteError(OSError):
    """A file the person asked for could not be written: names that file (never the temp file the
    write went through) and what to do, in words (``errno`` as the OS said it)."""

    def __init__(self, path: Path, cause: OSError):
        super().__init__(cause.errno, _plain(cause), str(path))

    def __str__(self) -> str:
        return f"{self.filename} could not be written: {self.strerror}"


_WHAT_TO_DO = {
    errno.ENOSPC: "the disk is full. Free some space on it, or save somewhere else, and try again",
    errno.EDQUOT: "your disk quota is used up. Free some space, or save somewhere else, and try again",
    errno.EFBIG: "the file would be larger than this disk or account allows. Save somewhere else",
    errno.EROFS: "the disk is read-only. Save somewhere else",
    errno.EACCES: "permission denied. Save in a folder you can write to",
    errno.EPERM: "permission denied. Save in a folder you can write to",
    errno.ENOENT: "its folder does not exist. Choose another folder",
    errno.ENOTDIR: "a file is in the place of its folder. Choose another folder",
}


def _plain(cause: OSError) -> str:
    return _WHAT_TO_DO.get(cause.errno, cause.strerror or str(cause))


def write_atomically(path: str | os.PathLike, data: bytes, private: bool = False) -> None:
    """Write ``data`` to a temp file in the same folder, fsync it, rename it over ``path``, then
    fsync the folder (POSIX) so the rename itself survives a crash. On failure the temp file is
    removed, ``path`` is untouched, and a ``WriteError`` names ``path`` and what to do.
    ``private``: the file is readable by the user only (``PRIVATE_MODE``); otherwise an existing
    file keeps its permissions."""
    path = Path(path)
    try:
        _write_through_temp(path, data, private)
    except OSError as e:
        raise WriteError(path, e) from e


def _write_through_temp(path: Path, data: bytes, private: bool) -> None:
    fd, tmp = tempfile.mkstemp(prefix=_TEMP_PREFIX, suffix=_TEMP_SUFFIX, dir=path.parent)
    try:
        os.chmod(tmp, PRIVATE_MODE if private else _mode_for(path))  # mkstemp's own mode is 0600
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if os.name == "posix":  # a folder cannot be opened for fsync on Windows; the rename is atomic anyway
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


def open_private(path: str | os.PathLike) -> BinaryIO:
    """Create (or truncate) ``path`` for writing, readable by the user only (``PRIVATE_MODE``; on
    Windows, where modes do not apply, as ``open`` would)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), PRIVATE_MODE)
    try:
        os.chmod(path, PRIVATE_MODE)  # a file that existed keeps its mode through O_CREAT
        return os.fdopen(fd, "wb")
    except BaseException:
        os.close(fd)
        raise


def _read_umask() -> int:
    """The process umask, read once at import: reading it means setting it, which is not
    thread-safe, so never do it while the app's threads create files."""
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


_UMASK = _read_umask()


def _mode_for(path: Path) -> int:
    """Keep an existing file's permissions; a new file gets what ``open`` would give it (umask)."""
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return 0o666 & ~_UMASK
