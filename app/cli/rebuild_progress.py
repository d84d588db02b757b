"""A long rebuild's progress on stderr, for ``parley recover`` and ``parley offline --resume``: a
journal or a compact file of an hour replays for minutes. On a terminal one line is rewritten in
place; elsewhere (a log) a line is written every ``LOG_EVERY_S`` seconds. Ctrl+C stops the rebuild
between two frames, and the command says how far it got and that nothing was written."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from engine import FRAME_SECONDS

TERMINAL_EVERY_S = 0.25
LOG_EVERY_S = 5.0


class RebuildProgress:
    """An ``engine`` progress callback ``(frames done, frames in all)`` that writes to ``stream``."""

    def __init__(self, name: str, stream: TextIO | None = None):
        self.name, self.stream = name, stream if stream is not None else sys.stderr
        self.terminal = self.stream.isatty()
        self.every_s = TERMINAL_EVERY_S if self.terminal else LOG_EVERY_S
        self.done, self.total = 0, 0
        self._last = time.monotonic()
        self._written = False

    def __call__(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        now = time.monotonic()
        if now - self._last < self.every_s and done < total:
            return
        self._last = now
        line = (f"rebuilding {self.name}: {done} of {total} frames "
                f"({done * FRAME_SECONDS:.0f} of {total * FRAME_SECONDS:.0f} s); Ctrl+C cancels")
        self.stream.write(f"\r{line}\033[K" if self.terminal else f"{line}\n")
        if self.terminal and done >= total:
            self.stream.write("\n")
        self._written = True
        self.stream.flush()

    def where(self) -> str:
        """How far the rebuild got, for the line a Ctrl+C ends with."""
        if self.terminal and self._written:
            self.stream.write("\n")
        return f"after {self.done} of {self.total} frames" if self.total else "before the first frame"
