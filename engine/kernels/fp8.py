"""8-bit floating-point weights (opt-in): float8 e4m3 with one scale per output row,
``w ~ q * scale[:, None]``, ``scale = max|w_row| / 448`` kept in the model's dtype (448 is e4m3's
largest value). The same bytes as int8 (one a weight, plus a scale a row), with a floating-point
grid: fine steps near zero, where most weights are, coarse ones near the row's largest. NVIDIA's
own plan for 16 GB cards is FP8, because GPUs of compute capability 8.9 and later (Ada, Hopper,
Blackwell) multiply e4m3 natively.

The matmul has two kernels (``KERNELS``), chosen like int8's (``engine.kernels.kernel_choice``):

- ``unfused``: ``F.linear(x, q.to(dtype)) * scale``: the weight converted, then a float matmul.
  Runs everywhere (the CPU, any GPU); differs from the reference by where the scale is applied.
- ``scaled_mm``: ``torch._scaled_mm`` with the activations quantised to e4m3 on the fly (one scale
  a row) and both scales applied to the accumulator: one fused kernel on compute capability 8.9
  and later (it also runs on the CPU, which is how it is tested here). e4m3 keeps 3 mantissa bits,
  so each activation rounds by up to 2^-4 of itself; ``KERNEL_TOLERANCE`` is twice that, relative
  to the largest output (the check's random rows measured at most 5.4 % over 800 draws).

A GPU whose ``scaled_mm`` fails or disagrees (compute capability below 8.9) keeps ``unfused``:
the weights still take half the memory of bfloat16.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from .int8 import TIMED_SHAPES
from .kernel_choice import Kernel, KernelChoice
from .weight import QuantizedWeight

FLOAT8 = torch.float8_e4m3fn
FLOAT8_MAX = torch.finfo(FLOAT8).max  # 448
KERNEL_TOLERANCE = 2 ** -3
SCALED_MM_ROWS = 16  # cuBLASLt's FP8 matmul wants dimensions in multiples of 16: fewer rows are padded


class Float8Weight(QuantizedWeight):
    """A row-scaled e4m3 2-D weight standing in for the float parameter it replaced."""

    PARTS = ("fp8", "scale")  # buffer suffixes, in constructor order
    __slots__ = ("q", "scale")

    def __init__(self, q: torch.Tensor, scale: torch.Tensor):
        self.q, self.scale = q, scale

    @classmethod
    def quantize(cls, weight: torch.Tensor) -> Float8Weight:
        return cls(*quantize_rows(weight))

    @property
    def shape(self) -> torch.Size:
        return self.q.shape

    def linear(self, x: torch.Tensor) -> torch.Tensor:
        return KERNELS[CHOICE.kernel(x.device, x.dtype)](x, self.q, self.scale)


def _row_scales(rows: torch.Tensor) -> torch.Tensor:
    """float32 scales that map each row's largest magnitude onto e4m3's largest value."""
    return (rows.abs().amax(dim=-1, keepdim=True) / FLOAT8_MAX).clamp(min=torch.finfo(torch.float32).tiny)


def quantize_rows(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-row e4m3: (q float8_e4m3fn [rows, cols], scale [rows] in the weight's dtype), ``q`` computed
    against the stored (rounded) scale, as int8's."""
    if weight.dim() != 2 or not weight.is_floating_point():
        raise ValueError(f"expected a 2-D float weight, got {tuple(weight.shape)} {weight.dtype}")
    w = weight.detach().float()
    scale = _row_scales(w).squeeze(1).to(weight.dtype).clamp(min=torch.finfo(weight.dtype).tiny)
    q = (w / scale.float()[:, None]).clamp_(-FLOAT8_MAX, FLOAT8_MAX).to(FLOAT8)
    return q, scale


def reference_linear(x: torch.Tensor, q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """The plain dequantised matmul every kernel must equal (within ``KERNEL_TOLERANCE``)."""
    return F.linear(x, q.to(x.dtype) * scale.to(x.dtype)[:, None])


def _unfused(x: torch.Tensor, q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return F.linear(x, q.to(x.dtype)) * scale.to(x.dtype)


def _scaled_mm(x: torch.Tensor, q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    rows = x.reshape(-1, x.shape[-1]).float()
    n = rows.shape[0]
    padded = -n % SCALED_MM_ROWS
    if padded:
        rows = F.pad(rows, (0, 0, 0, padded))
    x_scale = _row_scales(rows)
    xq = (rows / x_scale).to(FLOAT8)
    out = torch._scaled_mm(xq, q.t(), scale_a=x_scale, scale_b=scale.float()[None, :].contiguous(),
                           out_dtype=x.dtype)
    return out[:n].view(*x.shape[:-1], q.shape[0])


KERNELS: dict[str, Kernel] = {"unfused": _unfused, "scaled_mm": _scaled_mm}
CHOICE = KernelChoice(KERNELS, quantize_rows, reference_linear, KERNEL_TOLERANCE, TIMED_SHAPES)
