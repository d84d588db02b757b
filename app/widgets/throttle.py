"""Redraw something that changes every frame at a pace a person can read, on the GUI thread.

Frames come 12.5 times a second. Numbers that change that often cannot be read, and each redraw
costs the GUI thread CPU time, which the engine's worker shares the cores with (on a 2-core
machine every millisecond of it slows the frames). So what only needs to be read is redrawn at once
when it has been still for a while, and otherwise at most every ``READOUT_INTERVAL_MS``; changes
during the pause are drawn together at its end, so the last one is never lost.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

READOUT_INTERVAL_MS = 250


class Throttle:
    """Calls ``draw`` for ``request()``: at once after a pause, else once at the pause's end."""

    def __init__(self, parent: QObject, draw: Callable[[], None], interval_ms: int = READOUT_INTERVAL_MS) -> None:
        self._draw = draw
        self._due = False  # a request came during the pause
        self._pause = QTimer(parent)
        self._pause.setSingleShot(True)
        self._pause.setInterval(interval_ms)
        self._pause.timeout.connect(self._pause_over)

    def request(self) -> None:
        if self._pause.isActive():
            self._due = True
        else:
            self._draw_and_pause()

    def _pause_over(self) -> None:
        if self._due:
            self._draw_and_pause()

    def _draw_and_pause(self) -> None:
        self._due = False
        self._draw()
        self._pause.start()
