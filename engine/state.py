"""Explicit streaming state: a nested dict of tensors allocated once and updated in place, so a captured
CUDA graph stays valid and a conversation file is restored by copying into the live tensors."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import torch

StateTree = dict  # dict[str, "torch.Tensor | StateTree"]


def flatten(state: Mapping, prefix: str = "") -> dict[str, torch.Tensor]:
    """Stable dotted names -> live tensors (no copies)."""
    return dict(_walk(state, prefix))


def _walk(state: Mapping, prefix: str) -> Iterator[tuple[str, torch.Tensor]]:
    for key in sorted(state, key=_natural_key):
        value = state[key]
        name = f"{prefix}{key}"
        if isinstance(value, torch.Tensor):
            yield name, value
        elif isinstance(value, Mapping):
            yield from _walk(value, name + ".")
        else:
            raise TypeError(f"state leaf {name!r} is a {type(value).__name__}, expected a tensor")


def _natural_key(key: str) -> tuple:
    return (0, int(key), "") if key.isdigit() else (1, 0, key)


def check_compatible(state: Mapping, flat: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Check that ``flat`` has exactly the names and shapes of ``state`` (ValueError naming every
    problem); returns the live leaves."""
    live = flatten(state)
    missing = sorted(set(live) - set(flat))
    extra = sorted(set(flat) - set(live))
    wrong = [
        f"{name}: expected shape {tuple(live[name].shape)}, got {tuple(flat[name].shape)}"
        for name in sorted(set(live) & set(flat))
        if tuple(live[name].shape) != tuple(flat[name].shape)
    ]
    kinds = [
        f"{name}: expected a {_kind(live[name])} tensor, got {flat[name].dtype}"
        for name in sorted(set(live) & set(flat))
        if _kind(live[name]) != _kind(flat[name])
    ]
    problems = []
    if missing:
        problems.append(f"missing {len(missing)} entries (first: {', '.join(missing[:3])})")
    if extra:
        problems.append(f"{len(extra)} unexpected entries (first: {', '.join(extra[:3])})")
    problems += wrong[:5] + kinds[:5]
    if problems:
        raise ValueError("state does not match this model: " + "; ".join(problems))
    return live


def _kind(t: torch.Tensor) -> str:
    if t.dtype == torch.bool:
        return "bool"
    return "floating" if t.is_floating_point() else "integer"


def load_into(state: Mapping, flat: Mapping[str, torch.Tensor]) -> None:
    """Copy ``flat`` into the live tensors of ``state``, all checked first: a bad input changes nothing."""
    live = check_compatible(state, flat)
    for name, target in live.items():
        target.copy_(flat[name])


def clone(state: Mapping) -> StateTree:
    """A deep copy with fresh tensors (for snapshots; not for graph-captured state)."""
    return {k: v.clone() if isinstance(v, torch.Tensor) else clone(v) for k, v in state.items()}


def nbytes(state: Mapping) -> int:
    return sum(t.numel() * t.element_size() for t in flatten(state).values())
