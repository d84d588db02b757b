"""The hand-off between PortAudio's real-time callbacks and the engine worker.

One ``AudioBridge`` exists per opened pair of streams (rates and channel counts are fixed for
its lifetime). Its two callback methods are what python-sounddevice calls; they only copy
between PortAudio's buffers and preallocated rings, bump plain int counters and set one event.
No allocation of sample buffers, no Qt, no torch, no locks held for long. Everything else reads
the counters (the GUI on a timer, the worker between frames).

The same callbacks can be driven by hand (a test or the self-test feeding a wav through the
real input path at any speed) because they do not depend on a live stream.

Each callback also records when its block is captured or played, as a ``BlockClock``: the time
of ring position 0 on some clock, so that position ``p`` is due at ``offset + p / rate``. The
clock is PortAudio's stream time (``inputBufferAdcTime`` / ``outputBufferDacTime``: the device's
own buffer fill, exact to a fraction of a millisecond even when callbacks come in bursts), else,
where a host API reports no times, the callback's monotonic time shifted by the stream latency,
else (callbacks driven by hand, no time info at all) the sample count itself.
"""

from __future__ import annotations

import threading
import time
from typing import NamedTuple

import numpy as np

from app.audio.output_cushion import MARGIN_S
from app.audio.ring import SampleRing
from engine import FRAME_MS

RING_SECONDS = 2.0
# The output callback plays at most this much queued assistant audio; anything older is skipped
# so that a worker burst (after a stall) cannot leave the speaker permanently behind.
MAX_OUTPUT_BACKLOG_SECONDS = 0.4
# An output callback this long after the one before it follows a stall of the stream: PortAudio on
# ALSA's PulseAudio plugin stops calling back for 1.2-2 s after an underrun (measured: one callback
# starved of the GIL; ~1.7 s at the stream's own start too), while the worker goes on queueing a frame every
# 80 ms. What queued meanwhile is as late as the stall was long, so the callback keeps only
# ``RESUME_BACKLOG_SECONDS`` of it: the cushion the worker keeps before a frame (``OutputCushion``'s
# margin) and the frame written on it. Kept up to ``MAX_OUTPUT_BACKLOG_SECONDS``, a stall at the start
# of a conversation left every reply ~0.3 s later for the next 5 s (mic to speaker 516 ms).
STALL_SECONDS = 0.2  # ten 20 ms blocks
RESUME_BACKLOG_SECONDS = MARGIN_S + FRAME_MS / 1000.0


class BlockClock(NamedTuple):
    """When ring position ``p`` is due: ``offset + p / rate`` seconds on ``clock``."""

    clock: str  # "stream" (PortAudio's), "monotonic" or "samples"
    offset: float

    @staticmethod
    def of_block(reported: float | None, latency: float, position: int, rate: int) -> BlockClock:
        """The clock of a block whose first sample is at ``position`` and, by PortAudio, at
        ``reported`` (None: no time info; 0: the host API gives none; ``latency`` is signed: +
        for output, whose samples play later, - for input, captured earlier)."""
        if reported is None:
            return BlockClock("samples", 0.0)
        if reported > 0:
            return BlockClock("stream", reported - position / rate)
        return BlockClock("monotonic", time.monotonic() + latency - position / rate)


SAMPLE_CLOCK = BlockClock("samples", 0.0)


class AudioBridge:
    """Rings, counters and the two callbacks for one input rate/channels and one output rate/channels."""

    def __init__(self, input_rate: int, input_channels: int, output_rate: int, output_channels: int) -> None:
        self.input_rate = input_rate
        self.output_rate = output_rate
        self.input = SampleRing(int(RING_SECONDS * input_rate), input_channels)
        self.output = SampleRing(int(RING_SECONDS * output_rate), 1)
        # What the output callback handed to the device, for echo cancellation (the far end). The
        # worker drains it; when nobody does, it fills up and the callback's writes are dropped.
        self.far = SampleRing(int(RING_SECONDS * output_rate), 1)
        self.max_output_backlog = int(MAX_OUTPUT_BACKLOG_SECONDS * output_rate)
        self.resume_backlog = int(RESUME_BACKLOG_SECONDS * output_rate)
        self.output_stalls = 0  # output callbacks that came ``STALL_SECONDS`` or more after the one before
        self._output_scratch = np.zeros((self.output.capacity, 1), dtype=np.float32)
        self.data_ready = threading.Event()
        # Plain counters written by the callbacks; readers only sample them.
        self.input_callbacks = 0
        self.output_callbacks = 0
        self.input_overflows = 0
        self.output_underflows = 0
        # Zeros played because the worker had nothing queued, once it had queued its first frame:
        # the silence before it (the model loading, measuring its threads) is no gap in a reply.
        self.output_starved_samples = 0
        self.last_input_time = 0.0  # time.monotonic() of the newest input block
        self.last_output_time = 0.0
        # Device-reported latencies (seconds), filled in by whoever opens the streams.
        self.input_device_latency = 0.0
        self.output_device_latency = 0.0
        # When the newest block of each ring is captured / played (replaced whole: atomic).
        self.input_clock = SAMPLE_CLOCK
        self.far_clock = SAMPLE_CLOCK

    # -- PortAudio callbacks (real-time context) --------------------------------------------
    def input_callback(self, indata: np.ndarray, frames: int, time_info, status) -> None:
        if status and status.input_overflow:
            self.input_overflows += 1
        reported = None if time_info is None else time_info.inputBufferAdcTime
        self.input_clock = BlockClock.of_block(reported, -self.input_device_latency, self.input.written,
                                               self.input_rate)
        self.input.write(indata)
        self.last_input_time = time.monotonic()
        self.input_callbacks += 1
        self.data_ready.set()

    def output_callback(self, outdata: np.ndarray, frames: int, time_info, status) -> None:
        if status and status.output_underflow:
            self.output_underflows += 1
        mono = self._output_scratch[:frames]
        now = time.monotonic()
        # Only a stream's callbacks stall (hand-driven ones, with no time info, come at any pace).
        stalled = time_info is not None and self.output_callbacks > 0 and now - self.last_output_time >= STALL_SECONDS
        if stalled:
            self.output_stalls += 1
        got = self.output.read_into(mono, max_backlog=self.resume_backlog if stalled else self.max_output_backlog)
        if got < frames:
            mono[got:] = 0.0
            if self.output.written:
                self.output_starved_samples += frames - got
        # Every channel gets the mono assistant (copied from a separate buffer: assigning between
        # overlapping columns of outdata would make numpy allocate a temporary).
        outdata[:] = mono
        reported = None if time_info is None else time_info.outputBufferDacTime
        self.far_clock = BlockClock.of_block(reported, self.output_device_latency, self.far.written,
                                             self.output_rate)
        self.far.write(mono)
        self.last_output_time = now
        self.output_callbacks += 1

    # -- readers -----------------------------------------------------------------------------
    def capture_and_play_times(self, input_position: int, far_position: int) -> tuple[float, float]:
        """When input ring position ``input_position`` was captured and far ring position
        ``far_position`` is played, on one clock: the sample clock where the two streams' clocks
        differ (a host API with times for one stream only, or hand-driven callbacks)."""
        input_clock, far_clock = self.input_clock, self.far_clock
        if input_clock.clock != far_clock.clock:
            input_clock = far_clock = SAMPLE_CLOCK
        return (input_clock.offset + input_position / self.input_rate,
                far_clock.offset + far_position / self.output_rate)

    def output_queue_seconds(self) -> float:
        """Assistant audio queued and not yet handed to the device."""
        return self.output.available() / self.output_rate

