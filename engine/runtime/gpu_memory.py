"""How much GPU memory a model needs, and the error that says so when loading it runs out.

A 7B model needs more than its weights: the temporal transformer's KV cache for its whole
context, Mimi, and what frames allocate (activations, CUDA-graph pools, cuBLAS workspaces), with
the CUDA context on top. In use on an NVIDIA H200 after live frames (``bench/gpu_check.py``,
``bench/gpu_load.py``; the JSON in ``bench/results/``):

    model            bfloat16   int8
    Moshi 7B         19.1 GB    13.1 GB
    PersonaPlex 7B   22.1 GB    15.1 GB

``needed_gb`` estimates it for any configuration: what the configuration says (weights at the
precision, each stored weight once, KV cache, Mimi) plus an allowance for running: what this GPU
measured when a model last ran on it in that precision (``engine.runtime.gpu_allowance``), else
``RUNTIME_GB``, the most measured beyond that on the H200 (measured for bfloat16 and int8;
``bench/gpu_check.py`` measures every precision under each memory cap, so that an estimate below
what was used shows there). ``choose_precision`` is what ``auto`` does on a GPU.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import torch
from torch import nn

from ..codec.mimi import Mimi
from ..errors import ModelError
from ..kernels.quantize import quantizer, weight_bytes
from ..lm.model import LMConfig, LMModel, released_personaplex_shapes, share_stored_steps
from . import gpu_allowance

# In use beyond weights, KV cache and Mimi: 1.8, 3.2, 3.4 and 4.5 GB in the four measurements above
# (PersonaPlex int8: 15.11 GB in use against 10.60 GB of those); the most, rounded up.
RUNTIME_GB = 4.6
# The precisions ``auto`` chooses among on a GPU, lightest last; int4 only where the user opted in.
AUTO_ORDER = ("bfloat16", "int8", "int4")
NATIVE_BF16_CAPABILITY = (8, 0)  # Ampere: the first NVIDIA GPUs that multiply bfloat16 natively


def kv_cache_bytes(lm: LMModel) -> int:
    """Bytes of the temporal transformer's keys and values for one conversation (its whole context)."""
    state = lm.transformer.init_state(1, device="meta")
    return sum(kv["k"].numel() * kv["k"].element_size() * 2 for kv in state["layers"].values())


@dataclass(frozen=True)
class TensorsGb:
    """What a loaded model holds for one conversation, GB: its LM's weights, its KV cache, Mimi."""

    weights: float
    kv_cache: float
    mimi: float

    @property
    def total(self) -> float:
        return self.weights + self.kv_cache + self.mimi


def tensors_gb(config: LMConfig, precision: str, dtype: torch.dtype = torch.bfloat16,
               file_shapes: Mapping[str, tuple[int, ...]] | None = None) -> TensorsGb:
    """The tensors of a model with ``config``: LM weights at ``precision`` ("bfloat16", "float32",
    "int8", "fp8", "int4"; activations in ``dtype``), each stored weight once (``file_shapes``: the
    checkpoint's, for PersonaPlex's shared steps; before there is a file, the released one's), the KV
    cache for its whole context, Mimi (float32)."""
    lm = LMModel(config, device="meta", dtype=dtype)
    if config.is_personaplex:
        share_stored_steps(lm, file_shapes if file_shapes is not None else released_personaplex_shapes(config))
    quantize = quantizer(precision)
    if quantize is not None:
        quantize(lm)
    with torch.device("meta"):
        mimi = tensor_bytes(Mimi())
    return TensorsGb(weight_bytes(lm)["total"] / 1e9, kv_cache_bytes(lm) / 1e9, mimi / 1e9)


def needed_gb(config: LMConfig, precision: str, dtype: torch.dtype = torch.bfloat16,
              file_shapes: Mapping[str, tuple[int, ...]] | None = None, allowance_gb: float = RUNTIME_GB) -> float:
    """GPU memory a model with ``config`` needs in use (an estimate that errs high, see the module
    docstring): its tensors (``tensors_gb``) and ``allowance_gb`` for running (``Gpu.allowance_gb``:
    measured on a GPU, else ``RUNTIME_GB``)."""
    return tensors_gb(config, precision, dtype, file_shapes).total + allowance_gb


def tensor_bytes(module: nn.Module) -> int:
    """Bytes of a module's parameters and buffers."""
    return sum(t.numel() * t.element_size() for t in (*module.parameters(), *module.buffers()))


def model_bytes(lm: LMModel, mimi: nn.Module) -> int:
    """Bytes of what a loaded model holds on its device for one conversation: the LM's weights, its
    KV cache and Mimi (what an allowance is measured beyond)."""
    return weight_bytes(lm)["total"] + kv_cache_bytes(lm) + tensor_bytes(mimi)


