"""What a loaded model is, apart from its weights: its precision, what it says of itself, and what a
session needs of it (``ModelParts``, so the loader and sessions need not import each other)."""

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

    ``bfloat16``: on CUDA the LM runs in bfloat16 (Mimi in float32); on the CPU activations stay
    float32 and the kernel plan gives a matmul a bfloat16 weight copy where that measured faster.
    ``auto``: on CUDA the heaviest precision that fits the GPU's free memory
    (``gpu_memory.choose_precision``); on a CPU bfloat16 where it is native, else float32.
    ``float32`` gives the reference's results exactly. ``int8``, ``fp8`` and ``int4`` store the LM's
    matmul weights quantised (``engine.kernels``); the last two are only used when asked for.
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
        """The precisions with fewer bytes per weight that could compute a frame faster on ``device``:
        bfloat16 where it is native. Never int8: it dequantises each weight first, saving memory, not time."""
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
    """What a ``Session`` uses of a loaded model (``LoadedModel`` implements it)."""

    mimi: Mimi
    lm: LMModel
    tokenizer: TextTokenizer
    device: torch.device
    files: ModelFiles
    info: ModelInfo
    cuda_graph: bool
    runtime_unmeasured: bool  # on CUDA, until the first session's frames ran as they will

    def measure_runtime_memory(self) -> None: ...
