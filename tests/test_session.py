"""Session-level guarantees that the CLI tests do not reach: in-place restore, dtype portability."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import torch

from engine import (
    FRAME_SECONDS,
    Session,
    load_model,
    open_conversation,
    record_frames,
    save_conversation,
    transcript_tuples,
)
from engine.files.conversation import ConversationFileError
from engine.state import flatten


def speech(frames: int, seed: int = 0) -> np.ndarray:
    t = np.arange(frames * 1920) / 24000
    rng = np.random.default_rng(seed)
    return (0.2 * np.sin(2 * np.pi * 220 * t) * rng.uniform(0.5, 1.0, t.size)).astype(np.float32)


@pytest.fixture(scope="module")
def model():
    """The demo at its default precision, loaded once: each test opens its own sessions."""
    return load_model("demo", device="cpu")


def test_restore_copies_into_the_live_state_and_continues_exactly(model, tmp_path):
    a, b = speech(12, 1), speech(10, 2)
    reference = model.new_session(seed=5)
    reference.process(a)
    reference.save(tmp_path / "a.parley")
    expected = reference.process(b)

    other = model.new_session(seed=99)  # another conversation, already going, and waiting for its person
    other.process(speech(7, 3))
    other.wait_for_user(True)
    live = {name: t for name, t in flatten(other.state).items()}
    other.restore(tmp_path / "a.parley")
    for name, tensor in flatten(other.state).items():
        assert tensor is live[name]  # copied in place: a captured CUDA graph would stay valid
    assert not other.waiting_for_user  # the saved conversation's frames run as they ran
    got = other.process(b)
    assert got.text_tokens == expected.text_tokens and got.audio_codes == expected.audio_codes
    assert np.array_equal(got.pcm, expected.pcm)
    assert transcript_tuples(other.transcript) == transcript_tuples(reference.transcript)
    assert "".join(text for _, _, text in transcript_tuples(other.transcript))  # the demo said something


def test_a_refused_restore_leaves_the_session_as_it_was(model, tmp_path):
    session = model.new_session(seed=1)
    session.process(speech(5))
    before = {k: v.clone() for k, v in flatten(session.state).items()}
    broken = tmp_path / "broken.parley"
    session.save(broken)
    broken.write_bytes(broken.read_bytes()[:-100])
    with pytest.raises(ConversationFileError):
        session.restore(broken)
    assert session.frames == 5
    for name, tensor in flatten(session.state).items():
        assert torch.equal(tensor, before[name])


def test_a_conversation_moves_between_dtypes(tmp_path):
    """Saved with a bfloat16 state (what a model on a GPU saves), opened by a float32 one on the
    CPU: the state is converted to the target's dtype and the conversation goes on."""
    fp32 = load_model("demo", device="cpu", precision="float32")
    session = fp32.new_session(seed=3)
    session.process(speech(8))
    session.state = bfloat16_copy(session.state)  # the CPU keeps float32 state at every precision
    session.save(tmp_path / "talk.parley")

    resumed = Session.load(tmp_path / "talk.parley", fp32)
    assert resumed.frames == 8
    assert flatten(resumed.state)["gen.lm.temporal.layers.0.k"].dtype == torch.float32
    saved_k = flatten(session.state)["gen.lm.temporal.layers.0.k"][:, :, :8].float()
    assert torch.equal(flatten(resumed.state)["gen.lm.temporal.layers.0.k"][:, :, :8], saved_k)
    out = resumed.process(speech(4, 7))
    assert len(out.text_tokens) == 4 and np.isfinite(out.pcm).all()


def bfloat16_copy(tree):
    if isinstance(tree, torch.Tensor):
        return tree.to(torch.bfloat16) if tree.is_floating_point() else tree
    return {name: bfloat16_copy(child) for name, child in tree.items()}


def test_restoring_keeps_the_frame_step_and_a_frame_step_per_sampling(model, tmp_path):
    """The frame step (on CUDA: its captured graph) survives a restore; a file with other sampling
    settings gets a frame step of its own, and switching back reuses the first one."""
    from engine import SamplingConfig

    session = model.new_session(SamplingConfig(), seed=2)
    session.process(speech(4))
    session.save(tmp_path / "default.parley")
    first_step = session.frame_step
    session.restore(tmp_path / "default.parley")
    assert session.frame_step is first_step

    greedy = model.new_session(SamplingConfig.greedy(), seed=2)
    greedy.process(speech(3))
    greedy.save(tmp_path / "greedy.parley")
    session.restore(tmp_path / "greedy.parley")
    assert session.sampling == SamplingConfig.greedy() and session.frame_step is not first_step
    session.restore(tmp_path / "default.parley")
    assert session.frame_step is first_step and session.sampling == SamplingConfig()


