"""The suite's float32 bounds (tests/rounding.py) hold for any summation order and catch a wrong
result: they must neither fail on another CPU's kernels nor pass what is not the same sum."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from tests.rounding import assert_as_exact_as, assert_linear_close, float64_twin, linear_rounding_bound


def _in_order(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, order: torch.Tensor, blocks: int):
    """``F.linear(x, weight, bias)`` summed in float32 in another order: the terms permuted, summed
    in ``blocks`` partial sums (as a vectorised or threaded kernel does), then the partial sums."""
    terms = (x[:, None, :] * weight[None])[..., order]
    partial = torch.stack([part.sum(-1) for part in terms.chunk(blocks, dim=-1)], dim=-1)
    return partial.sum(-1) + bias


def test_any_summation_order_is_within_the_bound_and_a_wrong_sum_is_not():
    g = torch.Generator().manual_seed(0)
    x, weight, bias = torch.randn(4, 512, generator=g), torch.randn(96, 512, generator=g), torch.randn(96, generator=g)
    for blocks in (1, 4, 16, 512):
        order = torch.randperm(512, generator=g)
        assert_linear_close(_in_order(x, weight, bias, order, blocks), x, weight, bias)
    right = F.linear(x, weight, bias)
    missing_term = right - x[:, None, 7] * weight[None, :, 7]
    # the bias left out; one term of 512 left out; every value just beyond what rounding allows
    for wrong in (right - bias, missing_term, right + 1.01 * linear_rounding_bound(x, weight, bias).float()):
        with pytest.raises(AssertionError, match="beyond float32 rounding"):
            assert_linear_close(wrong, x, weight, bias)


def test_a_result_as_exact_as_the_reference_passes_and_a_slightly_wrong_one_fails():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(), torch.nn.LayerNorm(128),
                                torch.nn.Linear(128, 32)).requires_grad_(False)
    x = torch.randn(16, 64)
    want, exact = model(x), float64_twin(model)(x.double())
    assert exact.dtype == torch.float64
    reordered = torch.cat([model(row[None]) for row in x])  # other shapes, other kernels
    assert_as_exact_as(reordered, want, exact)
    with pytest.raises(AssertionError, match="times as far"):
        assert_as_exact_as(want * (1 + 1e-4), want, exact)
    # A mistake ours shares with its float64 twin (the twin is what "exact" often is): the reference,
    # right, is then far from "exact", which must not read as room for ours.
    wrong, wrong_exact = want * (1 + 1e-4), exact * (1 + 1e-4)
    with pytest.raises(AssertionError, match="not the reference's value"):
        assert_as_exact_as(wrong, want, wrong_exact)
