"""One side of a conversation's recorded audio, kept as 16-bit PCM (as every file keeps it). The
user's side (``exact``) stays 16-bit only while every sample is exactly a 16-bit value."""

from __future__ import annotations

import numpy as np

from ..audio import PCM16, exact_int16, int16_to_pcm, pcm_to_int16
from .growing_array import GrowingArray


class PcmRecording:
    """Mono samples appended frame by frame; read back as float32 (full scale +-1)."""

    def __init__(self, block_rows: int, exact: bool):
        self.block_rows, self.exact = block_rows, exact
        self._samples = GrowingArray(dtype=PCM16, block_rows=block_rows)

    @classmethod
    def of(cls, pcm: np.ndarray, block_rows: int, exact: bool) -> PcmRecording:
        """A recording holding ``pcm`` (float samples, or 16-bit ints kept without a copy)."""
        recording = cls(block_rows, exact)
        pcm = np.asarray(pcm).reshape(-1)
        if pcm.dtype == PCM16:
            recording._samples = GrowingArray.of(pcm, block_rows)
        else:
            recording.extend(pcm)
        return recording

    @property
    def is_16_bit(self) -> bool:
        return self._samples.dtype == PCM16

    def __len__(self) -> int:
        return len(self._samples)

    def extend(self, pcm: np.ndarray) -> None:
        """Append float samples (a copy), a block at a time, without full-size scratch arrays."""
        pcm = np.asarray(pcm, np.float32).reshape(-1)
        for start in range(0, len(pcm), self.block_rows):
            self._extend_piece(pcm[start:start + self.block_rows])

    def _extend_piece(self, pcm: np.ndarray) -> None:
        if not self.is_16_bit:
            self._samples.extend(pcm)
            return
        ints = exact_int16(pcm) if self.exact else pcm_to_int16(pcm)
        if ints is None:
            self._samples = GrowingArray.of(self._samples.converted(int16_to_pcm, np.float32), self.block_rows)
            self._samples.extend(pcm)
        else:
            self._samples.extend(ints)

    def frozen(self) -> PcmRecording:
        """The samples as they are now, sharing the blocks (see ``GrowingArray.frozen``)."""
        view = PcmRecording(self.block_rows, self.exact)
        view._samples = self._samples.frozen()
        return view

    def array(self) -> np.ndarray:
        """Every sample as float32."""
        return self.rows(0, len(self))

    def rows(self, start: int, stop: int) -> np.ndarray:
        """Samples ``start`` up to ``stop`` (clamped) as float32."""
        rows = self._samples.rows(start, stop)
        return int16_to_pcm(rows) if self.is_16_bit else rows

    def int16(self) -> np.ndarray:
        """Every sample as 16-bit PCM (what a file keeps), without a float copy of the whole."""
        return self._samples.array() if self.is_16_bit else self._samples.converted(pcm_to_int16, PCM16)
