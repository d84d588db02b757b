"""Compact conversation files on the real demo model: compact and full files of one conversation
rebuild to the same state and resume to the same tokens; damaged or foreign files fail clearly."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from engine import (
    FRAME_SIZE,
    ConversationFileError,
    SamplingConfig,
    open_conversation,
    record_frames,
    save_conversation,
    snapshot_conversation,
)
from engine.audio import int16_to_pcm, pcm_to_int16
from engine.files import conversation
from engine.files.conversation import file_kind, read_conversation
from engine.state import flatten

FRAMES = 10


@pytest.fixture
def model(app_demo_model):
    return app_demo_model  # the suite's one float32 demo model


def talk(frames: int, sixteen_bit: bool) -> np.ndarray:
    t = np.arange(frames * FRAME_SIZE) / 24000
    pcm = 0.3 * np.sin(2 * np.pi * (220 + 100 * t) * t) + 0.02 * np.random.default_rng(4).standard_normal(t.size)
    if sixteen_bit:  # what the app feeds: 16-bit samples
        pcm = np.round(pcm * 32768) / 32768
    return pcm.astype(np.float32).reshape(frames, FRAME_SIZE)


@pytest.mark.parametrize("sampling,sixteen_bit", [(SamplingConfig(), True), (SamplingConfig.greedy(), False)],
                         ids=["sampled-flac", "greedy-float"])
def test_compact_and_full_files_resume_identically(model, tmp_path, sampling, sixteen_bit):
    pcm = talk(FRAMES + 4, sixteen_bit)
    live = model.new_session(sampling=sampling, seed=21)
    record_frames(live)
    for i in range(FRAMES):
        live.step(pcm[i])
    compact, full = tmp_path / "c.parley", tmp_path / "f.parley"
    assert save_conversation(live, compact, compact=True) == conversation.COMPACT
    assert save_conversation(live, full, compact=False) == conversation.FULL
    assert (file_kind(compact), file_kind(full)) == ("compact", "full")
    stored = read_conversation(compact).tensors
    assert ("compact.user_flac" in stored) == sixteen_bit and ("compact.user_pcm" in stored) != sixteen_bit
    assert compact.stat().st_size < full.stat().st_size / 20

    progress = []
    a = open_conversation(model, compact, progress=lambda done, total: progress.append(done))
    b = open_conversation(model, full)
    assert progress[-1] == FRAMES
    fa, fb = flatten(a.state), flatten(b.state)
    assert not [name for name in fa if not torch.equal(fa[name], fb[name])]
    assert a.transcript == b.transcript == live.transcript
    for rebuilt, snapshot, original in zip(a.audio(), b.audio(), live.audio()):
        assert np.array_equal(rebuilt, original)  # exact: the decoder's output, the user's samples
        assert np.array_equal(snapshot, int16_to_pcm(pcm_to_int16(original)))  # a full file keeps 16 bits
    outs = [[(r.text_token, r.audio_codes) for r in (s.step(pcm[i]) for i in range(FRAMES, FRAMES + 4))]
            for s in (a, b, live)]
    assert outs[0] == outs[1] == outs[2]
    # The rebuilt conversation keeps recording: it can be saved compact again.
    assert save_conversation(a, tmp_path / "again.parley", compact=True) == conversation.COMPACT
    assert open_conversation(model, tmp_path / "again.parley").frames == FRAMES + 4


@pytest.mark.parametrize("compact", [True, False], ids=["compact", "full"])
def test_a_snapshot_written_after_more_frames_holds_the_conversation_as_it_was(model, tmp_path, compact):
    """What the app does: the frame worker takes the snapshot and goes on; a thread writes it later."""
    pcm = talk(FRAMES + 5, True)
    live = model.new_session(seed=5)
    record_frames(live)
    for i in range(FRAMES):
        live.step(pcm[i])
    snapshot = snapshot_conversation(live, compact=compact)
    at_snapshot = {name: t.clone() for name, t in flatten(live.state).items()}
    audio_at_snapshot, transcript_at_snapshot = live.audio(), live.transcript
    for i in range(FRAMES, FRAMES + 5):  # the conversation goes on before the file is written
        live.step(pcm[i])
    path = tmp_path / "later.parley"
    snapshot.write(path)
    assert snapshot.frames == FRAMES and file_kind(path) == snapshot.kind == ("compact" if compact else "full")
    reopened = open_conversation(model, path)
    assert reopened.frames == FRAMES and reopened.transcript == transcript_at_snapshot
    state = flatten(reopened.state)
    assert not [name for name in state if not torch.equal(state[name], at_snapshot[name])]
    for got, kept in zip(reopened.audio(), audio_at_snapshot):  # both sides as they were (a full file: 16-bit)
        assert np.array_equal(got, kept if compact else int16_to_pcm(pcm_to_int16(kept)))


def test_a_conversation_opened_from_a_full_file_saves_full(model, tmp_path):
    live = model.new_session(seed=2)
    record_frames(live)
    for frame in talk(3, True):
        live.step(frame)
    live.save(tmp_path / "f.parley")
    reopened = open_conversation(model, tmp_path / "f.parley")
    with pytest.raises(ValueError, match="save it in full"):
        save_conversation(reopened, tmp_path / "c.parley", compact=True)
    assert save_conversation(reopened, tmp_path / "d.parley") == conversation.FULL  # the default falls back


def test_damaged_foreign_and_misused_compact_files_fail_clearly(model, tmp_path):
    live = model.new_session(seed=2)
    record_frames(live)
    for frame in talk(3, True):
        live.step(frame)
    path = tmp_path / "c.parley"
    save_conversation(live, path, compact=True)
    with pytest.raises(ConversationFileError, match="compact conversation"):
        live.restore(path)  # a snapshot restore is refused with the way to open it
    data = bytearray(path.read_bytes())
    flipped = bytearray(data)
    flipped[-10] ^= 0x01
    (tmp_path / "flip.parley").write_bytes(bytes(flipped))
    with pytest.raises(ConversationFileError, match="checksum"):
        open_conversation(model, tmp_path / "flip.parley")
    (tmp_path / "cut.parley").write_bytes(bytes(data[:len(data) // 2]))
    with pytest.raises(ConversationFileError, match="not a readable Parley conversation"):
        open_conversation(model, tmp_path / "cut.parley")
    text = bytes(data).replace(model.info.fingerprint.encode(), b"0" * len(model.info.fingerprint))
    (tmp_path / "foreign.parley").write_bytes(text)
    with pytest.raises(ConversationFileError, match="another model"):
        open_conversation(model, tmp_path / "foreign.parley")
