"""The per-frame step (engine.runtime.frame_step) on the CPU: same tokens and audio as the codec and the
generator stepped by hand, and the properties a CUDA graph capture relies on (one traceable graph, no host syncs, no
reallocated state), checked without a GPU."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from engine import load_model
from engine.codec.mimi import Mimi, MimiConfig
from engine.codec.seanet import SEANetConfig
from engine.lm.generate import NO_PROBE, SamplingConfig, make_generator
from engine.lm.model import LMConfig, LMModel, load_lm
from engine.runtime.frame_step import LIVE, STAGES, FrameStep
from engine.state import flatten
from engine.streaming.transformer import TransformerConfig
from tests.rounding import assert_as_exact_as, float64_twin
from tests.test_generate import SyncSpy

# A small codec with the released code layout (8 codebooks of 2048), so the LM's codes decode.
SMALL_MIMI = MimiConfig(
    sample_rate=1200, frame_rate=100.0,
    seanet=SEANetConfig(dimension=32, n_filters=4, ratios=(3, 2)),
    transformer=TransformerConfig(d_model=32, num_heads=4, num_layers=1, dim_feedforward=64, layer_scale=0.01,
                                  context=20, steps_per_frame=2),
    quantizer_dim=16, codebook_size=2048, total_codebooks=8, num_codebooks=8)
SMALL_LM = LMConfig(dim=64, num_heads=4, num_layers=2, text_card=100, depformer_dim=32,
                    depformer_dim_feedforward=64, depformer_num_heads=2, depformer_num_layers=1, context=50)


def small_step(seed: int = 3, **kwargs) -> FrameStep:
    torch.manual_seed(0)
    mimi = Mimi(SMALL_MIMI).eval().requires_grad_(False)
    mimi.prepare()
    lm = LMModel(SMALL_LM).eval().requires_grad_(False)
    gen = make_generator(lm, SamplingConfig())
    return FrameStep(mimi, gen, {"mimi": mimi.init_state(1), "gen": gen.init_state(1, seed)}, **kwargs)


def frames(n: int, size: int, seed: int = 0) -> list[torch.Tensor]:
    rng = np.random.default_rng(seed)
    return [torch.from_numpy(rng.normal(0, 0.1, size).astype(np.float32)).view(1, 1, size) for _ in range(n)]


def by_hand(mimi: Mimi, generator, pcm: torch.Tensor, seed: int) -> tuple[list[tuple], np.ndarray]:
    """The frame loop without ``FrameStep``: the whole input encoded offline, the generator stepped
    over its codes, and the agent's codes decoded offline from the first aligned frame."""
    codes = mimi.encode(pcm)
    state = generator.init_state(1, seed)
    tokens = [generator.step(codes[:, :, i], state) for i in range(codes.shape[-1])]
    tokens = [(int(text[0]), tuple(audio[0].tolist())) for text, audio in tokens]
    return tokens, mimi.decode(agent_codes(mimi, tokens, generator.first_output_frame)).view(-1).numpy()


def agent_codes(mimi: Mimi, tokens: list[tuple], first: int) -> torch.Tensor:
    """The agent's codes [1, codebooks, frames] in ``tokens`` from the first aligned frame."""
    return torch.tensor([audio[:mimi.num_codebooks] for _, audio in tokens[first:]]).T[None]


def test_frame_step_and_session_match_the_codec_and_generator_stepped_by_hand(demo_model_dir):
    """On the demo, sampled and seeded, over 20 frames: token for token, and sample for sample
    within float noise (the offline codec runs the frames in chunks, not one by one)."""
    demo = demo_model_dir
    model = load_model(str(demo), device="cpu", precision="float32")
    session = model.new_session(SamplingConfig(), seed=5)
    config = LMConfig.from_hub_config(json.loads((demo / "config.json").read_text()))
    lm = load_lm(demo / "model.safetensors", config, dtype=torch.float32)
    mimi = model.mimi  # the codec holds no state of its own: share it
    gen = make_generator(lm, SamplingConfig())
    step = FrameStep(mimi, gen, {"mimi": mimi.init_state(1), "gen": gen.init_state(1, 5)}, use_cuda_graph=True)
    assert not step.graph_active and "cpu" in step.fallback_reason
    inputs = frames(20, 1920)
    want_tokens, want_pcm = by_hand(mimi, make_generator(lm, SamplingConfig()), torch.cat(inputs, dim=-1), seed=5)
    first = gen.first_output_frame
    stepped, lived, stepped_pcm, lived_pcm = [], [], [], []
    for i, pcm in enumerate(inputs):
        text, audio, out = step(pcm, i)
        result = session.step(pcm.view(-1).numpy())
        stepped.append((int(text[0]), tuple(audio[0].tolist())))
        lived.append((result.text_token, result.audio_codes))
        if i < first:
            assert not out.any() and not result.pcm.any()
        else:
            stepped_pcm.append(out.view(-1).numpy().copy())
            lived_pcm.append(result.pcm)
    assert stepped == want_tokens
    assert lived[first:] == want_tokens[first:] and lived[:first] == [(None, None)] * first
    exact_pcm = float64_twin(mimi).decode(agent_codes(mimi, want_tokens, first)).view(-1)
    for got in (np.concatenate(stepped_pcm), np.concatenate(lived_pcm)):
        assert_as_exact_as(torch.from_numpy(got), torch.from_numpy(want_pcm), exact_pcm)
    texts = [text for text, _ in want_tokens[first:]]
    assert len(texts) == 19 and len(set(texts)) > 3  # the demo babbles: the comparison is not trivial


