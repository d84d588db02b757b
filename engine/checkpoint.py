"""Loading released checkpoints into our modules: key normalisation and strict, explained loading."""

from __future__ import annotations

import re
from collections.abc import Mapping

import torch
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


def load_strict(module: nn.Module, state_dict: Mapping[str, torch.Tensor], what: str,
                ignore: tuple[str, ...] = ()) -> None:
    """Copy a checkpoint into ``module`` (cast to each parameter's dtype); every parameter must be
    present with the right shape and no unknown key may remain (except prefixes in ``ignore``)."""
    params = dict(module.state_dict())
    missing = sorted(set(params) - set(state_dict))
    unexpected = sorted(k for k in set(state_dict) - set(params) if not k.startswith(ignore))
    shapes = [f"{k}: file {tuple(state_dict[k].shape)}, model {tuple(params[k].shape)}"
              for k in sorted(set(params) & set(state_dict))
              if tuple(params[k].shape) != tuple(state_dict[k].shape)]
    if missing or unexpected or shapes:
        problems = []
        if missing:
            problems.append(f"{len(missing)} missing keys (e.g. {', '.join(missing[:3])})")
        if unexpected:
            problems.append(f"{len(unexpected)} unexpected keys (e.g. {', '.join(unexpected[:3])})")
        problems += shapes[:4]
        raise ValueError(f"{what} does not match the expected model: " + "; ".join(problems))
    with torch.no_grad():
        for k, p in params.items():
            p.copy_(state_dict[k])
