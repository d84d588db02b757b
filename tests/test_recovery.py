"""Rebuilding a conversation from its journal on the real demo model: the state equals, bit for
bit, the uninterrupted run's at the same frame (greedy and sampled), and damaged, foreign or
forged journals recover what they can and fail clearly."""

from __future__ import annotations

import copy
from dataclasses import replace

import numpy as np
import pytest
import torch

from engine import (
    FRAME_SIZE,
    ConversationFileError,
    RecoveryCancelled,
    SamplingConfig,
    record_frames,
    recover,
    roll_back,
)
from engine.codec.mimi import Mimi, MimiConfig
from engine.files import journal as jf
from engine.runtime.rebuild import VERIFY_FRAMES
from engine.runtime.replay import journal_header
from engine.state import clone, flatten

FRAMES = 8


@pytest.fixture
def model(app_demo_model):
    return app_demo_model  # the suite's one float32 demo model


def talk(frames: int) -> np.ndarray:
    """A chirp with noise: audio that changes every frame."""
    t = np.arange(frames * FRAME_SIZE) / 24000
    rng = np.random.default_rng(1)
    pcm = 0.3 * np.sin(2 * np.pi * (200 + 150 * t) * t) + 0.05 * rng.standard_normal(t.size)
    return pcm.astype(np.float32).reshape(frames, FRAME_SIZE)


def assert_same_state(a, b):
    fa, fb = flatten(a), flatten(b)
    assert fa.keys() == fb.keys()
    differ = [name for name in fa if not torch.equal(fa[name], fb[name])]
    assert not differ, f"{len(differ)} state entries differ, e.g. {differ[:3]}"


@pytest.mark.parametrize("sampling", [SamplingConfig.greedy(), SamplingConfig()], ids=["greedy", "sampled"])
def test_rebuilt_state_is_bit_identical_and_continues_identically(model, tmp_path, sampling):
    pcm = talk(FRAMES + 3)
    live = model.new_session(sampling=sampling, seed=11)
    writer = record_frames(live, tmp_path / "j.journal")
    for i in range(FRAMES):
        live.step(pcm[i])
    writer.close()
    progress = []
    r = recover(model, tmp_path / "j.journal", progress=lambda done, total: progress.append((done, total)))
    assert (r.frames, r.lost_frames, r.damage, r.encoder_mismatches) == (FRAMES, 0, None, 0)
    assert progress[-1] == (FRAMES, FRAMES) and progress == sorted(progress)
    rebuilt = r.session
    assert_same_state(live.state, rebuilt.state)
    assert (rebuilt.frames, rebuilt.generator_steps, rebuilt.decoded_frames) == \
        (live.frames, live.generator_steps, live.decoded_frames)
    assert rebuilt.transcript == live.transcript
    for ours, theirs in zip(live.audio(), rebuilt.audio()):
        assert np.array_equal(ours, theirs)  # the assistant's audio is the decoder's output, exactly
    after_live = [live.step(pcm[i]) for i in range(FRAMES, FRAMES + 3)]
    after_rebuilt = [rebuilt.step(pcm[i]) for i in range(FRAMES, FRAMES + 3)]
    assert [(a.text_token, a.audio_codes) for a in after_live] == [(b.text_token, b.audio_codes) for b in after_rebuilt]


def test_cut_journal_rebuilds_the_state_at_the_last_whole_frame(model, tmp_path):
    pcm = talk(FRAMES)
    live = model.new_session(seed=5)
    path = tmp_path / "j.journal"
    writer = record_frames(live, path)
    snapshot = None
    for i in range(FRAMES):
        live.step(pcm[i])
        if i == 4:
            snapshot = clone(live.state)
    writer.close()
    data = path.read_bytes()
    record = (len(data) - len(jf.encode_start(journal_header(live)))) // FRAMES
    path.write_bytes(data[:len(data) - 3 * record + 100])  # a kill in the middle of frame 5's record
    r = recover(model, path)
    assert (r.frames, r.lost_frames) == (5, 1) and "cut record" in r.damage
    assert_same_state(snapshot, r.session.state)


