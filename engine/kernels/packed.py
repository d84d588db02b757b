"""Matmuls on CPU through one of four kernels: ATen's on the weight as stored, ATen's on a transposed
copy, oneDNN's on a prepacked weight, or oneDNN's on a prepacked bfloat16 copy. Which is fastest
depends on the CPU and shape, so the kernel plan (``engine.runtime.kernel_plan``) measures it.

The first three are exact (float32, like the reference); ``bf16`` (relative error ~3e-3) is offered
only for bfloat16 models on CPUs that multiply bfloat16 natively. Packed copies are derived data,
rebuilt by ``repack()`` whenever the weights change or move.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import torch
import torch.nn.functional as F
from torch import nn

PACK_ROWS_HINT = 128  # oneDNN's batch hint for the packed layout
TRANSPOSED_MATMUL_KERNEL = "transposed"
EXACT_MATMUL_KERNELS = ("aten", "onednn", TRANSPOSED_MATMUL_KERNEL)
BF16_MATMUL_KERNEL = "bf16"
MATMUL_KERNELS = (*EXACT_MATMUL_KERNELS, BF16_MATMUL_KERNEL)
DEFAULT_MATMUL_KERNEL = "onednn"
_FLOAT32_ONLY = ContextVar("float32_matmuls", default=False)  # bf16-planned matmuls compute in float32
BF16_UNSUPPORTED = ("this CPU cannot run oneDNN's bfloat16 matmul (it needs AVX-512 BW/VL/DQ or AVX-NE-CONVERT): "
                    "bfloat16 weights are not available here; use float32")


def packable(weight: torch.Tensor) -> bool:
    """Whether oneDNN's prepacked kernel can compute with this weight here."""
    return weight.device.type == "cpu" and weight.dtype == torch.float32 and torch.backends.mkldnn.is_available()


@functools.cache
def bf16_matmul_runs() -> bool:
    """Whether oneDNN's bfloat16 matmul runs on this CPU at all (tried once: torch's rules are not CPU flags)."""
    if not torch.backends.mkldnn.is_available():
        return False
    try:
        with torch.no_grad():
            packed = torch.ops.mkldnn._reorder_linear_weight(torch.zeros(8, 8, dtype=torch.bfloat16), 1)
            torch.ops.mkldnn._linear_pointwise(torch.zeros(1, 8, dtype=torch.bfloat16), packed, None, "none", [], "")
    except RuntimeError:
        return False
    return True


def native_bf16_matmul() -> bool:
    """Whether this CPU multiplies bfloat16 in hardware (AMX or AVX512-BF16); emulated, it never pays."""
    cpu = torch.cpu
    checks = (getattr(cpu, "_is_amx_tile_supported", None), getattr(cpu, "_is_avx512_bf16_supported", None))
    return bf16_matmul_runs() and any(check is not None and check() for check in checks)


def matmul_kernels(weight: torch.Tensor, allow_bf16: bool) -> tuple[str, ...]:
    """The kernels a matmul with this weight may use (none to choose from off the CPU)."""
    if not packable(weight):
        return ()
    return MATMUL_KERNELS if allow_bf16 and bf16_matmul_runs() else EXACT_MATMUL_KERNELS


def checked_kernel(kernel: str) -> str:
    """``kernel`` if it names a matmul kernel that runs here, else a ValueError saying why not."""
    if kernel not in MATMUL_KERNELS:
        raise ValueError(f"unknown matmul kernel {kernel!r}: expected one of {', '.join(MATMUL_KERNELS)}")
    if kernel == BF16_MATMUL_KERNEL and not bf16_matmul_runs():
        raise ValueError(BF16_UNSUPPORTED)
    return kernel


@contextmanager
def float32_matmuls() -> Iterator[None]:
    """Within: matmuls planned on ``bf16`` compute in float32 (ATen's), whatever the plan; results that
    must not depend on the plan (a voice's codes, cached) are computed so."""
    token = _FLOAT32_ONLY.set(True)
    try:
        yield
    finally:
        _FLOAT32_ONLY.reset(token)


