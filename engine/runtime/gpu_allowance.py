"""The GPU memory a running model uses beyond its own tensors (peak reserved less its tensors, plus
what was in use outside torch: errs high), measured where it runs and kept per GPU, torch build and
precision for the next estimate."""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

import torch

from ..atomic import write_atomically

log = logging.getLogger(__name__)

MARGIN_GB = 0.5  # added to a measured allowance: another conversation's frames may allocate a little more


def gpu_key(name: str, total_gb: float) -> dict[str, str]:
    """What a measured allowance depends on besides the precision: the GPU and the torch build."""
    return {"gpu": name, "total_gb": f"{total_gb:.1f}", "torch": torch.__version__}


def allowance_path(key: dict[str, str]) -> Path | None:
    """Where the allowances of ``key`` are kept (None where there is no cache folder)."""
    from ..files.demo import cache_root

    try:
        root = cache_root()
    except ImportError:
        return None
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    return root / "gpu-allowances" / f"{digest}.json"


def remembered(key: dict[str, str]) -> dict[str, float]:
    """Precision -> the largest allowance measured for ``key`` (GB); empty where none was."""
    path = allowance_path(key)
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text())
        if data.get("key") != key:
            return {}
        return {str(p): float(gb) for p, gb in data["allowance_gb"].items() if 0 < float(gb) < 1e4}
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        log.warning("ignoring a damaged GPU memory allowance %s (it is measured again)", path)
        return {}


def remember(key: dict[str, str], precision: str, gb: float) -> None:
    """Keep ``gb`` as the allowance of ``precision`` where it is larger than the one kept."""
    path = allowance_path(key)
    if path is None:
        return
    allowances = remembered(key)
    if gb <= allowances.get(precision, 0.0):
        return
    allowances[precision] = round(gb, 3)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, json.dumps({"key": key, "allowance_gb": allowances}, indent=1).encode())
    except OSError as e:
        log.warning("could not keep the GPU memory allowance in %s: %s", path, e)


def outside_torch_gb(device: torch.device) -> float:
    """Device memory in use that torch did not reserve (the CUDA context, other programs), GB."""
    free, total = torch.cuda.mem_get_info(device)
    return max(0.0, (total - free - torch.cuda.memory_reserved(device)) / 1e9)


def start_measuring(device: torch.device) -> float:
    """Call before a load: what is in use outside torch now (see ``measured_gb``); the peak starts here."""
    torch.cuda.reset_peak_memory_stats(device)
    return outside_torch_gb(device)


def measured_gb(device: torch.device, model_bytes: int, outside_gb: float) -> float:
    """The allowance a model of ``model_bytes`` (weights, KV cache, Mimi) needed on ``device`` since
    ``start_measuring`` returned ``outside_gb``."""
    return torch.cuda.max_memory_reserved(device) / 1e9 - model_bytes / 1e9 + outside_gb
