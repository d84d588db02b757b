"""Streaming generation: greedy token parity with the reference ``LMGen``, seeded sampling,
the sampler itself, and graph safety of the per-frame step (dynamo fullgraph + a dispatch spy)."""

from __future__ import annotations

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from engine.lm.generate import MoshiGenerator, PersonaPlexGenerator, SamplingConfig, make_generator
from engine.lm.model import load_lm
from engine.lm.sampling import init_rng, sample_token, uniform
from engine.state import flatten
from tests.reference import require_moshi
from tests.test_lm import save_hub_checkpoint, tiny_config, tiny_reference

FRAMES = 60  # context 20: the ring wraps three times, over the held frame and the silence


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """(reference LMModel, our LMModel) with the same random weights; context 20 so the ring wraps."""
    cfg = tiny_config()
    ref = tiny_reference(cfg)
    path = save_hub_checkpoint(ref, tmp_path_factory.mktemp("lm") / "model.safetensors")
    return ref, load_lm(path, cfg, dtype=torch.float32)


def user_codes(frames: int, batch: int = 1, card: int = 256, seed: int = 0) -> torch.Tensor:
    """Structured user audio: a slowly changing 'utterance' with repeats and silences, [T, B, 8]."""
    g = torch.Generator().manual_seed(seed)
    codes = torch.randint(0, card, (max(frames, 60), batch, 8), generator=g)
    codes[10:20] = codes[10]  # a held frame
    codes[40:55] = torch.tensor([5, 9, 13, 17, 21, 25, 29, 33])  # "silence"
    codes = codes[:frames]
    return codes


@pytest.mark.reference
def test_greedy_tokens_match_reference_lmgen(tiny):
    require_moshi()
    from moshi.models.lm import LMGen

    ref_lm, lm = tiny
    codes = user_codes(FRAMES, batch=2)
    ref_gen = LMGen(ref_lm, use_sampling=False)
    gen = MoshiGenerator(lm, SamplingConfig.greedy())
    state = gen.init_state(2)
    equal = produced = 0
    seen = []
    with torch.no_grad(), ref_gen.streaming(2):
        for t in range(FRAMES):
            ref_out = ref_gen.step(codes[t][:, :, None])
            text, audio = gen.step(codes[t], state)
            if t < gen.first_output_frame:
                assert ref_out is None
                assert (text == -2).all() and (audio == -2).all()
                continue
            produced += 1
            frame = joined((text, audio))
            equal += int(torch.equal(frame, ref_out[:, :, 0]))
            seen.append(frame)
    assert produced == FRAMES - 1
    assert equal == produced, f"{equal}/{produced} frames equal"
    # Only meaningful if the streams vary: many distinct tokens per stream over time.
    tokens = torch.stack(seen)
    assert all(len(torch.unique(tokens[:, :, k])) > 10 for k in range(tokens.shape[2]))


def joined(out):
    text, audio = out
    return torch.cat([text[:, None], audio], dim=1)


def run(gen, frames, seed, batch=1):
    state = gen.init_state(batch, seed=seed)
    codes = user_codes(frames, batch)
    outs = [joined(gen.step(codes[i], state)) for i in range(frames)]
    return torch.stack(outs), state


def test_sampling_is_seeded(tiny):
    gen = MoshiGenerator(tiny[1], SamplingConfig(temp=1.0, temp_text=1.0, top_k=50, top_k_text=10))
    a, state = run(gen, 12, seed=7)
    b, _ = run(gen, 12, seed=7)
    c, _ = run(gen, 12, seed=8)
    assert torch.equal(a, b)
    assert not torch.equal(a[1:], c[1:])
    assert int(state["rng"]["counter"]) == 12 * 2  # one draw for the text, one for all codebooks


def test_state_resume_continues_exactly(tiny):
    """Copying the state tree (what a conversation file stores) continues the stream identically."""
    gen = MoshiGenerator(tiny[1], SamplingConfig())
    codes = user_codes(16)
    state = gen.init_state(1, seed=3)
    for i in range(8):
        gen.step(codes[i], state)
    snapshot = {k: v.clone() for k, v in flatten(state).items()}
    first = [joined(gen.step(codes[i], state)) for i in range(8, 16)]
    other = gen.init_state(1, seed=99)
    for name, value in flatten(other).items():
        value.copy_(snapshot[name])
    second = [joined(gen.step(codes[i], other)) for i in range(8, 16)]
    assert all(torch.equal(x, y) for x, y in zip(first, second))


def test_user_frame_influences_output_in_the_same_step(tiny):
    """Moshi consumes the user's semantic token in the call that receives it: changing the user
    frame of step j changes the agent's acoustic tokens returned by step j (PersonaPlex: j + 1)."""
    gen = MoshiGenerator(tiny[1], SamplingConfig.greedy())
    codes = user_codes(12)
    j = 8
    runs = []
    for change in (False, True):
        state = gen.init_state(1)
        frames = []
        for i in range(12):
            user = (codes[i] + 7) % 256 if change and i == j else codes[i]
            frames.append(joined(gen.step(user, state)))
        runs.append(torch.stack(frames))
    assert torch.equal(runs[0][:j], runs[1][:j])
    assert not torch.equal(runs[0][j], runs[1][j])


