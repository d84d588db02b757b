"""4-bit matmuls through torch's fused kernels: ``_weight_int4pack_mm_for_cpu`` on the CPU,
``_weight_int4pack_mm`` on CUDA, each on its own tiled copy of the weight, made once at load
(``prepare_tiles``) instead of dequantising every whole weight on every call (on a 2-core AMD
EPYC, one thread, one row through a [1024 x 4096] weight: 0.29 ms against 19.0 ms).

The tiled layouts cannot be sliced the way the stored one is (the CPU's interleaves rows in blocks
of 64), so each block of rows the model multiplies by is tiled on its own: the whole weight, or
for a stacked per-step weight (the depth transformer's) each stored step, as the module's
``stacked_rows`` names them. A block a kernel cannot take (``refusal``: its group size, its
column count on CUDA, the activations' dtype) stays on the dequantising path, and ``prepare_tiles`` says
which and why. The kernels compute ``sum_k x_k * ((q_k - 8) * scale + zero)`` in float32 from the
same quantised values as the plain path: in float32, the outputs agree up to the order of the sums.
The CPU kernel is far faster with bfloat16 activations where the CPU multiplies bfloat16 (on an AMD
EPYC with AVX512-BF16, one row through [1024 x 4096]: 0.29 ms against 6.1 ms with float32 ones, and
0.79 ms for float32's own matmul; one thread, a loaded machine), so the CPU computes in bfloat16
where it multiplies bfloat16 natively (``cpu_compute_dtype``): the activations, scales and zeros
are then rounded to bfloat16 (relative error ~2^-8, against 4-bit weights' few percent) and the
output comes back in the model's dtype. CUDA's kernel takes bfloat16 only.

The tiles are a second copy of the 4-bit values beside the stored buffers (about the same bytes
again, plus the scales and zeros interleaved), kept because the stored layout is what rows are
sliced, loaded and saved in. On a GPU, where int4 is chosen to fit in memory, that copy would make
it as heavy as int8: a model loads tiles on the CPU only (``LoadedModel``), and the CUDA kernel is
timed by ``bench/gpu_check.py`` until the stored copy can be let go after tiling.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from .int4 import TILES_ATTRIBUTE, Int4Weight, RowTiles
from .int8 import KERNEL_TOLERANCE
from .packed import native_bf16_matmul

KERNEL_GROUP_SIZES = (32, 64, 128, 256)  # what both kernels accept
ROW_MULTIPLE = {"cpu": 16, "cuda": 8}  # the kernels' rows come in tiles: other counts are padded with zero rows
CPU_DTYPES = (torch.float32, torch.bfloat16, torch.float16)
CUDA_INNER_K_TILES = 8  # gpt-fast's choice; the columns must then be a multiple of 8 * 16
CUDA_MIN_CAPABILITY = (8, 0)


def refusal(weight: Int4Weight) -> str | None:
    """Why torch's fused int4 kernel on ``weight``'s device cannot compute with it; None if it can."""
    cols = weight.shape[1]
    group = cols // weight.scale.shape[1]
    device = weight.device
    if group not in KERNEL_GROUP_SIZES:
        return f"groups of {group} columns (the kernel takes {', '.join(map(str, KERNEL_GROUP_SIZES))})"
    if device.type == "cpu":
        if not hasattr(torch.ops.aten, "_weight_int4pack_mm_for_cpu"):
            return f"torch {torch.__version__} has no CPU int4 kernel"
        if weight.dtype not in CPU_DTYPES:
            return f"{weight.dtype} activations"
        return None
    if device.type == "cuda":
        if weight.dtype != torch.bfloat16:
            return f"{weight.dtype} activations (the CUDA kernel takes bfloat16)"
        if torch.cuda.get_device_capability(device) < CUDA_MIN_CAPABILITY:
            return "the CUDA kernel needs compute capability 8.0 or later"
        if cols % (CUDA_INNER_K_TILES * 16):
            return f"{cols} columns (the CUDA kernel needs a multiple of {CUDA_INNER_K_TILES * 16})"
        return None
    return f"no fused int4 kernel on {device.type}"


class TiledInt4:
    """``x @ w.T`` for one block of an ``Int4Weight``'s rows through torch's fused kernel for its
    device, on the tiled copy made here (rows padded with zeros to the kernel's multiple; the
    output is cut back to the weight's rows)."""

    __slots__ = ("tiled", "scales_and_zeros", "group", "shape", "device", "dtype", "compute_dtype")

    def __init__(self, weight: Int4Weight, compute_dtype: torch.dtype | None = None):
        """``compute_dtype``: the activations' dtype inside the kernel (default: bfloat16 on CUDA,
        ``cpu_compute_dtype()`` on the CPU)."""
        reason = refusal(weight)
        if reason is not None:
            raise ValueError(f"torch's int4 kernel cannot take this weight: {reason}")
        rows, cols = self.shape = weight.shape
        self.device, self.dtype = weight.device, weight.dtype
        if compute_dtype is None:
            compute_dtype = cpu_compute_dtype() if self.device.type == "cpu" else torch.bfloat16
        self.compute_dtype = compute_dtype
        self.group = cols // weight.scale.shape[1]
        padding = -rows % ROW_MULTIPLE[self.device.type]
        packed, scale, zero = (F.pad(t, (0, 0, 0, padding)) for t in (weight.packed, weight.scale, weight.zero))
        # [groups, rows, 2]: each group's scale and zero, the kernels' (q - 8) * scale + zero
        self.scales_and_zeros = torch.stack((scale, zero), dim=-1).transpose(0, 1).to(compute_dtype).contiguous()
        with torch.no_grad():
            if self.device.type == "cpu":  # one 4-bit value an int32, rows in order
                q = torch.stack((packed & 0xF, packed >> 4), dim=-1).reshape(rows + padding, cols)
                self.tiled = torch.ops.aten._convert_weight_to_int4pack_for_cpu(q.to(torch.int32), 1)
            else:  # two a byte, the even column in the high nibble
                swapped = ((packed & 0xF) << 4) | (packed >> 4)
                self.tiled = torch.ops.aten._convert_weight_to_int4pack(swapped.contiguous(), CUDA_INNER_K_TILES)

    def takes(self, x: torch.Tensor) -> bool:
        return x.device == self.device and x.dtype == self.dtype

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        rows = x.reshape(-1, self.shape[1]).to(self.compute_dtype).contiguous()
        mm = (torch.ops.aten._weight_int4pack_mm_for_cpu if self.device.type == "cpu"
              else torch.ops.aten._weight_int4pack_mm)
        y = mm(rows, self.tiled, self.group, self.scales_and_zeros)
        if y.shape[1] != self.shape[0]:
            y = y[:, :self.shape[0]]
        return y.reshape(*x.shape[:-1], self.shape[0]).to(x.dtype)

    def bytes(self) -> int:
        return sum(t.numel() * t.element_size() for t in (self.tiled, self.scales_and_zeros))


def cpu_compute_dtype() -> torch.dtype:
    """bfloat16 where this CPU multiplies it natively (AMX or AVX512-BF16), float32 elsewhere."""
    return torch.bfloat16 if native_bf16_matmul() else torch.float32


@functools.cache
def kernel_agrees(device_type: str, dtype: torch.dtype) -> bool:
    """Whether the fused kernel runs on this device and equals the dequantising reference within
    ``KERNEL_TOLERANCE`` of the output's largest magnitude (one row and three rows, as frames
    and prompts use): checked once, so that a kernel broken in some torch build is never used."""
    device = torch.device(device_type)
    gen = torch.Generator().manual_seed(0)
    weight = Int4Weight.quantize(torch.randn(64, 256, generator=gen).to(device, dtype))
    if refusal(weight) is not None:
        return False
    try:
        fused = TiledInt4(weight)
        for rows in (1, 3):
            x = torch.randn(1, rows, 256, generator=gen).to(device, dtype)
            got = fused(x).float()
            want = torch.nn.functional.linear(x, weight.dequantized().to(dtype)).float()
            if not bool((got - want).abs().max() <= KERNEL_TOLERANCE * want.abs().max()):
                return False
    except RuntimeError:  # a build without the kernel for this device or dtype
        return False
    return True


@dataclass(frozen=True)
class Tiling:
    """What ``prepare_tiles`` did: blocks tiled, their bytes, and each block left on the
    dequantising path ("<module>.<weight>[first:end]") with the reason."""

    tiled: int
    tiled_bytes: int
    refused: dict[str, str]

    def summary(self) -> str:
        reasons = sorted(set(self.refused.values()))
        kept = f"; {len(self.refused)} dequantised: {'; '.join(reasons)}" if self.refused else ""
        return f"{self.tiled} int4 weight blocks tiled ({self.tiled_bytes / 2**20:.1f} MiB){kept}"


def prepare_tiles(model: nn.Module) -> Tiling:
    """Tile every 4-bit weight of ``model`` for its device's fused kernel, block by block (each
    stored step of a weight its module lists in ``stacked_rows``, else the whole weight).
    Idempotent; call again after the weights change or move."""
    tiled, tiled_bytes, refused = 0, 0, {}
    for prefix, owner in model.named_modules():
        names = [n for n, kind in getattr(owner, "quantized_weights", {}).items() if kind is Int4Weight]
        tiles = {}
        for name in names:
            weight = Int4Weight.of_module(owner, name)
            by_rows = {}
            for first, end in row_blocks(weight.shape[0], getattr(owner, "stacked_rows", {}).get(name)):
                block = weight[first:end]
                reason = refusal(block)
                if reason is None and not kernel_agrees(block.device.type, block.dtype):
                    reason = f"torch's int4 kernel is missing or wrong for {block.dtype} on {block.device.type}"
                if reason is not None:
                    refused[f"{prefix}.{name}[{first}:{end}]".lstrip(".")] = reason
                    continue
                by_rows[(first, end)] = fused = TiledInt4(block)
                tiled, tiled_bytes = tiled + 1, tiled_bytes + fused.bytes()
            tiles[name] = RowTiles(weight.tensors(), by_rows)
        if tiles:
            setattr(owner, TILES_ATTRIBUTE, tiles)
    return Tiling(tiled, tiled_bytes, refused)


def row_blocks(rows: int, block_rows: int | None) -> list[tuple[int, int]]:
    """(first, end) of each block: ``block_rows`` at a time, or all rows as one block."""
    step = block_rows or rows
    return [(first, first + step) for first in range(0, rows, step)]

