"""Resolving a PersonaPlex session's prompts from what a user gives: a voice name or file, a role text."""

from __future__ import annotations

from pathlib import Path

import torch

from ..audio import read_wav
from ..errors import ModelError
from .personaplex import VoicePrompt, load_voice_prompt, text_prompt_tokens, voice_prompt_from_pcm

VOICE_SUFFIXES = (".pt", ".safetensors")  # a shipped voice: released pickle or our converted copy

DEFAULT_ROLE = ("You are a wise and friendly teacher. Answer questions or provide advice in a clear and "
                "engaging way.")


def load_voice(model, spec: str) -> VoicePrompt:
    """``spec``: a shipped voice name (``NATF2`` or ``NATF2.pt``) from the model's voices folder, or
    a ``.pt``/``.safetensors`` voice file, or a ``.wav`` recording (encoded with the model's Mimi)."""
    path = Path(spec).expanduser()
    if not path.is_file():
        voices = model.files.voices_dir
        candidates = [voices / f"{path.stem}.pt", voices / f"{path.stem}.safetensors"] if voices else []
        found = [c for c in candidates if c.is_file()]
        if not found:
            shipped = shipped_voices(voices)
            raise ModelError(f"voice prompt {spec!r} not found: give a .pt, .safetensors or .wav file, or one of "
                             f"the shipped voices ({', '.join(shipped) or 'none found in the model folder'})")
        path = found[0]
    if path.suffix.lower() == ".wav":
        mimi = model.mimi
        state = mimi.init_state(1)
        pcm = torch.from_numpy(read_wav(path)).to(model.device)
        return voice_prompt_from_pcm(pcm, lambda frames: mimi.encode_step(frames, state))
    voice = load_voice_prompt(path, cache_dir=Path(model.files.lm_path).parent / "voices-converted")
    if voice.embeddings is not None:
        voice = VoicePrompt(embeddings=voice.embeddings.to(model.device), cache=voice.cache.to(model.device))
    return voice


def role_prompt_tokens(tokenizer, text: str | None) -> list[int]:
    return text_prompt_tokens(text if text else DEFAULT_ROLE, tokenizer)


def shipped_voices(folder: str | Path | None) -> list[str]:
    """The voices in a model's voices folder: stems of its .pt / .safetensors files, sorted, each once."""
    if not folder or not Path(folder).is_dir():
        return []
    return sorted({p.stem for p in Path(folder).iterdir() if p.suffix.lower() in VOICE_SUFFIXES and p.is_file()})
