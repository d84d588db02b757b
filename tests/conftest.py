"""Shared pytest setup: markers' behaviour and common fixtures."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("NO_TORCH_COMPILE", "1")  # the reference package: no compiler needed
os.environ.setdefault("NO_CUDA_GRAPH", "1")

SHARED_AUDIO = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "audio")


def pytest_collection_modifyitems(config, items):
    import torch

    skip_gpu = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if "gpu" in item.keywords and not torch.cuda.is_available():
            item.add_marker(skip_gpu)
