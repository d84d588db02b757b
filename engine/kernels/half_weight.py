"""An exact float32 matmul that reads its weight as float16, where the weight allows it.

A frame of a small speech model multiplies one row by each weight: the CPU's memory bandwidth, not
its arithmetic, sets the time, so reading half the bytes pays. Where every weight, times one power
of two, is a float16 number (weights stored in bfloat16 are, unless their magnitudes span more than
~32 binades), FBGEMM's float16-weight kernel converts each back to float32 exactly and multiplies
the float32 activations in float32: float32's result in another summation order. ``pack`` checks
both (the values, and one product against float64) and leaves the matmul on ATen's otherwise.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

HALF_WEIGHT_KERNEL = "half-weight"
_TOP = 16  # the largest magnitude scaled into [2**15, 2**16): float16's top binade


def half_scale(weight: torch.Tensor) -> int | None:
    """The power of two ``s`` for which ``weight * 2**s`` holds float16 numbers exactly, or None."""
    if weight.dtype != torch.float32 or weight.device.type != "cpu" or not bool(torch.isfinite(weight).all()):
        return None
    top = float(weight.abs().max())
    s = _TOP - math.frexp(top)[1] if top > 0 else 0
    scaled = torch.ldexp(weight, torch.tensor(float(s)))
    back = torch.ldexp(scaled.to(torch.float16).float(), torch.tensor(float(-s)))
    return s if bool(torch.equal(back, weight)) else None


def runs_here() -> bool:
    return "fbgemm" in torch.backends.quantized.supported_engines


class HalfWeightMatmul:
    """``x @ weight.T + bias`` in float32 from a float16 copy of the weight (see the module)."""

    kernel = HALF_WEIGHT_KERNEL

    def __init__(self):
        self.packed = None
        self.scale = 1.0

    def pack(self, weight: torch.Tensor, rows_hint: int | None = None) -> bool:
        """Packs ``weight``; False (and ATen's matmul) where it is not exact here. (``rows_hint``:
        ``PackedMatmul``'s signature; FBGEMM's layout does not depend on it.)"""
        self.packed = None
        s = half_scale(weight) if runs_here() else None
        if s is None:
            return False
        with torch.no_grad():
            packed = torch.ops.quantized.linear_prepack_fp16(
                torch.ldexp(weight.detach(), torch.tensor(float(s))).contiguous(), None)
            self.packed, self.scale = packed, 2.0 ** -s
            if not _sums_in_float32(self, weight):
                self.packed = None
        return self.packed is not None

    def __call__(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
        if self.packed is None or x.dtype != torch.float32 or x.device.type != "cpu":
            return F.linear(x, weight, bias)
        y = torch.ops.quantized.linear_dynamic_fp16(x, self.packed).mul_(self.scale)
        return y if bias is None else y.add_(bias)


def _sums_in_float32(matmul: HalfWeightMatmul, weight: torch.Tensor) -> bool:
    """One product against float64 within float32's bound for any summation order (Higham's
    gamma_n; activations rounded to float16 would miss it by orders of magnitude)."""
    x = torch.randn(2, weight.shape[1], generator=torch.Generator().manual_seed(0))
    got = matmul(x, weight).double()
    exact = x.double() @ weight.double().T
    n = weight.shape[1]
    u = torch.finfo(torch.float32).eps / 2
    bound = n * u / (1 - n * u) * (x.double().abs() @ weight.double().abs().T)
    return bool(((got - exact).abs() <= bound).all())
