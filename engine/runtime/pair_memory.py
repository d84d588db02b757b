"""How a conversation model and a caption model share one device's memory (``plan_pair``, the rule
the model manager and the loader follow). The conversation keeps priority, never put in int4 for
captions; the caption model takes the heaviest precision that fits beside it, else captions are off.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

import torch

from ..checkpoint import checkpoint_shapes
from ..errors import ModelError
from ..families import HUB_PRESETS, family_named
from ..families.demo import load_recipe
from ..files.models import ModelFiles
from ..host_memory import available_bytes
from ..lm.model import LMConfig
from .gpu_memory import AUTO_ORDER, Gpu, TensorsGb, tensors_gb
from .model_info import Precision

CAPTION_RUNTIME_GB = 1.0  # a caption model's allowance beside a conversation on a GPU (unmeasured: errs high)
HOST_RUNTIME_GB = 1.0  # each model's allowance in a computer's memory (unmeasured: errs high)
GPU_CAPTION_ORDER = ("bfloat16", "int8")  # a caption model's precisions on a GPU, heaviest first
HOST_CAPTION_ORDER = ("float32", "int8")  # and on the CPU (``SpeechToText`` loads float32 there)
PAIR_ORDER = AUTO_ORDER[:2]  # what a conversation may take beside captions under auto (never int4)


@dataclass(frozen=True)
class ModelShape:
    """What an estimate needs of a model: name, architecture and, where there is a file, its checkpoint's shapes."""

    name: str
    config: LMConfig
    file_shapes: Mapping[str, tuple[int, ...]] | None = None

    @classmethod
    def of_preset(cls, name: str) -> ModelShape:
        """A preset before its download: its released architecture (a demo's: its recipe's)."""
        preset = HUB_PRESETS[name]
        family = family_named(preset.family)
        if family.recipe is not None:
            return cls(name, LMConfig.from_hub_config(load_recipe(family.recipe)["config"]))
        if preset.config is None:
            raise ModelError(f"{name}'s architecture is not known before its download: its memory need is "
                             "estimated from its config.json once it is here.")
        return cls(name, LMConfig.from_hub_config({**family.config_defaults, **preset.config}))

    @classmethod
    def of_files(cls, files: ModelFiles) -> ModelShape:
        """A model on this machine: its config.json and its checkpoint's shapes."""
        try:
            config = LMConfig.from_hub_config(files.lm_config)
        except ValueError as e:
            raise ModelError(f"{files.name}'s config.json: {e}") from e
        return cls(files.name, config, checkpoint_shapes(files.lm_path))


class Memory(Protocol):
    """Where the pair runs: a ``gpu_memory.Gpu`` or a ``HostMemory``."""

    name: str
    total_gb: float
    free_gb: float

    def allowance_gb(self, precision: str) -> float: ...


@dataclass(frozen=True)
class HostMemory:
    """A computer's memory, where the models run on the CPU (``free_gb``: what can still be had)."""

    total_gb: float
    free_gb: float
    name: str = "this computer"

    @classmethod
    def of(cls) -> HostMemory:
        free = available_bytes()
        free_gb = float("inf") if free is None else free / 1e9  # the system does not say: nothing is refused
        try:  # POSIX systems say the whole; elsewhere the free memory stands for it
            total_gb = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 1e9
        except (AttributeError, ValueError, OSError):
            total_gb = free_gb
        return cls(max(total_gb, free_gb) if free is not None else free_gb, free_gb)

    def allowance_gb(self, precision: str) -> float:
        return HOST_RUNTIME_GB


@dataclass(frozen=True)
class Need:
    """One model in one precision: its tensors and its allowance for running, GB."""

    precision: str
    tensors: TensorsGb
    allowance_gb: float

    @property
    def gb(self) -> float:
        return self.tensors.total + self.allowance_gb


@dataclass(frozen=True)
class PairOption:
    """The pair in one combination of precisions, and whether it fits the free memory."""

    conversation: Need
    captions: Need
    fits: bool

    @property
    def gb(self) -> float:
        return self.conversation.gb + self.captions.gb


@dataclass(frozen=True)
class PairPlan:
    """``plan_pair``'s answer: each combination tried, in order; ``chosen``: the first that fits (None:
    captions are off); ``alone``: the conversation's own choice (None: it does not fit alone)."""

    conversation: str
    captions: str
    memory: str  # "the NVIDIA GeForce RTX 4060", "this computer"
    total_gb: float
    free_gb: float
    options: tuple[PairOption, ...]
    chosen: PairOption | None
    alone: Need | None

    @property
    def fits(self) -> bool:
        return self.chosen is not None

    @property
    def least_gb(self) -> float:
        """The least the pair needs in any combination tried."""
        return min(o.gb for o in self.options)

    @property
    def summary(self) -> str:
        """What the plan is, in one sentence a person reads (the loader says it)."""
        if self.chosen is None:
            why = (f"{self.conversation} does not fit on its own" if self.alone is None
                   else f"the pair needs at least {self.least_gb:.1f} GB")
            return (f"Captions are off: {self.captions} does not fit beside {self.conversation} on {self.memory} "
                    f"({why}; {self.free_gb:.1f} GB of {self.total_gb:.1f} GB is free). The conversation runs "
                    "without them.")
        c, k = self.chosen.conversation, self.chosen.captions
        text = (f"{self.conversation} in {c.precision} ({c.gb:.1f} GB) and {self.captions} in {k.precision} "
                f"({k.gb:.1f} GB) need about {self.chosen.gb:.1f} GB together, and {self.memory} has "
                f"{self.free_gb:.1f} GB free")
        if self.alone is not None and self.alone.precision != c.precision:
            text += (f"; alone, {self.conversation} would load in {self.alone.precision}: {c.precision} leaves room "
                     "for the captions")
        return text + "."


