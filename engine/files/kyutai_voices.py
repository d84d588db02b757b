"""Kyutai TTS's voices: the released speaker embeddings of ``kyutai/tts-voices``, a ``.safetensors``
file per voice holding ``speaker_wavs`` [1, dim, frames], named as the reference names them (the
recording's path in that repository plus the model's suffix, ``.<sig>@<epoch>.safetensors``). A
name is looked up in the model folder's ``voices/`` (a copy of that repository's layout), else in
the Hugging Face cache at a pinned commit, downloaded there if allowed; a file is read as given.
Voice files are untrusted: regular files only, bounded, every shape and value checked."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

from ..errors import ModelError, VoiceLibraryError
from ..families.kyutai_tts import VOICES_REPOSITORY
from ..regular_files import read_regular

# The commit a third-party deployment manifest pins (holding the default voice); unchecked here.
VOICES_REVISION = "323332d33f997de8394f24a193e1a76df720e01a"
DEFAULT_VOICE = "expresso/ex03-ex01_happy_001_channel1_334s.wav"  # kyutai's scripts' default
MAX_VOICE_BYTES = 64 * 1024 * 1024
MAX_VOICE_FRAMES = 4096  # the released voices hold 10 s at 12.5 Hz
_PART = r"[A-Za-z0-9_][A-Za-z0-9_.@+-]{0,127}"
_NAME = re.compile(rf"{_PART}(?:/{_PART}){{0,7}}")


def voice_suffix(config: Mapping[str, Any]) -> str:
    """What the reference appends to a voice's name: ``.<sig>@<epoch>.safetensors`` of ``model_id``."""
    model_id = config.get("model_id")
    parts = [model_id.get(k) for k in ("sig", "epoch")] if isinstance(model_id, Mapping) else [None]
    if not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in parts):
        raise ModelError("this model's config.json names no model_id (sig, epoch), so its voices cannot be found "
                         "by name: give a voice file (.safetensors)")
    suffix = f".{model_id['sig']}@{model_id['epoch']}.safetensors"
    if not re.fullmatch(r"\.[A-Za-z0-9_-]{1,64}@[A-Za-z0-9_-]{1,64}\.safetensors", suffix):
        raise ModelError(f"this model's config.json has an unusable model_id {dict(model_id)!r}")
    return suffix


def is_voice_name(choice: str) -> bool:
    """A name in the voices repository (``expresso/ex03-...wav``), not a file: no ``.safetensors``
    ending, as the reference tells them apart."""
    return not choice.endswith(".safetensors") and _NAME.fullmatch(choice) is not None \
        and ".." not in choice.split("/")


def voice_path(choice: str, config: Mapping[str, Any], voices_dir: Path | None, download: bool = True) -> Path:
    """The file of ``choice``: a voice file's path, or a voice's name looked up as the module says."""
    if choice.endswith(".safetensors"):
        return Path(choice).expanduser()
    if not is_voice_name(choice):
        raise VoiceLibraryError(f"--voice {choice!r} is neither a voice name (as in {VOICES_REPOSITORY}, e.g. "
                                f"{DEFAULT_VOICE}) nor a voice file (.safetensors)")
    filename = choice + voice_suffix(config)
    if voices_dir is not None:
        path = voices_dir / filename
        if not path.is_file():
            raise VoiceLibraryError(f"There is no voice {choice!r} in {voices_dir} (names as in {VOICES_REPOSITORY}, "
                                    f"e.g. {DEFAULT_VOICE}).")
        return path
    return _hub_voice(choice, filename, download)


def _hub_voice(choice: str, filename: str, download: bool) -> Path:
    from huggingface_hub import constants, hf_hub_download, try_to_load_from_cache
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError, RemoteEntryNotFoundError

    from .models import hub_cache_dir, hub_offline

    cache = hub_cache_dir()
    found = try_to_load_from_cache(VOICES_REPOSITORY, filename, cache_dir=cache, revision=VOICES_REVISION)
    if isinstance(found, str):
        return Path(found)
    if found is not None:
        raise VoiceLibraryError(f"There is no voice {choice!r} in {VOICES_REPOSITORY}.")
    if hub_offline() or not download:
        raise VoiceLibraryError(f"The voice {choice!r} is not on this machine and offline mode is on: unset "
                                "HF_HUB_OFFLINE to download it, or give a voice file (.safetensors).")
    constants.HF_HUB_OFFLINE = False  # asked only when offline mode is off now (engine.files.models)
    try:
        return Path(hf_hub_download(VOICES_REPOSITORY, filename, cache_dir=cache, revision=VOICES_REVISION,
                                    endpoint=os.environ.get("HF_ENDPOINT") or None))
    except RemoteEntryNotFoundError:
        raise VoiceLibraryError(f"There is no voice {choice!r} in {VOICES_REPOSITORY}.") from None
    except LocalEntryNotFoundError:
        raise VoiceLibraryError(f"The voice {choice!r} cannot be downloaded: the Hugging Face hub cannot be "
                                "reached.") from None
    except HfHubHTTPError as e:
        raise VoiceLibraryError(f"The voice {choice!r} cannot be downloaded: {e}.") from None


def read_voice(path: str | os.PathLike, dim: int | None = None) -> torch.Tensor:
    """A voice file's ``speaker_wavs`` as float32 [1, dim, frames]; ``VoiceLibraryError`` with one
    sentence for anything it cannot use (``dim``: the model's speaker width, when known)."""
    from safetensors.torch import load

    try:
        data = read_regular(path, MAX_VOICE_BYTES)
    except OSError as e:
        raise VoiceLibraryError(f"The voice file {path} cannot be read: {e.strerror or e}.") from None
    if data is None:
        raise VoiceLibraryError(f"The voice file {path} is larger than a voice can be.")
    try:
        tensor = load(data).get("speaker_wavs")
    except Exception as e:  # noqa: BLE001 - every failure of this file is this file's error
        raise VoiceLibraryError(f"The voice file {path} is not a safetensors file: {e}.") from None
    if tensor is None or tensor.dim() != 3 or tensor.shape[0] != 1 or not tensor.is_floating_point() \
            or not 1 <= tensor.shape[2] <= MAX_VOICE_FRAMES:
        raise VoiceLibraryError(f"The voice file {path} holds no Kyutai TTS voice (a float 'speaker_wavs' "
                                f"[1, dim, 1 to {MAX_VOICE_FRAMES} frames]).")
    if dim is not None and tensor.shape[1] != dim:
        raise VoiceLibraryError(f"The voice file {path} is for another model (speaker width {tensor.shape[1]}, "
                                f"this model's {dim}).")
    tensor = tensor.float()
    if not bool(torch.isfinite(tensor).all()):
        raise VoiceLibraryError(f"The voice file {path} holds values that are not finite.")
    return tensor

