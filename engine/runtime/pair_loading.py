"""Loading a conversation model with a caption model beside it, as ``pair_memory.plan_pair`` plans:
the conversation always loads; captions are off, with a plain message, where they do not fit."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

import torch

from ..errors import ModelError
from ..files.models import resolve_model
from .loading import LoadedModel, load_files, release_memory, resolve_device
from .model_info import Precision
from .pair_memory import Memory, ModelShape, plan_captions_beside, plan_pair, this_device_memory
from .transcriber import SpeechToText

log = logging.getLogger(__name__)


@dataclass
class LoadedPair:
    model: LoadedModel
    captions: SpeechToText | None  # None: captions are off (``message`` says why)
    message: str


def load_with_captions(spec: str, captions_spec: str, device: str = "auto",
                       precision: Precision | str = Precision.AUTO,
                       captions_precision: Precision | str = Precision.AUTO, cuda_graph: bool = True,
                       progress=None, on_stage=None, allow_int4: bool = False, memory: Memory | None = None
                       ) -> LoadedPair:
    """``load_model(spec, ...)`` with the caption model beside it where the pair fits in ``memory`` (None: now)."""
    dev = resolve_device(device)
    chosen, captions_chosen = Precision.parse(precision), Precision.parse(captions_precision)
    files = resolve_model(spec, progress=progress)
    conversation = ModelShape.of_files(files)  # its own errors are the conversation's: not caught here
    try:
        captions_files = resolve_model(captions_spec, progress=progress)
        plan = plan_pair(conversation, ModelShape.of_files(captions_files), memory or this_device_memory(dev),
                         chosen.value, captions_chosen.value, allow_int4)
    except (ModelError, OSError) as e:
        model = load_files(files, dev, chosen, cuda_graph, on_stage, allow_int4)
        return _without_captions(model, f"Captions are off: {e}")
    if plan.chosen is None:
        return _without_captions(load_files(files, dev, chosen, cuda_graph, on_stage, allow_int4), plan.summary)
    planned = Precision(plan.chosen.conversation.precision)
    model = load_files(files, dev, planned if chosen is Precision.AUTO and dev.type == "cuda" else chosen,
                       cuda_graph, on_stage, allow_int4)
    if chosen is Precision.AUTO and dev.type == "cuda":
        model.info = replace(model.info, precision_reason=plan.summary)
    if on_stage is not None:
        on_stage("Loading the caption model...")
    captions = _load_captions(captions_files, dev, Precision(plan.chosen.captions.precision))
    if isinstance(captions, str):
        return _without_captions(model, captions)
    log.warning("%s", plan.summary)
    return LoadedPair(model, captions, plan.summary)


def load_captions_beside(captions_spec: str, device: str = "auto",
                         captions_precision: Precision | str = Precision.AUTO,
                         memory: Memory | None = None, progress=None) -> SpeechToText:
    """The caption model beside a conversation model loaded already, in its first precision that fits
    what is free now. Raises ``ModelError`` with a plain sentence where it does not fit or cannot be had."""
    dev = resolve_device(device)
    files = resolve_model(captions_spec, progress=progress)
    planned = plan_captions_beside(ModelShape.of_files(files), memory or this_device_memory(dev),
                                   Precision.parse(captions_precision).value)
    if isinstance(planned, str):
        raise ModelError(planned + ". The conversation runs without captions.")
    captions = _load_captions(files, dev, Precision(planned.precision))
    if isinstance(captions, str):
        raise ModelError(captions.removeprefix("Captions are off: "))
    return captions


def _load_captions(files, device: torch.device, precision: Precision) -> SpeechToText | str:
    """The caption model, or why it could not be loaded (its memory let go first)."""
    try:
        with torch.inference_mode(False):
            return SpeechToText(files, device, precision)
    except ModelError as e:
        return f"Captions are off: {e}"
    except torch.OutOfMemoryError:
        pass
    release_memory()  # after the handler: the failed load's tensors are gone (``LoadedModel._unless_out_of_memory``)
    return (f"Captions are off: {files.name} ran out of GPU memory while loading beside the conversation model "
            "(other programs may be using the GPU). The conversation runs without them.")


def _without_captions(model: LoadedModel, message: str) -> LoadedPair:
    log.warning("%s", message)
    return LoadedPair(model, None, message)
