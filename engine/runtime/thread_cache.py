"""The measured thread count, kept under the kernel plan's key without its thread count."""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

import torch

from ..atomic import write_atomically
from ..files.demo import cache_root
from .kernel_plan import plan_key
from .threads import ThreadChoice, thread_candidates

log = logging.getLogger(__name__)

CHOICE_VERSION = 3  # 3: candidates leave a core to the window and the audio (``thread_candidates``)


def choice_key(fingerprint: str, dtype: torch.dtype, allow_bf16: bool) -> dict[str, str]:
    """What the best thread count depends on: the kernel plan's key without its thread count."""
    key = plan_key(fingerprint, dtype, allow_bf16)
    del key["threads"]
    return {**key, "choice_version": str(CHOICE_VERSION)}


def choice_path(key: dict[str, str]) -> Path:
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    return cache_root() / "thread-choices" / f"{digest}.json"


def read_choice(key: dict[str, str]) -> ThreadChoice | None:
    """The choice measured before for ``key``; None when there is none or it is damaged or foreign."""
    path = choice_path(key)
    try:
        data = json.loads(path.read_text())
        if data.get("key") != key:
            return None
        threads = int(data["threads"])
        if threads not in thread_candidates():
            # not damage: a count this machine no longer chooses among
            log.info("the kept thread choice %s (%d threads) is not among this machine's; measured again",
                     path, threads)
            return None
        return ThreadChoice(threads, {int(n): float(ms) for n, ms in data["mean_ms"].items()},
                            {int(n): float(ms) for n, ms in data["p90_ms"].items()}, 0.0)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        log.warning("ignoring a damaged thread choice %s (it is measured again)", path)
        return None


def write_choice(key: dict[str, str], choice: ThreadChoice) -> None:
    path = choice_path(key)
    data = {"key": key, "threads": choice.threads, "mean_ms": choice.mean_ms, "p90_ms": choice.p90_ms,
            "measuring_s": round(choice.seconds, 2)}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, (json.dumps(data, indent=1) + "\n").encode())
    except OSError as e:
        log.warning("could not save the thread choice to %s: %s", path, e)
