"""GPU memory a model needs, and the plain error when a load runs out of it (engine.runtime.gpu_memory).
The real out-of-memory path runs on a GPU in ``bench/gpu_load.py`` (its ``16gb_gpu`` stage); here
the estimate, the message and the load's handling of the error are checked on the CPU."""

from __future__ import annotations

import gc
import weakref

import pytest
import torch

from engine import ModelError, load_model
from engine.lm.model import LMConfig
from engine.runtime import loading
from engine.runtime.gpu_memory import needed_gb, too_big_message

# In use on an NVIDIA H200 after live frames (bench/results/gpu_check.json and gpu_load.json).
MEASURED_GB = {("moshi", False): 19.1, ("moshi", True): 13.1, ("personaplex", False): 22.1, ("personaplex", True): 15.1}


@pytest.mark.parametrize(("family", "int8"), list(MEASURED_GB))
def test_the_estimate_errs_high_but_not_by_much(family, int8):
    config = LMConfig.personaplex_7b() if family == "personaplex" else LMConfig.moshi_7b()
    measured = MEASURED_GB[family, int8]
    assert measured <= needed_gb(config, int8=int8) <= measured + 3


def test_the_message_names_the_need_the_gpu_and_what_helps():
    bf16 = too_big_message("moshiko", "bfloat16", 21.8, 14.4, "NVIDIA GeForce RTX 4080", 16.0, 15.2)
    assert bf16 == ("moshiko does not fit in this GPU's memory: in bfloat16 it needs about 22 GB, and the NVIDIA "
                    "GeForce RTX 4080 has 16.0 GB (15.2 GB free). Try to load it in int8 (about 14 GB: precision "
                    "int8 in Model → Model manager, or --int8), or close other programs that use the GPU, or "
                    "use a GPU with more memory.")
    # Already int8, or int8 would not fit either: only what can still help.
    for message in (too_big_message("personaplex", "int8", 15.1, 15.1, "GPU", 12.0, 11.0),
                    too_big_message("personaplex", "bfloat16", 23.1, 15.1, "GPU", 12.0, 11.0)):
        assert "int8 (about" not in message and message.endswith(
            "Try to close other programs that use the GPU, or use a GPU with more memory.")


def test_a_load_that_runs_out_of_memory_frees_it_before_saying_so(monkeypatch):
    """The error is raised after the handler: the failed load's tensors (held by its traceback
    inside the handler) are gone when the message reads the free memory."""
    held = []

    def running_out(*args, **kwargs):
        weights = torch.zeros(1000)
        held.append(weakref.ref(weights))
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 128.00 MiB")

    def message(name, config, precision, dtype, device):
        gc.collect()
        assert held and held[0]() is None, "the failed load's tensors are still alive"
        return ModelError(f"{name} does not fit ({precision})")

    monkeypatch.setattr(loading, "_load_lm", running_out)
    monkeypatch.setattr(loading, "out_of_memory_error", message)
    with pytest.raises(ModelError, match=r"^demo does not fit \(float32\)$") as caught:
        load_model("demo", device="cpu", precision="float32")
    assert caught.value.__context__ is None and caught.value.__cause__ is None