def test_journal_of_another_model_is_refused(model, tmp_path):
    live = model.new_session()
    header = journal_header(live)
    foreign = jf.JournalHeader(**{**header.__dict__, "fingerprint": "0" * 32, "model": "moshiko"})
    path = tmp_path / "j.journal"
    path.write_bytes(jf.encode_start(foreign))
    with pytest.raises(ConversationFileError, match="another model \\(moshiko\\)"):
        recover(model, path)


def test_forged_tokens_end_the_recovered_part(model, tmp_path):
    live = model.new_session()
    pcm = talk(3)
    data = jf.encode_start(journal_header(live))
    for i in range(3):
        tokens = np.zeros(9, np.int64)
        tokens[0] = 10**6 if i == 2 else 3  # a text token the model does not have (valid checksum)
        data += jf.encode_frame(i, np.zeros(8, np.int64), tokens, pcm[i])
    path = tmp_path / "j.journal"
    path.write_bytes(data)
    r = recover(model, path)
    assert (r.frames, r.lost_frames) == (2, 1) and "out of range in frame 2" in r.damage


def test_recovery_can_be_cancelled(model, tmp_path):
    live = model.new_session()
    writer = record_frames(live, tmp_path / "j.journal")
    for frame in talk(3):
        live.step(frame)
    writer.close()
    with pytest.raises(RecoveryCancelled):
        recover(model, tmp_path / "j.journal", cancel=lambda: True)


def test_a_journal_starts_with_a_conversation(model, tmp_path):
    live = model.new_session()
    live.step(talk(1)[0])
    with pytest.raises(ValueError, match="already run 1 frames that were not recorded"):
        record_frames(live, tmp_path / "j.journal")


def test_a_rebuilt_conversation_journals_again_from_its_first_frame(model, tmp_path):
    pcm = talk(6)
    live = model.new_session(seed=8)
    first = record_frames(live, tmp_path / "a.journal")
    for frame in pcm[:4]:
        live.step(frame)
    first.close()
    rebuilt = recover(model, tmp_path / "a.journal").session
    second = record_frames(rebuilt, tmp_path / "b.journal")  # the 4 rebuilt frames go first
    for frame in pcm[4:]:
        rebuilt.step(frame)
        live.step(frame)
    second.close()
    again = recover(model, tmp_path / "b.journal")
    assert again.frames == 6 and again.damage is None
    assert_same_state(live.state, again.session.state)


def test_a_rebuild_replays_with_the_thread_count_the_frames_ran_with(model, tmp_path):
    """The frames ran with 1 torch thread, the rebuild happens while 2 are set: it replays with 1
    (float sums are grouped per thread), and the rebuilt conversation keeps 1 for what follows."""
    before = torch.get_num_threads()
    pcm = talk(FRAMES)
    try:
        torch.set_num_threads(1)
        live = model.new_session(seed=4)
        writer = record_frames(live, tmp_path / "j.journal")
        for frame in pcm:
            live.step(frame)
        writer.close()
        torch.set_num_threads(2)
        r = recover(model, tmp_path / "j.journal")
        assert torch.get_num_threads() == 2  # the caller's setting is left as it was
        assert r.session.threads == 1 and journal_header(r.session).threads == 1
        assert_same_state(live.state, r.session.state)
        torch.set_num_threads(1)
        live_again = model.new_session(seed=4)  # no journal header may claim another count
        assert journal_header(live_again).threads == 1 and live_again.threads is None
    finally:
        torch.set_num_threads(before)


def short_context_model(model, context: int = 16, layers: int = 2):
    """The demo model with a Mimi whose transformers reach back only ``context`` steps in
    ``layers`` layers (random weights), so that a short conversation outlasts what its state
    depends on and the rebuild replays Mimi over the last frames only."""
    cfg = MimiConfig()
    cfg = replace(cfg, transformer=replace(cfg.transformer, context=context, num_layers=layers))
    torch.manual_seed(3)
    mimi = Mimi(cfg).eval()
    mimi.prepare()
    short = copy.copy(model)
    short.mimi = mimi
    return short


