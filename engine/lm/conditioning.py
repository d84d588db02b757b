"""Conditioning a Moshi-family LM: lookup-table conditioners (Hibiki's quality description, Kyutai
TTS's cfg and control) summed into every step's input, and tensor conditioners (Kyutai TTS's
speaker embeddings) that the temporal transformer cross-attends to. As in the reference they stay
float32 whatever the model's precision. Nothing is prepended."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from ..streaming.layers import sin_embedding
from ..streaming.transformer import init_normal

FUSER_METHODS = ("sum", "prepend", "cross")
_MAX_BINS = 1 << 20
_MAX_DIM = 1 << 16


@dataclass(frozen=True)
class LutSpec:
    """One lookup-table conditioner: ``n_bins`` values embedded in ``dim``."""

    name: str
    n_bins: int
    dim: int
    possible_values: tuple[str, ...] | None = None

    def bin_of(self, value: str | None) -> int:
        """The table row of ``value`` (None: the padding row, ``n_bins``)."""
        if value is None:
            return self.n_bins
        if self.possible_values is None:
            return int(hashlib.sha256(value.encode("utf-8")).hexdigest(), 16) % self.n_bins
        if value not in self.possible_values:
            raise ValueError(f"conditioner {self.name!r} has no value {value!r} "
                             f"(it knows {', '.join(self.possible_values)})")
        return self.possible_values.index(value)


@dataclass(frozen=True)
class TensorSpec:
    """One tensor conditioner: ``dim``-wide vectors (a voice's speaker embeddings), cross-attended."""

    name: str
    dim: int


@dataclass(frozen=True)
class CrossFusion:
    """How the cross-attended conditions are joined: in order along time, plus a sinusoidal
    position embedding times ``pos_emb_scale`` where ``pos_emb``."""

    names: tuple[str, ...]
    pos_emb: bool = False
    pos_emb_scale: float = 1.0


def parse_conditioners(config: Mapping[str, Any]) -> tuple[tuple[LutSpec | TensorSpec, ...], CrossFusion | None]:
    """The conditioners a hub ``config.json`` declares, summed ones first in the fuser's order, and
    the cross fusion (ValueError for what Parley does not run)."""
    conditioners = config.get("conditioners") or {}
    fuser = config.get("fuser") or {}
    if not isinstance(conditioners, Mapping) or not isinstance(fuser, Mapping):
        raise ValueError("config keys 'conditioners' and 'fuser' must be objects")
    if fuser.get("prepend"):
        raise ValueError(f"config key 'fuser' prepends conditions {fuser['prepend']!r}: Parley runs only "
                         "summed and cross-attended conditions")
    summed, cross = fuser.get("sum") or [], fuser.get("cross") or []
    if not isinstance(summed, list) or not isinstance(cross, list) or sorted(summed + cross) != sorted(conditioners) \
            or len(set(summed + cross)) != len(summed) + len(cross):
        raise ValueError(f"config key 'fuser' must sum or cross-attend each of the conditioners "
                         f"{sorted(conditioners)} once, got {summed!r} and {cross!r}")
    specs = tuple(_lut_spec(name, conditioners[name]) for name in summed)
    specs += tuple(_tensor_spec(name, conditioners[name]) for name in cross)
    if not cross:
        return specs, None
    scale = fuser.get("cross_attention_pos_emb_scale", 1.0)
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 <= scale <= 1e3:
        raise ValueError(f"config key 'fuser.cross_attention_pos_emb_scale' is {scale!r}: expected a number")
    return specs, CrossFusion(tuple(cross), fuser.get("cross_attention_pos_emb", False) is True, float(scale))


def _tensor_spec(name: str, entry: Any) -> TensorSpec:
    if not isinstance(entry, Mapping) or entry.get("type") != "tensor" or not isinstance(entry.get("tensor"), Mapping) \
            or set(entry["tensor"]) != {"dim"}:
        raise ValueError(f"conditioner {name!r} is cross-attended: it must be of type 'tensor' with a dim")
    dim = entry["tensor"]["dim"]
    if isinstance(dim, bool) or not isinstance(dim, int) or not 1 <= dim <= _MAX_DIM:
        raise ValueError(f"conditioner {name!r}: dim must be an integer in [1, {_MAX_DIM}], got {dim!r}")
    return TensorSpec(name, dim)


def _lut_spec(name: str, entry: Any) -> LutSpec:
    if not isinstance(entry, Mapping) or entry.get("type") != "lut" or not isinstance(entry.get("lut"), Mapping):
        raise ValueError(f"conditioner {name!r} is summed: it must be of type 'lut' (a lookup table)")
    lut = entry["lut"]
    if lut.get("tokenizer") != "noop":
        raise ValueError(f"conditioner {name!r}: only the 'noop' tokenizer is supported, got {lut.get('tokenizer')!r}")
    unknown = set(lut) - {"n_bins", "dim", "tokenizer", "possible_values"}
    if unknown:
        raise ValueError(f"conditioner {name!r}: unsupported keys {sorted(unknown)}")
    n_bins, dim, values = lut.get("n_bins"), lut.get("dim"), lut.get("possible_values")
    for key, value, high in (("n_bins", n_bins, _MAX_BINS), ("dim", dim, _MAX_DIM)):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
            raise ValueError(f"conditioner {name!r}: {key} must be an integer in [1, {high}], got {value!r}")
    if values is not None and (not isinstance(values, list) or not all(isinstance(v, str) for v in values)
                               or len(values) > n_bins or len(set(values)) != len(values)):
        raise ValueError(f"conditioner {name!r}: possible_values must be at most n_bins distinct strings")
    return LutSpec(name, n_bins, dim, None if values is None else tuple(values))


class _Conditioner(nn.Module):
    """A conditioner's projection and learnt padding, always float32."""

    def __init__(self, spec: LutSpec | TensorSpec, output_dim: int, device=None):
        super().__init__()
        kw = {"device": device, "dtype": torch.float32}
        self.spec = spec
        self.output_proj = _FloatProjection(spec.dim, output_dim, **kw)
        self.learnt_padding = nn.Parameter(torch.zeros(1, 1, output_dim, **kw), requires_grad=False)
        init_normal(self.learnt_padding, std=0.2)  # the reference's initial scale (a checkpoint replaces it)

    def _padded(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        maskf = mask.float()[..., None]
        return self.output_proj(x) * maskf + self.learnt_padding * (1 - maskf)


class LutConditioner(_Conditioner):
    def __init__(self, spec: LutSpec, output_dim: int, device=None):
        super().__init__(spec, output_dim, device)
        self.embed = nn.Embedding(spec.n_bins + 1, spec.dim, device=device, dtype=torch.float32)

    def condition(self, values: Sequence[str | None]) -> torch.Tensor:
        """[len(values), 1, output_dim] float32: each value's condition, as the reference computes it."""
        device = self.embed.weight.device
        bins = torch.tensor([[self.spec.bin_of(v)] for v in values], device=device)
        mask = torch.tensor([[v is not None] for v in values], device=device)
        return self._padded(self.embed(bins), mask)


class TensorConditioner(_Conditioner):
    def condition(self, tensor: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """tensor [B, T, dim] and mask [B, T] (False: padding) -> [B, T, output_dim] float32."""
        if tensor.dim() != 3 or tensor.shape[-1] != self.spec.dim or tuple(mask.shape) != tuple(tensor.shape[:2]):
            raise ValueError(f"conditioner {self.spec.name!r} takes [batch, time, {self.spec.dim}] vectors and "
                             f"a [batch, time] mask, got {tuple(tensor.shape)} and {tuple(mask.shape)}")
        device = self.output_proj.weight.device
        return self._padded(tensor.to(device, torch.float32), mask.to(device))


class _FloatProjection(nn.Module):
    """A bias-free float32 linear map that kernel plans and quantisation leave alone."""

    keeps_float32 = True

    def __init__(self, in_features: int, out_features: int, device=None, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(out_features, in_features, device=device, dtype=dtype),
                                   requires_grad=False)
        init_normal(self.weight, std=in_features ** -0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.weight)


class ConditionProvider(nn.Module):
    """The model's conditioners (``condition_provider.conditioners.<name>``)."""

    def __init__(self, specs: Sequence[LutSpec | TensorSpec], output_dim: int, cross: CrossFusion | None = None,
                 device=None):
        super().__init__()
        self.cross = cross
        self.conditioners = nn.ModuleDict({
            s.name: (LutConditioner if isinstance(s, LutSpec) else TensorConditioner)(s, output_dim, device)
            for s in specs})

    def summed(self, batch: Sequence[Mapping[str, str | None]]) -> torch.Tensor:
        """[len(batch), 1, output_dim] float32: each item's conditions summed in the fuser's order."""
        total = None
        for name, conditioner in self.conditioners.items():
            if isinstance(conditioner, LutConditioner):
                cond = conditioner.condition([item.get(name) for item in batch])
                total = cond if total is None else total + cond
        if total is None:
            raise ValueError("this model has no summed conditioners")
        return total

    def cross_source(self, tensors: Mapping[str, tuple[torch.Tensor, torch.Tensor]]) -> torch.Tensor:
        """What the transformer cross-attends to, [B, T, output_dim] float32, from each cross
        condition's (tensor [B, T_i, dim], mask [B, T_i]), joined along time in the fuser's order."""
        if self.cross is None:
            raise ValueError("this model cross-attends to no condition")
        missing = set(self.cross.names) - set(tensors)
        if missing:
            raise ValueError(f"missing the conditions {sorted(missing)}")
        source = torch.cat([self.conditioners[n].condition(*tensors[n]) for n in self.cross.names], dim=1)
        if self.cross.pos_emb:
            positions = torch.arange(source.shape[1], device=source.device).view(1, -1, 1)
            source = source + self.cross.pos_emb_scale * sin_embedding(positions, source.shape[-1])
        return source
