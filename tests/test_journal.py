"""The crash-journal format: round trip, the writer thread, and a reader that keeps every whole
frame before any damage (cut at every byte, bit flips, reordering, fuzzing) and never crashes."""

from __future__ import annotations

import json
import os
import struct
import time
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import FRAME_SIZE, ConversationFileError, SamplingConfig, to_16_bit
from engine.files import journal as jf

HEADER = jf.JournalHeader(model="demo", fingerprint="f" * 32, sampling=SamplingConfig(), seed=3,
                          prompts={"voice": None, "text": None}, user_streams=8, token_streams=9)


SAMPLES = ["float32", "16-bit"]  # what the engine API may be fed / what the app's microphone gives


def frame(i: int, samples: str = "float32") -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(i)
    pcm = (0.3 * rng.standard_normal(FRAME_SIZE)).astype(np.float32)
    return (i, rng.integers(0, 2048, 8), rng.integers(0, 2048, 9), to_16_bit(pcm) if samples == "16-bit" else pcm)


def journal_bytes(frames: int, samples: str = "float32") -> bytes:
    return jf.encode_start(HEADER) + b"".join(jf.encode_frame(*frame(i, samples)) for i in range(frames))


def assert_frames_are_the_originals(journal: jf.Journal, samples: str = "float32") -> None:
    for i in range(journal.frames):
        _, user, tokens, pcm = frame(i, samples)
        assert np.array_equal(journal.user_codes[i], user) and np.array_equal(journal.tokens[i], tokens)
        assert journal.pcm.dtype == np.float32 and np.array_equal(journal.pcm[i], pcm)  # bit for bit


@pytest.mark.parametrize("samples", SAMPLES)
def test_round_trip(samples):
    journal = jf.parse_journal(journal_bytes(4, samples))
    assert journal.frames == 4 and journal.lost_frames == 0 and journal.damage is None
    assert journal.header == HEADER
    assert_frames_are_the_originals(journal, samples)


def test_16_bit_samples_take_half_the_bytes_and_frames_of_both_kinds_mix():
    start = len(jf.encode_start(HEADER))
    float_record, short_record = ((len(journal_bytes(1, samples)) - start) for samples in SAMPLES)
    assert short_record == float_record - 2 * FRAME_SIZE  # 7.8 KB -> 4.0 KB a frame: ~3 MB a minute
    kinds = ["16-bit", "float32", "16-bit", "16-bit"]
    data = jf.encode_start(HEADER) + b"".join(jf.encode_frame(*frame(i, k)) for i, k in enumerate(kinds))
    journal = jf.parse_journal(data)
    assert journal.frames == 4 and journal.damage is None
    for i, k in enumerate(kinds):
        assert np.array_equal(journal.pcm[i], frame(i, k)[3])


def test_a_version_1_journal_is_still_recovered():
    """Journals written before 16-bit frames: a version 1 header, float32 frames."""
    body = {**json.loads(HEADER.to_json()), "version": 1}
    payload = json.dumps(body).encode()
    prefix = struct.pack("<IB", len(payload), ord("H"))
    start = jf.MAGIC + prefix + payload + struct.pack("<I", zlib.crc32(payload, zlib.crc32(prefix)))
    journal = jf.parse_journal(start + journal_bytes(3)[len(jf.encode_start(HEADER)):])
    assert journal.frames == 3 and journal.damage is None and journal.header == HEADER
    assert_frames_are_the_originals(journal)


@pytest.mark.parametrize("samples", SAMPLES)
def test_cut_at_every_byte_offset_keeps_every_whole_frame(samples):
    data = journal_bytes(3, samples)
    start = len(jf.encode_start(HEADER))
    record = (len(data) - start) // 3
    for cut in range(len(data) + 1):
        if cut < start:
            with pytest.raises(ConversationFileError, match="nothing can be recovered"):
                jf.parse_journal(data[:cut])
            continue
        journal = jf.parse_journal(data[:cut])
        whole, partial = divmod(cut - start, record)
        assert journal.frames == whole, cut
        assert journal.lost_frames == (1 if partial else 0)
        assert (journal.damage is None) == (partial == 0)
        if cut in (start, len(data) - 1):
            assert_frames_are_the_originals(journal, samples)


@pytest.mark.parametrize("samples", SAMPLES)
def test_bit_flip_in_a_frame_keeps_the_frames_before_it_and_counts_the_rest(samples):
    data = bytearray(journal_bytes(5, samples))
    start = len(jf.encode_start(HEADER))
    record = (len(data) - start) // 5
    for offset in (0, 3, 5, 100, record - 1):  # length, kind, index, samples, checksum of frame 2
        damaged = bytearray(data)
        damaged[start + 2 * record + offset] ^= 0x04
        journal = jf.parse_journal(bytes(damaged))
        assert journal.frames == 2 and journal.lost_frames == 3, offset
        assert "after frame 2" in journal.damage
        assert_frames_are_the_originals(journal, samples)