@pytest.mark.parametrize("sampling", [SamplingConfig.greedy(), SamplingConfig()], ids=["greedy", "sampled"])
def test_a_long_conversation_replays_mimi_only_over_what_its_state_depends_on(model, tmp_path, sampling):
    short = short_context_model(model)
    span = short.mimi.exact_after_frames() + VERIFY_FRAMES
    frames = span + 20
    pcm = talk(frames + 3)
    live = short.new_session(sampling=sampling, seed=13)
    writer = record_frames(live, tmp_path / "j.journal")
    for i in range(frames):
        live.step(pcm[i])
    writer.close()
    r = recover(short, tmp_path / "j.journal")
    assert (r.frames, r.codec_frames, r.encoder_mismatches) == (frames, span, 0)
    assert_same_state(live.state, r.session.state)
    user, assistant = live.audio()
    rebuilt_user, rebuilt_assistant = r.session.audio()
    assert np.array_equal(user, rebuilt_user)
    exact = (frames - VERIFY_FRAMES) * FRAME_SIZE  # the frames the seeked decoder computes exactly
    assert np.array_equal(assistant[exact:], rebuilt_assistant[exact:])
    # Decoded in pieces: equal within float rounding, which flips the 16-bit rounding of a few samples
    # the recording keeps (engine.runtime.recording) by one step.
    error = assistant[:exact] - rebuilt_assistant[:exact]
    # (1 torch thread: 95 of 109440 samples; 2 threads: none.)
    assert np.abs(error).max() <= 1 / 32768 and np.count_nonzero(error) < 0.01 * exact
    rebuilt = r.session
    assert rebuilt.transcript == live.transcript
    after_live = [live.step(pcm[i]) for i in range(frames, frames + 3)]
    after_rebuilt = [rebuilt.step(pcm[i]) for i in range(frames, frames + 3)]
    assert [(a.text_token, a.audio_codes) for a in after_live] == [(b.text_token, b.audio_codes) for b in after_rebuilt]


def test_mimi_seeked_to_a_stream_position_is_exact_after_its_reach(model):
    """The bound itself, on the codec alone: a fresh state seeked to frame ``start`` and fed the
    stream from there encodes and decodes exactly what the uninterrupted stream does once
    ``exact_after_frames`` frames have passed, and ends in the same state."""
    mimi = short_context_model(model).mimi
    reach = mimi.exact_after_frames()
    start, frames = 7, 7 + reach + 3
    pcm = torch.from_numpy(talk(frames)).view(frames, 1, 1, FRAME_SIZE)
    codes = torch.randint(0, 2048, (frames, 1, 8, 1), generator=torch.Generator().manual_seed(0))
    with torch.inference_mode():
        whole = mimi.init_state(1)
        enc = [mimi.encode_step(pcm[i], whole) for i in range(frames)]
        dec = [mimi.decode_step(codes[i], whole) for i in range(frames)]
        seeked = mimi.init_state(1)
        mimi.seek(seeked, start, start)
        enc2 = [mimi.encode_step(pcm[i], seeked) for i in range(start, frames)]
        dec2 = [mimi.decode_step(codes[i], seeked) for i in range(start, frames)]
    assert_same_state(whole, seeked)
    for i in range(start + reach, frames):
        assert torch.equal(enc[i], enc2[i - start]) and torch.equal(dec[i], dec2[i - start])


def test_a_frame_that_failed_half_way_rolls_back_to_the_last_complete_frame(model):
    """A step that raised after changing part of the state (here: the generator stepped, then the
    frame died) leaves tensors that no journal explains; ``roll_back`` rebuilds the conversation as
    it was after its last complete frame, bit for bit."""
    pcm = talk(5)
    live, reference = model.new_session(seed=6), model.new_session(seed=6)
    record_frames(live)
    for frame in pcm[:4]:
        live.step(frame)
        reference.step(frame)
    torn = live.generator
    torn.step(torch.zeros(1, torn.user_streams, dtype=torch.long), live.state["gen"])  # half a frame, then a crash
    ours, theirs = flatten(live.state), flatten(reference.state)
    assert [name for name in ours if not torch.equal(ours[name], theirs[name])]  # the state is torn
    rolled = roll_back(live)
    assert rolled.frames == 4 and rolled.transcript == reference.transcript
    rolled.step(pcm[4])
    reference.step(pcm[4])
    ours, theirs = flatten(rolled.state), flatten(reference.state)
    assert not [name for name in ours if not torch.equal(ours[name], theirs[name])]
