"""How much GPU memory a model needs, and the error that says so when loading it runs out.

A 7B model needs more than its weights: the temporal transformer's KV cache for its whole
context, Mimi, and what frames allocate (activations, CUDA-graph pools, cuBLAS workspaces), with
the CUDA context on top. In use on an NVIDIA H200 after live frames (``bench/gpu_check.py``,
``bench/gpu_load.py``; the JSON in ``bench/results/``):

    model            bfloat16   int8
    Moshi 7B         19.1 GB    13.1 GB
    PersonaPlex 7B   22.1 GB    15.1 GB

``needed_gb`` estimates it for any configuration: what the configuration says (weights at the
precision, KV cache, Mimi) plus ``RUNTIME_GB``, the most measured beyond that.
"""

from __future__ import annotations

import torch

from ..codec.mimi import Mimi
from ..errors import ModelError
from ..kernels.quantize import quantize_lm_int8, weight_bytes
from ..lm.model import LMConfig, LMModel

# In use beyond weights, KV cache and Mimi: 1.8, 3.2, 3.4 and 4.5 GB in the four measurements above
# (PersonaPlex int8: 15.11 GB in use against 10.60 GB of those); the most, rounded up.
RUNTIME_GB = 4.6


def kv_cache_bytes(lm: LMModel) -> int:
    """Bytes of the temporal transformer's keys and values for one conversation (its whole context)."""
    state = lm.transformer.init_state(1, device="meta")
    return sum(kv["k"].numel() * kv["k"].element_size() * 2 for kv in state["layers"].values())


def needed_gb(config: LMConfig, int8: bool, dtype: torch.dtype = torch.bfloat16) -> float:
    """GPU memory a model with ``config`` needs in use (an estimate that errs high, see the module
    docstring): LM weights in ``dtype`` or int8, the KV cache, Mimi (float32), ``RUNTIME_GB``."""
    lm = LMModel(config, device="meta", dtype=dtype)
    if int8:
        quantize_lm_int8(lm)
    with torch.device("meta"):
        mimi = sum(p.numel() * 4 for p in Mimi().parameters())
    return (weight_bytes(lm)["total"] + kv_cache_bytes(lm) + mimi) / 1e9 + RUNTIME_GB


def too_big_message(name: str, precision: str, need_gb: float, int8_gb: float, gpu: str, total_gb: float,
                    free_gb: float) -> str:
    """What a person reads when ``name`` did not fit: the need, the GPU's memory, what can help."""
    tries = []
    if precision != "int8" and int8_gb < total_gb:
        tries.append(f"load it in int8 (about {int8_gb:.0f} GB: precision int8 in Model → Model manager, "
                     "or --int8)")
    tries.append("close other programs that use the GPU, or use a GPU with more memory")
    return (f"{name} does not fit in this GPU's memory: in {precision} it needs about {need_gb:.0f} GB, and "
            f"the {gpu} has {total_gb:.1f} GB ({free_gb:.1f} GB free). Try to {', or '.join(tries)}.")


def out_of_memory_error(name: str, config: LMConfig, precision: str, dtype: torch.dtype,
                        device: torch.device) -> ModelError:
    """The ``ModelError`` for a load on ``device`` that ran out of memory (call it after the
    failed load's tensors were released, so that "free" means what another try would have)."""
    free, total = torch.cuda.mem_get_info(device)
    message = too_big_message(name, precision, needed_gb(config, int8=precision == "int8", dtype=dtype),
                              needed_gb(config, int8=True), torch.cuda.get_device_name(device), total / 1e9,
                              free / 1e9)
    return ModelError(message)
