"""The user's own voices: recordings in the user's data folder, each with its encoded prompt cached.

A voice ``Alice`` is ``Alice.wav`` (24 kHz mono 16-bit, with a ``prly`` chunk holding a BLAKE2b
digest of the rest; a mismatch is refused) and ``prompts/Alice.<codec>.safetensors`` (its Mimi codes
for one ``codec_key``; a cache that does not check out is re-made). Names must not look like the
shipped voices' names, which are looked up first.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import save as safetensors_bytes

from ..atomic import write_atomically
from ..audio import FRAME_SIZE, SAMPLE_RATE, read_audio, wav_bytes, wav_samples
from ..errors import AudioFileError, VoiceLibraryError
from ..loudness import integrated_loudness
from ..regular_files import open_regular
from . import untrusted
from .fingerprint import file_identity
from .user_data import ensure_private_folder, user_data_folder

log = logging.getLogger(__name__)

VOICES_DIR_ENV = "PARLEY_VOICES_DIR"  # overrides the platform's user data folder (tests use it)
MIN_SECONDS = 10.0  # what a voice prompt needs: NVIDIA's voices are about 10 s
MAX_SECONDS = 30.0  # longer adds prompt frames (time before each conversation), not likeness
QUIET_LUFS = -45.0  # below this the microphone mostly gave noise, which normalising would amplify
CLIPPED_FRACTION = 0.001  # more samples than this at full scale: the recording distorts
FULL_SCALE = 0.99
PROMPT_FORMAT = "parley-voice-codes-1"
_DIGEST_CHUNK = b"prly"
_DIGEST_SIZE = 32
_SHIPPED_LOOKING = re.compile(r"(NAT|VAR)[FM]\d+", re.IGNORECASE)
_RESERVED = {"none", "con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}


def default_voices_dir() -> Path:
    return user_data_folder("voices", VOICES_DIR_ENV)


@dataclass(frozen=True)
class Assessment:
    """What a recording is like, and what is wrong with it as a voice (plain words, empty if fine)."""

    seconds: float
    loudness_lufs: float
    clipped_fraction: float

    def problems(self, finished: bool = True) -> tuple[str, ...]:
        """``finished``: the recording is complete (while it runs, its length is no problem yet)."""
        found = []
        if finished and self.seconds < MIN_SECONDS:
            found.append(f"Too short: {self.seconds:.0f} s; read for at least {MIN_SECONDS:.0f} s.")
        if self.loudness_lufs < QUIET_LUFS:
            found.append("Too quiet: speak closer to the microphone or turn its level up.")
        if self.clipped_fraction > CLIPPED_FRACTION:
            found.append("Clipped: the recording distorts; turn the microphone level down or speak further away.")
        return tuple(found)


def assess(pcm: np.ndarray) -> Assessment:
    """``pcm``: 24 kHz mono float samples."""
    seconds = pcm.size / SAMPLE_RATE
    try:
        loudness = integrated_loudness(pcm, SAMPLE_RATE) if pcm.size else float("-inf")
    except AudioFileError:  # shorter than loudness's first block
        loudness = float("-inf")
    clipped = float(np.count_nonzero(np.abs(pcm) >= FULL_SCALE)) / max(1, pcm.size)
    return Assessment(seconds, loudness, clipped)


def read_voice_file(path: str | os.PathLike) -> np.ndarray:
    """A recording in any common format as a voice keeps it (first ``MAX_SECONDS``, 24 kHz mono), or
    ``VoiceLibraryError`` saying what makes it no voice, before the person is asked to name it."""
    pcm = read_audio(path, max_seconds=MAX_SECONDS, keep_first=True)
    problems = assess(pcm).problems()
    if problems:
        raise VoiceLibraryError(" ".join(problems))
    return pcm


def check_name(name: str, what: str = "a voice", error: type[ValueError] = VoiceLibraryError) -> str:
    """The name as stored (stripped), or ``error`` saying why not; safe file names on every OS."""
    name = name.strip() if isinstance(name, str) else ""
    if not untrusted.USER_NAME.fullmatch(name):
        raise error(f"{name!r} cannot name {what}: use 1-40 letters, digits, spaces, "
                    "hyphens, underscores, apostrophes or parentheses")
    if _SHIPPED_LOOKING.fullmatch(name) or name.lower() in _RESERVED:
        raise error(f"{name!r} is reserved (a shipped voice's name, 'none' or a device name): "
                    "choose another name")
    return name


def codec_key(model) -> str:
    """What a voice's codes depend on: the Mimi weights and the device kind. Not the precision, the
    kernels or threads: voices are encoded in float32 at every precision (``mimi_encoder``), and codes
    are nearest codebook entries, held equal across float32 kernels by tests."""
    h = hashlib.sha256(file_identity(model.files.mimi_path).encode())
    h.update(f"{model.device.type}/float32".encode())
    return h.hexdigest()[:32]


@dataclass(frozen=True)
class UserVoice:
    name: str
    path: Path  # the recording
    seconds: float
    problem: str = ""  # why the recording cannot be used ("" = it can)

    def as_json(self) -> dict:
        return {"name": self.name, "kind": "user", "path": str(self.path), "seconds": round(self.seconds, 2),
                **({"error": self.problem} if self.problem else {})}


class VoiceLibrary:
    """The user's voices in ``folder`` (default: the user's data folder)."""

    def __init__(self, folder: str | os.PathLike | None = None) -> None:
        self.folder = Path(folder) if folder is not None else default_voices_dir()

    # -- reading -----------------------------------------------------------------------------
    def voices(self) -> list[UserVoice]:
        if not self.folder.is_dir():
            return []
        found = []
        for path in sorted(self.folder.glob("*.wav"), key=lambda p: p.stem.lower()):
            try:
                seconds, problem = read_recording(path)[0].size / SAMPLE_RATE, ""
            except AudioFileError as e:
                seconds, problem = 0.0, str(e)
            found.append(UserVoice(path.stem, path, seconds, problem))
        return found

    def find(self, name: str) -> UserVoice | None:
        """The voice called ``name`` (case-insensitive, as the file systems of Windows and macOS are)."""
        wanted = name.strip().lower() if isinstance(name, str) else ""
        return next((v for v in self.voices() if v.name.lower() == wanted), None)

    def get(self, name: str) -> UserVoice:
        voice = self.find(name)
        if voice is None:
            known = ", ".join(v.name for v in self.voices()) or "none yet"
            raise VoiceLibraryError(f"there is no voice called {name!r} (your voices: {known})")
        return voice

    def recording(self, name: str) -> np.ndarray:
        return read_recording(self.get(name).path)[0]

    # -- changing ----------------------------------------------------------------------------
    def add(self, name: str, pcm: np.ndarray) -> UserVoice:
        """Store a 24 kHz mono recording (its first ``MAX_SECONDS``) as ``name``, or say its problems."""
        name = self._free_name(name)
        pcm = np.asarray(pcm, dtype=np.float32)[: int(MAX_SECONDS * SAMPLE_RATE)]
        problems = assess(pcm).problems()
        if problems:
            raise VoiceLibraryError(" ".join(problems))
        self._ensure_folder()
        path = self.folder / f"{name}.wav"
        write_atomically(path, recording_bytes(pcm), private=True)
        return UserVoice(name, path, pcm.size / SAMPLE_RATE)

    def import_file(self, name: str, path: str | os.PathLike) -> UserVoice:
        """A recording in any common format (WAV, FLAC, Ogg, MP3), decoded to 24 kHz mono."""
        return self.add(name, read_voice_file(path))

    def rename(self, old: str, new: str) -> UserVoice:
        voice = self.get(old)
        new = check_name(new)
        if new.lower() != voice.name.lower():
            new = self._free_name(new)
        target = self.folder / f"{new}.wav"
        os.replace(voice.path, target)
        for cache in self._caches(voice.name):
            os.replace(cache, cache.with_name(new + cache.name[len(voice.name):]))
        return UserVoice(new, target, voice.seconds, voice.problem)

    def remove(self, name: str) -> None:
        voice = self.get(name)
        for cache in self._caches(voice.name):
            cache.unlink(missing_ok=True)
        voice.path.unlink()

    # -- the encoded prompt ------------------------------------------------------------------
    def prompt_path(self, name: str, model) -> Path:
        return self.folder / "prompts" / f"{self.get(name).name}.{codec_key(model)[:16]}.safetensors"

    def codes(self, name: str, model, encode: Callable[[np.ndarray], torch.Tensor]) -> torch.Tensor:
        """The voice's Mimi codes [frames, 8] (long, CPU) for ``model``'s codec, cached or encoded now."""
        voice = self.get(name)
        pcm, digest = read_recording(voice.path)
        frames = -(-pcm.size // FRAME_SIZE)
        cache, key = self.prompt_path(voice.name, model), codec_key(model)
        if cache.is_file():
            try:
                return read_prompt_cache(cache, key, digest, frames, model.lm_config.card)
            except ValueError as e:
                log.warning("the cached prompt of voice %r is not used and is made again: %s", voice.name, e)
        codes = encode(pcm).cpu()
        self._ensure_folder(cache.parent)
        codes = codes.contiguous()
        write_atomically(cache, safetensors_bytes({"codes": codes}, metadata={
            "format": PROMPT_FORMAT, "codec": key, "recording": digest, "checksum": _checksum(codes)}), private=True)
        return codes

    # -- helpers -----------------------------------------------------------------------------
    def _free_name(self, name: str) -> str:
        name = check_name(name)
        if self.find(name) is not None:
            raise VoiceLibraryError(f"there already is a voice called {name!r}: choose another name or remove it")
        return name

    def _caches(self, name: str) -> list[Path]:
        folder = self.folder / "prompts"
        return sorted(folder.glob(f"{name}.*.safetensors")) if folder.is_dir() else []

    def _ensure_folder(self, folder: Path | None = None) -> None:
        ensure_private_folder(self.folder, folder or self.folder)


def recording_bytes(pcm: np.ndarray) -> bytes:
    """A 16-bit WAV of ``pcm`` with a ``prly`` chunk holding the digest of its other chunks."""
    data = wav_bytes(pcm)
    digest = hashlib.blake2b(data[12:], digest_size=_DIGEST_SIZE).digest()
    data += _DIGEST_CHUNK + struct.pack("<I", _DIGEST_SIZE) + digest
    return data[:4] + struct.pack("<I", len(data) - 8) + data[8:]


def recording_digest(data: bytes, path: Path) -> str:
    """The digest a voice recording's bytes carry, checked; ``AudioFileError`` if they do not match."""
    tail = len(_DIGEST_CHUNK) + 4 + _DIGEST_SIZE
    body, chunk = data[12:-tail], data[-tail:]
    if (len(data) < 12 + tail or data[:4] != b"RIFF" or struct.unpack("<I", data[4:8])[0] != len(data) - 8
            or chunk[:8] != _DIGEST_CHUNK + struct.pack("<I", _DIGEST_SIZE)):
        raise AudioFileError(f"the recording {path.name} is damaged or not one of Parley's (no intact digest): "
                             "record or import the voice again")
    digest = hashlib.blake2b(body, digest_size=_DIGEST_SIZE).digest()
    if digest != chunk[8:]:
        raise AudioFileError(f"the recording {path.name} is damaged (its samples do not match their digest): "
                             "record or import the voice again")
    return digest.hex()