def test_step_rejects_bad_input(tiny):
    gen = MoshiGenerator(tiny[1])
    state = gen.init_state(2)
    with pytest.raises(ValueError, match=r"long tensor \[batch=2, 8\]"):
        gen.step(torch.zeros(2, 8), state)
    with pytest.raises(ValueError, match=r"\[batch=2, 8\]"):
        gen.step(torch.zeros(1, 8, dtype=torch.long), state)
    with pytest.raises(ValueError, match="seed"):
        gen.init_state(1, seed=-1)
    with pytest.raises(ValueError, match="does not step as personaplex"):
        PersonaPlexGenerator(tiny[1])
    assert isinstance(make_generator(tiny[1]), MoshiGenerator)


# ------------------------------------------------------------------------------------ sampler

def test_sampler_greedy_topk_and_distribution():
    rng = init_rng(0, "cpu")
    logits = torch.randn(4, 50)
    assert torch.equal(sample_token(logits, 0.0, 10, rng), logits.argmax(-1))
    assert int(rng["counter"]) == 0
    top3 = logits.topk(3, dim=-1).indices
    for _ in range(20):
        tok = sample_token(logits, 1.0, 3, rng)
        assert (top3 == tok[:, None]).any(-1).all()
    # Frequencies follow softmax(logits / T) (chi-square-like bound on a 5-way distribution).
    probs = torch.tensor([0.4, 0.3, 0.15, 0.1, 0.05])
    n = 20000
    draws = sample_token(probs.log().expand(n, 5), 1.0, 0, rng)
    freq = torch.bincount(draws, minlength=5).float() / n
    assert (freq - probs).abs().max() < 0.015
    u = uniform(rng, (100000,))
    assert float(u.min()) > 0 and float(u.max()) < 1 and abs(float(u.mean()) - 0.5) < 0.01


# ------------------------------------------------------------------------------ graph safety

class SyncSpy(TorchDispatchMode):
    """Records aten ops that sync with the host or cannot live in a CUDA graph, and copies from
    another device to the CPU (only observable when the model runs on an accelerator)."""

    BANNED = {"aten::item", "aten::_local_scalar_dense", "aten::nonzero", "aten::multinomial",
              "aten::lift_fresh"}

    def __init__(self):
        super().__init__()
        self.bad: list[str] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = func._schema.name
        out = func(*args, **kwargs)
        sources = [a.device for a in args if isinstance(a, torch.Tensor)]
        if name in self.BANNED or (isinstance(out, torch.Tensor) and out.device.type == "cpu"
                                   and any(d.type != "cpu" for d in sources)):
            self.bad.append(name)
        return out


@pytest.mark.parametrize("sampling", [SamplingConfig(), SamplingConfig.greedy()], ids=["sampled", "greedy"])
def test_step_has_no_host_syncs(tiny, sampling):
    gen = MoshiGenerator(tiny[1], sampling)
    state = gen.init_state(1)
    codes = user_codes(4)
    gen.step(codes[0], state)
    spy = SyncSpy()
    with spy:
        for i in range(1, 4):
            gen.step(codes[i], state)
    assert spy.bad == []


def test_spy_catches_a_sync():
    spy = SyncSpy()
    with spy:
        torch.ones(2).sum().item()
        torch.tensor([1, 2])
    assert "aten::_local_scalar_dense" in spy.bad or "aten::item" in spy.bad
    assert "aten::lift_fresh" in spy.bad


def assert_traces_as_one_graph(gen, state, eager_state, calls):
    """Dynamo traces each frame step without a graph break (fullgraph=True fails on any) and, once
    traced, later frames reuse the graph (no recompilation on Python-int positions); the traced
    step gives the eager step's tokens."""
    torch._dynamo.reset()
    compiled = torch.compile(gen.step, fullgraph=True, backend="eager")
    try:
        for i, args in enumerate(calls):
            if i == 2:
                torch.compiler.set_stance("fail_on_recompile")
            out = compiled(*args(state))
            ref = gen.step(*args(eager_state))
            assert all(torch.equal(a, b) for a, b in zip(out, ref))
    finally:
        torch.compiler.set_stance("default")
        torch._dynamo.reset()


def test_step_traces_as_one_graph(tiny):
    gen = MoshiGenerator(tiny[1], SamplingConfig())
    codes = user_codes(5)
    calls = [lambda st, c=c: (c, st) for c in codes]
    assert_traces_as_one_graph(gen, gen.init_state(1, seed=1), gen.init_state(1, seed=1), calls)
