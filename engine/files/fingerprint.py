"""A model's identity for conversation files: its config and the identity of its weight files.

Hashing all the weights at every start would be slow, so a weight file is identified by its size,
safetensors header and first and last MiB: enough to tell checkpoints apart, even equal-shaped ones.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

_EDGE = 1 << 20


def file_identity(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        h.update(str(size).encode())
        h.update(f.read(_EDGE))
        if size > 2 * _EDGE:
            f.seek(size - _EDGE)
            h.update(f.read(_EDGE))
    return h.hexdigest()


def model_fingerprint(files) -> str:
    """sha256 over the LM config and the identities of the LM and Mimi weight files."""
    h = hashlib.sha256()
    h.update(json.dumps(files.lm_config, sort_keys=True).encode())
    for path in (files.lm_path, files.mimi_path):
        h.update(file_identity(Path(path)).encode())
    return h.hexdigest()[:32]
