"""How much GPU memory a model needs (its tensors at the precision plus an allowance for running:
measured on this GPU, else ``RUNTIME_GB``), the precision ``auto`` chooses, and the out-of-memory error."""

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

RUNTIME_GB = 4.6  # the most measured beyond weights, KV cache and Mimi on an H200 (bench/results), rounded up
AUTO_ORDER = ("bfloat16", "int8", "int4")  # what ``auto`` chooses among on a GPU, lightest last
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
    """The tensors of a model with ``config``: LM weights at ``precision`` (activations in ``dtype``),
    each stored weight once (``file_shapes``: the checkpoint's, for PersonaPlex's shared steps), the
    KV cache for its whole context, Mimi (float32)."""
    lm = LMModel(config, device="meta", dtype=dtype)
    if config.rules.stored_depth_steps:
        share_stored_steps(lm, file_shapes if file_shapes is not None else released_personaplex_shapes(config))
    quantize = quantizer(precision)
    if quantize is not None:
        quantize(lm)
    with torch.device("meta"):
        mimi = tensor_bytes(Mimi())
    return TensorsGb(weight_bytes(lm)["total"] / 1e9, kv_cache_bytes(lm) / 1e9, mimi / 1e9)


def needed_gb(config: LMConfig, precision: str, dtype: torch.dtype = torch.bfloat16,
              file_shapes: Mapping[str, tuple[int, ...]] | None = None, allowance_gb: float = RUNTIME_GB) -> float:
    """GPU memory a model with ``config`` needs in use (errs high): its tensors plus ``allowance_gb``."""
    return tensors_gb(config, precision, dtype, file_shapes).total + allowance_gb


def tensor_bytes(module: nn.Module) -> int:
    """Bytes of a module's parameters and buffers."""
    return sum(t.numel() * t.element_size() for t in (*module.parameters(), *module.buffers()))


def model_bytes(lm: LMModel, mimi: nn.Module) -> int:
    """Bytes a loaded model holds for one conversation: LM weights, KV cache and Mimi."""
    return weight_bytes(lm)["total"] + kv_cache_bytes(lm) + tensor_bytes(mimi)


@dataclass(frozen=True)
class Gpu:
    """What the precision choice needs to know of a GPU (``allowances``: precision -> GB measured here)."""

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
        """What to allow beyond a model's tensors in ``precision``: measured here plus a margin, else ``RUNTIME_GB``."""
        measured = self.allowances.get(precision)
        return RUNTIME_GB if measured is None else measured + gpu_allowance.MARGIN_GB


@dataclass(frozen=True)
class PrecisionChoice:
    precision: str
    reason: str  # one sentence a person reads: which precision, and why
    needs: Mapping[str, float]  # GB each precision of AUTO_ORDER needs on this GPU
    emulated_bf16: bool  # the GPU has no native bfloat16: the frame may not run in real time


def choose_precision(name: str, config: LMConfig, gpu: Gpu, allow_int4: bool = False,
                     file_shapes: Mapping[str, tuple[int, ...]] | None = None) -> PrecisionChoice:
    """``auto`` on a GPU: bfloat16 where it fits in the free memory, else int8, else int4 where the
    user opted in; else a ``ModelError`` saying how much each needs."""
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
    emulated = gpu.capability < NATIVE_BF16_CAPABILITY
    if emulated:
        why += (f"; this GPU (compute capability {gpu.capability[0]}.{gpu.capability[1]}) has no native "
                "bfloat16, which it emulates: the frame may not run in real time")
    return PrecisionChoice(chosen, why + ".", needs, emulated)


def too_big_message(name: str, precision: str, needs: Mapping[str, float], gpu: Gpu, allow_int4: bool = False
                    ) -> str:
    """What a person reads when ``name`` did not fit in ``precision`` (``needs``: precision -> GB)."""
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
    """The ``ModelError`` for an out-of-memory load; call it once its tensors are released ("free" is true)."""
    gpu = Gpu.of(device)
    needs = {p: needed_gb(config, p, dtype=dtype, file_shapes=file_shapes, allowance_gb=gpu.allowance_gb(p))
             for p in {*AUTO_ORDER, precision}}
    return ModelError(too_big_message(name, precision, needs, gpu))
