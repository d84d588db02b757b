"""An array that grows along its first axis in blocks of a minute of frames: per-frame small arrays
fragmented glibc's heap between torch's aligned temporaries (sourceware bug 14581)."""

from __future__ import annotations

import numpy as np

from ..audio import FRAME_SECONDS

BLOCK_FRAMES = round(60.0 / FRAME_SECONDS)  # a minute of frames per block


class GrowingArray:
    """Rows of one shape and dtype, appended in order; ``array()`` returns them as one array."""

    def __init__(self, row_shape: tuple[int, ...] = (), dtype=np.float32, block_rows: int = BLOCK_FRAMES):
        if block_rows < 1:
            raise ValueError(f"block_rows must be at least 1, got {block_rows}")
        self.row_shape, self.dtype, self.block_rows = tuple(row_shape), np.dtype(dtype), block_rows
        self._blocks: list[np.ndarray] = []
        self._room = 0  # unused rows at the end of the last block
        self._rows = 0

    @classmethod
    def of(cls, rows: np.ndarray, block_rows: int = BLOCK_FRAMES) -> GrowingArray:
        """A growing array whose first block is ``rows`` [n, *row_shape], handed over without a copy."""
        rows = np.asarray(rows)
        grown = cls(rows.shape[1:], rows.dtype, block_rows)
        if len(rows):
            grown._blocks.append(rows)  # full: the next row starts a block of its own
            grown._rows = len(rows)
        return grown

    def frozen(self) -> GrowingArray:
        """The rows as they are now, sharing this array's blocks (rows are written once, never changed)."""
        view = GrowingArray(self.row_shape, self.dtype, self.block_rows)
        view._blocks, view._rows = list(self._blocks), self._rows
        return view

    def __len__(self) -> int:
        return self._rows

    @property
    def blocks(self) -> int:
        """How many allocations hold the rows (one per ``block_rows`` appended one at a time)."""
        return len(self._blocks)

    def extend(self, rows: np.ndarray) -> None:
        """Append a copy of ``rows`` ([n, *row_shape], or one row of ``row_shape``)."""
        rows = np.asarray(rows, dtype=self.dtype).reshape(-1, *self.row_shape)
        while len(rows):
            if self._room == 0:
                self._blocks.append(np.empty((max(self.block_rows, len(rows)), *self.row_shape), self.dtype))
                self._room = len(self._blocks[-1])
            block = self._blocks[-1]
            start, count = len(block) - self._room, min(self._room, len(rows))
            block[start:start + count] = rows[:count]
            rows = rows[count:]
            self._room -= count
            self._rows += count

    def array(self) -> np.ndarray:
        """Every row, [len, *row_shape], as a new array."""
        return self.rows(0, self._rows)

    def rows(self, start: int, stop: int) -> np.ndarray:
        """Rows ``start`` up to ``stop`` (clamped), as a new array; only the blocks that hold them are read."""
        pieces = list(self._pieces(start, stop))
        return np.concatenate(pieces) if pieces else np.zeros((0, *self.row_shape), self.dtype)

    def converted(self, convert, dtype) -> np.ndarray:
        """Every row through ``convert`` (elementwise), a block at a time, into one new array of ``dtype``."""
        out = np.empty((self._rows, *self.row_shape), dtype)
        start = 0
        for piece in self._pieces(0, self._rows):
            out[start:start + len(piece)] = convert(piece)
            start += len(piece)
        return out

    def _pieces(self, start: int, stop: int):
        """Views of the rows ``start`` up to ``stop`` (clamped), block by block."""
        start, stop = max(0, start), min(stop, self._rows)
        first = 0  # the index of the block's first row
        for block in self._blocks:
            if first >= stop:
                return
            if first + len(block) > start:
                yield block[max(start - first, 0):stop - first]
            first += len(block)