ANY_GPU = Gpu("GPU", float("inf"), float("inf"), (9, 0))  # room for anything: before there is a GPU to ask


def need(model: ModelShape, precision: str, memory: Memory = ANY_GPU, captions: bool = False,
         allowance_gb: float | None = None) -> Need:
    """What ``model`` needs in ``precision`` on ``memory`` (``captions``: it is the caption model;
    ``allowance_gb``: its own allowance on a GPU, where it is not the conversation model)."""
    if isinstance(memory, HostMemory):
        return Need(precision, _host_tensors(model, precision), memory.allowance_gb(precision))
    allowance = CAPTION_RUNTIME_GB if captions else memory.allowance_gb(precision) if allowance_gb is None \
        else allowance_gb
    dtype = torch.float32 if precision == "float32" else torch.bfloat16  # the activations (Precision.activation_dtype)
    return Need(precision, _tensors(model, precision, dtype), allowance)


def plan_pair(conversation: ModelShape, captions: ModelShape, memory: Memory, precision: str = "auto",
              captions_precision: str = "auto", allow_int4: bool = False, allowance_gb: float | None = None
              ) -> PairPlan:
    """The one rule (module docstring): which precisions the pair takes on ``memory``, or why captions are off
    (``allowance_gb``: the first model's own allowance on a GPU, see ``need``)."""
    on_gpu = not isinstance(memory, HostMemory)
    if precision != "auto":
        alone_order: tuple[str, ...] = (precision,)
    elif on_gpu:
        alone_order = AUTO_ORDER if allow_int4 else PAIR_ORDER
    else:
        alone_order = (Precision.AUTO.resolve(torch.device("cpu")).value,)
    alone_needs = [need(conversation, p, memory, allowance_gb=allowance_gb) for p in alone_order]
    alone = next((n for n in alone_needs if n.gb <= memory.free_gb), None)
    if precision != "auto":
        beside = alone_needs
    elif alone is not None and alone.precision == "int4":
        beside = [alone]  # int4 only where the conversation needs it on its own
    else:
        beside = [n for n in alone_needs if n.precision != "int4"]
    caption_needs = _caption_needs(captions, memory, captions_precision)
    options = tuple(PairOption(c, k, c.gb + k.gb <= memory.free_gb) for c in beside for k in caption_needs)
    chosen = next((o for o in options if o.fits), None) if alone is not None else None
    place = f"the {memory.name}" if on_gpu else memory.name
    return PairPlan(conversation.name, captions.name, place, memory.total_gb, memory.free_gb, options,
                    chosen, alone)


def plan_captions_beside(captions: ModelShape, memory: Memory, captions_precision: str = "auto") -> Need | str:
    """The same rule where the conversation model is loaded already: the caption model's first
    precision that fits the free memory, or why it does not, in a sentence."""
    needs = _caption_needs(captions, memory, captions_precision)
    fitting = next((n for n in needs if n.gb <= memory.free_gb), None)
    if fitting is not None:
        return fitting
    place = memory.name if isinstance(memory, HostMemory) else f"the {memory.name}"
    return (f"{captions.name} does not fit beside the conversation model on {place}: it needs at least "
            f"{min(n.gb for n in needs):.1f} GB and {memory.free_gb:.1f} GB is free")


def _caption_needs(captions: ModelShape, memory: Memory, captions_precision: str) -> list[Need]:
    """What the caption model needs in each precision it may take on ``memory``, heaviest first."""
    order = ((captions_precision,) if captions_precision != "auto"
             else HOST_CAPTION_ORDER if isinstance(memory, HostMemory) else GPU_CAPTION_ORDER)
    return [need(captions, p, memory, captions=True) for p in order]


def _tensors(model: ModelShape, precision: str, dtype: torch.dtype) -> TensorsGb:
    if model.file_shapes is None:
        return _released_tensors(model.config, precision, dtype)
    return tensors_gb(model.config, precision, dtype, model.file_shapes)


@functools.lru_cache(maxsize=64)
def _released_tensors(config: LMConfig, precision: str, dtype: torch.dtype) -> TensorsGb:
    """A released architecture's tensors (the model manager asks for each preset and precision)."""
    return tensors_gb(config, precision, dtype)


def _host_tensors(model: ModelShape, precision: str) -> TensorsGb:
    """On the CPU activations are float32; ``bfloat16`` adds the kernel plan's copies (errs high)."""
    if precision != "bfloat16":
        return _tensors(model, precision, torch.float32)
    base, copies = _tensors(model, "float32", torch.float32), _tensors(model, "bfloat16", torch.bfloat16)
    return TensorsGb(base.weights + copies.weights, base.kv_cache, base.mimi)


def this_device_memory(device: torch.device) -> Memory:
    """The memory of ``device`` now: its GPU's (with what was measured there), or this computer's."""
    return Gpu.of(device) if device.type == "cuda" else HostMemory.of()
