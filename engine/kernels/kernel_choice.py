"""How an 8-bit weight kind (``engine.kernels.int8``, ``engine.kernels.fp8``) picks the kernel of
its matmuls: every candidate is checked against the kind's plain dequantised reference, and the
fastest of those that agree is kept, measured once per (device type, dtype), eagerly (never inside
a graph capture: a CUDA graph is captured after eager warm-up frames). The CPU always takes the
kind's ``cpu_kernel``: the fused CPU kernels measured several times slower for one row (2-core AMD
EPYC VM, torch 2.13).
"""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

# A kernel: (activations [..., in], stored weight [out, in], per-row scale [out]) -> [..., out]
Kernel = Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]


@dataclass
class KernelChoice:
    """The candidates of one weight kind and what was measured of them (``measured``: per (device
    type, dtype), the candidates that agree and each one's time; ``chosen``: the kernel in use)."""

    kernels: dict[str, Kernel]
    quantize_rows: Callable[[torch.Tensor], tuple[torch.Tensor, torch.Tensor]]
    reference: Kernel
    tolerance: float  # the most a kernel may differ from ``reference``, relative to its largest output
    timed_shapes: tuple[tuple[int, int], ...]  # (in, out) of the matmuls a frame runs most
    cpu_kernel: str = "unfused"
    measured: dict[tuple[str, torch.dtype], dict] = field(default_factory=dict)
    chosen: dict[tuple[str, torch.dtype], str] = field(default_factory=dict)

    def agrees(self, name: str, device: torch.device, dtype: torch.dtype) -> bool:
        """Whether kernel ``name`` runs on ``device`` and equals ``reference`` within ``tolerance``
        (one row and three rows, as frames and prompts use)."""
        gen = torch.Generator().manual_seed(0)
        q, scale = self.quantize_rows(torch.randn(48, 64, generator=gen).to(device, dtype))
        for rows in (1, 3):
            x = torch.randn(1, rows, 64, generator=gen).to(device, dtype)
            try:
                got = self.kernels[name](x, q, scale).float()
            except Exception:  # noqa: BLE001 (a kernel missing here fails in many ways: no Triton, no compiler, no op)
                return False
            want = self.reference(x, q, scale).float()
            if got.shape != want.shape or not bool((got - want).abs().max() <= self.tolerance * want.abs().max()):
                return False
        return True

    def kernel(self, device: torch.device, dtype: torch.dtype) -> str:
        """The kernel the kind's matmuls use on (device type, dtype): ``cpu_kernel`` on the CPU and
        the meta device, elsewhere the fastest of the kernels that agree with the reference, measured
        the first time (cached; syncs with the device: call it eagerly)."""
        key = (device.type, dtype)
        if key not in self.chosen:
            if device.type in ("cpu", "meta"):
                self.chosen[key] = self.cpu_kernel
            else:
                choice = {"agree": [name for name in self.kernels if self.agrees(name, device, dtype)]}
                choice["ms"] = self.time(device, dtype, choice["agree"])
                choice["kernel"] = min(choice["ms"], key=choice["ms"].get)
                self.measured[key] = choice
                self.chosen[key] = choice["kernel"]
        return self.chosen[key]

    def time(self, device: torch.device, dtype: torch.dtype, names=None, shapes=None,
             repeats: int = 20) -> dict[str, float]:
        """Milliseconds of one row through each matmul shape (``timed_shapes`` by default), summed,
        per kernel (medians of ``repeats`` after a warm-up; CUDA events on a GPU, a wall clock
        elsewhere)."""
        names = tuple(self.kernels) if names is None else names
        totals = dict.fromkeys(names, 0.0)
        gen = torch.Generator().manual_seed(0)
        for n_in, n_out in shapes or self.timed_shapes:
            x = torch.randn(1, n_in, generator=gen).to(device, dtype)
            q, scale = self.quantize_rows(torch.randn(n_out, n_in, generator=gen).to(device, dtype))
            for name in names:
                call = functools.partial(self.kernels[name], x, q, scale)
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
