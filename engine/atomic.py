"""Writing files: a user's file is either the old one or the complete new one, never a mix; and
what holds a person's conversation is readable by that person only."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import BinaryIO

PRIVATE_MODE = 0o600  # conversations and journals (the person's own voice): readable by the user only
# Temp names are short and independent of the target's name, so that any name the file system
# allows for the target (up to 255 bytes) can be saved: ".parley-" + 8 random characters + ".tmp".
_TEMP_PREFIX, _TEMP_SUFFIX = ".parley-", ".tmp"


def write_atomically(path: str | os.PathLike, data: bytes, private: bool = False) -> None:
    """Write ``data`` to a temp file in the same folder, fsync it, rename it over ``path``, then
    fsync the folder (POSIX) so the rename itself survives a crash. On failure the temp file is
    removed and ``path`` is untouched. ``private``: the file is readable by the user only
    (``PRIVATE_MODE``); otherwise an existing file keeps its permissions."""
    path = Path(path)
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
