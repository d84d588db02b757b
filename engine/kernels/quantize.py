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

The matmul dequantises on the fly, in one of two forms: the unfused ``F.linear(x, q.to(dtype)) *
scale`` (the int8 weight is converted, then a float matmul), or ``torch._weight_int8pack_mm``
(one fused kernel that reads the int8 weight once). Fused is not automatically faster: torch's
CUDA kernel is a naive one (one thread per output, uncoalesced reads) and may lose to the
converted bf16 matmul. So the choice is measured, once per (device type, dtype), the first time a
quantised model computes there or when ``quantize_lm_int8`` runs for the device its weights are
on at that point (usually the CPU: quantisation happens before the move): the fused kernel must
agree with the unfused form, then both are timed at the 7B model's matmul shapes and the faster
is kept (``KERNEL_CHOICES`` records the times). The CPU always takes the unfused form: for one row
the fused CPU kernel measured 3-15x slower (2-core AMD EPYC VM, torch 2.13). The measurement runs
eagerly, never inside a graph capture, since a CUDA graph is captured after eager warm-up frames.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ..lm.model import LMModel
from ..streaming.transformer import StackedLinear, StreamingAttention

INT8_MAX = 127
_FUSED: dict[tuple[str, torch.dtype], bool] = {}  # (device type, dtype) -> the fused kernel is used
KERNEL_CHOICES: dict[tuple[str, torch.dtype], dict] = {}  # (device type, dtype) -> what was measured
# (in, out) of the 7B matmuls a frame runs most: temporal FFN in/out, depformer attention and FFN in
TIMED_SHAPES = ((4096, 22528), (11264, 4096), (1024, 3072), (1024, 5632))


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
    """Whether ``torch._weight_int8pack_mm`` is used here: it runs, agrees with the unfused form,
    and is faster at ``TIMED_SHAPES`` (cached per (device type, dtype); see the module docstring).

    Syncs with the device the first time for a (device type, dtype): call it eagerly.
    """
    key = (device.type, dtype)
    if key not in _FUSED:
        choice = {"fused_correct": False}
        if hasattr(torch, "_weight_int8pack_mm") and device.type not in ("cpu", "meta"):
            choice["fused_correct"] = _fused_agrees(device, dtype)
            if choice["fused_correct"]:
                choice.update(time_int8_kernels(device, dtype))
        choice["fused"] = bool(choice["fused_correct"] and choice["fused_ms"] < choice["unfused_ms"])
        KERNEL_CHOICES[key] = choice
        _FUSED[key] = choice["fused"]
    return _FUSED[key]


def _fused_agrees(device: torch.device, dtype: torch.dtype) -> bool:
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(3, 64, generator=gen).to(device, dtype)
    q, scale = quantize_rows(torch.randn(48, 64, generator=gen).to(device, dtype))
    try:
        got, want = _fused(x, q, scale).float(), _unfused(x, q, scale).float()
    except (RuntimeError, NotImplementedError):
        return False
    return bool((got - want).abs().max() <= 2e-2 * want.abs().max())


def time_int8_kernels(device: torch.device, dtype: torch.dtype, shapes=TIMED_SHAPES, repeats: int = 20) -> dict:
    """Milliseconds of one row through each matmul shape, summed: {"fused_ms", "unfused_ms"}
    (medians of ``repeats`` after a warm-up; CUDA events on a GPU, a wall clock elsewhere)."""
    import statistics
    import time

    totals = {"fused_ms": 0.0, "unfused_ms": 0.0}
    gen = torch.Generator().manual_seed(0)
    for n_in, n_out in shapes:
        x = torch.randn(1, n_in, generator=gen).to(device, dtype)
        q = torch.randint(-INT8_MAX, INT8_MAX + 1, (n_out, n_in), dtype=torch.int8, generator=gen).to(device)
        scale = torch.rand(n_out, generator=gen).to(device, dtype) * 1e-2
        for name, fn in (("fused_ms", _fused), ("unfused_ms", _unfused)):
            fn(x, q, scale)  # warm-up
            times = []
            for _ in range(repeats):
                if device.type == "cuda":
                    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    start.record()
                    fn(x, q, scale)
                    end.record()
                    end.synchronize()
                    times.append(start.elapsed_time(end))
                else:
                    t0 = time.perf_counter()
                    fn(x, q, scale)
                    times.append((time.perf_counter() - t0) * 1e3)
            totals[name] += statistics.median(times)
    return {k: round(v, 4) for k, v in totals.items()}


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