class PackedMatmul:
    """``x @ weight.T + bias`` through ``kernel``; holds no parameters (``pack`` again when they change)."""

    def __init__(self, kernel: str = DEFAULT_MATMUL_KERNEL):
        self.kernel = checked_kernel(kernel)
        self.packed: torch.Tensor | None = None
        self.dtype: torch.dtype | None = None
        self._weight: torch.Tensor | None = None
        self._rows_hint = PACK_ROWS_HINT

    def pack(self, weight: torch.Tensor, rows_hint: int = PACK_ROWS_HINT) -> None:
        self._weight, self._rows_hint = weight, rows_hint
        self.packed = None
        if self.kernel != "aten" and packable(weight):
            with torch.no_grad():
                if self.kernel == TRANSPOSED_MATMUL_KERNEL:  # [in, out]; a view where the weight is column-major
                    rows_in_place = weight.detach().t()
                    self.packed = rows_in_place if rows_in_place.stride(1) == 1 else rows_in_place.contiguous()
                else:
                    stored = torch.bfloat16 if self.kernel == BF16_MATMUL_KERNEL else weight.dtype
                    self.packed = torch.ops.mkldnn._reorder_linear_weight(
                        weight.detach().to(stored).contiguous(), rows_hint)
            self.dtype = weight.dtype

    def use(self, kernel: str) -> None:
        """Switch kernels (re-packing the last packed weight for oneDNN, dropping the copy for ATen)."""
        if checked_kernel(kernel) != self.kernel:
            self.kernel = kernel
            if self._weight is not None:
                self.pack(self._weight, self._rows_hint)

    def __call__(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
        if self.packed is None or x.device.type != "cpu" or x.dtype != self.dtype:
            return F.linear(x, weight, bias)
        if self.kernel == TRANSPOSED_MATMUL_KERNEL:
            rows = x.reshape(-1, x.shape[-1])
            y = torch.mm(rows, self.packed) if bias is None else torch.addmm(bias, rows, self.packed)
            return y.view(*x.shape[:-1], y.shape[-1])
        if self.kernel != BF16_MATMUL_KERNEL:
            return torch.ops.mkldnn._linear_pointwise(x, self.packed, bias, "none", [], "")
        if _FLOAT32_ONLY.get():
            return F.linear(x, weight, bias)
        y = torch.ops.mkldnn._linear_pointwise(x.to(torch.bfloat16), self.packed, None, "none", [], "").to(x.dtype)
        return y if bias is None else y.add_(bias)


class PackedLinear(nn.Linear):
    """``nn.Linear`` computing through a ``PackedMatmul``; same parameters, same names."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._matmul = PackedMatmul()

    @classmethod
    def sharing(cls, linear: nn.Linear) -> PackedLinear:
        packed = cls(linear.in_features, linear.out_features, bias=linear.bias is not None, device="meta")
        packed.weight, packed.bias = linear.weight, linear.bias
        return packed

    def repack(self) -> None:
        self._matmul.pack(self.weight)

    def packed_matmuls(self) -> list[PackedMatmul]:
        return [self._matmul]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self._matmul(x, self.weight, self.bias)


def pack_linears(module: nn.Module, kernel: str | None = None) -> None:
    """Make every plain ``nn.Linear`` under ``module`` a ``PackedLinear`` and ``repack()`` all packed
    modules, every matmul on ``kernel`` (``"aten"`` copies no weight). Idempotent."""
    packed: dict[nn.Linear, PackedLinear] = {}  # a linear shared by two entries stays shared
    for parent in list(module.modules()):
        for name, child in list(parent._modules.items()):
            if type(child) is nn.Linear:
                if child not in packed:
                    packed[child] = PackedLinear.sharing(child)
                setattr(parent, name, packed[child])
    if kernel is not None:
        checked_kernel(kernel)
        for m in module.modules():
            for matmul in getattr(m, "packed_matmuls", list)():
                matmul.kernel = kernel
    for m in module.modules():
        repack = getattr(m, "repack", None)
        if callable(repack):
            repack()
