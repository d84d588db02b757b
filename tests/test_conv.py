"""Streaming convolutions: reference parity, chunk invariance, both kernels, state layout, bad input."""

from __future__ import annotations

import copy

import pytest
import torch

from engine.codec import conv as conv_mod
from engine.codec.conv import StreamingConv1d, StreamingConvTranspose1d
from engine.kernels import packed as packed_mod
from tests.reference import require_moshi
from tests.rounding import assert_as_exact_as

CASES = [  # (kernel, stride, dilation, pad_mode)
    (1, 1, 1, "constant"), (3, 1, 1, "constant"), (3, 1, 2, "constant"), (7, 1, 1, "constant"),
    (4, 2, 1, "replicate"), (8, 4, 1, "constant"), (10, 5, 1, "constant"), (5, 3, 1, "replicate"),
]
TR_CASES = [(4, 2, 1), (8, 4, 1), (12, 6, 1), (5, 2, 1), (3, 3, 1), (4, 2, 6)]  # (kernel, stride, groups)


def _randomise(module: torch.nn.Module, seed: int) -> None:
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * 0.3)


def _stream(module, x, state, chunk):
    return torch.cat([module(c, state) for c in x.split(chunk, dim=-1)], dim=-1)


def _in_float64(module, x):
    """What ``module`` computes from the whole of ``x`` in float64: the value float32 results are
    measured against. Taken before ``repack`` (a packed oneDNN weight cannot be copied)."""
    exact = copy.deepcopy(module).double()
    with torch.no_grad():
        return exact(x.double(), exact.init_state(x.shape[0]))


@pytest.mark.parametrize("kernel,stride,dilation,pad_mode", CASES)
def test_conv_chunk_invariance_and_kernels(kernel, stride, dilation, pad_mode):
    torch.manual_seed(0)
    conv = StreamingConv1d(6, 5, kernel, stride, dilation=dilation, pad_mode=pad_mode)
    _randomise(conv, 1)
    x = torch.randn(2, 6, stride * 300)  # 300 output steps: the whole signal takes the oneDNN conv
    exact = _in_float64(conv, x)
    conv.repack()
    whole = conv(x, conv.init_state(2))
    assert whole.shape == (2, 5, 300)
    for chunk in (1, 2, 7):  # short chunks take the (packed) matmul kernel
        got = _stream(conv, x, conv.init_state(2), chunk * stride)
        assert_as_exact_as(got, whole, exact, f"chunks of {chunk}")


@pytest.mark.parametrize("kernel,stride,groups", TR_CASES)
def test_convtr_chunk_invariance_and_kernels(kernel, stride, groups):
    torch.manual_seed(0)
    convtr = StreamingConvTranspose1d(6, 6, kernel, stride, groups=groups)
    _randomise(convtr, 2)
    x = torch.randn(2, 6, 300)
    exact = _in_float64(convtr, x)
    convtr.repack()
    whole = convtr(x, convtr.init_state(2))
    assert whole.shape == (2, 6, 300 * stride)
    for chunk in (1, 2, 7):
        got = _stream(convtr, x, convtr.init_state(2), chunk)
        assert_as_exact_as(got, whole, exact, f"chunks of {chunk}")


def _stream_against_reference(ours, ref, x, chunk):
    """Chunk by chunk, ours is as exact as the reference (both streaming, in float32)."""
    exact = copy.deepcopy(ref).double()
    state = ours.init_state(x.shape[0])
    with torch.no_grad(), ref.streaming(x.shape[0]), exact.streaming(x.shape[0]):
        for i, c in enumerate(x.split(chunk, dim=-1)):
            assert_as_exact_as(ours(c, state), ref(c), exact(c.double()), f"chunk {i}")


@pytest.mark.reference
@pytest.mark.parametrize("kernel,stride,dilation,pad_mode", CASES)
def test_conv_matches_reference(kernel, stride, dilation, pad_mode):
    require_moshi()
    from moshi.modules.conv import StreamingConv1d as RefConv

    ref = RefConv(6, 5, kernel, stride, dilation=dilation, causal=True, pad_mode=pad_mode)
    _randomise(ref, 3)
    ours = StreamingConv1d(6, 5, kernel, stride, dilation=dilation, pad_mode=pad_mode)
    ours.load_state_dict(ref.state_dict())
    ours.repack()
    x = torch.randn(2, 6, stride * 40)
    _stream_against_reference(ours, ref, x, 2 * stride)


