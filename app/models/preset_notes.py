"""What the model manager says of a preset on this machine, widget-free: whether it runs here (its
badge), this computer's GPU, the precision ``auto`` would choose, the hub commit in use, the free
disk (the dialog, ``app.models.manager``, renders these texts)."""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP

import engine
from app.i18n import number_text, translate
from app.models.pair_fit import shape
from engine import short_revision

# The package with CUDA's torch (README: Requirements).
CUDA_VARIANT = QT_TRANSLATE_NOOP("ModelManager", "Parley's CUDA variant")
RUNS_HERE = QT_TRANSLATE_NOOP("ModelManager", "runs here")  # the badges of a model that can run here
FITS_GPU = QT_TRANSLATE_NOOP("ModelManager", "fits this GPU")


def this_gpu(reason: str | None) -> str:
    """The GPU a real model would run on here, or why there is none (``reason``: why no GPU can be
    used here, ``app.models.device_report``): said beside each real model's memory need, before a
    download of 15 GB."""
    if reason is not None:
        return translate("ModelManager", "This computer has no GPU these models can use ({reason}); here they "
                         "would not run in real time.").format(reason=reason)
    import torch

    props = torch.cuda.get_device_properties(0)
    return translate("ModelManager", "This computer's GPU: {name}, {gb} GB.").format(
        name=props.name, gb=number_text(props.total_memory / 1e9, 1))


def fit_badge(preset: engine.Preset, cuda_problem: str | None, cuda_build: bool, fits_gpu: bool | None,
              need_gb: int | None) -> str:
    """Whether ``preset`` runs on this machine, in a few words: ``cuda_problem`` is why no GPU can
    be used here (None: one can), ``cuda_build`` whether this torch has CUDA at all, ``fits_gpu``
    whether ``auto`` finds a precision that fits the GPU's memory (None without a GPU), ``need_gb``
    the GPU memory it needs at the least (``pair_fit.least_gpu_gb``; None: not known before its download)."""
    if preset.repo is None:
        return translate("ModelManager", RUNS_HERE)
    if need_gb is None:
        return translate("ModelManager", "needs an NVIDIA GPU (its memory need is known once downloaded)")
    if not cuda_build:
        return translate("ModelManager", "needs an NVIDIA GPU with {gb} GB and {variant}").format(
            gb=need_gb, variant=translate("ModelManager", CUDA_VARIANT))
    if cuda_problem is not None:
        return translate("ModelManager", "needs an NVIDIA GPU with {gb} GB").format(gb=need_gb)
    return translate("ModelManager", FITS_GPU) if fits_gpu else translate(
        "ModelManager", "too big for this GPU: needs {gb} GB").format(gb=need_gb)


def gpu_memory():
    """GPU 0's memory now, with what was measured on it (``engine.Gpu``); call
    only where ``cuda_unavailable_reason()`` is None."""
    import torch

    return engine.Gpu.of(torch.device("cuda", 0))


def cuda_build() -> bool:
    """Whether this torch was built with CUDA (the CPU package's is not)."""
    import torch

    return bool(torch.version.cuda)


def free_disk_gb(folder) -> float:
    """Free space on the disk that holds ``folder`` (or would: its nearest existing parent)."""
    path = Path(folder)
    while not path.exists() and path != path.parent:
        path = path.parent
    return shutil.disk_usage(path).free / 1e9


def auto_choice(preset: engine.Preset, gpu):
    """``engine.choose_precision`` for ``preset`` on ``gpu`` (an ``engine.Gpu``), int4 allowed: what
    ``auto`` would choose unless it is int4, which it chooses only where the person opted in; None where
    it does not fit even in int4 or its shape is not known before its download."""
    model = shape(preset.name)
    if model is None:
        return None
    try:
        return engine.choose_precision(preset.name, model.config, gpu, allow_int4=True)
    except engine.ModelError:
        return None


def auto_precision(preset: engine.Preset, gpu) -> str:
    """Which precision ``auto`` loads ``preset`` in on ``gpu`` (an ``engine.Gpu``),
    and why; or why it does not fit."""
    if shape(preset.name) is None:
        return translate("ModelManager", "needs an NVIDIA GPU (its memory need is known once downloaded)")
    choice = auto_choice(preset, gpu)
    if choice is None:
        return translate("ModelManager", "Precision auto here: {name} does not fit in the {gpu}'s memory "
                         "({free} GB free of {total} GB), even in int4.").format(
            name=preset.name, gpu=gpu.name, free=number_text(gpu.free_gb, 1), total=number_text(gpu.total_gb, 1))
    needs = {precision: number_text(gb, 1) for precision, gb in choice.needs.items()}
    if choice.precision == "int4":
        return translate("ModelManager", "Precision auto here: {name} does not fit: in int8 it needs about {gb} GB, "
                         "and the {gpu} has {free} GB free. In int4 (experimental: it can lower the model's "
                         "quality) it needs about {lightest} GB: choose int4 below.").format(
            name=preset.name, gb=needs["int8"], gpu=gpu.name, free=number_text(gpu.free_gb, 1), lightest=needs["int4"])
    text = translate("ModelManager", "Precision auto here: {precision}: {name} needs about {gb} GB in {precision}, "
                     "and the {gpu} has {free} GB free.").format(
        precision=choice.precision, name=preset.name, gb=needs[choice.precision], gpu=gpu.name,
        free=number_text(gpu.free_gb, 1))
    if choice.precision != "bfloat16":
        text += " " + translate("ModelManager", "bfloat16 would need about {gb} GB.").format(gb=needs["bfloat16"])
    if choice.emulated_bf16:
        text += " " + translate("ModelManager", "This GPU has no native bfloat16, which it emulates: the frame may "
                                "not run in real time.")
    return text


def revision_note(preset: engine.Preset, in_use: str | None, offered: str | None) -> str:
    """Which commit of its repository a preset is used at, and the one offered instead, if any."""
    if in_use is None:
        return translate("ModelManager", "Parley was not tested with a particular commit of {repo}: it will keep "
                         "to the commit of its first download here.").format(repo=preset.repo)
    if in_use == preset.revision:
        note = translate("ModelManager", "Revision {revision} of {repo} (the one Parley was tested with).")
    elif preset.pinned_on_first_download:
        note = translate("ModelManager", "Revision {revision} of {repo} (the one first downloaded here).")
    else:
        note = translate("ModelManager", "Revision {revision} of {repo} (chosen here by an update).")
    note = note.format(revision=short_revision(in_use), repo=preset.repo)
    if offered is not None:
        note += " " + translate("ModelManager", "Revision {revision} is offered: 'Update to {revision}' switches to "
                                "it.").format(revision=short_revision(offered))
    return note


