"""What a conversation file says about itself, read without loading it: for listing many files
(header and metadata only) and for replaying one (its recorded audio only, no engine state).

Neither needs the model the file was saved with.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from safetensors import safe_open

from ..audio import FRAME_SECONDS, int16_to_pcm
from ..errors import ConversationFileError
from .conversation import read_header

AUDIO_NAMES = ("audio.user", "audio.assistant")


@dataclass(frozen=True)
class ConversationInfo:
    path: Path
    model: str  # the name of the model it was saved with (a preset or a folder)
    fingerprint: str  # that model's fingerprint: a file opens only on the same model
    created: str  # ISO 8601, UTC, as written
    frames: int
    bytes: int
    transcript: tuple[tuple[int, float, str], ...]  # (frame_index, seconds, text piece) of the assistant
    has_audio: bool

    @property
    def seconds(self) -> float:
        return self.frames * FRAME_SECONDS

    @property
    def text(self) -> str:
        """The assistant's whole text, as one string."""
        return "".join(text for _frame, _seconds, text in self.transcript).strip()


def read_conversation_info(path: str | os.PathLike) -> ConversationInfo:
    """The metadata of a conversation file, from its header alone (no tensor data is read).

    Raises ``ConversationFileError`` with a one-line reason for a file that is not a readable
    Parley conversation."""
    path = Path(path)
    header, meta = read_header(path)
    try:
        transcript = tuple((int(frame), float(seconds), str(text))
                           for frame, seconds, text in meta.get("transcript", ()))
        return ConversationInfo(
            path=path, model=str(meta.get("model", "unknown")), fingerprint=str(meta.get("fingerprint", "")),
            created=str(meta.get("created", "")), frames=int(meta["frames"]), bytes=path.stat().st_size,
            transcript=transcript, has_audio=all(name in header for name in AUDIO_NAMES))
    except (KeyError, TypeError, ValueError) as e:
        raise ConversationFileError(f"{path.name} has damaged metadata ({e}).") from e
    except OSError as e:
        raise ConversationFileError(f"cannot read {path}: {e.strerror or e}") from e


def read_conversation_audio(path: str | os.PathLike) -> tuple[np.ndarray, np.ndarray]:
    """(user, assistant) float32 24 kHz recordings of a saved conversation, reading only those two
    tensors (the engine state is not touched). The header is checked first; the audio is not
    covered by a checksum of its own, so damage inside it plays as noise instead of failing."""
    path = Path(path)
    header, _meta = read_header(path)
    for name in AUDIO_NAMES:
        entry = header.get(name)
        if entry is None:
            raise ConversationFileError(f"{path.name} holds no recorded audio (it was saved without it).")
        if entry["dtype"] != "I16" or len(entry["shape"]) != 1:
            raise ConversationFileError(f"{path.name}: {name} is not 16-bit mono audio.")
    try:
        with safe_open(str(path), framework="numpy") as f:
            user, assistant = (int16_to_pcm(f.get_tensor(name)) for name in AUDIO_NAMES)
    except Exception as e:  # the header was sound, so this is damage inside the data
        raise ConversationFileError(f"{path.name}: its audio cannot be read ({e}).") from e
    return user, assistant