@pytest.mark.reference
@pytest.mark.parametrize("kernel,stride,groups", TR_CASES)
def test_convtr_matches_reference(kernel, stride, groups):
    require_moshi()
    from moshi.modules.conv import StreamingConvTranspose1d as RefConvTr

    ref = RefConvTr(6, 6, kernel, stride, groups=groups, causal=True)
    _randomise(ref, 4)
    ours = StreamingConvTranspose1d(6, 6, kernel, stride, groups=groups)
    ours.load_state_dict(ref.state_dict())
    ours.repack()
    x = torch.randn(2, 6, 40)
    _stream_against_reference(ours, ref, x, 3)


def test_state_layout_and_in_place_updates():
    conv = StreamingConv1d(3, 4, 16, 8, pad_mode="replicate")
    state = conv.init_state(2)
    assert state["previous"].shape == (2, 3, 8) and state["first"].shape == (2,)
    assert StreamingConv1d(3, 4, 3, dilation=2).init_state(1)["previous"].shape == (1, 3, 4)
    assert StreamingConv1d(3, 4, 1).init_state(1) == {}
    convtr = StreamingConvTranspose1d(4, 3, 16, 8)
    assert convtr.init_state(2)["partial"].shape == (2, 3, 8)

    x = torch.randn(2, 3, 32)
    ids = {k: id(v) for k, v in state.items()}
    assert state["first"].all() and not state["previous"].any()
    conv(x, state)
    assert not state["first"].any() and torch.equal(state["previous"], x[..., -8:])
    assert {k: id(v) for k, v in state.items()} == ids


def test_replicate_pads_with_the_first_sample():
    conv = StreamingConv1d(1, 1, 4, 2, bias=False, pad_mode="replicate")
    with torch.no_grad():
        conv.layer.weight.copy_(torch.tensor([[[1.0, 10.0, 100.0, 1000.0]]]))
    y = conv(torch.tensor([[[2.0, 3.0, 5.0, 7.0]]]), conv.init_state(1))
    # history [2, 2] (replicated), then windows [2, 2, 2, 3] and [2, 3, 5, 7]
    assert y.tolist() == [[[2 + 20 + 200 + 3000.0, 2 + 30 + 500 + 7000.0]]]


def test_matmul_threshold_selects_kernels(monkeypatch):
    """Both kernels really run: forcing one or the other gives the same numbers."""
    conv = StreamingConv1d(8, 8, 6, 3)
    _randomise(conv, 5)
    x = torch.randn(1, 8, 30)
    exact = _in_float64(conv, x)
    conv.repack()
    monkeypatch.setattr(conv_mod, "MATMUL_MAX_STEPS", 0)
    a = conv(x, conv.init_state(1))
    monkeypatch.setattr(conv_mod, "MATMUL_MAX_STEPS", 1000)
    b = conv(x, conv.init_state(1))
    assert_as_exact_as(a, b, exact)


def test_bad_input():
    conv = StreamingConv1d(2, 2, 8, 4)
    with pytest.raises(ValueError, match="multiple of the stride 4"):
        conv(torch.randn(1, 2, 6), conv.init_state(1))
    with pytest.raises(ValueError, match="pad_mode"):
        StreamingConv1d(2, 2, 3, pad_mode="reflect")
    with pytest.raises(ValueError, match="stride"):
        StreamingConvTranspose1d(2, 2, 2, 3)


def test_pack_linears_keeps_parameters_and_results():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(),
                                torch.nn.Sequential(torch.nn.Linear(32, 8, bias=False)))
    names = {k: v for k, v in model.named_parameters()}
    x = torch.randn(3, 2, 16)
    expected, exact = model(x), copy.deepcopy(model).double()(x.double())
    packed_mod.pack_linears(model)
    packed_mod.pack_linears(model)  # idempotent
    assert isinstance(model[0], packed_mod.PackedLinear) and isinstance(model[2][0], packed_mod.PackedLinear)
    assert {k: v for k, v in model.named_parameters()} == names  # same names, same tensors
    assert_as_exact_as(model(x), expected, exact)
    with torch.no_grad():
        model[0].weight.mul_(2)
    packed_mod.pack_linears(model)  # repacks the changed weight
    assert not torch.allclose(model(x), expected)
