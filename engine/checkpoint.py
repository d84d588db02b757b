"""Loading released checkpoints into our modules: key normalisation and strict, explained loading."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

import torch
from safetensors import safe_open
from torch import nn

_SPLIT = re.compile(r"^(?P<prefix>.*(?:self_attn|cross_attention)\.)(?P<kind>in_projs|out_projs)\.(?P<i>\d+)\.weight$")


@dataclass(frozen=True)
class Source:
    """Where one model tensor comes from: the file tensors ``keys`` concatenated along dim 0."""

    keys: tuple[str, ...]


Shapes = Mapping[str, tuple[int, ...]]


class Target(Protocol):
    """What a checkpoint tensor is copied into: a tensor, or a quantised weight converting what it gets."""

    shape: torch.Size

    def __getitem__(self, rows: slice) -> Target: ...

    def copy_(self, source: torch.Tensor) -> object: ...


def stacked_sources(file_shapes: Shapes) -> dict[str, Source]:
    """Model key -> Source for every tensor of a file; split ``in_projs.{i}`` / ``out_projs.{i}``
    attention weights are stacked in step order, as the released files store them."""
    out: dict[str, Source] = {}
    groups: dict[str, dict[int, str]] = {}
    for key in file_shapes:
        m = _SPLIT.match(key)
        if m is None:
            out[key] = Source((key,))
            continue
        name = "in_proj_weight" if m["kind"] == "in_projs" else "out_proj.weight"
        groups.setdefault(m["prefix"] + name, {})[int(m["i"])] = key
    for key, parts in groups.items():
        if sorted(parts) != list(range(len(parts))):
            raise ValueError(f"checkpoint has gaps in the per-step attention weights for {key}")
        out[key] = Source(tuple(parts[i] for i in range(len(parts))))
    return out


def source_shape(source: Source, file_shapes: Shapes, key: str = "") -> tuple[int, ...]:
    """The shape of the tensor ``source`` builds (ValueError if its parts cannot be stacked)."""
    parts = [tuple(file_shapes[k]) for k in source.keys]
    if len(parts) == 1:
        return parts[0]
    if any(len(p) == 0 or p[1:] != parts[0][1:] for p in parts):
        raise ValueError(f"checkpoint tensors {', '.join(source.keys)} for {key} cannot be stacked: shapes {parts}")
    return (sum(p[0] for p in parts), *parts[0][1:])


def stack_split_attention(state_dict: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """A whole state dict with split attention weights stacked (see ``stacked_sources``)."""
    sources = stacked_sources({k: tuple(v.shape) for k, v in state_dict.items()})
    return {k: state_dict[s.keys[0]] if len(s.keys) == 1 else torch.cat([state_dict[p] for p in s.keys])
            for k, s in sources.items()}


def distinct_tensors(module: nn.Module) -> dict[str, torch.Tensor]:
    """``module``'s state with each tensor once, under its first key (PersonaPlex's shared depth steps)."""
    out: dict[str, torch.Tensor] = {}
    seen: set[int] = set()
    for key, tensor in module.state_dict(keep_vars=True).items():
        if id(tensor) not in seen:
            seen.add(id(tensor))
            out[key] = tensor
    return out


def check_strict(module: nn.Module, shapes: Mapping[str, tuple[int, ...]], what: str,
                 ignore: tuple[str, ...] = (), targets: Mapping[str, Target] | None = None) -> dict[str, Target]:
    """Check that every target of ``module`` is in ``shapes`` with its shape and no key outside
    ``ignore`` is left over; returns the targets."""
    params = dict(distinct_tensors(module) if targets is None else targets)
    missing = sorted(set(params) - set(shapes))
    unexpected = sorted(k for k in set(shapes) - set(params) if not k.startswith(ignore))
    wrong = [f"{k}: file {tuple(shapes[k])}, model {tuple(params[k].shape)}"
             for k in sorted(set(params) & set(shapes)) if tuple(params[k].shape) != tuple(shapes[k])]
    if missing or unexpected or wrong:
        problems = []
        if missing:
            problems.append(f"{len(missing)} missing keys (e.g. {', '.join(missing[:3])})")
        if unexpected:
            problems.append(f"{len(unexpected)} unexpected keys (e.g. {', '.join(unexpected[:3])})")
        problems += wrong[:4]
        raise ValueError(f"{what} does not match the expected model: " + "; ".join(problems))
    return params


def load_strict(module: nn.Module, state_dict: Mapping[str, torch.Tensor], what: str,
                ignore: tuple[str, ...] = ()) -> None:
    """Copy a checkpoint into ``module`` (cast to each parameter's dtype), after ``check_strict``."""
    params = check_strict(module, {k: tuple(v.shape) for k, v in state_dict.items()}, what, ignore)
    with torch.no_grad():
        for k, p in params.items():
            p.copy_(state_dict[k])


def _open(path: str | os.PathLike):
    # pread, not mmap: mapped pages stay resident until closed, so the whole file would end in host RAM.
    return safe_open(os.fspath(path), framework="pt", device="cpu", backend="pread")


def _shapes(f) -> dict[str, tuple[int, ...]]:
    return {k: tuple(f.get_slice(k).get_shape()) for k in f.keys()}  # noqa: SIM118 (not a dict)


def checkpoint_shapes(path: str | os.PathLike) -> dict[str, tuple[int, ...]]:
    """File key -> shape of a safetensors file, from its header (no tensor is read)."""
    with _open(path) as f:
        return _shapes(f)


def load_strict_streaming(module: nn.Module, path: str | os.PathLike, what: str,
                          targets: Mapping[str, Target] | None = None, ignore: tuple[str, ...] = ()) -> None:
    """Copy a safetensors file into ``module`` one file tensor at a time (host memory holds one tensor,
    not the whole file), after ``check_strict``. ``targets`` may convert what is copied (quantised weights)."""
    with _open(path) as f:
        file_shapes = _shapes(f)
        sources = stacked_sources(file_shapes)
        shapes = {k: source_shape(s, file_shapes, k) for k, s in sources.items()}
        params = check_strict(module, shapes, what, ignore, targets=targets)
        with torch.no_grad():
            for k, target in params.items():
                row = 0
                for key in sources[k].keys:  # split attention parts fill consecutive rows
                    part = f.get_tensor(key)
                    target[row:row + part.shape[0]].copy_(part)
                    row += part.shape[0]
