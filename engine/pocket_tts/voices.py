"""Pocket TTS voices as data: a voice is the FlowLM's keys and values after reading a voice
prompt, ``k``/``v`` [layers, 1, heads, length, head_dim]. Read from the package's voice files
(``<module>/cache`` [2, 1, length, heads, head_dim] and ``<module>/offset`` per attention layer),
which anyone may have written: only regular files, of bounded size, every name, shape, position
and value checked before use; or made from a recording through the codec's encoder."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors.torch import load as load_safetensors

from ..errors import VoiceLibraryError
from ..regular_files import read_regular
from ..state import StateTree
from .loading import PocketTTS

MAX_VOICE_BYTES = 256 * 1024 * 1024
MAX_VOICE_FRAMES = 2048  # positions of a voice prompt (the package truncates recordings to 30 s: ~376)
_KEY = re.compile(r"transformer\.layers\.(\d+)\.self_attn/(cache|offset|current_end|pad)")


@dataclass(frozen=True)
class Voice:
    name: str
    k: torch.Tensor
    v: torch.Tensor

    @property
    def length(self) -> int:
        return self.k.shape[3]

    def write_into(self, state: StateTree) -> None:
        """Fills a fresh FlowLM state (capacity >= length) with this voice."""
        n = self.length
        for i, layer in state["layers"].items():
            layer["k"][:, :, :n].copy_(self.k[int(i)])
            layer["v"][:, :, :n].copy_(self.v[int(i)])
        state["positions"][:n].copy_(torch.arange(n))
        state["offset"].fill_(n)


def shipped_voice_names(model: PocketTTS) -> list[str]:
    folder = model.voices_folder
    return sorted(p.stem for p in folder.glob("*.safetensors")) if folder.is_dir() else []


def voice_file(model: PocketTTS, name_or_path: str) -> Path:
    """The file of a shipped voice name, or the path given."""
    if re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name_or_path) and not Path(name_or_path).exists():
        path = model.voices_folder / f"{name_or_path}.safetensors"
        if not path.is_file():
            names = ", ".join(shipped_voice_names(model)) or "none"
            raise VoiceLibraryError(f"There is no voice {name_or_path!r} for this model (shipped voices: {names}).")
        return path
    return Path(name_or_path)


def read_voice_file(model: PocketTTS, path: Path) -> Voice:
    """A voice state file; ``VoiceLibraryError`` with one sentence for anything it cannot use."""
    try:
        data = read_regular(path, MAX_VOICE_BYTES)
    except OSError as e:
        raise VoiceLibraryError(f"The voice file {path} cannot be read: {e.strerror or e}.") from None
    if data is None:
        raise VoiceLibraryError(f"The voice file {path} is larger than a voice state can be.")
    try:
        tensors = load_safetensors(data)
        return _voice(model, path.stem, tensors)
    except VoiceLibraryError:
        raise
    except Exception as e:  # noqa: BLE001 - every failure of this file is this file's error
        raise VoiceLibraryError(f"The voice file {path} is not a Pocket TTS voice: {e}.") from None


def _voice(model: PocketTTS, name: str, tensors: dict[str, torch.Tensor]) -> Voice:
    cfg = model.config.flow
    layers: dict[int, dict[str, torch.Tensor]] = {}
    for key, tensor in tensors.items():
        match = _KEY.fullmatch(key)
        if match is None:
            raise ValueError(f"unexpected entry {key[:80]!r}")
        layers.setdefault(int(match[1]), {})[match[2]] = tensor
    if sorted(layers) != list(range(cfg.num_layers)):
        raise ValueError(f"it holds {len(layers)} layers where the model has {cfg.num_layers}")
    ks, vs, length = [], [], None
    for i in range(cfg.num_layers):
        entry = layers[i]
        cache = entry.get("cache")
        if cache is None or cache.dim() != 5 or cache.shape[0] != 2 or cache.shape[1] != 1 \
                or tuple(cache.shape[3:]) != (cfg.num_heads, cfg.head_dim) or not cache.is_floating_point():
            raise ValueError(f"layer {i} holds no cache of the model's shape")
        if "offset" in entry:
            offset = entry["offset"]
            if offset.numel() != 1 or offset.is_floating_point() or offset.dtype == torch.bool:
                raise ValueError(f"layer {i}'s position is not one integer")
            n = int(offset.view(-1)[0])
        elif "current_end" in entry:
            n = entry["current_end"].shape[0]
        else:
            raise ValueError(f"layer {i} says no position")
        if "pad" in entry and bool((entry["pad"] != 0).any()):
            raise ValueError("it holds padded (batched) positions")
        if not 0 < n <= min(cache.shape[2], MAX_VOICE_FRAMES) or (length is not None and n != length):
            raise ValueError(f"layer {i}'s position {n} is out of range")
        length = n
        kv = cache[:, 0, :n].float().permute(0, 2, 1, 3)  # [2, heads, n, head_dim]
        if not bool(torch.isfinite(kv).all()):
            raise ValueError(f"layer {i} holds values that are not finite")
        ks.append(kv[0].unsqueeze(0))
        vs.append(kv[1].unsqueeze(0))
    return Voice(name, torch.stack(ks), torch.stack(vs))


@torch.no_grad()
def voice_from_audio(model: PocketTTS, audio: torch.Tensor, name: str = "recording") -> Voice:
    """A voice from a recording [samples] at the model's rate (already checked by the caller)."""
    if not model.voice_cloning:
        raise VoiceLibraryError("This Pocket TTS model has no voice-cloning weights: use a shipped voice, "
                                "or download the gated repository kyutai/pocket-tts.")
    audio = end_on_pause(audio.float(), model.sample_rate)
    latents = model.codec.encode(audio.view(1, 1, -1).to(model.flow_lm.speaker_proj_weight.dtype))
    prompt = model.flow_lm.voice_prompt(latents)
    state = model.flow_lm.init_state(prompt.shape[1])
    model.flow_lm.read_embeddings(prompt, state)
    layers = state["layers"]
    k = torch.stack([layers[str(i)]["k"] for i in range(len(layers))])
    v = torch.stack([layers[str(i)]["v"] for i in range(len(layers))])
    return Voice(name, k.clone(), v.clone())


def end_on_pause(wav: torch.Tensor, sample_rate: int, pause_s: float = 0.08, fade_s: float = 0.02,
                 floor_db: float = 35.0) -> torch.Tensor:
    """The recording cut after its last 20 ms frame within ``floor_db`` of the loudest, faded out
    over ``fade_s`` and followed by ``pause_s`` of silence: prompts end inside a pause, as in
    training (one ending on speech makes the model continue that word)."""
    frame = max(1, int(0.02 * sample_rate))
    n = wav.shape[-1] // frame
    if n == 0:
        return wav
    rms = wav[: n * frame].reshape(n, frame).square().mean(dim=1).sqrt()
    db = 20 * torch.log10(rms + 1e-12)
    end = (int(torch.nonzero(db > db.max() - floor_db).flatten()[-1]) + 1) * frame
    wav = wav[:end].clone()
    fade = min(int(fade_s * sample_rate), end)
    wav[end - fade:] *= torch.linspace(1, 0, fade, dtype=wav.dtype)
    return torch.cat([wav, wav.new_zeros(int(pause_s * sample_rate))])
