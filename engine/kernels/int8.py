"""8-bit weights: symmetric int8 with one scale per output row, ``w ~ q * scale[:, None]``,
``scale = max|w_row| / 127`` kept in the model's dtype.

The matmul has several kernels (``KERNELS``), each checked against the dequantised
``reference_linear`` within ``KERNEL_TOLERANCE`` and chosen by ``engine.kernels.kernel_choice``;
``int_mm`` also quantises the activations per row, hence the tolerance. The CPU never takes
``unfused``: it converts the whole weight on every call.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import torch
import torch.nn.functional as F

from .kernel_choice import Kernel, KernelChoice
from .weight import RowScaledWeight

INT8_MAX = 127
# Relative to the largest output: bfloat16 rounding of the output and, for int_mm, of the activations.
KERNEL_TOLERANCE = 2e-2
TIMED_SHAPES = ((4096, 22528), (11264, 4096), (1024, 3072), (1024, 5632))
INT_MM_MIN_ROWS = 17  # torch._int_mm on CUDA needs more than 16 rows: fewer are padded


def quantize_rows(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Symmetric per-row int8: (q [rows, cols], scale [rows]), ``q`` computed against the stored scale."""
    if weight.dim() != 2 or not weight.is_floating_point():
        raise ValueError(f"expected a 2-D float weight, got {tuple(weight.shape)} {weight.dtype}")
    w = weight.detach().float()
    tiny = torch.finfo(weight.dtype).tiny
    scale = (w.abs().amax(dim=1) / INT8_MAX).clamp(min=tiny).to(weight.dtype)
    q = torch.round(w / scale.float()[:, None]).clamp_(-INT8_MAX, INT8_MAX).to(torch.int8)
    return q, scale


def reference_linear(x: torch.Tensor, q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """The plain dequantised matmul every kernel must equal (within ``KERNEL_TOLERANCE``)."""
    return F.linear(x, q.to(x.dtype) * scale.to(x.dtype)[:, None])


def _unfused(x: torch.Tensor, q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return F.linear(x, q.to(x.dtype)) * scale.to(x.dtype)


def _int8pack(x: torch.Tensor, q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    out = torch._weight_int8pack_mm(x.reshape(-1, x.shape[-1]).contiguous(), q, scale.to(x.dtype))
    return out.view(*x.shape[:-1], q.shape[0])


def _int8pack_bf16(x: torch.Tensor, q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """``_int8pack`` with bfloat16 activations: torch's CPU kernel is vectorised for 16-bit ones only."""
    return _int8pack(x.to(torch.bfloat16), q, scale).to(x.dtype)


def _int_mm(x: torch.Tensor, q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    rows = x.reshape(-1, x.shape[-1]).float()
    x_scale = (rows.abs().amax(dim=1, keepdim=True) / INT8_MAX).clamp(min=torch.finfo(torch.float32).tiny)
    xq = torch.round(rows / x_scale).to(torch.int8)
    n = xq.shape[0]
    if n < INT_MM_MIN_ROWS:
        xq = F.pad(xq, (0, 0, 0, INT_MM_MIN_ROWS - n))
    acc = torch._int_mm(xq, q.t())[:n]
    out = (acc.float() * x_scale * scale.float()).to(x.dtype)
    return out.view(*x.shape[:-1], q.shape[0])


# Shapes one compiled kernel may specialise to (dynamo's default of 8 would silently run the rest eager).
COMPILED_SHAPES = 64


@functools.cache
def compiled_unfused(backend: str = "inductor") -> Callable:
    """``unfused`` compiled the gpt-fast way: coordinate-descent tuning folds the int8 -> float
    conversion into the matmul; past ``COMPILED_SHAPES`` it raises rather than fall back to eager."""
    options = {"coordinate_descent_tuning": True} if backend == "inductor" else None
    compiled = torch.compile(_unfused, dynamic=False, backend=backend, options=options)

    def call(x: torch.Tensor, q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        with torch._dynamo.config.patch(recompile_limit=COMPILED_SHAPES, fail_on_recompile_limit_hit=True):
            return compiled(x, q, scale)

    return call


def _compiled_call(x: torch.Tensor, q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return compiled_unfused()(x, q, scale)


KERNELS: dict[str, Kernel] = {
    "unfused": _unfused, "compiled": _compiled_call, "int8pack": _int8pack, "int8pack_bf16": _int8pack_bf16,
    "int_mm": _int_mm}
CPU_KERNELS = ("int8pack_bf16", "int8pack")


CHOICE = KernelChoice(KERNELS, quantize_rows, reference_linear, KERNEL_TOLERANCE, TIMED_SHAPES, CPU_KERNELS)
KERNEL_CHOICES = CHOICE.measured
_CHOSEN = CHOICE.chosen
kernel_agrees = CHOICE.agrees
chosen_kernel = CHOICE.kernel
time_kernels = CHOICE.time


class Int8Weight(RowScaledWeight):
    """A row-quantised 2-D weight standing in for the float parameter it replaced."""

    PARTS = ("int8", "scale")
    CHOICE = CHOICE
    STORED = torch.int8
    __slots__ = ()
