"""Writing files: a user's file is either the old one or the complete new one, never a mix; what
holds a person's conversation is readable by that person only; and only a regular file is ever
replaced (a folder, a FIFO, a device such as /dev/null is refused; a link is written through)."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path
from typing import BinaryIO

PRIVATE_MODE = 0o600  # conversations and journals (the person's own voice): readable by the user only
# Temp names are short and independent of the target's, so any target name up to 255 bytes can be saved.
_TEMP_PREFIX, _TEMP_SUFFIX = ".parley-", ".tmp"


class WriteError(OSError):
    """A file the person asked for could not be written: names that file (never the temp file) and what to do."""

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


def _not_a_file(path: Path, mode: int) -> OSError:
    kind = ("a folder" if stat.S_ISDIR(mode) else "a pipe (FIFO)" if stat.S_ISFIFO(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "something other than a file")
    code = errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL
    return OSError(code, f"{kind} is there, and Parley replaces only files. Choose a file name", str(path))


def replaceable(path: str | os.PathLike) -> Path:
    """The file a write to ``path`` replaces (``path``, or a link's target); ``WriteError`` when what is
    there is not a regular file or its folder cannot be written: for checking outputs before a long run."""
    path = Path(path)
    try:
        target = Path(os.path.realpath(path)) if path.is_symlink() else path
        try:
            mode = os.stat(target).st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and not stat.S_ISREG(mode):
            raise _not_a_file(path, mode)
        folder = target.parent
        if not folder.is_dir():
            raise OSError(errno.ENOENT if not folder.exists() else errno.ENOTDIR, "", str(folder))
        if not os.access(folder, os.W_OK):
            raise OSError(errno.EACCES, "", str(folder))
    except OSError as e:
        raise WriteError(path, e) from e
    return target


def write_atomically(path: str | os.PathLike, data: bytes, private: bool = False) -> None:
    """Write ``data`` through an fsynced temp file renamed over ``path`` (or a link's target), then fsync
    the folder so the rename survives a crash. On failure ``path`` is untouched and a ``WriteError``
    says what to do. ``private``: ``PRIVATE_MODE``; otherwise an existing file keeps its permissions."""
    target = replaceable(path)
    try:
        _write_through_temp(target, data, private)
    except OSError as e:
        raise WriteError(Path(path), e) from e


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
    """Create (or truncate) ``path`` for writing with ``PRIVATE_MODE``; only a regular file (a FIFO or
    device there raises ``OSError`` without waiting for a reader)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags, PRIVATE_MODE)
    except OSError as e:
        if e.errno == errno.ENXIO:  # a FIFO nobody reads
            raise _not_a_file(Path(path), stat.S_IFIFO) from e
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise _not_a_file(Path(path), mode)
        os.chmod(path, PRIVATE_MODE)  # a file that existed keeps its mode through O_CREAT
        return os.fdopen(fd, "wb")
    except BaseException:
        os.close(fd)
        raise


def _read_umask() -> int:
    """The process umask, read once at import: reading it means setting it, which is not thread-safe."""
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
