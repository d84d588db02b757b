"""Session-level guarantees that the CLI tests do not reach: in-place restore, dtype portability."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from engine import Session, load_model
from engine.files.conversation import ConversationFileError
from engine.state import flatten


def speech(frames: int, seed: int = 0) -> np.ndarray:
    t = np.arange(frames * 1920) / 24000
    rng = np.random.default_rng(seed)
    return (0.2 * np.sin(2 * np.pi * 220 * t) * rng.uniform(0.5, 1.0, t.size)).astype(np.float32)


def test_restore_copies_into_the_live_state_and_continues_exactly(tmp_path):
    model = load_model("demo", device="cpu")
    a, b = speech(12, 1), speech(10, 2)
    reference = model.new_session(seed=5)
    reference.process(a)
    reference.save(tmp_path / "a.parley")
    expected = reference.process(b)

    other = model.new_session(seed=99)  # another conversation, already going
    other.process(speech(7, 3))
    live = {name: t for name, t in flatten(other.state).items()}
    other.restore(tmp_path / "a.parley")
    for name, tensor in flatten(other.state).items():
        assert tensor is live[name]  # copied in place: a captured CUDA graph would stay valid
    got = other.process(b)
    assert got.text_tokens == expected.text_tokens and got.audio_codes == expected.audio_codes
    assert np.array_equal(got.pcm, expected.pcm)
    assert [e.text for e in other.transcript] == [e.text for e in reference.transcript]


def test_a_refused_restore_leaves_the_session_as_it_was(tmp_path):
    model = load_model("demo", device="cpu")
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
    """Saved by a bfloat16 model, opened by a float32 one (as from a GPU to a CPU): the state is
    converted to the target's dtype and the conversation goes on."""
    bf16 = load_model("demo", device="cpu", precision="bfloat16")
    session = bf16.new_session(seed=3)
    session.process(speech(8))
    session.save(tmp_path / "talk.parley")

    fp32 = load_model("demo", device="cpu", precision="float32")
    resumed = Session.load(tmp_path / "talk.parley", fp32)
    assert resumed.frames == 8
    assert flatten(resumed.state)["gen.lm.temporal.layers.0.k"].dtype == torch.float32
    saved_k = flatten(session.state)["gen.lm.temporal.layers.0.k"][:, :, :8].float()
    assert torch.equal(flatten(resumed.state)["gen.lm.temporal.layers.0.k"][:, :, :8], saved_k)
    out = resumed.process(speech(4, 7))
    assert len(out.text_tokens) == 4 and np.isfinite(out.pcm).all()
