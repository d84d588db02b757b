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

Which one runs is measured once per (device type, dtype), eagerly (never inside a graph capture;
a CUDA graph is captured after eager warm-up frames): every candidate that runs there and agrees
with the reference is timed at the 7B model's matmul shapes and the fastest is kept
(``KERNEL_CHOICES`` records the times). The CPU always takes ``unfused``: for one row the fused
CPU kernel measured 3-15x slower (2-core AMD EPYC VM, torch 2.13).
"""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable

import torch
import torch.nn.functional as F

from .weight import QuantizedWeight

INT8_MAX = 127
# The most a kernel's output may differ from the dequantised reference, relative to the output's
# largest magnitude: bfloat16 rounding of the output (2^-8) and, for int_mm, of the activations.
KERNEL_TOLERANCE = 2e-2
KERNEL_CHOICES: dict[tuple[str, torch.dtype], dict] = {}  # (device type, dtype) -> what was measured
_CHOSEN: dict[tuple[str, torch.dtype], str] = {}
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


KERNELS: dict[str, Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]] = {
    "unfused": _unfused, "compiled": _compiled_call, "int8pack": _int8pack, "int_mm": _int_mm}


def kernel_agrees(name: str, device: torch.device, dtype: torch.dtype) -> bool:
    """Whether kernel ``name`` runs on ``device`` and equals ``reference_linear`` within
    ``KERNEL_TOLERANCE`` (one row and three rows, as frames and prompts use)."""
    gen = torch.Generator().manual_seed(0)
    q, scale = quantize_rows(torch.randn(48, 64, generator=gen).to(device, dtype))
    for rows in (1, 3):
        x = torch.randn(1, rows, 64, generator=gen).to(device, dtype)
        try:
            got = KERNELS[name](x, q, scale).float()
        except Exception:  # noqa: BLE001 (a kernel missing here fails in many ways: no Triton, no compiler, no op)
            return False
        want = reference_linear(x, q, scale).float()
        if got.shape != want.shape or not bool((got - want).abs().max() <= KERNEL_TOLERANCE * want.abs().max()):
            return False
    return True


def chosen_kernel(device: torch.device, dtype: torch.dtype) -> str:
    """The kernel int8 matmuls use on (device type, dtype): "unfused" on the CPU and the meta
    device, elsewhere the fastest of the kernels that agree with the reference, measured the
    first time (cached; syncs with the device: call it eagerly)."""
    key = (device.type, dtype)
    if key not in _CHOSEN:
        if device.type in ("cpu", "meta"):
            _CHOSEN[key] = "unfused"
        else:
            choice = {"agree": [name for name in KERNELS if kernel_agrees(name, device, dtype)]}
            choice["ms"] = time_kernels(device, dtype, choice["agree"])
            choice["kernel"] = min(choice["ms"], key=choice["ms"].get)
            KERNEL_CHOICES[key] = choice
            _CHOSEN[key] = choice["kernel"]
    return _CHOSEN[key]


def time_kernels(device: torch.device, dtype: torch.dtype, names=tuple(KERNELS), shapes=TIMED_SHAPES,
                 repeats: int = 20) -> dict[str, float]:
    """Milliseconds of one row through each matmul shape, summed, per kernel (medians of
    ``repeats`` after a warm-up; CUDA events on a GPU, a wall clock elsewhere)."""
    totals = dict.fromkeys(names, 0.0)
    gen = torch.Generator().manual_seed(0)
    for n_in, n_out in shapes:
        x = torch.randn(1, n_in, generator=gen).to(device, dtype)
        q = torch.randint(-INT8_MAX, INT8_MAX + 1, (n_out, n_in), dtype=torch.int8, generator=gen).to(device)
        scale = torch.rand(n_out, generator=gen).to(device, dtype) * 1e-2
        for name in names:
            call = functools.partial(KERNELS[name], x, q, scale)
            totals[name] += statistics.median(time_call(call, device, repeats))
    return {k: round(v, 4) for k, v in totals.items()}


def time_call(fn: Callable[[], object], device: torch.device, repeats: int) -> list[float]:
    """Milliseconds of each of ``repeats`` calls of ``fn`` after one warm-up call."""
    fn()
    times = []
    for _ in range(repeats):
        if device.type == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        else:
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
    return times