def max_recording_bytes() -> int:
    """The size of the longest recording ``recording_bytes`` writes (``MAX_SECONDS``)."""
    return 44 + 2 * int(MAX_SECONDS * SAMPLE_RATE) + len(_DIGEST_CHUNK) + 4 + _DIGEST_SIZE


def read_recording(path: Path) -> tuple[np.ndarray, str]:
    """A voice recording's samples and checked digest; only a regular file of at most
    ``max_recording_bytes`` is read."""
    limit = max_recording_bytes()
    try:
        with open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
            data = f.read(limit + 1) if size <= limit else b""  # bounded even if it grows meanwhile
    except (OSError, ValueError) as e:  # ValueError: a NUL in the name
        raise AudioFileError(f"cannot read the recording {path.name}: {getattr(e, 'strerror', None) or e}") from e
    if size > limit:
        raise AudioFileError(f"the recording {path.name} is {size} bytes, more than a voice of {MAX_SECONDS:.0f} s "
                             f"({limit} bytes): it is not one of Parley's recordings")
    digest = recording_digest(data, path)
    return wav_samples(data, path.name, max_seconds=MAX_SECONDS), digest


def read_prompt_cache(path: Path, key: str, digest: str, frames: int, card: int) -> torch.Tensor:
    """The cached codes, if this file is the cache of this recording for this codec; else ValueError."""
    limit = frames * 8 * 8 + 4096  # the codes and a small header: anything bigger is not ours
    if path.stat().st_size > limit:
        raise ValueError(f"{path.name} is {path.stat().st_size} bytes, more than its codes need")
    try:
        with safe_open(str(path), framework="pt", device="cpu") as f:
            meta, keys = f.metadata() or {}, set(f.keys())
            codes = f.get_tensor("codes") if keys == {"codes"} else None
    except (SafetensorError, OSError, json.JSONDecodeError) as e:
        raise ValueError(f"{path.name} is not a readable safetensors file: {e}") from e
    if meta.get("format") != PROMPT_FORMAT or codes is None:
        raise ValueError(f"{path.name} is not a voice prompt cache")
    if meta.get("codec") != key:
        raise ValueError(f"{path.name} was encoded by another codec")
    if meta.get("recording") != digest:
        raise ValueError(f"{path.name} was encoded from another recording")
    if codes.dtype != torch.long or tuple(codes.shape) != (frames, 8) or codes.min() < 0 or codes.max() >= card:
        raise ValueError(f"{path.name} holds codes {tuple(codes.shape)} {codes.dtype}, not [{frames}, 8] "
                         f"values in [0, {card})")
    if meta.get("checksum") != _checksum(codes):
        raise ValueError(f"{path.name}: its codes do not match their checksum")
    return codes


def _checksum(codes: torch.Tensor) -> str:
    return hashlib.blake2b(codes.numpy().tobytes(), digest_size=16).hexdigest()
