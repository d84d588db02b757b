"""What a loaded model is, apart from its weights: its precision (``Precision``), what it says of
itself (``ModelInfo``), and what a session needs of it (``ModelParts``, which
``engine.runtime.loading.LoadedModel`` is): sessions depend on this interface, so the loader can open
sessions without the two modules importing each other."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Protocol

import torch

from ..codec.mimi import Mimi
from ..errors import ModelError
from ..families import Family, family_named
from ..files.models import ModelFiles
from ..kernels.packed import native_bf16_matmul
from ..lm.model import LMModel
from ..lm.tokenizer import TextTokenizer


class Precision(enum.Enum):
    """How the weights are stored and computed.

    On CUDA, ``bfloat16`` runs the LM in bfloat16; Mimi runs in float32. On the CPU, ``bfloat16``
    keeps every activation in float32 and lets the kernel plan give a matmul (in Mimi and the LM)
    a bfloat16 copy of its weight wherever that measured faster here: a frame streams every weight
    once, so half the bytes is nearly half the time on a CPU with AMX or AVX512-BF16. Where no
    matmul measured faster, or the CPU cannot run oneDNN's bfloat16 matmul at all (AVX2 only), the
    model computes in float32, and says so.

    ``auto``: on CUDA the heaviest of bfloat16, int8 (and int4, where the user opted in) that fits
    in the GPU's free memory (``engine.runtime.gpu_memory.choose_precision``, which says why); on a
    CPU bfloat16 where it multiplies bfloat16 natively, float32 elsewhere. ``float32`` gives the
    reference's results exactly. ``int8`` stores the LM's matmul weights as int8 with per-row
    scales, ``fp8`` (never chosen unless asked for: unmeasured on a GPU so far) as float8 e4m3
    with per-row scales, multiplied natively on GPUs of compute capability 8.9 and later, ``int4``
    (experimental, never chosen unless asked for) as group-wise 4-bit (``engine.kernels``);
    activations stay in the device's usual float type.
    """

    AUTO = "auto"
    FLOAT32 = "float32"
    BFLOAT16 = "bfloat16"
    INT8 = "int8"
    FP8 = "fp8"
    INT4 = "int4"

    @classmethod
    def parse(cls, value: Precision | str) -> Precision:
        if isinstance(value, cls):
            return value
        try:
            return cls(str(value).lower())
        except ValueError:
            raise ModelError(f"unknown precision {value!r}: expected one of "
                             f"{', '.join(p.value for p in cls)}") from None

    def resolve(self, device: torch.device) -> Precision:
        """``auto`` made concrete for ``device`` by its kind alone (a GPU's memory decides in
        ``LoadedModel``); other values are returned as they are."""
        if self is Precision.AUTO:
            native = device.type == "cuda" or native_bf16_matmul()
            return Precision.BFLOAT16 if native else Precision.FLOAT32
        return self

    def lighter(self, device: torch.device) -> tuple[Precision, ...]:
        """The precisions with fewer bytes per weight than this resolved one that could compute a
        frame faster on ``device`` (what to try when a frame is too slow): bfloat16, on CUDA and on a
        CPU that multiplies it natively (elsewhere it computes in float32). Never int8: each of its
        matmuls dequantises the weight first, which saves memory, not time (the demo frame: 105 ms
        in int8 against 83 ms in float32 on an AMD EPYC, 2 threads; the 7B Moshi frame on an H200:
        32.8 ms against 13.0 ms in bfloat16, bench/results/gpu_check.json)."""
        native = device.type == "cuda" or native_bf16_matmul()
        return (Precision.BFLOAT16,) if self is Precision.FLOAT32 and native else ()

    def activation_dtype(self, device: torch.device) -> torch.dtype:
        if self is Precision.FLOAT32 or device.type != "cuda":
            return torch.float32
        return torch.bfloat16


@dataclass(frozen=True)
class ModelInfo:
    name: str
    family: str  # the name of its family (``engine.families``)
    device: str
    precision: Precision  # resolved: never AUTO; on the CPU, bfloat16 only where the kernel plan uses it
    dtype: str  # the activations' dtype, e.g. "bfloat16"
    cuda_graph_allowed: bool  # CUDA graphs asked for and possible here; a session says whether one runs
    fingerprint: str
    precision_reason: str = ""  # why ``auto`` chose the precision on a GPU (empty when it was asked for)

    @property
    def lighter_precisions(self) -> tuple[str, ...]:
        """What to try when a frame is too slow (``Precision.lighter``)."""
        return tuple(p.value for p in self.precision.lighter(torch.device(self.device)))

    @property
    def family_info(self) -> Family:
        return family_named(self.family)

    @property
    def is_demo(self) -> bool:
        return self.family_info.is_demo

    @property
    def takes_prompts(self) -> bool:
        """Whether a voice and a text role prompt condition this model (a persona's voice and role apply)."""
        return self.family_info.takes_prompts

    @property
    def interprets(self) -> bool:
        """Whether this is an interpreter: its input is speech to translate (``Session.end_source``)."""
        return self.family_info.interprets

    @property
    def label(self) -> str:
        return self.family_info.label(self.name)


class ModelParts(Protocol):
    """What a ``Session`` uses of a loaded model: the codec, the LM and the tokenizer on one device,
    its files (a PersonaPlex model's voices), what it says of itself, and on CUDA the measurement of
    what running needs beyond its tensors (``LoadedModel.measure_runtime_memory``)."""

    mimi: Mimi
    lm: LMModel
    tokenizer: TextTokenizer
    device: torch.device
    files: ModelFiles
    info: ModelInfo
    cuda_graph: bool
    runtime_unmeasured: bool  # on CUDA, until the first session's frames ran as they will

    def measure_runtime_memory(self) -> None: ...
