"""8-bit floating-point weights (opt-in): float8 e4m3 with one scale per output row,
``scale = max|w_row| / 448`` in the model's dtype: int8's bytes on a grid finer near zero, multiplied
natively from compute capability 8.9. Kernels: ``unfused`` (everywhere) and ``scaled_mm``, which
quantises activations to e4m3 (up to 2^-4 of each; ``KERNEL_TOLERANCE`` is twice that)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from .int8 import TIMED_SHAPES
from .kernel_choice import Kernel, KernelChoice
from .weight import RowScaledWeight

FLOAT8 = torch.float8_e4m3fn
FLOAT8_MAX = torch.finfo(FLOAT8).max
KERNEL_TOLERANCE = 2 ** -3
SCALED_MM_ROWS = 16  # cuBLASLt's FP8 matmul wants dimensions in multiples of 16: fewer rows are padded


def _row_scales(rows: torch.Tensor) -> torch.Tensor:
    """float32 scales that map each row's largest magnitude onto e4m3's largest value."""
    return (rows.abs().amax(dim=-1, keepdim=True) / FLOAT8_MAX).clamp(min=torch.finfo(torch.float32).tiny)


def quantize_rows(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-row e4m3: (q [rows, cols], scale [rows]), ``q`` computed against the stored scale."""
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


class Float8Weight(RowScaledWeight):
    """A row-scaled e4m3 2-D weight standing in for the float parameter it replaced."""

    PARTS = ("fp8", "scale")
    CHOICE = CHOICE
    STORED = FLOAT8
    __slots__ = ()
