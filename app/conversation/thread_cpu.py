"""The CPU time the calling thread spent between one lap and the next: called on the GUI thread for
each frame the window receives, it is what the GUI costs per frame (repaints, the view-model, Qt's
event loop), the time it takes the cores and the GIL from the engine thread. ``time.thread_time``
counts this thread only, on Linux, Windows and macOS alike."""

from __future__ import annotations

import time


class ThreadCpuClock:
    def __init__(self) -> None:
        self._last: float | None = None

    def lap(self) -> float | None:
        """Milliseconds of this thread's CPU time since the previous lap (None on the first)."""
        now = time.thread_time()
        last, self._last = self._last, now
        return None if last is None else (now - last) * 1000.0

    def reset(self) -> None:
        """The next lap starts afresh (after a pause the time between frames is not a frame's)."""
        self._last = None
