"""Int8 weight-only quantisation of the LM in pure torch (no Triton, no bitsandbytes).

Every matmul weight of the LM (attention ``in_proj_weight`` and ``out_proj.weight``, the gated
FFNs' ``linear_in``/``linear_out``, ``text_linear``, ``depformer_in``, ``linears``; temporal
transformer and depformer alike) is stored as int8 with one symmetric scale per output row:
``w ~ q * scale[:, None]``, ``q = round(w / scale)`` in [-127, 127], ``scale = max|w_row| / 127``
kept in the model's dtype. Embeddings and norms stay in float. For the 7B Moshi that is 7.4 B
int8 weights + 0.3 B bf16 embedding weights ~ 8 GB instead of 15.4 GB.

Per-row scales survive row slicing, which is how the stacked per-step parameters are used (the
depformer takes rows ``[step * 3d, (step + 1) * 3d)`` of its ``in_proj_weight`` each step), so
the model code does not change: the float parameter is replaced by a property returning an
``Int8Weight``, a tensor-like object that supports row slicing and ``F.linear`` (through the
``__torch_function__`` protocol). The int8 rows and scales are registered buffers of the owning
module (``<name>_int8``, ``<name>_scale``), so ``.to(device)`` moves them and ``state_dict`` holds
them: quantise on the CPU, then move, to fit a 12 GB GPU.

The matmul dequantises on the fly: on accelerators ``torch._weight_int8pack_mm`` (one fused
kernel: the int8 weight is read once) where this torch build supports the device and dtype,
checked once per (device type, dtype) by comparing it with the unfused form
``F.linear(x, q.to(dtype)) * scale``, which is used otherwise. The CPU always takes the unfused
form: for one row the fused CPU kernel measured 3-15x slower here (2-core AMD EPYC VM, torch 2.13).
The check runs eagerly the first time a quantised model computes on a device
(``quantize_lm_int8`` runs it for the model's device), never inside a graph capture, since a
CUDA graph is captured after eager warm-up frames.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ..lm.model import LMModel
from ..streaming.transformer import StackedLinear, StreamingAttention

INT8_MAX = 127
_FUSED: dict[tuple[str, torch.dtype], bool] = {}  # (device type, dtype) -> fused kernel usable


class Int8Weight:
    """A row-quantised 2-D weight standing in for the float parameter it replaced.

    Supports what the model does with its weights: row slicing (``w[a:b]``) and ``F.linear``.
    Any other torch function raises a TypeError naming it.
    """

    __slots__ = ("q", "scale")

    def __init__(self, q: torch.Tensor, scale: torch.Tensor):
        self.q, self.scale = q, scale

    @property
    def shape(self) -> torch.Size:
        return self.q.shape

    @property
    def dtype(self) -> torch.dtype:
        """The compute dtype (what the float weight had)."""
        return self.scale.dtype

    @property
    def device(self) -> torch.device:
        return self.q.device

    def __getitem__(self, rows: slice) -> Int8Weight:
        if not isinstance(rows, slice):
            raise TypeError(f"an int8 weight supports row slices only, got {rows!r}")
        return Int8Weight(self.q[rows], self.scale[rows])

    def dequantize(self) -> torch.Tensor:
        return self.q.to(self.dtype) * self.scale[:, None]

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is F.linear:
            x, weight = args[0], args[1]
            bias = args[2] if len(args) > 2 else kwargs.get("bias")
            y = int8_linear(x, weight.q, weight.scale)
            return y if bias is None else y + bias
        raise TypeError(f"{getattr(func, '__name__', func)} is not supported on an int8 weight")


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


def _unfused(x: torch.Tensor, q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return F.linear(x, q.to(x.dtype)) * scale.to(x.dtype)


def _fused(x: torch.Tensor, q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    out = torch._weight_int8pack_mm(x.reshape(-1, x.shape[-1]).contiguous(), q, scale.to(x.dtype))
    return out.view(*x.shape[:-1], q.shape[0])


def fused_kernel_usable(device: torch.device, dtype: torch.dtype) -> bool:
    """Whether ``torch._weight_int8pack_mm`` runs here and agrees with the unfused form (cached).

    Syncs with the device the first time for a (device type, dtype): call it eagerly.
    """
    key = (device.type, dtype)
    if key not in _FUSED:
        ok = hasattr(torch, "_weight_int8pack_mm") and device.type not in ("cpu", "meta")
        if ok:
            gen = torch.Generator().manual_seed(0)
            x = torch.randn(3, 64, generator=gen).to(device, dtype)
            q, scale = quantize_rows(torch.randn(48, 64, generator=gen).to(device, dtype))
            try:
                got, want = _fused(x, q, scale).float(), _unfused(x, q, scale).float()
                ok = bool((got - want).abs().max() <= 2e-2 * want.abs().max())
            except (RuntimeError, NotImplementedError):
                ok = False
        _FUSED[key] = ok
    return _FUSED[key]


def int8_linear(x: torch.Tensor, q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """``x @ (q * scale[:, None]).T`` in x's dtype, dequantising on the fly."""
    if fused_kernel_usable(x.device, x.dtype):
        return _fused(x, q, scale)
    return _unfused(x, q, scale)


def _int8_class(cls: type, name: str) -> type:
    """``cls`` with ``name`` as a property reading the int8 buffers (subclasses cached per name)."""
    key = (cls, name)
    if key not in _CLASSES:
        def read(module: nn.Module) -> Int8Weight:
            return Int8Weight(module._buffers[f"{name}_int8"], module._buffers[f"{name}_scale"])

        _CLASSES[key] = type(f"Int8{cls.__name__}", (cls,), {name: property(read), "__module__": __name__})
    return _CLASSES[key]


_CLASSES: dict[tuple[type, str], type] = {}


def quantize_module_weight(module: nn.Module, name: str) -> None:
    """Replace the float parameter ``module.<name>`` by int8 buffers behind an ``Int8Weight`` property."""
    weight = module._parameters.get(name)
    if weight is None:
        raise ValueError(f"{type(module).__name__} has no float parameter {name!r} to quantise")
    q, scale = quantize_rows(weight)
    del module._parameters[name]
    module.register_buffer(f"{name}_int8", q)
    module.register_buffer(f"{name}_scale", scale)
    module.__class__ = _int8_class(type(module), name)


def quantize_lm_int8(lm: LMModel) -> LMModel:
    """Quantise every matmul weight of ``lm`` to int8 in place (see the module docstring).

    Already quantised weights are left as they are. Returns ``lm``.
    """
    for module in lm.modules():
        if isinstance(module, StreamingAttention) and "in_proj_weight" in module._parameters:
            quantize_module_weight(module, "in_proj_weight")
        elif isinstance(module, (nn.Linear, StackedLinear)) and "weight" in module._parameters:
            quantize_module_weight(module, "weight")
    embedding = lm.text_emb.weight
    fused_kernel_usable(embedding.device, embedding.dtype)
    return lm


def weight_bytes(module: nn.Module) -> dict[str, int]:
    """Bytes of the model's weights: {"int8": ..., "scales": ..., "float": ..., "total": ...}."""
    out = {"int8": 0, "scales": 0, "float": 0}
    for name, t in [*module.named_parameters(), *module.named_buffers()]:
        kind = "int8" if name.endswith("_int8") else "scales" if name.endswith("_scale") else "float"
        out[kind] += t.numel() * t.element_size()
    out["total"] = sum(out.values())
    return out
