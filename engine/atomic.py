"""Atomic file replacement: a user's file is either the old one or the complete new one, never a mix."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: str | os.PathLike, data: bytes, private: bool = False) -> None:
    """Write ``data`` to a temp file in the same folder, fsync it, rename it over ``path``, then
    fsync the folder (POSIX) so the rename itself survives a crash. On failure the temp file is
    removed and ``path`` is untouched. ``private``: readable and writable by the user only (0600,
    e.g. a recording of the user's voice), whatever the file's permissions were."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, 0o600 if private else _mode_for(path))  # mkstemp's 0600 would make every new file private
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
