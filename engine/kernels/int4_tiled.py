"""4-bit matmuls through torch's fused kernels (``_weight_int4pack_mm[_for_cpu]``) on tiled copies of
the weight made once at load (``prepare_tiles``), instead of dequantising every weight on every call.

Tiled layouts cannot be sliced, so each block of rows the model multiplies by (each stored step of
a ``stacked_rows`` weight) is tiled on its own; a block a kernel refuses stays on the dequantising
path. In float32 the outputs agree with that path up to the order of the sums; the CPU may compute
in bfloat16 where that is faster for a shape. On ``LET_GO_DEVICES`` a fully tiled weight lets go of
its stored buffers (meta tensors keep their shapes), so it is held once.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from .int4 import TILES_ATTRIBUTE, Int4Weight, RowTiles
from .int8 import KERNEL_TOLERANCE
from .kernel_choice import CPU_REPEATS, time_call

KERNEL_GROUP_SIZES = (32, 64, 128, 256)  # what both kernels accept
ROW_MULTIPLE = {"cpu": 16, "cuda": 8}  # the kernels' rows come in tiles: other counts are padded with zero rows
CPU_DTYPES = (torch.float32, torch.bfloat16, torch.float16)
CPU_COMPUTE_DTYPES = (torch.bfloat16, torch.float32)  # the CPU kernel's activation dtypes, chosen per shape
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
    """``x @ w.T`` for one block of an ``Int4Weight``'s rows through torch's fused kernel for its device."""

    __slots__ = ("tiled", "scales_and_zeros", "group", "shape", "device", "dtype", "compute_dtype")

    def __init__(self, weight: Int4Weight, compute_dtype: torch.dtype | None = None):
        """``compute_dtype``: the activations' dtype inside the kernel (default: bfloat16 on CUDA)."""
        reason = refusal(weight)
        if reason is not None:
            raise ValueError(f"torch's int4 kernel cannot take this weight: {reason}")
        rows, cols = self.shape = weight.shape
        self.device, self.dtype = weight.device, weight.dtype
        if compute_dtype is None:
            compute_dtype = cpu_compute_dtype(weight) if self.device.type == "cpu" else torch.bfloat16
        self.compute_dtype = compute_dtype
        self.group = cols // weight.scale.shape[1]
        padding = -rows % ROW_MULTIPLE[self.device.type]
        packed, scale, zero = (F.pad(t, (0, 0, 0, padding)) for t in (weight.packed, weight.scale, weight.zero))
        with torch.no_grad():
            self.scales_and_zeros = kernel_scales_and_zeros(scale, zero, compute_dtype)
            if self.device.type == "cpu":
                self.tiled = torch.ops.aten._convert_weight_to_int4pack_for_cpu(cpu_kernel_values(packed), 1)
            else:
                self.tiled = torch.ops.aten._convert_weight_to_int4pack(cuda_kernel_bytes(packed), CUDA_INNER_K_TILES)

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


