"""PersonaPlex's prompt in chunks of steps (``PersonaPlexGenerator.forced_steps``), checked against
the same prompt one step at a time: the token bookkeeping and every step's outputs are identical,
the temporal transformer's keys and values differ only by float32 rounding (as exact as the
step-by-step ones, measured against the computation in float64), greedy tokens afterwards are
identical, and the transformer runs once a chunk instead of once a step."""

from __future__ import annotations

import pytest
import torch

from engine.lm.generate import PersonaPlexGenerator, SamplingConfig
from engine.lm.model import LMModel
from engine.lm.personaplex import VoicePrompt, run_prompt_phases
from engine.state import flatten
from tests.rounding import assert_as_exact_as, float64_twin
from tests.test_lm import tiny_config
from tests.test_personaplex import CARD, lm, record_embeddings  # noqa: F401 - lm is a fixture

TEXT = list(range(40, 70))  # a role prompt of 30 tokens: with the voice and the silences, several chunks


def voice_prompt(gen: PersonaPlexGenerator, stored: bool) -> VoicePrompt:
    voice = VoicePrompt(codes=torch.randint(0, CARD, (25, 8), generator=torch.Generator().manual_seed(4)))
    if stored:
        embeddings, cache, _ = record_embeddings(gen.lm, gen, gen.init_state(1, seed=9), voice)
        voice = VoicePrompt(embeddings=embeddings, cache=cache)
    return voice


def outputs(steps) -> list[tuple]:
    return [(s.phase, s.text.tolist(), s.audio.tolist()) for s in steps]


def layer_calls(transformer, run) -> list[int]:
    """How many steps each call of the transformer's first layer took while ``run()`` ran."""
    calls = []
    hook = transformer.layers[0].register_forward_pre_hook(lambda module, args: calls.append(args[0].shape[1]))
    try:
        run()
    finally:
        hook.remove()
    return calls


@pytest.fixture(scope="module")
def roomy_lm() -> LMModel:
    """The tiny PersonaPlex LM with a context that holds the whole prompt (the fixture ``lm``'s, of
    20 steps, wraps its ring during the prompt)."""
    torch.manual_seed(1)
    return LMModel(tiny_config(dep_q=16, card=CARD, model_type="personaplex", context=100)).eval().requires_grad_(False)


@pytest.mark.parametrize("roomy", [False, True], ids=["ring-wraps", "ring-holds-the-prompt"])
@pytest.mark.parametrize("stored_voice", [False, True], ids=["voice-codes", "voice-embeddings"])
def test_a_prompt_in_chunks_leaves_the_step_by_step_state_up_to_rounding(lm, roomy_lm, stored_voice, roomy):  # noqa: F811
    check_chunked_prompt(roomy_lm if roomy else lm, stored_voice)


def check_chunked_prompt(lm: LMModel, stored_voice: bool) -> None:  # noqa: F811
    """The prompt in chunks of 16 against step by step, on ``lm``'s device."""
    gen = PersonaPlexGenerator(lm, SamplingConfig.greedy())
    voice = voice_prompt(gen, stored_voice)
    chunked_state, stepped_state = gen.init_state(1, seed=9), gen.init_state(1, seed=9)
    chunked = run_prompt_phases(gen, chunked_state, voice, TEXT, chunk_steps=16)
    stepped = run_prompt_phases(gen, stepped_state, voice, TEXT, chunk_steps=1)
    assert len(chunked) > 3 * 16 and outputs(chunked) == outputs(stepped)
    twin = PersonaPlexGenerator(float64_twin(lm), SamplingConfig.greedy())
    exact_state = twin.init_state(1, seed=9)
    run_prompt_phases(twin, exact_state, voice if not stored_voice else VoicePrompt(
        embeddings=voice.embeddings.double(), cache=voice.cache), TEXT, chunk_steps=1)
    a, b, exact = flatten(chunked_state), flatten(stepped_state), flatten(exact_state)
    for name in a:
        if a[name].is_floating_point():  # keys and values: rounding apart
            assert_as_exact_as(a[name], b[name], exact[name], name)
        else:  # offsets, positions, tokens, flags, the RNG: identical
            assert torch.equal(a[name], b[name]), name
    g = torch.Generator().manual_seed(6)
    for _ in range(5):  # greedy tokens after the prompt: identical
        user = torch.randint(0, CARD, (1, 8), generator=g).to(next(gen.lm.parameters()).device)
        assert all(torch.equal(x, y) for x, y in zip(gen.step(user, chunked_state), gen.step(user, stepped_state)))


def test_the_temporal_transformer_runs_once_a_chunk(roomy_lm):
    gen = PersonaPlexGenerator(roomy_lm, SamplingConfig())
    steps = []
    chunked = layer_calls(gen.lm.transformer, lambda: steps.extend(
        run_prompt_phases(gen, gen.init_state(1), None, TEXT, chunk_steps=16)))
    forced = len(steps) - 1  # the last step is sampled in full
    assert forced == 40 and chunked == [16, 16, 8, 1]
    stepped = layer_calls(gen.lm.transformer, lambda: run_prompt_phases(gen, gen.init_state(1), None, TEXT,
                                                                        chunk_steps=1))
    assert stepped == [1] * len(steps)


def test_a_chunk_that_would_wrap_the_ring_runs_step_by_step_past_its_end(lm):  # noqa: F811
    """Where a chunk's positions pass the ring's capacity, the steps beyond it go one at a time: a
    slot is reused only as step-by-step calls reuse it (the same state, up to rounding)."""
    transformer = lm.transformer
    capacity = transformer.cfg.ring.capacity
    g = torch.Generator().manual_seed(3)
    x = torch.randn(1, capacity + 5, lm.config.dim, generator=g)
    stepped, prefilled = transformer.init_state(1), transformer.init_state(1)
    ys = []
    with torch.inference_mode():
        for t in range(capacity - 3):  # both rings nearly full
            transformer(x[:, t:t + 1], stepped)
        transformer.prefill(x[:, :capacity - 3], prefilled)
        calls = layer_calls(transformer, lambda: ys.append(transformer.prefill(x[:, capacity - 3:], prefilled)))
        want = torch.cat([transformer(x[:, t:t + 1], stepped) for t in range(capacity - 3, capacity + 5)], dim=1)
    assert calls == [3, 1, 1, 1, 1, 1]  # 3 steps fit; past the ring's end, forward splits them step by step
    y = ys[0]
    assert y.shape == want.shape and torch.equal(prefilled["positions"], stepped["positions"])
    torch.testing.assert_close(y, want, rtol=0, atol=1e-3 * float(want.abs().max()))
