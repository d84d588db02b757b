"""How much of the assistant's output queue is delay that protects against nothing.

The worker writes a frame (80 ms) at a time and the output callback takes device blocks, so what
is still queued just before a write is the cushion that absorbed this frame's jitter (compute
time, input bursts, the device's block size). Its minimum over the last few seconds, less a
margin, was never needed: it is left over from how the stream started or from a burst after a
stall, and it is added to every reply's latency. Skipping audio shrinks it without a gap, but only
audio nobody would hear is skipped: a quiet frame of the assistant's (below ``SPEECH_DB``), or
queued audio a barge-in muted. Skipping instead of muting at a barge-in left the speaker starved for
~60 ms at every Talk press; muting alone kept the cushion whatever it was (mic-to-speaker ~260 ms against ~210 ms).
"""

from __future__ import annotations

from collections import deque

MARGIN_S = 0.04  # kept above the smallest cushion seen: jitter the window happened not to show
WINDOW_FRAMES = 64  # ~5 s of frames: the minimum must hold over more than one Talk press's burst


class OutputCushion:
    """Watches the output queue before each frame is written; ``excess_s`` is what may go."""

    def __init__(self) -> None:
        self._recent: deque[float] = deque(maxlen=WINDOW_FRAMES)
        self.excess_s = 0.0

    def observe(self, queued_s: float) -> None:
        self._recent.append(queued_s)
        full = len(self._recent) == WINDOW_FRAMES
        self.excess_s = max(0.0, min(self._recent) - MARGIN_S) if full else 0.0

    def trimmed(self) -> None:
        """Queued audio went: the observed queue levels no longer hold."""
        self._recent.clear()
        self.excess_s = 0.0
