"""The streaming transformer core: reference parity, chunk invariance, constant memory, state round trip."""

from __future__ import annotations

import copy

import pytest
import torch
from safetensors.torch import load_file, save_file

from engine.checkpoint import load_strict, stack_split_attention
from engine.state import flatten, load_into
from engine.streaming.transformer import StreamingTransformer, TransformerConfig
from tests.reference import require_moshi
from tests.rounding import assert_as_exact_as

DIM, HEADS = 64, 4

# (reference kwargs, our config, reference steps per call)
CONFIGS = {
    "mimi": (
        dict(d_model=DIM, num_heads=HEADS, num_layers=2, dim_feedforward=4 * DIM, causal=True, context=50,
             layer_scale=0.01, positional_embedding="rope", norm="layer_norm", gating="none"),
        TransformerConfig(DIM, HEADS, 2, 4 * DIM, norm="layer_norm", gating="none", layer_scale=0.01,
                          context=50, steps_per_frame=2),
        2,
    ),
    "lm": (
        dict(d_model=DIM, num_heads=HEADS, num_layers=2, dim_feedforward=int(4.125 * DIM), causal=True,
             context=50, positional_embedding="rope", norm="rms_norm_f32", gating="silu"),
        TransformerConfig(DIM, HEADS, 2, int(4.125 * DIM), norm="rms_norm_f32", gating="silu", context=50),
        1,
    ),
}


def randomize(module: torch.nn.Module, seed: int = 0) -> None:
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in module.named_parameters():
            noise = torch.randn(p.shape, generator=g)
            if p.dim() > 1 and "alpha" not in name:
                p.copy_(noise * p.shape[-1] ** -0.5)
            else:
                p.copy_(1.0 + 0.3 * noise if ("norm" in name and "bias" not in name) else 0.3 * noise)


def reference_pair(kind: str, **overrides):
    require_moshi()
    from moshi.modules.transformer import StreamingTransformer as Reference

    ref_kwargs, cfg, ref_steps = CONFIGS[kind]
    ref = Reference(**ref_kwargs).eval()
    randomize(ref)
    cfg = TransformerConfig(**{**cfg.__dict__, **overrides})
    ours = StreamingTransformer(cfg).eval()
    load_strict(ours, stack_split_attention(ref.state_dict()), "reference weights")
    return ref, ours, ref_steps


def run_reference(ref, x, steps, batch):
    """The reference streaming ``x`` ``steps`` at a time, in float32 and in float64 (the value both
    float32 results are measured against)."""
    exact = copy.deepcopy(ref).double()
    with torch.inference_mode(), ref.streaming(batch), exact.streaming(batch):
        return (torch.cat([ref(c) for c in x.split(steps, dim=1)], dim=1),
                torch.cat([exact(c) for c in x.double().split(steps, dim=1)], dim=1))


def run_ours(model, x, chunk, state=None):
    state = model.init_state(x.shape[0]) if state is None else state
    with torch.inference_mode():
        return torch.cat([model(c, state) for c in x.split(chunk, dim=1)], dim=1), state


@pytest.mark.reference
@pytest.mark.parametrize("kind", ["mimi", "lm"])
def test_streaming_parity_with_reference_over_ring_wraps(kind):
    ref, ours, ref_steps = reference_pair(kind)
    steps = 170  # context 50: the ring wraps three times and stops part-way round
    x = torch.randn(2, steps, DIM, generator=torch.Generator().manual_seed(1))
    expected, exact = run_reference(ref, x, ref_steps, 2)
    got, _ = run_ours(ours, x, ref_steps)
    assert_as_exact_as(got, expected, exact)


@pytest.mark.reference
@pytest.mark.parametrize("kind", ["mimi", "lm"])
def test_chunk_invariance(kind):
    """Any chunking equals frame-by-frame streaming (the reference's behaviour), past the context too."""
    ref, ours, ref_steps = reference_pair(kind, max_steps_per_call=14)
    x = torch.randn(1, 210, DIM, generator=torch.Generator().manual_seed(2))
    expected, exact = run_reference(ref, x, ref_steps, 1)
    chunks = [2, 4, 6, 14] if ref_steps == 2 else [1, 2, 3, 7]
    for chunk in chunks:
        got, _ = run_ours(ours, x, chunk)
        assert_as_exact_as(got, expected, exact, f"chunks of {chunk}")
    # a call longer than max_steps_per_call is split internally and still agrees
    got, _ = run_ours(ours, x, x.shape[1])
    assert_as_exact_as(got, expected, exact, "one call")


@pytest.mark.reference
def test_whole_input_at_once_matches_reference_offline_within_context():
    require_moshi()
    ref, ours, _ = reference_pair("lm", max_steps_per_call=40)
    x = torch.randn(1, 40, DIM, generator=torch.Generator().manual_seed(3))
    with torch.inference_mode():  # no streaming state: the reference's offline pass
        expected, exact = ref(x), copy.deepcopy(ref).double()(x.double())
    got, _ = run_ours(ours, x, 40)
    assert_as_exact_as(got, expected, exact)


