"""Quantised weights of the LM's matmuls in pure torch, and the machinery that puts them in a model.

Every 2-D float parameter outside embeddings is a matmul weight, so ``quantize_lm`` needs to know
nothing of the model's classes. The parameter becomes a property returning a weight object that
supports row slicing and ``F.linear``, its tensors buffers of the module (``<name>_<part>``). On the
meta device, ``load_targets`` lets a checkpoint be quantised as it streams in.
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
    quantized = kind.laid_out(weight) if weight.is_meta else kind.quantize(weight)
    del module._parameters[name]
    for part, tensor in zip(kind.PARTS, quantized.tensors()):
        module.register_buffer(f"{name}_{part}", tensor)
    module.__class__ = _quantized_class(type(module), name, kind)


def quantize_lm(lm: nn.Module, kind: type) -> nn.Module:
    """Quantise every matmul weight of ``lm`` to ``kind`` in place (not modules marked ``keeps_float32``)."""
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
    """Checkpoint key -> what its file tensor is copied into (a quantised weight's object quantises it)."""
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
    """Bytes of the model's weights, each stored tensor once: {"quantized", "float", "total"}."""
    out = {"quantized": 0, "float": 0}
    quantized = {id(t) for m in module.modules() for name in getattr(m, "quantized_weights", {})
                 for t in getattr(m, name).tensors()}
    for t in distinct_tensors(module).values():
        out["quantized" if id(t) in quantized else "float"] += t.numel() * t.element_size()
    out["total"] = sum(out.values())
    return out
