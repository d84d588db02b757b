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


def test_rows_reads_any_range_across_blocks_and_clamps_to_what_there_is():
    grown = GrowingArray.of(np.arange(7, dtype=np.int64), block_rows=4)  # a handed-over block of 7, then 4s
    grown.extend(np.arange(7, 20, dtype=np.int64))
    everything = np.arange(20)
    for start, stop in [(0, 20), (0, 7), (6, 8), (7, 11), (3, 17), (10, 10), (12, 50), (-5, 2), (25, 30), (9, 4)]:
        got = grown.rows(start, stop)
        assert got.dtype == np.int64 and np.array_equal(got, everything[max(start, 0):min(stop, 20)]), (start, stop)
    got = grown.rows(2, 5)
    got[0] = -1  # a copy
    assert grown.rows(2, 3)[0] == 2
    assert GrowingArray((2,), np.int64).rows(0, 3).shape == (0, 2)


def test_a_short_range_of_a_long_recording_reads_only_its_blocks():
    import tracemalloc

    grown = GrowingArray(block_rows=1000)
    grown.extend(np.ones(200_000, np.float32))  # one block: a batch takes a block of its own size
    for _ in range(50):
        grown.extend(np.ones(1000, np.float32))
    tracemalloc.start()
    try:
        clip = grown.rows(200_500, 201_700)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(clip) == 1200 and peak < 4 * clip.nbytes  # not a copy of the 250,000 rows


def test_converted_maps_every_block_into_one_array():
    grown = GrowingArray.of(np.arange(7, dtype=np.float32), block_rows=4)
    grown.extend(np.arange(7, 10, dtype=np.float32))
    out = grown.converted(lambda rows: (rows * 2).astype(np.int16), np.int16)
    assert out.dtype == np.int16 and np.array_equal(out, np.arange(10) * 2)
    assert GrowingArray((3,)).converted(np.negative, np.float32).shape == (0, 3)