@pytest.mark.reference
def test_depth_transformer_weights_per_step_matches_reference():
    require_moshi()
    from moshi.modules.transformer import StreamingTransformer as Reference

    ref = Reference(d_model=DIM, num_heads=HEADS, num_layers=2, dim_feedforward=4 * DIM, causal=True,
                    context=None, positional_embedding="none", norm="rms_norm_f32", gating="silu",
                    weights_per_step=8).eval()
    randomize(ref)
    ours = StreamingTransformer(TransformerConfig(DIM, HEADS, 2, 4 * DIM, norm="rms_norm_f32", gating="silu",
                                                  positional_embedding="none", weights_per_step=8)).eval()
    load_strict(ours, stack_split_attention(ref.state_dict()), "reference weights")
    state = ours.init_state(1)
    exact_ref = copy.deepcopy(ref).double()
    x = torch.randn(1, 24, DIM, generator=torch.Generator().manual_seed(4))
    with torch.inference_mode():
        for frame in range(3):
            ours.reset_state(state)
            with ref.streaming(1), exact_ref.streaming(1):
                for step in range(8):
                    t = frame * 8 + step
                    expected, exact = ref(x[:, t:t + 1]), exact_ref(x[:, t:t + 1].double())
                    got = ours(x[:, t:t + 1], state, step=step)
                    assert_as_exact_as(got, expected, exact, f"frame {frame}, step {step}")


def test_constant_memory_over_ten_capacities():
    model = StreamingTransformer(CONFIGS["lm"][1])
    state = model.init_state(1)
    before = {name: (t.shape, t.untyped_storage().data_ptr(), t) for name, t in flatten(state).items()}
    capacity = model.cfg.ring.capacity
    x = torch.randn(1, 1, DIM)
    with torch.inference_mode():
        for _ in range(10 * capacity):
            model(x, state)
    after = flatten(state)
    assert set(after) == set(before)
    for name, tensor in after.items():
        shape, ptr, original = before[name]
        assert tensor is original and tensor.shape == shape and tensor.untyped_storage().data_ptr() == ptr
    assert int(state["offset"]) == 10 * capacity


def test_state_round_trip_through_safetensors_is_bit_exact(tmp_path):
    torch.manual_seed(5)
    model = StreamingTransformer(CONFIGS["mimi"][1]).eval()
    randomize(model)
    x = torch.randn(1, 160, DIM)
    _, state = run_ours(model, x[:, :120], 2)
    save_file({k: v.contiguous() for k, v in flatten(state).items()}, tmp_path / "state.safetensors")
    fresh = model.init_state(1)
    load_into(fresh, load_file(tmp_path / "state.safetensors"))
    cont_a, _ = run_ours(model, x[:, 120:], 2, state)
    cont_b, _ = run_ours(model, x[:, 120:], 2, fresh)
    assert torch.equal(cont_a, cont_b)


def test_bad_flat_state_is_refused_and_target_untouched():
    model = StreamingTransformer(CONFIGS["lm"][1])
    state = model.init_state(1)
    run_ours(model, torch.randn(1, 5, DIM), 1, state)
    snapshot = {k: v.clone() for k, v in flatten(state).items()}
    good = {k: torch.zeros_like(v) for k, v in snapshot.items()}
    missing = dict(good)
    missing.pop("layers.0.k")
    extra = {**good, "layers.9.k": torch.zeros(1)}
    misshaped = {**good, "positions": torch.zeros(3, dtype=torch.long)}
    for bad, words in [(missing, "missing"), (extra, "unexpected"), (misshaped, "expected shape")]:
        with pytest.raises(ValueError, match=words):
            load_into(state, bad)
        for k, v in flatten(state).items():
            assert torch.equal(v, snapshot[k])


@pytest.mark.parametrize(
    "make_input, words",
    [
        (lambda: torch.randn(1, 2, DIM + 1), "expected input"),
        (lambda: torch.randn(2, DIM), "expected input"),
        (lambda: torch.randn(2, 2, DIM), "batch size"),
        (lambda: torch.randn(1, 3, DIM), "multiple of 2"),
        (lambda: torch.ones(1, 2, DIM, dtype=torch.long), "floating-point"),
        (lambda: torch.randn(1, 2, DIM, device="meta"), "expected input on cpu"),
    ],
)
def test_bad_input_names_what_was_expected(make_input, words):
    model = StreamingTransformer(CONFIGS["mimi"][1])
    state = model.init_state(1)
    with pytest.raises(ValueError, match=words):
        model(make_input(), state)


def test_step_has_no_graph_breaks():
    """Dynamo traces the whole step as one graph: no host syncs or data-dependent Python branches."""
    import torch._dynamo

    model = StreamingTransformer(CONFIGS["lm"][1]).eval()
    randomize(model)
    state = model.init_state(1)
    torch._dynamo.reset()
    compiled = torch.compile(lambda x: model(x, state), fullgraph=True, backend="eager")
    x = torch.randn(1, 1, DIM)
    with torch.inference_mode():
        eager_state = model.init_state(1)
        for _ in range(4):
            got, expected = compiled(x), model(x, eager_state)
            assert torch.isfinite(expected).all() and torch.equal(got, expected)  # the same ops, traced
