"""Resolving a PersonaPlex session's prompts from what a user gives: a voice name or file, a role text.

NVIDIA's server and clients always run PersonaPlex with a voice prompt (the browser client defaults
to ``NATF0``; offline mode requires one), so a session without a voice choice gets ``NATF0``.
``"none"`` is the advanced choice of no voice prompt at all: the model then starts from silence
frames and the role text only, a state it never saw in training, and speaks in an arbitrary voice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import torch

from ..audio import SAMPLE_RATE, read_audio
from ..errors import ModelError
from ..files.demo import cache_root
from ..loudness import normalize_loudness
from .personaplex import (
    MAX_VOICE_SECONDS,
    VoicePrompt,
    load_voice_prompt,
    text_prompt_tokens,
    voice_prompt_from_pcm,
)

log = logging.getLogger(__name__)

VOICE_SUFFIXES = (".pt", ".safetensors")  # a shipped voice: released pickle or our converted copy
DEFAULT_VOICE = "NATF0"
NO_VOICE = "none"



class ShippedVoiceName(str):
    """A voice named by a file's header (a conversation, compact file or journal from anywhere): it
    is looked up only among the voices the model ships, never as a path on this machine."""


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


def load_voice(model, spec: str) -> VoicePrompt:
    """``spec``: a shipped voice name (``NATF2`` or ``NATF2.pt``) from the model's voices folder, or
    a ``.pt``/``.safetensors`` voice file, or a recording in any common audio format (WAV, FLAC,
    Ogg, MP3; normalised and encoded with the model's Mimi, see ``voice_prompt_from_recording``).
    A ``ShippedVoiceName`` (a voice a file named) is only looked up among the shipped voices."""
    path = Path(spec).expanduser()
    if isinstance(spec, ShippedVoiceName) or not path.is_file():
        voices = model.files.voices_dir
        candidates = [voices / f"{path.stem}.pt", voices / f"{path.stem}.safetensors"] if voices else []
        found = [c for c in candidates if c.is_file()]
        if not found:
            shipped = shipped_voices(voices)
            if isinstance(spec, ShippedVoiceName):
                raise ModelError(f"the conversation names the voice {spec!r}, which this model does not ship "
                                 f"({', '.join(shipped) or 'it ships none'}): open it with the model it was "
                                 "made with")
            raise ModelError(f"voice prompt {spec!r} not found: give a .pt or .safetensors voice, a recording "
                             f"(WAV, FLAC, Ogg, MP3), {NO_VOICE!r}, or one of "
                             f"the shipped voices ({', '.join(shipped) or 'none found in the model folder'})")
        path = found[0]
    if path.suffix.lower() not in VOICE_SUFFIXES:
        mimi = model.mimi
        state = mimi.init_state(1)
        return voice_prompt_from_recording(path, lambda frames: mimi.encode_step(frames, state), model.device)
    voice = load_voice_prompt(path, cache_dir=cache_root() / "voices")
    if voice.embeddings is not None:
        voice = VoicePrompt(embeddings=voice.embeddings.to(model.device), cache=voice.cache.to(model.device))
    return voice


def voice_prompt_from_recording(path: str | Path, encode: Callable[[torch.Tensor], torch.Tensor],
                                device: torch.device | str = "cpu") -> VoicePrompt:
    """A voice prompt from a recording, prepared as PersonaPlex prepares it: decoded, averaged to
    mono, resampled to 24 kHz, normalised to -24 LUFS, then encoded (``encode``: PCM [1, 1, n] ->
    codes [1, 8, frames], see ``voice_prompt_from_pcm``)."""
    pcm = normalize_loudness(read_audio(path, max_seconds=MAX_VOICE_SECONDS), SAMPLE_RATE)
    return voice_prompt_from_pcm(torch.from_numpy(pcm).to(device), encode)


def role_prompt_tokens(tokenizer, text: str | None) -> list[int]:
    return text_prompt_tokens(text if text else DEFAULT_ROLE, tokenizer)


def shipped_voices(folder: str | Path | None) -> list[str]:
    """The voices in a model's voices folder: stems of its .pt / .safetensors files, sorted, each once."""
    if not folder or not Path(folder).is_dir():
        return []
    return sorted({p.stem for p in Path(folder).iterdir() if p.suffix.lower() in VOICE_SUFFIXES and p.is_file()})
