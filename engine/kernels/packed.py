"""Matmuls through oneDNN-prepacked weights on CPU.

For the one or two rows of a streaming step, MKL's sgemm streams a large fp32 weight at
~12-17 GB/s on this kind of CPU; oneDNN's kernel on a prepacked copy streams it at ~50 GB/s
(the memory bandwidth). A packed copy is derived data: modules keep their parameters (and
checkpoint names) and rebuild the copy with ``repack()`` whenever the weights change or move.
Off CPU, for other dtypes, or before packing, everything is a plain ``F.linear``.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

PACK_ROWS_HINT = 128  # oneDNN's batch hint for the packed layout (measured on Mimi's layers)


class PackedMatmul:
    """``x @ weight.T + bias`` for a fixed 2-D weight, through a oneDNN-prepacked copy on CPU.

    Holds no parameters; ``pack`` must be called again whenever the owner's weight changes.
    """

    def __init__(self):
        self.packed: torch.Tensor | None = None
        self.dtype: torch.dtype | None = None

    def pack(self, weight: torch.Tensor, rows_hint: int = PACK_ROWS_HINT) -> None:
        self.packed = None
        if weight.device.type == "cpu" and weight.dtype == torch.float32 and torch.backends.mkldnn.is_available():
            with torch.no_grad():
                self.packed = torch.ops.mkldnn._reorder_linear_weight(weight.detach().contiguous(), rows_hint)
            self.dtype = weight.dtype

    def __call__(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
        if self.packed is not None and x.device.type == "cpu" and x.dtype == self.dtype:
            return torch.ops.mkldnn._linear_pointwise(x, self.packed, bias, "none", [], "")
        return F.linear(x, weight, bias)


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

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self._matmul(x, self.weight, self.bias)


def pack_linears(module: nn.Module) -> None:
    """Give every plain ``nn.Linear`` under ``module`` the packed kernel (a ``PackedLinear``
    sharing its parameters), then ``repack()`` every module that has packed data (linears,
    convolutions, attention projections). Idempotent; call again after changing weights."""
    for parent in list(module.modules()):
        for name, child in list(parent.named_children()):
            if type(child) is nn.Linear:
                setattr(parent, name, PackedLinear.sharing(child))
    for m in module.modules():
        repack = getattr(m, "repack", None)
        if callable(repack):
            repack()
