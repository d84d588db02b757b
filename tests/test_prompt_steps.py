"""PersonaPlex's prompt steps through ``PromptSteps``, checked on the CPU.

A CUDA graph cannot run here, so two things stand in for one: dynamo traces the exact functions a
graph captures (one graph each, no recompiles from step to step: nothing in them depends on host
state that changes between prompt steps, which a graph would freeze) and no op syncs with the
host; and a stand-in graph, which runs nothing when captured and re-runs the captured function on
the same static buffers when replayed, checks the plumbing (inputs copied in before a replay,
outputs copied out after, warm-up and capture scheduling, the fallback after a failed capture).
The real graph is compared with eager steps in tests/test_gpu.py (needs CUDA).
"""

from __future__ import annotations

import pytest
import torch

from engine.lm.generate import PersonaPlexGenerator, SamplingConfig
from engine.lm.personaplex import SILENCE_TOKENS, VoicePrompt, run_prompt_phases
from engine.runtime import frame_step
from engine.runtime.prompt_steps import PromptSteps
from engine.state import flatten
from tests.test_generate import SyncSpy
from tests.test_personaplex import CARD, PAD, lm, record_embeddings  # noqa: F401 - lm is a fixture

TEXT = [40, 41, 42, 43]
WARMUP = 2


class StandInGraph:
    """What a CUDA graph does with ``compute``: nothing at capture, all of it at each replay."""

    def __init__(self, compute) -> None:
        self.compute, self.replays = compute, 0

    def replay(self) -> None:
        self.replays += 1
        self.compute()


@pytest.fixture
def stand_in_graphs(monkeypatch):
    captured: list[StandInGraph] = []

    def capture(compute, device):
        captured.append(StandInGraph(compute))
        return captured[-1], None

    monkeypatch.setattr(frame_step, "graph_unavailable_reason", lambda device, use: None if use else "off")
    monkeypatch.setattr(frame_step, "capture", capture)
    return captured


def voice_prompt(gen: PersonaPlexGenerator, stored: bool) -> VoicePrompt:
    voice = VoicePrompt(codes=torch.randint(0, CARD, (7, 8), generator=torch.Generator().manual_seed(4)))
    if stored:
        embeddings, cache, _ = record_embeddings(gen.lm, gen, gen.init_state(1, seed=9), voice)
        voice = VoicePrompt(embeddings=embeddings, cache=cache)
    return voice


def outputs(steps) -> list[tuple]:
    return [(s.phase, s.text.tolist(), s.audio.tolist()) for s in steps]


@pytest.mark.parametrize("stored_voice", [False, True], ids=["voice-codes", "voice-embeddings"])
def test_prompt_steps_replayed_from_graphs_leave_the_eager_state(lm, stored_voice, stand_in_graphs):  # noqa: F811
    gen = PersonaPlexGenerator(lm, SamplingConfig())
    voice = voice_prompt(gen, stored_voice)
    eager_state = gen.init_state(1, seed=9)
    eager = run_prompt_phases(gen, eager_state, voice, TEXT)
    state = gen.init_state(1, seed=9)
    runner = PromptSteps(gen, state, warmup=WARMUP)
    graphed = run_prompt_phases(gen, state, voice, TEXT, steps=runner)
    assert outputs(graphed) == outputs(eager)
    a, b = flatten(state), flatten(eager_state)
    assert [name for name in a if not torch.equal(a[name], b[name])] == []
    kinds = 2 if stored_voice else 1  # stored voices add the embedding steps' graph
    assert runner.forced_step.warm_runs == WARMUP and runner.embedded_step.warm_runs == WARMUP * (kinds - 1)
    assert runner.graphs_active == kinds == len(stand_in_graphs)
    # Every forced step after the warm-up is a replay; the last prompt step is sampled, not forced.
    forced_steps = len(graphed) - 1 - (len(voice.embeddings) if stored_voice else 0)
    assert stand_in_graphs[-1].replays == forced_steps - WARMUP > 10
    g = torch.Generator().manual_seed(6)
    for _ in range(3):  # and the live steps after the prompt agree
        user = torch.randint(0, CARD, (1, 8), generator=g)
        assert all(torch.equal(x, y) for x, y in zip(gen.step(user, state), gen.step(user, eager_state)))


def test_a_failed_capture_runs_the_prompt_eagerly_and_says_why(lm, monkeypatch):  # noqa: F811
    gen = PersonaPlexGenerator(lm, SamplingConfig())
    monkeypatch.setattr(frame_step, "graph_unavailable_reason", lambda device, use: None)
    monkeypatch.setattr(frame_step, "capture", lambda compute, device: (None, "capture failed: a test"))
    eager_state, state = gen.init_state(1, seed=3), gen.init_state(1, seed=3)
    eager = run_prompt_phases(gen, eager_state, None, TEXT)
    runner = PromptSteps(gen, state, warmup=WARMUP)
    assert outputs(run_prompt_phases(gen, state, None, TEXT, steps=runner)) == outputs(eager)
    a, b = flatten(state), flatten(eager_state)
    assert all(torch.equal(a[name], b[name]) for name in a)
    assert runner.graphs_active == 0 and runner.forced_step.fallback_reason == "capture failed: a test"


def test_on_the_cpu_prompt_steps_run_eagerly_without_a_warm_up(lm):  # noqa: F811
    gen = PersonaPlexGenerator(lm, SamplingConfig())
    runner = PromptSteps(gen, gen.init_state(1, seed=3))
    run_prompt_phases(gen, runner.state, None, TEXT, steps=runner)
    assert runner.forced_step.warm_runs == 0 and runner.graphs_active == 0
    assert "CUDA" in runner.forced_step.fallback_reason


def test_what_a_prompt_graph_captures_is_one_graph_without_host_syncs(lm):  # noqa: F811
    gen = PersonaPlexGenerator(lm, SamplingConfig())
    traced_state, eager_state = gen.init_state(1, seed=5), gen.init_state(1, seed=5)
    traced, eager = PromptSteps(gen, traced_state), PromptSteps(gen, eager_state)
    silence = torch.tensor([SILENCE_TOKENS])
    g = torch.Generator().manual_seed(1)
    torch._dynamo.reset()
    try:
        for kind in ("_run_embedded", "_run_forced"):
            compiled = torch.compile(getattr(traced, kind), fullgraph=True, backend="eager")
            for i in range(5):
                if i == 2:
                    torch.compiler.set_stance("fail_on_recompile")
                user = torch.randint(0, CARD, (1, 8), generator=g)
                embedding = torch.randn(1, 1, lm.config.dim, generator=g)
                for runner in (traced, eager):
                    runner.user.copy_(user)
                    runner.agent.copy_(silence)
                    runner.text.fill_(PAD)
                    runner.embedding.copy_(embedding)
                with torch.inference_mode():
                    compiled()
                    getattr(eager, kind)()
                assert torch.equal(traced.out_text, eager.out_text) and torch.equal(traced.out_audio, eager.out_audio)
            torch.compiler.set_stance("default")
    finally:
        torch.compiler.set_stance("default")
        torch._dynamo.reset()
    spy = SyncSpy()
    with spy, torch.inference_mode():
        for _ in range(3):
            eager._run_forced()
            eager._run_embedded()
    assert spy.bad == []
