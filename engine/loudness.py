"""Loudness normalisation of voice recordings to -24 LUFS (BS.1770-4, ``pyloudnorm``), as PersonaPlex
does before encoding a voice prompt: another level gives other codes, so another voice. Not clipped, as there."""

from __future__ import annotations

import logging
import math
import warnings

import numpy as np

from .errors import AudioFileError

log = logging.getLogger(__name__)

VOICE_LOUDNESS_LUFS = -24.0
_BLOCK_SECONDS = 0.4  # BS.1770's gating block: shorter recordings have no defined loudness


def integrated_loudness(pcm: np.ndarray, sample_rate: int) -> float:
    """Integrated loudness of mono float samples in LUFS (-inf for digital silence)."""
    import pyloudnorm  # imported here: only voice recordings need it (it pulls in scipy)

    pcm = np.asarray(pcm, dtype=np.float64)
    if pcm.ndim != 1 or pcm.size < _BLOCK_SECONDS * sample_rate:
        raise AudioFileError(f"a voice recording must be mono and at least {_BLOCK_SECONDS} s long, got "
                             f"{pcm.size / sample_rate:.2f} s")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # log10(0) on silent blocks: gated out anyway
        return float(pyloudnorm.Meter(sample_rate).integrated_loudness(pcm))


def normalize_loudness(pcm: np.ndarray, sample_rate: int, target_lufs: float = VOICE_LOUDNESS_LUFS) -> np.ndarray:
    """``pcm`` (mono float) scaled to ``target_lufs`` (AudioFileError when too short or silent)."""
    loudness = integrated_loudness(pcm, sample_rate)
    if not math.isfinite(loudness):
        raise AudioFileError("the voice recording is silent: it has no loudness to normalise")
    gain = 10.0 ** ((target_lufs - loudness) / 20.0)
    out = (np.asarray(pcm, dtype=np.float64) * gain).astype(np.float32)
    peak = float(np.max(np.abs(out)))
    if peak >= 1.0:
        log.info("voice recording at %.1f LUFS normalised to %.1f LUFS peaks at %.2f (not clipped, as in "
                 "PersonaPlex)", loudness, target_lufs, peak)
    return out
