"""Streaming conversion between device audio and the model's 24 kHz mono frames.

soxr's ``ResampleStream`` keeps filter state across chunks (stateless per-block resampling
clicks at block edges) and returns a varying number of samples per chunk, so input goes through
a FIFO from which whole frames are cut. Quality "LQ" keeps the filter delay to ~8 ms; for speech
into a codec that already works at 24 kHz the difference to "HQ" is inaudible, the extra delay
(20-30 ms) is not.
"""

from __future__ import annotations

import numpy as np
import soxr

from engine import FRAME_SIZE, SAMPLE_RATE

_QUALITY = "LQ"


def _stream(rate_in: int, rate_out: int) -> soxr.ResampleStream | None:
    """A mono streaming resampler, or None when the rates are equal."""
    return None if rate_in == rate_out else soxr.ResampleStream(rate_in, rate_out, 1, "float32", _QUALITY)


def downmix(block: np.ndarray) -> np.ndarray:
    """[n, channels] or [n] -> [n] float32 mono (mean of the channels)."""
    if block.ndim == 1:
        return block.astype(np.float32, copy=False)
    if block.shape[1] == 1:
        return block[:, 0]
    return block.mean(axis=1, dtype=np.float32)


class MonoResampler:
    """Streaming mono resampling between two fixed rates (a pass-through when they are equal)."""

    def __init__(self, rate_in: int, rate_out: int) -> None:
        self.rate_in = rate_in
        self.rate_out = rate_out
        self._resampler = _stream(rate_in, rate_out)

    def __call__(self, mono: np.ndarray) -> np.ndarray:
        return mono if self._resampler is None else self._resampler.resample_chunk(mono)


class FrameAssembler:
    """Device-rate audio in, whole 24 kHz mono frames out."""

    def __init__(self, device_rate: int) -> None:
        self.device_rate = device_rate
        self._resampler = _stream(device_rate, SAMPLE_RATE)
        self._fifo = np.zeros(0, dtype=np.float32)

    def push(self, block: np.ndarray) -> None:
        mono = downmix(block)
        if self._resampler is not None:
            mono = self._resampler.resample_chunk(mono)
        self._fifo = np.concatenate([self._fifo, mono])

    def pending_frames(self) -> int:
        return len(self._fifo) // FRAME_SIZE

    def pop_frame(self) -> np.ndarray:
        frame, self._fifo = self._fifo[:FRAME_SIZE].copy(), self._fifo[FRAME_SIZE:]
        return frame

    def drop_frames(self, count: int) -> None:
        """Discard the oldest ``count`` whole frames (used when the model falls behind real time)."""
        self._fifo = self._fifo[count * FRAME_SIZE :]


class OutputConverter:
    """24 kHz mono model frames -> device-rate mono samples for the output ring, always finite and
    within [-1, 1]: a non-finite or out-of-range sample from the model never reaches the speaker
    (or the resampler, whose filter state it would poison for the frames after it)."""

    def __init__(self, device_rate: int) -> None:
        self.device_rate = device_rate
        self._resampler = _stream(SAMPLE_RATE, device_rate)

    def convert(self, frame: np.ndarray) -> np.ndarray:
        safe = np.nan_to_num(frame, nan=0.0, posinf=1.0, neginf=-1.0)  # a copy: the model's frame stays
        np.clip(safe, -1.0, 1.0, out=safe)
        if self._resampler is None:
            return safe
        out = self._resampler.resample_chunk(safe)
        return np.clip(out, -1.0, 1.0, out=out)  # the filter may overshoot a full-scale step

    def reset(self) -> None:
        if self._resampler is not None:
            self._resampler.clear()
