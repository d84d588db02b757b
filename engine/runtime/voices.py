"""A PersonaPlex voice prompt from what a user names: a shipped voice, one of their own, or a file."""

from __future__ import annotations

from pathlib import Path

from ..errors import ModelError
from ..files.demo import cache_root
from ..files.voices import VoiceLibrary
from ..lm import prompts
from ..lm.personaplex import VoicePrompt, load_voice_prompt


def load_voice(model, spec: str) -> VoicePrompt:
    """``spec``: a shipped voice name (``NATF2`` or ``NATF2.pt``), a voice of the user's library, a
    ``.pt``/``.safetensors`` voice file or a recording (WAV, FLAC, Ogg, MP3). A ``VoiceNameFromFile``
    (a voice a file named) is only looked up by name, never as a path."""
    named_by_a_file = isinstance(spec, prompts.VoiceNameFromFile)
    path = Path(spec).expanduser()
    if named_by_a_file or not path.is_file():
        voices = model.files.voices_dir
        candidates = [voices / f"{path.stem}.pt", voices / f"{path.stem}.safetensors"] if voices else []
        found = [c for c in candidates if c.is_file()]
        shipped = prompts.shipped_voices(voices)
        library = VoiceLibrary()
        if not found and library.find(spec) is not None:
            return VoicePrompt(codes=library.codes(spec, model, lambda pcm: prompts.encode_recording(model, pcm).codes))
        if not found and named_by_a_file:
            raise ModelError(f"the conversation names the voice {spec!r}, which this model does not ship "
                             f"({', '.join(shipped) or 'it ships none'}) and which is not one of your voices: "
                             "open it with the model it was made with, or add that voice (`parley voices add`)")
        if not found:
            own = [v.name for v in library.voices()]
            raise ModelError(f"voice prompt {spec!r} not found: give a .pt or .safetensors voice, a recording "
                             f"(WAV, FLAC, Ogg, MP3), {prompts.NO_VOICE!r}, one of "
                             f"the shipped voices ({', '.join(shipped) or 'none found in the model folder'}) "
                             f"or one of your voices ({', '.join(own) or 'none yet: see `parley voices`'})")
        path = found[0]
    if path.suffix.lower() not in prompts.VOICE_SUFFIXES:
        return prompts.voice_prompt_from_recording(path, prompts.mimi_encoder(model), model.device)
    voice = load_voice_prompt(path, cache_dir=cache_root() / "voices")
    if voice.embeddings is not None:
        voice = VoicePrompt(embeddings=voice.embeddings.to(model.device), cache=voice.cache.to(model.device))
    return voice
