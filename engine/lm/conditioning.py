"""Conditioning a Moshi-family LM on a few words (Hibiki's quality description): lookup-table
conditioners whose summed output is added to every step's input. As in the reference they stay
float32 whatever the model's precision. Only summed "lut" conditioners are accepted."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

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


def parse_conditioners(config: Mapping[str, Any]) -> tuple[LutSpec, ...]:
    """The summed conditioners a hub ``config.json`` declares (ValueError for what Parley does not run)."""
    conditioners = config.get("conditioners") or {}
    fuser = config.get("fuser") or {}
    if not isinstance(conditioners, Mapping) or not isinstance(fuser, Mapping):
        raise ValueError("config keys 'conditioners' and 'fuser' must be objects")
    for method in ("prepend", "cross"):
        if fuser.get(method):
            raise ValueError(f"config key 'fuser' {method}s conditions {fuser[method]!r}: Parley runs only "
                             "summed conditions")
    summed = fuser.get("sum") or []
    if not isinstance(summed, list) or sorted(summed) != sorted(conditioners) or len(set(summed)) != len(summed):
        raise ValueError(f"config key 'fuser' must sum exactly the conditioners {sorted(conditioners)}, "
                         f"got {summed!r}")
    return tuple(_lut_spec(name, conditioners[name]) for name in summed)


def _lut_spec(name: str, entry: Any) -> LutSpec:
    if not isinstance(entry, Mapping) or entry.get("type") != "lut" or not isinstance(entry.get("lut"), Mapping):
        raise ValueError(f"conditioner {name!r} must be of type 'lut' (a lookup table): Parley runs no other kind")
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


class LutConditioner(nn.Module):
    """One conditioner's weights, always float32."""

    def __init__(self, spec: LutSpec, output_dim: int, device=None):
        super().__init__()
        kw = {"device": device, "dtype": torch.float32}
        self.spec = spec
        self.embed = nn.Embedding(spec.n_bins + 1, spec.dim, **kw)
        self.output_proj = _FloatProjection(spec.dim, output_dim, **kw)
        self.learnt_padding = nn.Parameter(torch.zeros(1, 1, output_dim, **kw), requires_grad=False)
        init_normal(self.learnt_padding, std=0.2)  # the reference's initial scale (a checkpoint replaces it)

    def condition(self, values: Sequence[str | None]) -> torch.Tensor:
        """[len(values), 1, output_dim] float32: each value's condition, as the reference computes it."""
        device = self.embed.weight.device
        bins = torch.tensor([[self.spec.bin_of(v)] for v in values], device=device)
        mask = torch.tensor([[v is not None] for v in values], device=device).float()[..., None]
        cond = self.output_proj(self.embed(bins))
        return cond * mask + self.learnt_padding * (1 - mask)


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

    def __init__(self, specs: Sequence[LutSpec], output_dim: int, device=None):
        super().__init__()
        self.conditioners = nn.ModuleDict({s.name: LutConditioner(s, output_dim, device) for s in specs})

    def summed(self, batch: Sequence[Mapping[str, str]]) -> torch.Tensor:
        """[len(batch), 1, output_dim] float32: each item's conditions summed in the fuser's order."""
        total = None
        for name, conditioner in self.conditioners.items():
            cond = conditioner.condition([item.get(name) for item in batch])
            total = cond if total is None else total + cond
        if total is None:
            raise ValueError("this model has no conditioners")
        return total