@pytest.fixture(scope="module")
def personaplex_folder(tmp_path_factory, demo_model_dir):
    """A PersonaPlex-architecture model folder (16-step depth transformer, random weights) made from
    the demo's files: what the prompt phases run on."""
    from engine.files.demo import write_personaplex_variant

    return write_personaplex_variant(tmp_path_factory.mktemp("personaplex"))


def test_opening_a_personaplex_conversation_runs_no_prompt_phases(tmp_path, personaplex_folder, monkeypatch):
    import engine.lm.personaplex as personaplex
    import engine.runtime.session as session_module

    model = load_model(str(personaplex_folder), device="cpu")
    assert model.info.family == "personaplex"
    released = []
    monkeypatch.setattr(session_module, "release_cached_blocks", released.append)
    session = model.new_session(seed=4, text_prompt="You enjoy a good chat.")
    assert released == [model.device]  # the prompt's activations are handed back once it has run
    prompt_steps = session.generator_steps
    assert prompt_steps > 12  # silence, the role's tokens, silence
    session.process(speech(3))
    session.save(tmp_path / "pp.parley")
    expected = session.process(speech(2, 9))

    def no_prompts(*args, **kwargs):
        raise AssertionError("opening a conversation must not run the prompt phases")

    monkeypatch.setattr(personaplex, "run_prompt_phases", no_prompts)
    opened = Session.load(tmp_path / "pp.parley", model)
    assert opened.generator_steps == prompt_steps + 3 and opened.prompts["text"] == "You enjoy a good chat."
    got = opened.process(speech(2, 9))
    assert got.text_tokens == expected.text_tokens and got.audio_codes == expected.audio_codes


def test_a_recorded_conversation_keeps_no_allocation_per_frame(model):
    """Kept as one small array per frame, a conversation's records (its audio, its frames' codes)
    stranded the frame step's freed temporaries between them (glibc): the app grew ~120 MB a
    minute from ~15 minutes in. They are appended into blocks of a minute of frames instead."""
    session = model.new_session(seed=1)
    record_frames(session)
    pcm = speech(30).reshape(30, -1)
    for frame in pcm[:10]:
        session.step(frame)
    tracemalloc.start()
    try:
        for frame in pcm[10:]:
            session.step(frame)
        kept = tracemalloc.take_snapshot().filter_traces([tracemalloc.DomainFilter(True, np.lib.tracemalloc_domain)])
    finally:
        tracemalloc.stop()
    assert len(kept.traces) <= 2  # numpy arrays made during the 20 frames and kept: one per frame before
    user, assistant = session.audio()
    assert np.array_equal(user, pcm.reshape(-1)) and assistant.size == user.size
    assert len(session.frame_observer.tokens) == len(session.frame_observer.user_codes) == 30
    clip_user, clip_assistant = session.audio_between(3 * FRAME_SECONDS, 7.5 * FRAME_SECONDS)  # a turn to play
    assert np.array_equal(clip_user, user[3 * 1920:7 * 1920 + 960])
    assert np.array_equal(clip_assistant, assistant[3 * 1920:7 * 1920 + 960])
    assert [a.size for a in session.audio_between(29 * FRAME_SECONDS, 40.0)] == [1920, 1920]  # clamped


def test_wait_for_me_forces_the_assistant_to_silence_until_released_and_replays_exactly(tmp_path):
    """While waiting, the assistant's written text is padding and its audio the codes Mimi makes of
    silence (computed here offline, independently of the session); after release it speaks again,
    and a session rebuilt with every written token forced by hand (the journal replay) has the
    same state, bit for bit."""
    model = load_model("demo", device="cpu", precision="float32")
    config, mimi = model.lm.config, model.mimi
    silent = mimi.encode(torch.zeros(1, 1, 3 * mimi.frame_size, dtype=mimi.pcm_dtype))[0, :, 2].tolist()
    session = model.new_session(seed=4)
    recorder = record_frames(session)
    session.wait_for_user(True)
    assert session.waiting_for_user
    pcm = speech(16, 3).reshape(16, -1)
    for frame in pcm[:8]:
        session.step(frame)
    written = recorder.tokens.array()
    assert (written[:, 0] == config.existing_text_padding_id).all()
    assert (written[:, 1:] == silent).all()
    assert not session.transcript
    session.wait_for_user(False)
    for frame in pcm[8:]:
        session.step(frame)
    after = recorder.tokens.array()[8:]
    assert (after[:, 1:] != silent).any()  # released: the (random-weight) assistant babbles again

    save_conversation(session, tmp_path / "waited.parley", compact=True)
    rebuilt = open_conversation(model, tmp_path / "waited.parley")
    ours, theirs = flatten(session.state), flatten(rebuilt.state)
    assert not [name for name in ours if not torch.equal(ours[name], theirs[name])]
