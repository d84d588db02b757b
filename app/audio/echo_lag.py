"""Where the echo lies against the far end it is paired with, measured from the two signals.

The microphone processor pairs each microphone chunk with the far end by PortAudio's capture and
play times. AEC3 then finds the echo itself anywhere from 0 to ~0.5 s after its paired far end,
but not before it nor later: on a synthetic room (32 kHz, default stages), an echo 5 ms ahead of
its far end is cancelled by 26 dB, 30 ms ahead by 15 dB, 0-0.5 s behind by 40-87 dB, 0.6 s behind
by 6 dB. Host APIs' times can be wrong by more than that: through PulseAudio the capture times of a
new stream run up to 0.6 s early for a second, and a CI run on a fresh server measured 15 dB of
cancellation with the pairing steady. So the pairing is checked against the signals: the lag at
which the microphone best matches the far end it was paired with, by cross-correlation over a
second, wherever the far end played loud enough to leave an echo.

Runs in the engine worker. Everything here is at ``ANALYSIS_RATE`` (speech's echo is found as well
at 8 kHz, for about a quarter of the FFT work at 32 kHz).
"""

from __future__ import annotations

import math

import numpy as np

ANALYSIS_RATE = 8_000
WINDOW_S = 1.0  # microphone correlated per estimate
SEARCH_S = 0.6  # lags searched on either side of the pairing
EVERY_S = 0.5  # how often an estimate is made
# A normalized correlation peak at least this high is an echo: the loopback's echo alone measured
# 0.6-0.99, with the user talking over it 0.15-0.45; noise without echo stays under 0.1.
MIN_PEAK = 0.3
SILENT_MEAN_SQUARE = 1e-7  # -70 dBFS: a far end or microphone this quiet carries no lag


class EchoLagEstimator:
    """Paired microphone and far-end chunks in; every ``EVERY_S``, the echo's lag behind its far end
    (seconds; negative: the echo comes first) where the signals show one, else None."""

    def __init__(self, rate: int) -> None:
        if rate % ANALYSIS_RATE:
            raise ValueError(f"the processing rate {rate} Hz is not a multiple of {ANALYSIS_RATE} Hz")
        self._factor = rate // ANALYSIS_RATE
        self._window = int(WINDOW_S * ANALYSIS_RATE)
        self._search = int(SEARCH_S * ANALYSIS_RATE)
        self._history = self._window + 2 * self._search
        self._every = int(EVERY_S * ANALYSIS_RATE)
        # Every product the searched lags need lies within the history: no zero padding beyond it.
        self._fft_size = 1 << math.ceil(math.log2(self._history))
        self.reset()

    def reset(self) -> None:
        """Forget what was paired so far (the pairing changed)."""
        self._near = np.zeros(0, dtype=np.float32)
        self._far = np.zeros(0, dtype=np.float32)
        self._since_estimate = 0

    def push(self, near: np.ndarray, far: np.ndarray) -> float | None:
        """One paired chunk of each at the processing rate; an estimate when one is due and found."""
        self._near = self._keep(self._near, self._decimate(near))
        self._far = self._keep(self._far, self._decimate(far))
        self._since_estimate += len(near) // self._factor
        if len(self._near) < self._history or self._since_estimate < self._every:
            return None
        self._since_estimate = 0
        return self._estimate()

    def _decimate(self, x: np.ndarray) -> np.ndarray:
        """Mean of each ``factor`` samples: a crude low-pass, enough to keep speech's lag."""
        usable = len(x) - len(x) % self._factor
        return x[:usable].reshape(-1, self._factor).mean(axis=1, dtype=np.float32)

    def _keep(self, history: np.ndarray, block: np.ndarray) -> np.ndarray:
        return np.concatenate([history, block])[-self._history:]

    def _estimate(self) -> float | None:
        near = np.diff(self._near)  # the first difference whitens speech enough for a sharp peak
        far = np.diff(self._far)
        # The microphone's middle second against the far end around it: lag k pairs near[t] with far[t - k].
        start = self._search
        segment = near[start : start + self._window]
        if min(float(np.mean(np.square(segment))), float(np.mean(np.square(far)))) < SILENT_MEAN_SQUARE:
            return None
        placed = np.zeros(len(far), dtype=np.float32)
        placed[start : start + self._window] = segment
        n = self._fft_size
        xc = np.fft.irfft(np.fft.rfft(placed, n) * np.conj(np.fft.rfft(far, n)), n)
        lags = np.arange(-self._search, self._search)
        values = xc[lags % n]
        best = int(np.argmax(np.abs(values)))
        lag = int(lags[best])
        far_part = far[start - lag : start - lag + self._window]
        norm = float(np.linalg.norm(segment) * np.linalg.norm(far_part))
        if norm <= 0.0 or abs(float(values[best])) / norm < MIN_PEAK:
            return None
        return lag / ANALYSIS_RATE
