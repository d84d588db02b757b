"""How an 8-bit weight kind picks the kernel of its matmuls: the fastest of the candidates that agree
with its dequantised reference, measured once per (device type, dtype) on a GPU (eagerly, never in
a graph capture) and once per weight shape and thread count on the CPU."""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

# A kernel: (activations [..., in], stored weight [out, in], per-row scale [out]) -> [..., out]
Kernel = Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]
CPU_REPEATS = 7  # timed calls of each CPU candidate per weight shape (after one warm-up call)


@dataclass
class KernelChoice:
    """The candidates of one weight kind, what was measured of them and the kernel chosen per key."""

    kernels: dict[str, Kernel]
    quantize_rows: Callable[[torch.Tensor], tuple[torch.Tensor, torch.Tensor]]
    reference: Kernel
    tolerance: float  # the most a kernel may differ from ``reference``, relative to its largest output
    timed_shapes: tuple[tuple[int, int], ...]  # (in, out) of the matmuls a frame runs most
    cpu_kernels: tuple[str, ...] = ("unfused",)  # the CPU's candidates; the last also where none agrees
    measured: dict[tuple, dict] = field(default_factory=dict)
    chosen: dict[tuple, str] = field(default_factory=dict)

    def agrees(self, name: str, device: torch.device, dtype: torch.dtype) -> bool:
        """Whether kernel ``name`` runs on ``device`` and equals ``reference`` within ``tolerance``."""
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
        """The kernel for (device type, dtype) off the CPU, measured the first time (syncs: call it eagerly)."""
        if device.type in ("cpu", "meta"):
            return self.cpu_kernels[0]
        key = (device.type, dtype)
        if key not in self.chosen:
            agree = [name for name in self.kernels if self.agrees(name, device, dtype)]
            self.chosen[key] = self._keep(key, agree, self.time(device, dtype, agree))
        return self.chosen[key]

    def cpu_kernel(self, x: torch.Tensor, q: torch.Tensor, scale: torch.Tensor) -> str:
        """The CPU's kernel for this weight's shape, timed by the fastest of ``CPU_REPEATS`` calls."""
        if len(self.cpu_kernels) == 1:
            return self.cpu_kernels[0]
        key = ("cpu", x.dtype, tuple(q.shape), torch.get_num_threads())
        if key not in self.chosen:
            cpu = torch.device("cpu")
            agree = [name for name in self.cpu_kernels if self.agrees(name, cpu, x.dtype)] or [self.cpu_kernels[-1]]
            row = torch.randn(1, q.shape[1], generator=torch.Generator().manual_seed(0)).to(x.dtype)
            ms = {name: round(min(time_call(functools.partial(self.kernels[name], row, q, scale),
                                                          cpu, CPU_REPEATS)), 4) for name in agree}
            self.chosen[key] = self._keep(key, agree, ms)
        return self.chosen[key]

    def linear(self, x: torch.Tensor, q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        """``x @ (q * scale).T`` through the chosen kernel (on the CPU, for this weight's shape)."""
        name = self.cpu_kernel(x, q, scale) if x.device.type == "cpu" else self.kernel(x.device, x.dtype)
        return self.kernels[name](x, q, scale)

    def _keep(self, key: tuple, agree: list[str], ms: dict[str, float]) -> str:
        self.measured[key] = {"agree": agree, "ms": ms, "kernel": min(ms, key=ms.get)}
        return self.measured[key]["kernel"]

    def time(self, device: torch.device, dtype: torch.dtype, names=None, shapes=None,
             repeats: int = 20) -> dict[str, float]:
        """Milliseconds of one row through each matmul shape, summed, per kernel (medians)."""
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
