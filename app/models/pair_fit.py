"""What the model manager says of memory, widget-free: each model's least need on a GPU and whether
captions fit beside a conversation model on this machine (the dialog renders these texts).

Every figure is the engine's memory plan's, the rule the loader follows
(``engine.load_with_captions``): what the manager offers is what will load.
"""

from __future__ import annotations

import functools
import math

from PySide6.QtCore import QT_TRANSLATE_NOOP

import engine
from app.i18n import number_text, translate
from engine import ANY_GPU, HostMemory, ModelShape, memory_need, plan_pair

NOT_KNOWN_YET = QT_TRANSLATE_NOOP("ModelManager", "known once downloaded")


@functools.cache
def shape(name: str) -> ModelShape | None:
    """A preset's architecture as released (None: not known before its download)."""
    try:
        return ModelShape.of_preset(name)
    except engine.ModelError:
        return None


@functools.cache
def least_gpu_gb(name: str) -> int | None:
    """GB of GPU memory the preset ``name`` needs at the least (int8, the lightest precision ``auto``
    chooses; a caption model's as it runs beside a conversation), rounded up; None: not known yet."""
    model = shape(name)
    if model is None:
        return None
    return math.ceil(memory_need(model, "int8", captions=name in engine.CAPTION_PRESETS).gb)


def partners(preset: engine.Preset) -> list[str]:
    """The caption models that may run beside the conversation model ``preset``, lightest first: the
    demo's beside the demo, the real ones beside a real one."""
    fitting = [p for p in engine.CAPTION_PRESETS.values() if (p.repo is None) == (preset.repo is None)]
    return [p.name for p in sorted(fitting, key=lambda p: p.approx_gb)]


def captions_line(preset: engine.Preset, gpu: engine.Gpu | None, partner: str | None = None) -> str:
    """Whether captions by ``partner`` (None: the lightest of ``partners``) fit beside the
    conversation model ``preset`` here: on ``gpu`` (None: no GPU can be used here; the demo runs in
    this computer's memory), in the table's few words."""
    partner = partner or partners(preset)[0]
    conversation, captions = shape(preset.name), shape(partner)
    if conversation is None or captions is None:
        return translate("ModelManager", NOT_KNOWN_YET)
    if preset.repo is None:
        plan = plan_pair(conversation, captions, HostMemory.of())
        return (translate("ModelManager", "{captions}: runs here") if plan.fits else translate(
            "ModelManager", "{captions}: does not fit in this computer's memory")).format(captions=partner)
    if gpu is None:
        return translate("ModelManager", "{captions}: needs an NVIDIA GPU with {gb} GB").format(
            captions=partner, gb=math.ceil(plan_pair(conversation, captions, ANY_GPU).least_gb))
    plan = plan_pair(conversation, captions, gpu)
    if plan.chosen is None:
        return translate("ModelManager", "{captions}: does not fit beside it on this {total} GB GPU (the pair needs "
                         "{gb} GB)").format(captions=partner, total=number_text(gpu.total_gb, 1),
                                            gb=number_text(plan.least_gb, 1))
    precisions = {plan.chosen.conversation.precision, plan.chosen.captions.precision}
    both = (plan.chosen.conversation.precision if len(precisions) == 1
            else f"{plan.chosen.conversation.precision} + {plan.chosen.captions.precision}")
    return translate("ModelManager", "{captions}: fits in {precision} ({gb} GB)").format(
        captions=partner, precision=both, gb=number_text(plan.chosen.gb, 1))
