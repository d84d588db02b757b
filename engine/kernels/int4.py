"""4-bit weights (experimental, opt-in): group-wise asymmetric int4 as gpt-fast and torch's
``_weight_int4pack_mm`` lay it out, ``w ~ (q - 8) * scale + zero`` per group, two values a byte (the
even column in the low nibble). The plain matmul dequantises the rows it is given: the reference the
fused kernels (``engine.kernels.int4_tiled``) must equal. 4-bit loses quality random test weights
cannot show, so it is never chosen unless a person asks for it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from .weight import QuantizedWeight

INT4_LEVELS = 15
INT4_OFFSET = 8
GROUP_SIZES = (128, 64, 32)  # the first that divides a row's length; else the whole row is one group


def group_size(cols: int) -> int:
    return next((g for g in GROUP_SIZES if cols % g == 0), cols)


TILES_ATTRIBUTE = "int4_tiles"  # a module's {weight name: RowTiles}, set by engine.kernels.int4_tiled


@dataclass(frozen=True)
class RowTiles:
    """A weight's blocks of rows prepared for a fused kernel, ``(first row, end row) -> matmul``: valid
    while the module's buffers are the ``sources`` they were made from."""

    sources: tuple[torch.Tensor, ...]
    by_rows: dict[tuple[int, int], Callable]

    def made_from(self, tensors: tuple[torch.Tensor, ...]) -> bool:
        return len(tensors) == len(self.sources) and all(a is b for a, b in zip(tensors, self.sources))


class Int4Weight(QuantizedWeight):
    """A group-quantised 2-D weight standing in for the float parameter it replaced."""

    PARTS = ("int4", "scale", "zero")  # buffer suffixes, in constructor order
    __slots__ = ("packed", "scale", "zero", "tiles", "first_row")

    def __init__(self, packed: torch.Tensor, scale: torch.Tensor, zero: torch.Tensor,
                 tiles: dict[tuple[int, int], Callable] | None = None, first_row: int = 0):
        self.packed, self.scale, self.zero = packed, scale, zero
        self.tiles, self.first_row = tiles, first_row

    @classmethod
    def quantize(cls, weight: torch.Tensor) -> Int4Weight:
        return cls(*quantize_groups(weight))

    @classmethod
    def laid_out(cls, weight: torch.Tensor) -> Int4Weight:
        check_shape(weight)
        rows, cols = weight.shape
        groups = cols // group_size(cols)
        return cls(torch.empty(rows, cols // 2, dtype=torch.uint8, device="meta"),
                   *(torch.empty(rows, groups, dtype=weight.dtype, device="meta") for _ in range(2)))

    @classmethod
    def of_module(cls, module: torch.nn.Module, name: str) -> Int4Weight:
        weight = super().of_module(module, name)
        tiles = getattr(module, TILES_ATTRIBUTE, {}).get(name)
        if tiles is not None and tiles.made_from(weight.tensors()):
            weight.tiles = tiles.by_rows
        return weight

    def __getitem__(self, rows: slice) -> Int4Weight:
        part = super().__getitem__(rows)
        start, _, stride = rows.indices(self.shape[0])
        if stride == 1:
            part.tiles, part.first_row = self.tiles, self.first_row + start
        return part

    @property
    def shape(self) -> torch.Size:
        return torch.Size((self.packed.shape[0], 2 * self.packed.shape[1]))

    def dequantized(self) -> torch.Tensor:
        return dequantize_groups(self.packed, self.scale, self.zero)

    def tiled(self) -> Callable | None:
        """The fused matmul prepared for exactly these rows, if any."""
        if not self.tiles:
            return None
        return self.tiles.get((self.first_row, self.first_row + self.packed.shape[0]))

    def linear(self, x: torch.Tensor) -> torch.Tensor:
        fused = self.tiled()
        if fused is not None and fused.takes(x):
            return fused(x)
        if self.packed.is_meta and not x.is_meta:
            held = f"tiled for {fused.dtype} on {fused.device}" if fused is not None else "not one tiled block"
            raise RuntimeError(f"these int4 rows are held as tiles only (their stored copy was let go at load) "
                               f"and cannot compute {x.dtype} on {x.device} ({held})")
        return F.linear(x, self.dequantized().to(x.dtype))


def check_shape(weight: torch.Tensor) -> None:
    if weight.dim() != 2 or not weight.is_floating_point() or weight.shape[1] % 2:
        raise ValueError(f"expected a 2-D float weight with an even number of columns, got "
                         f"{tuple(weight.shape)} {weight.dtype}")


def quantize_groups(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(packed uint8 [rows, cols / 2], scale, zero [rows, groups]); ``q`` against the stored scale and zero."""
    check_shape(weight)
    rows, cols = weight.shape
    g = group_size(cols)
    w = weight.detach().float().reshape(rows, cols // g, g)
    low, high = w.amin(dim=2), w.amax(dim=2)
    tiny = torch.finfo(weight.dtype).tiny
    scale = ((high - low) / INT4_LEVELS).clamp(min=tiny).to(weight.dtype)
    zero = (low + INT4_OFFSET * scale.float()).to(weight.dtype)
    q = torch.round((w - zero.float()[..., None]) / scale.float()[..., None] + INT4_OFFSET)
    q = q.clamp_(0, INT4_LEVELS).to(torch.uint8).reshape(rows, cols)
    return q[:, 0::2] | (q[:, 1::2] << 4), scale, zero


def dequantize_groups(packed: torch.Tensor, scale: torch.Tensor, zero: torch.Tensor) -> torch.Tensor:
    """The float weight [rows, cols] the stored groups stand for, in the scales' dtype."""
    rows = packed.shape[0]
    q = torch.stack((packed & 0xF, packed >> 4), dim=-1).reshape(rows, scale.shape[1], -1)
    w = (q.to(scale.dtype) - INT4_OFFSET) * scale[..., None] + zero[..., None]
    return w.reshape(rows, -1)

