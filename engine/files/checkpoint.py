"""Loading released checkpoints into our modules: key normalisation and strict, explained loading."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

import torch
from safetensors import safe_open
from torch import nn

_SPLIT = re.compile(r"^(?P<prefix>.*self_attn\.)(?P<kind>in_projs|out_projs)\.(?P<i>\d+)\.weight$")


def stack_split_attention(state_dict: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Accept both attention layouts: the released files' stacked ``in_proj_weight`` /
    ``out_proj.weight`` and the newer split ``in_projs.{i}.weight`` / ``out_projs.{i}.weight``."""
    out: dict[str, torch.Tensor] = {}
    groups: dict[str, dict[int, torch.Tensor]] = {}
    for key, value in state_dict.items():
        m = _SPLIT.match(key)
        if m is None:
            out[key] = value
            continue
        name = "in_proj_weight" if m["kind"] == "in_projs" else "out_proj.weight"
        groups.setdefault(m["prefix"] + name, {})[int(m["i"])] = value
    for key, parts in groups.items():
        if sorted(parts) != list(range(len(parts))):
            raise ValueError(f"checkpoint has gaps in the per-step attention weights for {key}")
        out[key] = torch.cat([parts[i] for i in range(len(parts))], dim=0)
    return out


def check_strict(module: nn.Module, shapes: Mapping[str, tuple[int, ...]], what: str,
                 ignore: tuple[str, ...] = ()) -> dict[str, torch.Tensor]:
    """Every parameter of ``module`` must be in ``shapes`` (checkpoint key -> shape) with its shape,
    and no unknown key may remain (except prefixes in ``ignore``). Returns the module's tensors."""
    params = dict(module.state_dict())
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


def load_strict_streaming(module: nn.Module, path: str | os.PathLike, what: str) -> bool:
    """Copy a safetensors file into ``module`` one tensor at a time (host memory: one tensor, not
    the whole 15 GB file), after ``check_strict`` on the header's shapes. Returns False, loading
    nothing, when the file has split attention keys that must be stacked first."""
    with safe_open(os.fspath(path), framework="pt", device="cpu") as f:
        shapes = {k: tuple(f.get_slice(k).get_shape()) for k in f.keys()}  # noqa: SIM118 (not a dict)
        if any(_SPLIT.match(k) for k in shapes):
            return False
        params = check_strict(module, shapes, what)
        with torch.no_grad():
            for k, p in params.items():
                p.copy_(f.get_tensor(k))
    return True