def kernel_scales_and_zeros(scale: torch.Tensor, zero: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Both kernels' [groups, rows, 2]: each group's scale and zero, of ``(q - 8) * scale + zero``."""
    return torch.stack((scale.t(), zero.t()), dim=-1).to(dtype)


def cpu_kernel_values(packed: torch.Tensor) -> torch.Tensor:
    """What the CPU's tiling takes: one 4-bit value an int32, [rows, cols], columns in order."""
    return torch.stack((packed & 0xF, packed >> 4), dim=-1).reshape(packed.shape[0], -1).to(torch.int32)


def cuda_kernel_bytes(packed: torch.Tensor) -> torch.Tensor:
    """What the CUDA tiling takes: two values a byte, the even column in the high nibble (gpt-fast's)."""
    return (((packed & 0xF) << 4) | (packed >> 4)).contiguous()


CPU_COMPUTE_CHOICES: dict[tuple, dict] = {}  # (rows, cols, group, dtype, threads) -> each candidate's ms and the choice


def cpu_compute_dtype(block: Int4Weight) -> torch.dtype:
    """The faster agreeing one of ``CPU_COMPUTE_DTYPES`` for a block of this shape, timed once per shape."""
    group = block.shape[1] // block.scale.shape[1]
    key = (*block.shape, group, block.dtype, torch.get_num_threads())
    if key not in CPU_COMPUTE_CHOICES:
        agree = [d for d in CPU_COMPUTE_DTYPES if kernel_agrees("cpu", block.dtype, d)] or [torch.float32]
        row = torch.randn(1, block.shape[1], generator=torch.Generator().manual_seed(0)).to(block.dtype)
        ms = {}
        for dtype in agree:
            fused = TiledInt4(block, dtype)
            ms[dtype] = round(min(time_call(lambda fused=fused: fused(row), row.device, CPU_REPEATS)), 4)
        CPU_COMPUTE_CHOICES[key] = {"ms": ms, "dtype": min(ms, key=ms.get)}
    return CPU_COMPUTE_CHOICES[key]["dtype"]


@functools.cache
def kernel_agrees(device_type: str, dtype: torch.dtype, compute_dtype: torch.dtype | None = None) -> bool:
    """Whether the fused kernel runs here and equals the dequantising reference within
    ``KERNEL_TOLERANCE`` (checked once, so that a kernel broken in some torch build is never used)."""
    device = torch.device(device_type)
    if compute_dtype is None:
        compute_dtype = torch.float32 if device.type == "cpu" else torch.bfloat16
    gen = torch.Generator().manual_seed(0)
    weight = Int4Weight.quantize(torch.randn(64, 256, generator=gen).to(device, dtype))
    if refusal(weight) is not None:
        return False
    try:
        fused = TiledInt4(weight, compute_dtype)
        for rows in (1, 3):
            x = torch.randn(1, rows, 256, generator=gen).to(device, dtype)
            got = fused(x).float()
            want = torch.nn.functional.linear(x, weight.dequantized().to(dtype)).float()
            if not bool((got - want).abs().max() <= KERNEL_TOLERANCE * want.abs().max()):
                return False
    except RuntimeError:  # a build without the kernel for this device or dtype
        return False
    return True


LET_GO_DEVICES = ("cuda",)  # where a tiled weight is held once, as tiles (``let_go``)


@dataclass(frozen=True)
class Tiling:
    """What ``prepare_tiles`` did: blocks tiled, blocks left with the reason, bytes let go."""

    tiled: int
    tiled_bytes: int
    refused: dict[str, str]
    let_go_bytes: int = 0

    def summary(self) -> str:
        reasons = sorted(set(self.refused.values()))
        kept = f"; {len(self.refused)} dequantised: {'; '.join(reasons)}" if self.refused else ""
        held = f", held once: {self.let_go_bytes / 2**20:.1f} MiB of stored copies let go" if self.let_go_bytes else ""
        return f"{self.tiled} int4 weight blocks tiled ({self.tiled_bytes / 2**20:.1f} MiB{held}){kept}"


def prepare_tiles(model: nn.Module, let_go_of_stored: bool | None = None) -> Tiling:
    """Tile every 4-bit weight of ``model`` for its device's fused kernel, block by block; with
    ``let_go_of_stored``, one weight after the other lets go of its stored buffers. Idempotent."""
    tiled, tiled_bytes, refused, let_go_bytes = 0, 0, {}, 0
    for prefix, owner in model.named_modules():
        names = [n for n, kind in getattr(owner, "quantized_weights", {}).items() if kind is Int4Weight]
        tiles = {}
        for name in names:
            weight = Int4Weight.of_module(owner, name)
            held = getattr(owner, TILES_ATTRIBUTE, {}).get(name)
            if weight.packed.is_meta and held is not None and held.made_from(weight.tensors()):
                tiles[name] = held  # let go of before: its tiles are all there is
                tiled += len(held.by_rows)
                tiled_bytes += sum(fused.bytes() for fused in held.by_rows.values())
                continue
            by_rows, first_refusal = {}, len(refused)
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
            sources = weight.tensors()
            lets_go = weight.device.type in LET_GO_DEVICES if let_go_of_stored is None else let_go_of_stored
            if lets_go and by_rows and len(refused) == first_refusal:
                let_go_bytes += sum(t.numel() * t.element_size() for t in sources)
                sources = let_go(owner, name)
            tiles[name] = RowTiles(sources, by_rows)
        if tiles:
            setattr(owner, TILES_ATTRIBUTE, tiles)
    return Tiling(tiled, tiled_bytes, refused, let_go_bytes)


def let_go(owner: nn.Module, name: str) -> tuple[torch.Tensor, ...]:
    """Replace the stored buffers of ``owner``'s int4 weight ``name`` with meta tensors; returns them."""
    for part in Int4Weight.PARTS:
        key = f"{name}_{part}"
        owner._buffers[key] = torch.empty_like(owner._buffers[key], device="meta")
    return Int4Weight.of_module(owner, name).tensors()


def row_blocks(rows: int, block_rows: int | None) -> list[tuple[int, int]]:
    """(first, end) of each block: ``block_rows`` at a time, or all rows as one block."""
    step = block_rows or rows
    return [(first, first + step) for first in range(0, rows, step)]

