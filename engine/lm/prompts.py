"""Resolving a PersonaPlex session's prompts from what a user gives: a voice name or file, a role text.
NVIDIA's clients always give a voice prompt (``NATF0`` by default), so Parley does too unless told
``"none"`` (a state the model never saw in training: it speaks in an arbitrary voice)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from ..audio import SAMPLE_RATE, read_audio
from ..kernels.packed import float32_matmuls
from ..loudness import normalize_loudness
from .personaplex import MAX_VOICE_SECONDS, VoicePrompt, text_prompt_tokens, voice_prompt_from_pcm

log = logging.getLogger(__name__)

VOICE_SUFFIXES = (".pt", ".safetensors")  # a shipped voice: released pickle or our converted copy
DEFAULT_VOICE = "NATF0"
NO_VOICE = "none"


class VoiceNameFromFile(str):
    """A voice named by a file's header: looked up among shipped and the user's voices, never as a path."""

DEFAULT_ROLE = ("You are a wise and friendly teacher. Answer questions or provide advice in a clear and "
                "engaging way.")


def resolve_voice(voices_dir: str | Path | None, spec: str | None) -> str | None:
    """The voice a session uses for ``spec``: ``None`` (no choice) -> ``DEFAULT_VOICE``, or no voice
    (with a warning) when the model folder does not ship it; ``"none"`` -> no voice; else ``spec``."""
    if spec is None or spec == "":
        if DEFAULT_VOICE in shipped_voices(voices_dir):
            return DEFAULT_VOICE
        log.warning("this PersonaPlex folder ships no %s voice: starting without a voice prompt", DEFAULT_VOICE)
        return None
    return None if spec.strip().lower() == NO_VOICE else spec


def voice_prompt_from_recording(path: str | Path, encode: Callable[[torch.Tensor], torch.Tensor],
                                device: torch.device | str = "cpu") -> VoicePrompt:
    """A voice prompt from a recording, prepared as PersonaPlex does: 24 kHz mono at -24 LUFS, encoded."""
    return voice_prompt_from_audio(read_audio(path, max_seconds=MAX_VOICE_SECONDS), encode, device)


def voice_prompt_from_audio(pcm: np.ndarray, encode: Callable[[torch.Tensor], torch.Tensor],
                            device: torch.device | str = "cpu") -> VoicePrompt:
    """``voice_prompt_from_recording`` of decoded 24 kHz mono samples."""
    return voice_prompt_from_pcm(torch.from_numpy(normalize_loudness(pcm, SAMPLE_RATE)).to(device), encode)


def mimi_encoder(model) -> Callable[[torch.Tensor], torch.Tensor]:
    """``model``'s Mimi encoder with a fresh streaming state bound (for one recording), in float32 as
    the reference's Mimi: a voice's codes never depend on the precision or the kernel plan, so a
    library voice's cached codes equal the same recording encoded as a file."""
    mimi = model.mimi
    state = mimi.init_state(1)

    def encode(frames: torch.Tensor) -> torch.Tensor:
        with float32_matmuls():
            return mimi.encode_step(frames, state)
    return encode


def encode_recording(model, pcm: np.ndarray) -> VoicePrompt:
    """The voice prompt of 24 kHz mono samples, encoded by ``model``'s Mimi (as a recording file is)."""
    with torch.inference_mode():
        return voice_prompt_from_audio(pcm, mimi_encoder(model), model.device)


def role_prompt_tokens(tokenizer, text: str | None) -> list[int]:
    return text_prompt_tokens(text if text else DEFAULT_ROLE, tokenizer)


def shipped_voices(folder: str | Path | None) -> list[str]:
    """The voices in a model's voices folder: stems of its .pt / .safetensors files, sorted, each once."""
    if not folder or not Path(folder).is_dir():
        return []
    return sorted({p.stem for p in Path(folder).iterdir() if p.suffix.lower() in VOICE_SUFFIXES and p.is_file()})
