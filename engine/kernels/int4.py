"""4-bit weights (experimental, opt-in): group-wise asymmetric int4, the layout of gpt-fast and
torch's ``_weight_int4pack_mm``: each row is cut into groups of ``group_size(cols)`` columns, and
each group holds ``w ~ (q - 8) * scale + zero`` with ``q`` in [0, 15], ``scale = (max - min) / 15``
and ``zero = min + 8 * scale`` (both in the model's dtype). Two values share a byte (the even
column in the low nibble), so a row of ``cols`` weights takes ``cols / 2`` bytes plus
``4 * cols / group`` bytes of scales and zeros: about 4.25 bits a weight at groups of 128, so the
7B LM's matmul weights take about 3.9 GB.

The stored layout keeps rows independent (the depformer slices rows per step), so the matmul
dequantises the rows it is given and multiplies in float: the plain path, which is also the
reference a fused kernel must equal. torch's fused int4 kernels need their own tiled layouts (CUDA:
``_convert_weight_to_int4pack``, rows in blocks; CPU: ``_convert_weight_to_int4pack_for_cpu``,
rows in blocks of 16), measured as GPU candidates by ``bench/gpu_check.py``.

4-bit loses quality that random test weights cannot show (users report that a 4-bit PersonaPlex
can lose the thread): it is never chosen unless a person asks for it.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from .weight import QuantizedWeight

INT4_LEVELS = 15
INT4_OFFSET = 8
GROUP_SIZES = (128, 64, 32)  # the first that divides a row's length; else the whole row is one group


def group_size(cols: int) -> int:
    return next((g for g in GROUP_SIZES if cols % g == 0), cols)


class Int4Weight(QuantizedWeight):
    """A group-quantised 2-D weight standing in for the float parameter it replaced."""

    PARTS = ("int4", "scale", "zero")  # buffer suffixes, in constructor order
    __slots__ = ("packed", "scale", "zero")

    def __init__(self, packed: torch.Tensor, scale: torch.Tensor, zero: torch.Tensor):
        self.packed, self.scale, self.zero = packed, scale, zero

    @classmethod
    def quantize(cls, weight: torch.Tensor) -> Int4Weight:
        return cls(*quantize_groups(weight))

    @property
    def shape(self) -> torch.Size:
        return torch.Size((self.packed.shape[0], 2 * self.packed.shape[1]))

    def dequantized(self) -> torch.Tensor:
        return dequantize_groups(self.packed, self.scale, self.zero)

    def linear(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.dequantized().to(x.dtype))


def quantize_groups(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(packed uint8 [rows, cols / 2], scale [rows, groups], zero [rows, groups]) in the weight's
    dtype; ``q`` is computed against the stored (rounded) scale and zero."""
    if weight.dim() != 2 or not weight.is_floating_point() or weight.shape[1] % 2:
        raise ValueError(f"expected a 2-D float weight with an even number of columns, got "
                         f"{tuple(weight.shape)} {weight.dtype}")
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

