"""Whether the model keeps up with real time: its compute time per frame against the 80 ms frame.

The measure everywhere (``parley offline``, ``parley selftest``, the window, ``bench.bench_app``) is
the real-time factor, compute milliseconds per frame / ``FRAME_MS``. A run keeps up when its
**median** steady-state frame is under the frame period: the worker absorbs single slow frames
(its input backlog and the output queue hold a few frames), and on a shared machine the tail
(p95) says more about the neighbours than about the model. The p95 is reported beside it.

- ``FrameTimeSummary.of`` summarises a finished run: its first ``WARMUP_FRAMES`` frames are
  reported apart (the first frames of a process run oneDNN's kernel creation and touch every
  weight and cache page for the first time: measured ~230, ~120, ~90 ms for the demo's first
  three against ~75 ms after, on a busy 2-core machine), the rest is the steady state.
- ``RealTimeMonitor`` follows a live conversation: the median over the last
  ``SUSTAINED_SECONDS`` of frames, so that a few slow frames (a model load elsewhere, a burst of
  another program) do not raise the window's warning, but a machine that is too slow does.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import numpy as np

from engine import FRAME_MS

WARMUP_FRAMES = 3
SUSTAINED_SECONDS = 5.0
SUSTAINED_FRAMES = math.ceil(SUSTAINED_SECONDS * 1000.0 / FRAME_MS)
TAIL_PERCENTILE = 95


@dataclass(frozen=True)
class FrameTimeSummary:
    """A run's compute ms per frame: the warm-up frames one by one, the steady state as median
    and p95 (None when the run was no longer than its warm-up)."""

    frames: int
    warmup_ms: tuple[float, ...]
    median_ms: float | None
    p95_ms: float | None

    @classmethod
    def of(cls, frame_ms: list[float]) -> FrameTimeSummary:
        steady = frame_ms[WARMUP_FRAMES:]
        if not steady:
            return cls(len(frame_ms), tuple(frame_ms), None, None)
        return cls(len(frame_ms), tuple(frame_ms[:WARMUP_FRAMES]), float(np.median(steady)),
                   float(np.percentile(steady, TAIL_PERCENTILE)))

    @property
    def real_time(self) -> bool | None:
        """The median steady-state frame is computed faster than it plays (None: no steady state)."""
        return None if self.median_ms is None else self.median_ms < FRAME_MS


class RealTimeMonitor:
    """The sustained real-time factor of a live conversation, from each frame's compute time.

    ``too_slow`` only once a whole window of ``SUSTAINED_FRAMES`` frames was seen: a fresh
    conversation's warm-up frames alone never raise it."""

    def __init__(self) -> None:
        self._ms: deque[float] = deque(maxlen=SUSTAINED_FRAMES)

    def add(self, step_ms: float) -> None:
        self._ms.append(step_ms)

    def reset(self) -> None:
        self._ms.clear()

    @property
    def median_ms(self) -> float | None:
        return float(np.median(self._ms)) if self._ms else None

    @property
    def too_slow(self) -> bool:
        return len(self._ms) == SUSTAINED_FRAMES and self.median_ms > FRAME_MS

