"""How far two float32 computations of the same value may differ: bounds from the arithmetic.

Two correct float32 evaluations of one value differ by rounding alone, and by how much depends on
the order in which a kernel sums, which differs between CPUs (AVX2, AVX-512, AMX), oneDNN versions
and thread counts. A fixed ``atol=1e-5`` holds on one CPU's kernels and fails on another's, so the
suite's "equal up to float32 rounding" checks scale with the computation instead:

- ``assert_linear_close``: a dot product of n terms computed in any order is within
  ``gamma(n) * sum(|x_i * w_i|)`` of its exact value (Higham, *Accuracy and Stability of Numerical
  Algorithms*, 2nd ed., section 3.1), so two evaluations are within twice that.
- ``assert_as_exact_as``: a deep computation (attention, norms, a codec) is compared with its
  float64 evaluation. The result checked may be at most ``FACTOR`` times as far from it as the
  reference's own float32 result is, measured on this machine in the same run.

Claims of bit identity (greedy tokens, resume, recovery) stay exact comparisons; these are for
floats only.
"""

from __future__ import annotations

import copy

import torch
import torch.nn.functional as F

from engine.kernels.packed import PackedMatmul

UNIT_ROUNDOFF = torch.finfo(torch.float32).eps / 2
# Two summation orders' errors are draws from one distribution; their maxima over a tensor differ
# by a small factor, a wrong result by orders of magnitude.
FACTOR = 8.0


def gamma(n: int) -> float:
    """Higham's gamma_n: the relative bound on n float32 roundings in a row."""
    return n * UNIT_ROUNDOFF / (1 - n * UNIT_ROUNDOFF)


def _check(difference: torch.Tensor, bound: torch.Tensor, what: str) -> None:
    over = difference > bound
    if over.any():
        worst = (difference - bound).argmax()
        raise AssertionError(
            f"{what}: {int(over.sum())} of {over.numel()} values beyond float32 rounding; worst "
            f"|difference| {difference.flatten()[worst]:.3g} against a bound of {bound.flatten()[worst]:.3g}")


def _sum_bound(magnitudes: torch.Tensor, terms: int) -> torch.Tensor:
    return 2 * gamma(terms) * magnitudes


def linear_rounding_bound(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None,
                          extra_roundings: int = 0) -> torch.Tensor:
    """Per output of ``F.linear(x, weight, bias)``: how far two float32 evaluations may differ.
    ``extra_roundings``: roundings on a term's way beyond the sum's own (a scale applied to each
    weight or to the result, as the 8-bit kernels do)."""
    magnitudes = F.linear(x.double().abs(), weight.double().abs(), None if bias is None else bias.double().abs())
    return _sum_bound(magnitudes, x.shape[-1] + (bias is not None) + extra_roundings)


def assert_linear_close(got: torch.Tensor, x: torch.Tensor, weight: torch.Tensor,
                        bias: torch.Tensor | None = None) -> None:
    """``got`` is ``F.linear(x, weight, bias)`` up to float32 rounding in whatever order it summed."""
    want = F.linear(x, weight, bias)
    assert got.shape == want.shape, (got.shape, want.shape)
    _check((got.double() - want.double()).abs(), linear_rounding_bound(x, weight, bias), "linear")


def assert_within(got: torch.Tensor, want: torch.Tensor, bound: torch.Tensor, what: str = "result") -> None:
    """``got`` and ``want`` differ by at most ``bound`` (a tensor from the bounds above) everywhere."""
    assert got.shape == want.shape, (got.shape, want.shape)
    _check((got.double() - want.double()).abs(), bound, what)


def assert_as_exact_as(got: torch.Tensor, want: torch.Tensor, exact: torch.Tensor, what: str = "result") -> None:
    """``got`` is at most ``FACTOR`` times as far from ``exact`` (the computation in float64) as
    ``want`` (the reference in float32, on this machine) is, and the other way round; never held
    tighter than a few units in the last place of the output's scale. Both ways, because ``exact``
    is often our own model in float64: a mistake it shares with ours puts the reference far from it,
    which one way alone would read as room for ours."""
    assert got.shape == want.shape == exact.shape, (got.shape, want.shape, exact.shape)
    got, want, exact = got.detach(), want.detach(), exact.detach().double()
    floor = 4 * UNIT_ROUNDOFF * float(exact.abs().max())
    reference_error = float((want.double() - exact).abs().max())
    error = float((got.double() - exact).abs().max())
    assert error <= FACTOR * max(reference_error, floor), (
        f"{what}: {error:.3g} from the float64 result, the reference's float32 result {reference_error:.3g}: more "
        f"than {FACTOR:g} times as far")
    assert reference_error <= FACTOR * max(error, floor), (
        f"{what}: the reference's float32 result is {reference_error:.3g} from the float64 result, ours "
        f"{error:.3g}: the float64 result is not the reference's value (a mistake ours shares with it?)")


def float64_twin(module: torch.nn.Module) -> torch.nn.Module:
    """A float64 copy of ``module``, for the value ``assert_as_exact_as`` measures against. What a
    ``PackedMatmul`` holds besides its owner's parameter (oneDNN's packed weight, a view of the
    parameter) can be neither copied nor used in float64: the copy leaves it out, and its matmuls
    take ATen's path on the (converted) parameters."""
    return copy.deepcopy(module, {id(tensor): None for tensor in _held_by_packed_matmuls(module, set())}).double()


def _held_by_packed_matmuls(value, seen: set[int]):
    if id(value) in seen or isinstance(value, torch.Tensor):
        return
    seen.add(id(value))
    if isinstance(value, PackedMatmul):
        yield from (t for t in vars(value).values()
                    if isinstance(t, torch.Tensor) and not isinstance(t, torch.nn.Parameter))
        return
    children = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else \
        vars(value).values() if hasattr(value, "__dict__") else ()
    for child in children:
        yield from _held_by_packed_matmuls(child, seen)
