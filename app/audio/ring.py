"""A single-producer single-consumer sample ring that is safe to use from a PortAudio callback.

Storage is one numpy array allocated up front; reads and writes copy into or out of caller
buffers and never allocate. Positions are monotonically increasing Python ints (``written`` and
``read``), each advanced by exactly one side, so no lock is needed: under the GIL an int
attribute store is atomic, and a side only ever trusts the other side's counter to be *at least*
what it saw.

Two consumer-side operations change what is played without the producer touching ``read``:

* ``request_mute()`` asks the consumer to read silence in place of everything written so far
  (barge-in: the assistant stops at once). The queue keeps its length, so what is written next
  follows without a gap, as it would have; skipping the samples instead left the speaker with
  nothing to play until the next frame (~60 ms of output gap at every Talk press). It only reads
  ``written`` and is the sole writer of ``_mute_to``, so a controlling thread (the GUI) may call it.
  ``request_skip_muted(n)`` then asks the consumer to skip up to ``n`` of the samples still to be
  muted instead of playing them as silence (``app.audio.output_cushion``: a queue deeper than needed).
* ``read_into(..., max_backlog=n)`` skips the oldest samples when more than ``n`` are queued
  (a consumer that fell behind real time catches up instead of letting delay grow).
"""

from __future__ import annotations

import numpy as np


class SampleRing:
    """Fixed-capacity ring of float32 frames with ``channels`` columns."""

    def __init__(self, capacity: int, channels: int = 1) -> None:
        if capacity <= 0 or channels <= 0:
            raise ValueError("ring capacity and channels must be positive")
        self.capacity = capacity
        self.channels = channels
        self._data = np.zeros((capacity, channels), dtype=np.float32)
        self.written = 0  # advanced by the producer only
        self.read = 0  # advanced by the consumer only
        self._mute_to = 0  # set by a controlling thread, honoured by the consumer
        self._skip_muted_to = 0  # likewise; never past _mute_to
        self.overflowed = 0  # samples the producer could not store (ring full)
        self.skipped = 0  # samples the consumer dropped (backlog, muted samples skipped)
        self.muted = 0  # samples the consumer read as silence (mute)

    # -- either side -------------------------------------------------------------------------
    def available(self) -> int:
        """Samples queued now (a lower bound for the consumer, an upper bound for the producer)."""
        return self.written - self.read

    # -- producer ----------------------------------------------------------------------------
    def write(self, block: np.ndarray) -> int:
        """Copy ``block`` (``[n, channels]`` or ``[n]`` when mono) in; returns samples stored.

        When the ring is full the newest samples are dropped and counted in ``overflowed``: the
        producer must never wait, and the consumer's backlog limit discards the oldest anyway.
        """
        n = block.shape[0]
        free = self.capacity - (self.written - self.read)
        count = min(n, free)
        if count < n:
            self.overflowed += n - count
        if count <= 0:
            return 0
        start = self.written % self.capacity
        first = min(count, self.capacity - start)
        view = block if block.ndim == 2 else block.reshape(-1, 1)
        self._data[start : start + first] = view[:first]
        if count > first:
            self._data[: count - first] = view[first:count]
        self.written += count
        return count

    def request_mute(self) -> None:
        """Ask the consumer to read silence in place of everything written up to now."""
        self._mute_to = self.written

    def muted_ahead(self) -> int:
        """Samples still to be read as silence (from another thread: at most this many, the
        consumer may have read on)."""
        return max(0, self._mute_to - self.read)

    def request_skip_muted(self, count: int) -> None:
        """Ask the consumer to skip up to ``count`` of the samples still to be muted (fewer if it
        read on meanwhile; never past the mute)."""
        self._skip_muted_to = min(self.read + count, self._mute_to)

    # -- consumer ----------------------------------------------------------------------------
    def read_into(self, out: np.ndarray, max_backlog: int | None = None) -> int:
        """Copy up to ``len(out)`` samples into ``out``; returns the count (the rest is untouched).

        Skips muted samples as requested; then, when ``max_backlog`` is given and more than that
        many samples are queued, skips the oldest so that exactly ``max_backlog`` remain; samples up
        to a requested mute read as zeros.
        """
        self._skip_to(self._skip_muted_to)
        if max_backlog is not None:
            self._skip_to(self.written - max_backlog)
        count = min(out.shape[0], self.written - self.read)
        if count <= 0:
            return 0
        start = self.read % self.capacity
        first = min(count, self.capacity - start)
        view = out if out.ndim == 2 else out.reshape(-1, 1)
        view[:first] = self._data[start : start + first]
        if count > first:
            view[first:count] = self._data[: count - first]
        silent = min(self._mute_to - self.read, count)
        if silent > 0:
            view[:silent] = 0.0
            self.muted += silent
        self.read += count
        return count

    def _skip_to(self, position: int) -> None:
        if position > self.read:
            position = min(position, self.written)
            self.skipped += position - self.read
            self.read = position
