"""Quantised weights of the LM's matmuls in pure torch (no Triton, no bitsandbytes): the weight
kinds ``Int8Weight`` (``engine.kernels.int8``), ``Float8Weight`` (``engine.kernels.fp8``) and
``Int4Weight`` (``engine.kernels.int4``), and the machinery that puts them in a model.

Every matmul weight of the LM (attention ``in_proj_weight`` and ``out_proj.weight``, the gated
FFNs' ``linear_in``/``linear_out``, ``text_linear``, ``depformer_in``, ``linears``; temporal
transformer and depformer alike) is a 2-D float parameter of a module that is not an embedding:
that is the rule ``quantize_lm`` applies, so this module needs to know nothing of the model's
classes. Embeddings and norms stay in float.

A quantised weight keeps its rows independent (per-row int8 scales; 4-bit groups within a row),
which is how the stacked per-step parameters are used (the depformer takes rows ``[step * 3d,
(step + 1) * 3d)`` of its ``in_proj_weight`` each step), so the model code does not change: the
float parameter is replaced by a property returning the weight object, a tensor-like object that
supports row slicing and ``F.linear`` (through the ``__torch_function__`` protocol). Its tensors
are registered buffers of the owning module (``<name>_<part>``, e.g. ``weight_int8`` and
``weight_scale``), so ``.to(device)`` moves them and ``state_dict`` holds them.

A model can be quantised on the meta device, before any weight exists: ``load_targets`` then
gives the loader each weight object, whose ``copy_`` quantises the float rows copied into it, so
a checkpoint is quantised as it streams (``engine.lm.model.load_lm``).
"""

from __future__ import annotations

from collections.abc import Callable

from torch import nn

from ..checkpoint import Target, distinct_tensors
from .fp8 import Float8Weight
from .int4 import Int4Weight
from .int8 import Int8Weight

WEIGHT_KINDS = {"int8": Int8Weight, "fp8": Float8Weight, "int4": Int4Weight}
_CLASSES: dict[tuple[type, str, type], type] = {}


def _quantized_class(cls: type, name: str, kind: type) -> type:
    """``cls`` with ``name`` as a property reading the ``kind`` buffers (subclasses cached)."""
    key = (cls, name, kind)
    if key not in _CLASSES:
        def read(module: nn.Module):
            return kind.of_module(module, name)

        quantized = {**getattr(cls, "quantized_weights", {}), name: kind}
        _CLASSES[key] = type(f"{kind.__name__.removesuffix('Weight')}{cls.__name__}", (cls,),
                             {name: property(read), "quantized_weights": quantized, "__module__": __name__})
    return _CLASSES[key]


def quantize_module_weight(module: nn.Module, name: str, kind: type = Int8Weight) -> None:
    """Replace the float parameter ``module.<name>`` by ``kind`` buffers behind a property."""
    weight = module._parameters.get(name)
    if weight is None:
        raise ValueError(f"{type(module).__name__} has no float parameter {name!r} to quantise")
    quantized = kind.quantize(weight)
    del module._parameters[name]
    for part, tensor in zip(kind.PARTS, quantized.tensors()):
        module.register_buffer(f"{name}_{part}", tensor)
    module.__class__ = _quantized_class(type(module), name, kind)


def quantize_lm(lm: nn.Module, kind: type) -> nn.Module:
    """Quantise every matmul weight of ``lm`` (every 2-D float parameter outside embeddings) to
    ``kind`` in place; already quantised weights are left as they are, and so are modules marked
    ``keeps_float32`` (``engine.lm.conditioning``). Works on the meta device. Returns ``lm``."""
    for module in lm.modules():
        if isinstance(module, nn.Embedding) or getattr(module, "keeps_float32", False):
            continue
        for name, param in list(module._parameters.items()):
            if param is not None and param.dim() == 2 and param.is_floating_point():
                quantize_module_weight(module, name, kind)
    return lm


def quantize_lm_int8(lm: nn.Module) -> nn.Module:
    """``quantize_lm`` with ``Int8Weight``."""
    return quantize_lm(lm, Int8Weight)


def quantize_lm_int4(lm: nn.Module) -> nn.Module:
    """``quantize_lm`` with ``Int4Weight`` (experimental: see ``engine.kernels.int4``)."""
    return quantize_lm(lm, Int4Weight)


def quantizer(precision: str) -> Callable[[nn.Module], nn.Module] | None:
    """The function that quantises a model for ``precision`` ("int8", "fp8", "int4"), None for a float one."""
    kind = WEIGHT_KINDS.get(precision)
    return None if kind is None else (lambda lm: quantize_lm(lm, kind))


def load_targets(module: nn.Module) -> dict[str, Target]:
    """Checkpoint key -> what the file tensor of that key is copied into: each distinct float
    tensor, and for a quantised weight its weight object (under the float weight's key), which
    quantises the rows copied into it."""
    targets = dict(distinct_tensors(module))
    seen: set[int] = set()
    for prefix, owner in module.named_modules():
        for name, kind in getattr(owner, "quantized_weights", {}).items():
            key = f"{prefix}.{name}" if prefix else name
            for part in kind.PARTS:
                targets.pop(f"{key}_{part}", None)
            weight = getattr(owner, name)
            first = id(weight.tensors()[0])
            if first not in seen:  # a module shared between steps is loaded once
                seen.add(first)
                targets[key] = weight
    return targets


def weight_bytes(module: nn.Module) -> dict[str, int]:
    """Bytes of the model's weights, each stored tensor once: {"quantized": ..., "float": ...,
    "total": ...} ("quantized": the buffers of quantised weights, scales included)."""
    out = {"quantized": 0, "float": 0}
    quantized = {id(t) for m in module.modules() for name in getattr(m, "quantized_weights", {})
                 for t in getattr(m, name).tensors()}
    for t in distinct_tensors(module).values():
        out["quantized" if id(t) in quantized else "float"] += t.numel() * t.element_size()
    out["total"] = sum(out.values())
    return out
