"""Access to the reference ``moshi`` package (the parity oracle).

Under ``make test`` it is installed; if it is missing the reference tests fail with an
explanation instead of skipping."""

from __future__ import annotations

import os

os.environ.setdefault("NO_TORCH_COMPILE", "1")
os.environ.setdefault("NO_CUDA_GRAPH", "1")


def require_moshi():
    try:
        import moshi  # noqa: F401
    except ImportError as e:  # pragma: no cover - only when the environment is broken
        raise AssertionError(
            "the reference package is missing: run `make test` (or pip install --no-deps "
            "moshi==0.2.13 einops sphn)") from e
    import moshi
    return moshi
