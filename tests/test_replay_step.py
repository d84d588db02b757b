"""The forced generator step of the replay, for both families on tiny random LMs: stepping with
the tokens a sampled run wrote, without sampling or the depth transformer (but the last frame),
leaves the generator state bit-identical to the sampled run's (token cache, PersonaPlex's forcing
flags, KV caches, depth-transformer cache, RNG counter)."""

from __future__ import annotations

import pytest
import torch

from engine.lm.generate import SamplingConfig, make_generator
from engine.lm.model import LMModel
from engine.runtime.replay import _forced_step, written_tokens
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
        written.append(written_tokens(generator, live).clone())
    assert len({tuple(w[0].tolist()) for w in written}) > 1  # the run really chose varying tokens
    with torch.inference_mode():
        for i, (user, tokens) in enumerate(zip(users, written)):
            text, audio = _forced_step(generator, rebuilt, user, tokens, last=i == STEPS - 1)
            assert torch.equal(text, outputs[i][0]) and torch.equal(audio, outputs[i][1])
        rebuilt["rng"]["counter"].add_(generator.draws_per_step * STEPS)
    a, b = flatten(live), flatten(rebuilt)
    differ = [name for name in a if not torch.equal(a[name], b[name])]
    assert not differ, differ[:5]
