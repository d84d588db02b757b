"""GrowingArray: a conversation's per-frame records, appended into a few large blocks."""

from __future__ import annotations

import numpy as np
import pytest

from engine.runtime.growing_array import GrowingArray


def test_rows_appended_one_at_a_time_fill_blocks_of_block_rows():
    grown = GrowingArray((3,), np.int64, block_rows=4)
    rows = np.arange(30).reshape(10, 3)
    for row in rows:
        grown.extend(row)
    assert len(grown) == 10 and grown.blocks == 3  # 4 + 4 + 2 of 4
    out = grown.array()
    assert out.dtype == np.int64 and np.array_equal(out, rows)
    out[0, 0] = -1  # a copy: the rows kept are unchanged
    assert grown.array()[0, 0] == 0


def test_a_batch_fills_the_last_block_then_takes_one_block_for_the_rest():
    grown = GrowingArray((), np.float32, block_rows=5)
    grown.extend(np.arange(3, dtype=np.float32))
    grown.extend(np.arange(3, 20, dtype=np.float32))  # 2 fill the first block, 15 in one new block
    assert grown.blocks == 2 and np.array_equal(grown.array(), np.arange(20, dtype=np.float32))
    grown.extend(np.float32(20.0))  # the second block is full: a new one
    assert grown.blocks == 3 and grown.array()[-1] == 20.0 and len(grown) == 21


def test_of_starts_with_the_rows_handed_over_and_appends_after_them():
    source = np.ones((6, 2), np.int64)
    grown = GrowingArray.of(source, block_rows=4)
    assert grown.row_shape == (2,) and grown.dtype == np.int64 and grown.blocks == 1 and len(grown) == 6
    grown.extend(np.full(2, 3))  # a new block: the rows handed over are not written to
    assert grown.blocks == 2 and np.array_equal(source, np.ones((6, 2), np.int64))
    assert np.array_equal(grown.array(), np.concatenate([np.ones((6, 2), np.int64), [[3, 3]]]))


def test_empty_and_wrong_rows():
    assert GrowingArray((4,), np.int64).array().shape == (0, 4)
    assert GrowingArray.of(np.zeros(0, np.float32)).array().shape == (0,)
    grown = GrowingArray((4,), np.int64)
    with pytest.raises(ValueError):
        grown.extend(np.zeros(5))  # not a whole number of rows of 4
    assert len(grown) == 0
    with pytest.raises(ValueError, match="block_rows"):
        GrowingArray(block_rows=0)
