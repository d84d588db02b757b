"""Sound levels in dBFS: how they are measured and the thresholds the app reads them against."""

from __future__ import annotations

import math

import numpy as np

SILENCE_DB = -120.0
DISPLAY_FLOOR_DB = -60.0  # the quietest level the meters and the turns' level strips show


def level_db(pcm: np.ndarray) -> float:
    """RMS level of ``pcm`` in dBFS (``SILENCE_DB`` for digital silence)."""
    if pcm.size == 0:
        return SILENCE_DB
    rms = float(np.sqrt(np.mean(np.square(pcm, dtype=np.float64))))
    return SILENCE_DB if rms <= 1e-6 else max(SILENCE_DB, 20.0 * math.log10(rms))


SPEECH_DB = -45.0  # assistant output louder than this counts as speaking