def test_frame_step_traces_as_one_graph_without_breaks():
    step, twin = small_step(), small_step()
    inputs = frames(5, SMALL_MIMI.frame_size)
    first = step.generator.first_output_frame
    for i in range(first):
        step(inputs[i], i)
        twin(inputs[i], i)
    torch._dynamo.reset()
    compiled = torch.compile(step.compute, fullgraph=True, backend="eager")
    try:
        for i in range(first, 5):
            step.pcm_in.copy_(inputs[i])
            with torch.inference_mode():
                compiled(LIVE, NO_PROBE)
            want = twin(inputs[i], i)
            got = (step.text, step.audio, step.pcm_out)
            assert all(torch.equal(a, b) for a, b in zip(got, want))
    finally:
        torch._dynamo.reset()


def test_frame_step_has_no_host_syncs_and_keeps_state_identity():
    step = small_step()
    live = flatten(step.state)
    before = {name: (t, t.untyped_storage().data_ptr()) for name, t in live.items()}
    buffers = [step.pcm_in, step.text, step.audio, step.pcm_out]
    inputs = frames(6, SMALL_MIMI.frame_size)
    spy, marks = SyncSpy(), []
    for i, pcm in enumerate(inputs):
        with spy:
            outputs = step(pcm, i, mark=marks.append)
        assert all(a is b for a, b in zip(outputs, buffers[1:]))
    assert spy.bad == []
    # Eager frames report their stage boundaries; a frame before alignment decodes nothing.
    first = step.generator.first_output_frame
    assert marks == list(STAGES[:-1]) * first + list(STAGES) * (len(inputs) - first)
    after = flatten(step.state)
    assert after.keys() == before.keys()
    for name, (tensor, ptr) in before.items():
        assert after[name] is tensor and tensor.untyped_storage().data_ptr() == ptr, name
    assert [step.pcm_in, step.text, step.audio, step.pcm_out] == buffers
    assert int(step.state["gen"]["tokens"]["offset"]) == 6  # the state did advance


def test_graphs_are_a_parameter_and_the_reason_for_eager_frames_is_kept():
    assert "cpu" in small_step().fallback_reason and not small_step().graph_pending
    assert "cpu" in small_step(use_cuda_graph=False).fallback_reason


def test_session_stage_timings_come_from_the_frame_functions_marks(app_demo_model):
    session = app_demo_model.new_session(SamplingConfig(), seed=2)
    results = [session.step(pcm.view(-1).numpy()) for pcm in frames(4, 1920)]
    for r in results:
        t = r.timings
        stages = (t.encode_ms, t.lm_ms, t.depth_ms, t.decode_ms)
        assert all(s >= 0 for s in stages) and sum(stages) <= t.total_ms + 1e-6
        assert t.encode_ms > 0 and t.lm_ms > 0 and t.depth_ms > 0
    assert results[0].timings.decode_ms == 0 and results[-1].timings.decode_ms > 0  # decoding once aligned
    assert session.graph.reason is not None and "cpu" in session.graph.reason and not session.graph.active


def test_rejects_bad_input():
    step = small_step()
    with pytest.raises(ValueError, match="expected pcm"):
        step(torch.zeros(1, 1, 7), 0)
    with pytest.raises(ValueError, match="batch 1"):
        FrameStep(step.mimi, step.generator, {"mimi": step.mimi.init_state(2),
                                              "gen": step.generator.init_state(2)})


def test_a_rehearsal_before_the_first_frame_leaves_the_conversation_exactly_as_it_was():
    """What ``prepare`` relies on to warm up and capture ahead: frames run on the session's own
    buffers, then the state is copied back in place, so live frames give the same tokens and audio
    as without the rehearsal, and the state tensors are the same objects (a graph stays valid)."""
    inputs = frames(8, SMALL_MIMI.frame_size, seed=4)
    plain, rehearsed = small_step(), small_step()
    identities = {name: t.data_ptr() for name, t in flatten(rehearsed.state).items()}
    seen = []
    rehearsed.rehearse(rehearsed.generator.first_output_frame, lambda: len(seen) < 3 and not seen.append(1))
    assert len(seen) == 3
    assert {name: t.data_ptr() for name, t in flatten(rehearsed.state).items()} == identities
    for i, pcm in enumerate(inputs):
        a, b = plain(pcm, i), rehearsed(pcm, i)
        assert int(a[0]) == int(b[0]) and torch.equal(a[1], b[1]) and torch.equal(a[2], b[2])


def test_prepare_has_nothing_to_do_where_no_capture_is_pending():
    step = small_step(use_cuda_graph=True)
    step.prepare(0)  # the CPU: frames run eagerly, no warm-up or capture frames exist
    step(frames(1, SMALL_MIMI.frame_size)[0], step.generator.first_output_frame)
    assert step.aligned.warm_runs == 0 and not step.graph_pending
