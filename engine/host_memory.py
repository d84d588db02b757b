"""How much memory this process can still take, and whether a conversation's rebuild fits in it: a
4 MB compact file can ask for 100,000 frames (3 GB), so the frame count is checked before decoding."""

from __future__ import annotations

import os
import sys

from .audio import FRAME_SECONDS, FRAME_SIZE
from .errors import ConversationFileError

REBUILD_BYTES_PER_FRAME = 4 * 4 * FRAME_SIZE  # four float32 copies of a frame's samples


def available_bytes() -> int | None:
    """Memory this process may still allocate (the system's, or less under RLIMIT_AS); None: unknown."""
    free = _system_available()
    headroom = _address_space_headroom()
    known = [value for value in (free, headroom) if value is not None]
    return min(known) if known else None


def check_rebuild_fits(frames: int, name: str) -> None:
    """Refuse (``ConversationFileError``) a rebuild of ``frames`` frames that needs more memory than is free."""
    need, free = frames * REBUILD_BYTES_PER_FRAME, available_bytes()
    if free is None or need <= free:
        return
    hours = frames * FRAME_SECONDS / 3600
    raise ConversationFileError(
        f"{name} holds {frames} frames ({hours:.1f} hours of conversation): rebuilding it needs about "
        f"{need / 2**30:.1f} GB of memory and this machine has {free / 2**30:.1f} GB free. Close other programs and "
        "try again, or open it on a machine with more memory; the file stays as it is.")


def _system_available() -> int | None:
    try:
        with open("/proc/meminfo", "rb") as f:  # Linux: what can be had without swapping
            for line in f:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    if sys.platform == "win32":
        return _windows_available()
    try:  # other POSIX systems that say it
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def _windows_available() -> int | None:
    import ctypes

    class MemoryStatus(ctypes.Structure):
        _fields_ = [("length", ctypes.c_ulong), ("load", ctypes.c_ulong), ("total_phys", ctypes.c_ulonglong),
                    ("avail_phys", ctypes.c_ulonglong), ("total_file", ctypes.c_ulonglong),
                    ("avail_file", ctypes.c_ulonglong), ("total_virtual", ctypes.c_ulonglong),
                    ("avail_virtual", ctypes.c_ulonglong), ("avail_extended", ctypes.c_ulonglong)]

    status = MemoryStatus(length=ctypes.sizeof(MemoryStatus))
    if not ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):
        return None
    return int(status.avail_phys)


def _address_space_headroom() -> int | None:
    try:
        import resource
    except ImportError:  # Windows
        return None
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit == resource.RLIM_INFINITY:
        return None
    try:
        with open("/proc/self/statm", "rb") as f:
            used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None
    return max(0, limit - used)
