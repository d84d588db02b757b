"""Which commit of its Hugging Face repository each preset uses on this machine: the tested one, or
the first download's; never the moving ``main``, so an upstream change cannot silently change the model.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

from ..atomic import write_atomically
from ..regular_files import open_regular
from . import untrusted
from .demo import cache_root

log = logging.getLogger(__name__)

REVISIONS_NAME = "model_revisions.json"
_COMMIT = re.compile(r"[0-9a-f]{40}")
_MAX_FILE_BYTES = 64 * 1024


def is_commit(text: object) -> bool:
    """A full git commit hash, as the hub's snapshot folders are named."""
    return isinstance(text, str) and _COMMIT.fullmatch(text) is not None


def short(commit: str) -> str:
    return commit[:7]


def _revisions_file() -> Path:
    return cache_root() / REVISIONS_NAME


def chosen_revisions() -> dict[str, str]:
    """The commits recorded on this machine (a damaged file counts as none)."""
    path = _revisions_file()
    try:
        with open_regular(path) as f:
            raw = untrusted.parse_json_object(f.read(_MAX_FILE_BYTES + 1))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        log.warning("ignoring %s (%s): the presets' own revisions are used", path, e)
        return {}
    return {name: commit for name, commit in raw.items() if is_commit(commit)}


def revision_in_use(name: str, pinned: str | None) -> str | None:
    """The commit preset ``name`` (pinned to ``pinned``) is used at; None before a first download."""
    return chosen_revisions().get(name, pinned)


def record_revision(name: str, commit: str) -> None:
    """From now on, preset ``name`` is used at ``commit`` (after its files at that commit are here)."""
    if not is_commit(commit):
        raise ValueError(f"{commit!r} is not a commit hash (40 hexadecimal digits)")
    chosen = {**chosen_revisions(), name: commit}
    path = _revisions_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, (json.dumps(chosen, indent=1, sort_keys=True) + "\n").encode())


def cached_main(repo_folder: Path) -> str | None:
    """The commit the cache's ``refs/main`` names (what a download that followed ``main`` got)."""
    try:
        with open_regular(repo_folder / "refs" / "main") as f:
            commit = f.read(100).decode("ascii", "replace").strip()
    except OSError:
        return None
    return commit if is_commit(commit) else None
