"""PcmRecording: a conversation's audio kept as 16-bit samples, the user's side exactly."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import torch

from engine import load_model, to_16_bit
from engine.audio import PCM16, int16_to_pcm, pcm_to_int16
from engine.files.conversation import ConversationFileError, read_conversation, write_conversation
from engine.runtime.recording import PcmRecording

BLOCK = 1000


def frames(count: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [(0.3 * rng.standard_normal(480)).astype(np.float32) for _ in range(count)]


def test_16_bit_samples_are_kept_in_16_bits_and_read_back_exactly():
    recording = PcmRecording(BLOCK, exact=True)
    pieces = [to_16_bit(f) for f in frames(5)]
    for piece in pieces:
        recording.extend(piece)
    assert recording.is_16_bit and len(recording) == 2400
    assert np.array_equal(recording.array(), np.concatenate(pieces))
    assert recording.array().dtype == np.float32
    assert np.array_equal(recording.rows(100, 1500), np.concatenate(pieces)[100:1500])
    assert recording.int16().dtype == PCM16 and np.array_equal(recording.int16(), pcm_to_int16(np.concatenate(pieces)))


def test_the_first_sample_that_is_not_16_bit_turns_an_exact_recording_to_float32_losing_nothing():
    recording = PcmRecording(BLOCK, exact=True)
    rounded, raw = [to_16_bit(f) for f in frames(3)], frames(2, seed=1)
    for piece in rounded:
        recording.extend(piece)
    before = recording.frozen()
    for piece in raw:
        recording.extend(piece)
    assert not recording.is_16_bit
    assert np.array_equal(recording.array(), np.concatenate(rounded + raw))  # every sample as it came
    assert before.is_16_bit and np.array_equal(before.array(), np.concatenate(rounded))  # a snapshot is unchanged
    recording.extend(rounded[0])
    assert np.array_equal(recording.rows(len(recording) - 480, len(recording)), rounded[0])


def test_the_assistant_side_is_rounded_to_16_bits_as_it_is_kept():
    recording = PcmRecording(BLOCK, exact=False)
    raw = frames(3, seed=2)
    for piece in raw:
        recording.extend(piece)
    assert recording.is_16_bit
    assert np.array_equal(recording.array(), to_16_bit(np.concatenate(raw)))
    assert np.abs(recording.array() - np.concatenate(raw)).max() <= 0.5 / 32768 + 1e-9


def test_of_keeps_16_bit_samples_without_a_copy_and_appends_after_them():
    ints = pcm_to_int16(np.concatenate(frames(2)))
    recording = PcmRecording.of(ints, BLOCK, exact=True)
    assert recording.is_16_bit and recording.int16() is not ints and np.array_equal(recording.int16(), ints)
    recording.extend(to_16_bit(frames(1, seed=3)[0]))
    assert len(recording) == 1440 and np.array_equal(ints, pcm_to_int16(np.concatenate(frames(2))))  # not written to
    assert np.array_equal(PcmRecording.of(int16_to_pcm(ints), BLOCK, exact=True).int16(), ints)  # float 16-bit values


@pytest.fixture(scope="module")
def model():
    return load_model("demo", device="cpu")


def test_a_session_fed_as_the_app_feeds_it_keeps_both_sides_in_16_bits(model, tmp_path):
    """The app's microphone reaches the model rounded to 16 bits: both sides' recordings take 2 bytes a
    sample (was 4: ~0.7 GB an hour), and a saved and restored conversation keeps them so."""
    session = model.new_session(seed=3)
    heard = [to_16_bit(np.resize(f, 1920)) for f in frames(6, seed=4)]
    outputs = [session.step(f).pcm for f in heard]
    user, assistant = session.recording()
    assert user.is_16_bit and assistant.is_16_bit
    assert np.array_equal(user.array(), np.concatenate(heard))
    assert np.array_equal(assistant.array(), to_16_bit(np.concatenate(outputs)))
    session.save(tmp_path / "talk.parley")
    restored = model.new_session(seed=0)
    restored.restore(tmp_path / "talk.parley")
    assert all(side.is_16_bit for side in restored.recording())
    for got, kept in zip(restored.audio(), session.audio()):
        assert np.array_equal(got, kept)


def test_a_session_keeps_a_float_input_exactly(model):
    session = model.new_session(seed=3)
    raw = [np.resize(f, 1920) for f in frames(3, seed=5)]
    for f in raw:
        session.step(f)
    user, assistant = session.recording()
    assert not user.is_16_bit and assistant.is_16_bit
    assert np.array_equal(session.audio()[0], np.concatenate(raw))


@pytest.mark.parametrize("bad", [torch.zeros(3840, dtype=torch.int32), torch.zeros(2, 1920, dtype=torch.int16)],
                         ids=["int32", "two-dimensional"])
def test_a_full_file_whose_audio_is_not_16_bit_mono_is_refused_and_nothing_changes(model, tmp_path, bad):
    session = model.new_session(seed=3)
    session.process(to_16_bit(np.concatenate(frames(8, seed=6))))
    session.save(tmp_path / "good.parley")
    stored = read_conversation(tmp_path / "good.parley", allowed_prefixes=("audio.", "mimi.", "gen."))
    write_conversation(tmp_path / "bad.parley", {**stored.tensors, "audio.user": bad}, stored.meta)
    live = model.new_session(seed=1)
    live.process(to_16_bit(np.concatenate(frames(16, seed=7))))  # 4 frames
    before = live.audio()
    with pytest.raises(ConversationFileError, match="audio.user .* not 16-bit mono samples"):
        live.restore(tmp_path / "bad.parley")
    assert live.frames == 4 and all(np.array_equal(a, b) for a, b in zip(live.audio(), before))


def test_a_long_recording_handed_over_is_converted_block_by_block():
    """A recovered hour arrives as one float array: converted a block at a time, the conversion needs
    no full-size scratch arrays (all at once it took ~5 bytes of scratch per sample beside the 2 kept)."""
    pcm = to_16_bit(np.random.default_rng(8).uniform(-0.5, 0.5, 200_000).astype(np.float32))
    tracemalloc.start()
    try:
        recording = PcmRecording.of(pcm, BLOCK, exact=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert recording.is_16_bit and np.array_equal(recording.array(), pcm)
    assert peak < 2 * pcm.size + 100_000  # the 16-bit samples kept, and a block's scratch
    mixed = np.concatenate([pcm, frames(1, seed=9)[0]])  # the last block is not 16-bit
    assert np.array_equal(PcmRecording.of(mixed, BLOCK, exact=True).array(), mixed)