def test_damaged_header_or_foreign_file_is_a_clear_error():
    data = bytearray(journal_bytes(1))
    data[20] ^= 0x01
    with pytest.raises(ConversationFileError, match="header is damaged"):
        jf.parse_journal(bytes(data))
    with pytest.raises(ConversationFileError, match="not a Parley journal"):
        jf.parse_journal(b"RIFF0000WAVEfmt " + bytes(100))


def test_newer_version_asks_for_an_update():
    body = json.loads(HEADER.to_json())
    body["version"] = jf.FORMAT_VERSION + 1
    payload = json.dumps(body).encode()
    prefix = struct.pack("<IB", len(payload), ord("H"))
    data = jf.MAGIC + prefix + payload + struct.pack("<I", zlib.crc32(payload, zlib.crc32(prefix)))
    with pytest.raises(ConversationFileError, match="newer Parley"):
        jf.parse_journal(data)


def test_frames_out_of_order_end_the_readable_part():
    data = jf.encode_start(HEADER) + jf.encode_frame(*frame(0)) + jf.encode_frame(*frame(2))
    journal = jf.parse_journal(data)
    assert journal.frames == 1 and journal.lost_frames == 1 and "frame 2 where frame 1 belongs" in journal.damage


def test_writer_writes_off_the_callers_thread_and_close_can_remove(tmp_path):
    path = tmp_path / "talk.journal"
    writer = jf.JournalWriter(path, HEADER, fsync_frames=2)
    assert jf.read_journal(path).frames == 0  # the header is on disk at once
    for i in range(3):
        writer.append(*frame(i))
    deadline = time.monotonic() + 10
    while jf.read_journal(path).frames < 3:  # reaches the file without close(): a kill -9 keeps it
        assert time.monotonic() < deadline, "queued frames did not reach the file"
        time.sleep(0.01)
    writer.close()
    journal = jf.read_journal(path)
    assert journal.frames == 3 and journal.damage is None and writer.error is None
    assert_frames_are_the_originals(journal)
    writer.close(remove=True)
    assert not path.exists()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (a disk that is always full)")
def test_a_full_disk_stops_journaling_without_raising_into_the_frame_loop(tmp_path):
    with pytest.raises(OSError):  # the header cannot be written: the caller learns at once
        jf.JournalWriter("/dev/full", HEADER)
    writer = jf.JournalWriter(tmp_path / "talk.journal", HEADER)
    writer._file.close()
    writer._file = open("/dev/full", "wb", buffering=0)  # noqa: SIM115 - the disk fills up mid-conversation
    writer.append(*frame(0))
    writer.append(*frame(1))
    writer.close()
    assert writer.error and "could not be written" in writer.error and writer.frames_written == 0


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=4096))
def test_fuzz_arbitrary_bytes_are_refused_with_the_files_error(data):
    """The header record ends in a CRC-32 of itself: arbitrary bytes, even after the magic, are
    never a journal, and the refusal is the file's error (no other exception escapes)."""
    for candidate in (data, jf.MAGIC + data):
        with pytest.raises(ConversationFileError):
            jf.parse_journal(candidate)


BASE = journal_bytes(3)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, len(BASE) - 1), st.binary(min_size=1, max_size=8)), min_size=1,
                max_size=4), st.integers(0, len(BASE)))
def test_fuzz_damaged_journals_recover_an_exact_prefix(edits, cut):
    data = bytearray(BASE)
    for offset, chunk in edits:
        data[offset:offset + len(chunk)] = chunk
    data = bytes(data[:cut])
    try:
        journal = jf.parse_journal(data)
    except ConversationFileError:
        return
    assert journal.frames <= 3
    assert_frames_are_the_originals(journal)  # whatever survives is exactly what was written


def test_a_journal_is_read_record_by_record_in_memory_for_what_it_keeps(tmp_path):
    """Magic and header first, then one record at a time: a 2 GB file of zeros, or a header followed by
    2 GB of nothing, costs its first bytes (read whole, it took 2 GB and more)."""
    import tracemalloc

    zeros, hole = tmp_path / "zeros.journal", tmp_path / "hole.journal"
    for path, start in ((zeros, b""), (hole, journal_bytes(2))):
        with open(path, "wb") as f:
            f.write(start)
            f.truncate(2 << 30)  # sparse
    tracemalloc.start()
    try:
        with pytest.raises(ConversationFileError, match="not a Parley journal"):
            jf.read_journal(zeros)
        journal = jf.read_journal(hole)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert journal.frames == 2 and journal.damage.startswith("a checksum mismatch after frame 2")
    assert_frames_are_the_originals(journal)
    assert peak < 1 << 20, f"reading took {peak / 2**20:.0f} MB"