@dataclass(frozen=True)
class Gpu:
    """What the precision choice needs to know of a GPU (``allowances``: precision -> GB a model
    needed here beyond its tensors, as measured by earlier runs, ``engine.runtime.gpu_allowance``)."""

    name: str
    total_gb: float
    free_gb: float
    capability: tuple[int, int]
    allowances: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def of(cls, device: torch.device) -> Gpu:
        free, total = torch.cuda.mem_get_info(device)
        name = torch.cuda.get_device_name(device)
        return cls(name, total / 1e9, free / 1e9, tuple(torch.cuda.get_device_capability(device)),
                   gpu_allowance.remembered(gpu_allowance.gpu_key(name, total / 1e9)))

    @property
    def key(self) -> dict[str, str]:
        return gpu_allowance.gpu_key(self.name, self.total_gb)

    def allowance_gb(self, precision: str) -> float:
        """What to allow beyond a model's tensors in ``precision``: measured here (plus a margin), else
        ``RUNTIME_GB``."""
        measured = self.allowances.get(precision)
        return RUNTIME_GB if measured is None else measured + gpu_allowance.MARGIN_GB


@dataclass(frozen=True)
class PrecisionChoice:
    precision: str
    reason: str  # one sentence a person reads: which precision, and why


def choose_precision(name: str, config: LMConfig, gpu: Gpu, allow_int4: bool = False,
                     file_shapes: Mapping[str, tuple[int, ...]] | None = None) -> PrecisionChoice:
    """``auto`` on a GPU: bfloat16 where it fits in the free memory, else int8, else int4 where
    the user opted in (``allow_int4``); else a ``ModelError`` saying how much each needs. On a
    GPU without native bfloat16 (compute capability below 8.0) the reason says so: bfloat16 is
    emulated there, and the frame may not run in real time."""
    needs = {p: needed_gb(config, p, file_shapes=file_shapes, allowance_gb=gpu.allowance_gb(p)) for p in AUTO_ORDER}
    offered = AUTO_ORDER if allow_int4 else AUTO_ORDER[:-1]
    fits = [p for p in offered if needs[p] <= gpu.free_gb]
    if not fits:
        raise ModelError(too_big_message(name, offered[-1], needs, gpu, allow_int4))
    chosen = fits[0]
    why = (f"{chosen}: {name} needs about {needs[chosen]:.1f} GB in {chosen}, and the {gpu.name} has "
           f"{gpu.free_gb:.1f} GB free")
    if chosen != "bfloat16":
        why += f" (bfloat16 would need about {needs['bfloat16']:.1f} GB)"
    if chosen == "int4":
        why += "; 4-bit weights are experimental and can lower the model's quality"
    if gpu.capability < NATIVE_BF16_CAPABILITY:
        why += (f"; this GPU (compute capability {gpu.capability[0]}.{gpu.capability[1]}) has no native "
                "bfloat16, which it emulates: the frame may not run in real time")
    return PrecisionChoice(chosen, why + ".")


def too_big_message(name: str, precision: str, needs: Mapping[str, float], gpu: Gpu, allow_int4: bool = False
                    ) -> str:
    """What a person reads when ``name`` did not fit in ``precision``: the need, the GPU's memory,
    what can help (``needs``: precision -> GB; ``allow_int4``: int4 was already offered)."""
    need = needs[precision]
    tries = []
    if precision not in ("int8", "fp8", "int4") and needs["int8"] < gpu.total_gb:
        tries.append(f"load it in int8 (about {needs['int8']:.0f} GB: precision int8 in Model → Model manager, "
                     "or --precision int8)")
    if precision != "int4" and not allow_int4 and needs["int4"] < gpu.total_gb:
        tries.append(f"load it in int4, which is experimental and can lower its quality (about {needs['int4']:.0f} "
                     "GB: --precision int4)")
    tries.append("close other programs that use the GPU, or use a GPU with more memory")
    return (f"{name} does not fit in this GPU's memory: in {precision} it needs about {need:.0f} GB, and "
            f"the {gpu.name} has {gpu.total_gb:.1f} GB ({gpu.free_gb:.1f} GB free). Try to {', or '.join(tries)}.")


def out_of_memory_error(name: str, config: LMConfig, precision: str, dtype: torch.dtype,
                        device: torch.device, file_shapes: Mapping[str, tuple[int, ...]] | None = None
                        ) -> ModelError:
    """The ``ModelError`` for a load on ``device`` that ran out of memory (call it after the
    failed load's tensors were released, so that "free" means what another try would have)."""
    gpu = Gpu.of(device)
    needs = {p: needed_gb(config, p, dtype=dtype, file_shapes=file_shapes, allowance_gb=gpu.allowance_gb(p))
             for p in {*AUTO_ORDER, precision}}
    return ModelError(too_big_message(name, precision, needs, gpu))
