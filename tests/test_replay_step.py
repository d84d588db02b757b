"""Forcing through the generators' ``step``, for both families on tiny random LMs.

Stepping with the tokens a sampled run wrote, without sampling or the depth transformer (but the
last frame), leaves the generator state bit-identical to the sampled run's (token cache,
PersonaPlex's forcing flags, KV caches, depth-transformer cache, RNG counter): what journal replay
does. A forcing of some streams writes exactly those tokens there and samples the rest."""

from __future__ import annotations

import pytest
import torch

from engine.lm.generate import Forcing, SamplingConfig, make_generator
from engine.lm.model import LMModel
from engine.state import flatten
from tests.test_lm import tiny_config

STEPS = 9


def random_lm(**overrides) -> LMModel:
    torch.manual_seed(0)
    model = LMModel(tiny_config(**overrides)).eval()
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * p.shape[-1] ** -0.5)
    return model.requires_grad_(False)


@pytest.mark.parametrize("family", [{}, {"dep_q": 16, "model_type": "personaplex"}], ids=["moshi", "personaplex"])
@pytest.mark.parametrize("sampling", [SamplingConfig(), SamplingConfig.greedy(), SamplingConfig(temp=0.0)],
                         ids=["sampled", "greedy", "text-only-sampled"])
def test_forced_steps_rebuild_the_sampled_state(family, sampling):
    lm = random_lm(**family)
    generator = make_generator(lm, sampling)
    live, rebuilt = generator.init_state(1, seed=5), generator.init_state(1, seed=5)
    g = torch.Generator().manual_seed(2)
    users = [torch.randint(0, lm.config.card, (1, generator.user_streams), generator=g) for _ in range(STEPS)]
    outputs, written = [], []
    for user in users:
        outputs.append(generator.step(user, live))
        written.append(generator.written_tokens(live).clone())
    assert len({tuple(w[0].tolist()) for w in written}) > 1  # the run really chose varying tokens
    for i, (user, tokens) in enumerate(zip(users, written)):
        text, audio = generator.step(user, rebuilt, Forcing(tokens, sample=i == STEPS - 1))
        assert torch.equal(text, outputs[i][0]) and torch.equal(audio, outputs[i][1])
    a, b = flatten(live), flatten(rebuilt)
    differ = [name for name in a if not torch.equal(a[name], b[name])]
    assert not differ, differ[:5]


@pytest.mark.parametrize("family", [{}, {"dep_q": 16, "model_type": "personaplex"}], ids=["moshi", "personaplex"])
def test_a_forcing_of_some_streams_writes_them_and_samples_the_rest(family):
    """The assistant's text and audio forced to fixed tokens (what "wait for me" does): the step
    writes them, and the other streams are what an unforced run that had those tokens written by
    hand would sample (the state equals a run forced completely with the same tokens)."""
    lm = random_lm(**family)
    generator = make_generator(lm, SamplingConfig())
    n = lm.config.dep_q + 1
    agent = 1 + lm.config.agent_streams
    streams = torch.zeros(n, dtype=torch.bool)
    streams[:agent] = True
    silence = torch.arange(n).view(1, -1) % lm.config.card
    partial, complete = generator.init_state(1, seed=3), generator.init_state(1, seed=3)
    g = torch.Generator().manual_seed(4)
    for _ in range(STEPS):
        user = torch.randint(0, lm.config.card, (1, generator.user_streams), generator=g)
        out_partial = generator.step(user, partial, Forcing(silence, streams))
        written = generator.written_tokens(partial)
        assert torch.equal(written[:, :agent], silence[:, :agent])
        out_complete = generator.step(user, complete, Forcing(written.clone()))
        assert all(torch.equal(a, b) for a, b in zip(out_partial, out_complete))
    a, b = flatten(partial), flatten(complete)
    assert not [name for name in a if not torch.equal(a[name], b[name])]


def test_sample_false_needs_every_stream_forced():
    lm = random_lm()
    generator = make_generator(lm)
    state = generator.init_state(1)
    user = torch.zeros(1, generator.user_streams, dtype=torch.long)
    with pytest.raises(ValueError, match="every stream forced"):
        generator.step(user, state, Forcing(sample=False))
    streams = torch.ones(lm.config.dep_q + 1, dtype=torch.bool)
    tokens = torch.zeros(1, lm.config.dep_q + 1, dtype=torch.long)
    with pytest.raises(ValueError, match="every stream forced"):
        generator.step(user, state, Forcing(tokens, streams, sample=False))
