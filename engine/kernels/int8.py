"""8-bit weights: symmetric int8 with one scale per output row, ``w ~ q * scale[:, None]``,
``q = round(w / scale)`` in [-127, 127], ``scale = max|w_row| / 127`` kept in the model's dtype.
For the 7B Moshi that is 7.4 B int8 weights + 0.3 B bf16 embedding weights ~ 8 GB instead of 15.4 GB.

The matmul has several kernels (``KERNELS``), each checked against the plain dequantised
reference ``reference_linear`` (``F.linear(x, q * scale)``) within ``KERNEL_TOLERANCE`` of the
output's largest magnitude:

- ``unfused``: ``F.linear(x, q.to(dtype)) * scale`` (the int8 weight is converted, then a float
  matmul: reads int8, writes and reads a float copy). Runs everywhere; differs from the reference
  by where the scale is applied (float rounding only).
- ``compiled``: ``torch.compile`` of ``unfused`` with coordinate-descent tuning, which fuses the
  conversion into the matmul where Inductor can (it needs Triton on a GPU, a C compiler on a CPU;
  ``compiled_unfused``).
- ``int8pack``: ``torch._weight_int8pack_mm`` (one fused kernel; torch's CUDA one is naive and
  measured 2.4x slower than ``unfused`` on an H200).
- ``int_mm``: ``torch._int_mm`` of int8 activations (one scale per row, quantised on the fly)
  with the int8 weight, exact integer accumulation, then both scales: the activation rounding is
  an approximation, hence the tolerance.

Which one runs is chosen as ``engine.kernels.kernel_choice`` says, timed at the 7B model's matmul
shapes (``KERNEL_CHOICES`` records the times). The CPU always takes ``unfused``: for one row the
fused CPU kernel measured 3-15x slower (2-core AMD EPYC VM, torch 2.13).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import torch
import torch.nn.functional as F

from .kernel_choice import Kernel, KernelChoice
from .weight import QuantizedWeight

INT8_MAX = 127
# The most a kernel's output may differ from the dequantised reference, relative to the output's
# largest magnitude: bfloat16 rounding of the output (2^-8) and, for int_mm, of the activations.
KERNEL_TOLERANCE = 2e-2
# (in, out) of the 7B matmuls a frame runs most: temporal FFN in/out, depformer attention and FFN in
TIMED_SHAPES = ((4096, 22528), (11264, 4096), (1024, 3072), (1024, 5632))
INT_MM_MIN_ROWS = 17  # torch._int_mm on CUDA needs more than 16 rows: fewer are padded


class Int8Weight(QuantizedWeight):
    """A row-quantised 2-D weight standing in for the float parameter it replaced."""

    PARTS = ("int8", "scale")  # buffer suffixes, in constructor order
    __slots__ = ("q", "scale")

    def __init__(self, q: torch.Tensor, scale: torch.Tensor):
        self.q, self.scale = q, scale

    @classmethod
    def quantize(cls, weight: torch.Tensor) -> Int8Weight:
        return cls(*quantize_rows(weight))

    @property
    def shape(self) -> torch.Size:
        return self.q.shape

    def linear(self, x: torch.Tensor) -> torch.Tensor:
        return KERNELS[chosen_kernel(x.device, x.dtype)](x, self.q, self.scale)


def quantize_rows(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Symmetric per-row int8: (q int8 [rows, cols], scale [rows] in the weight's dtype).

    The int8 values are computed against the stored (rounded) scale, so ``q * scale`` is the
    best int8 approximation of the row given the scale actually used.
    """
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


# Distinct (rows, in, out) shapes one compiled kernel may specialise to: a 7B frame, its prompt
# chunks and the chooser's timing shapes hold about 20 (dynamo's default limit of 8 would let the
# rest run uncompiled, silently).
COMPILED_SHAPES = 64


@functools.cache
def compiled_unfused(backend: str = "inductor") -> Callable:
    """``unfused`` compiled the gpt-fast way: Inductor's coordinate-descent tuning is what folds the
    int8 -> float conversion into the matmul's own loads (without it the conversion stays a kernel
    of its own), and one specialisation per shape, never a silent fall back to eager once
    ``COMPILED_SHAPES`` are compiled: that raises (``FailOnRecompileLimitHit``) so the kernel check
    and the timings see it."""
    options = {"coordinate_descent_tuning": True} if backend == "inductor" else None
    compiled = torch.compile(_unfused, dynamic=False, backend=backend, options=options)

    def call(x: torch.Tensor, q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        with torch._dynamo.config.patch(recompile_limit=COMPILED_SHAPES, fail_on_recompile_limit_hit=True):
            return compiled(x, q, scale)

    return call


def _compiled_call(x: torch.Tensor, q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return compiled_unfused()(x, q, scale)


KERNELS: dict[str, Kernel] = {
    "unfused": _unfused, "compiled": _compiled_call, "int8pack": _int8pack, "int_mm": _int_mm}


# The kernel choice (``engine.kernels.kernel_choice``); its parts under the names callers use.
CHOICE = KernelChoice(KERNELS, quantize_rows, reference_linear, KERNEL_TOLERANCE, TIMED_SHAPES)
KERNEL_CHOICES = CHOICE.measured
_CHOSEN = CHOICE.chosen
kernel_agrees = CHOICE.agrees
chosen_kernel = CHOICE.kernel
time_kernels = CHOICE.time
