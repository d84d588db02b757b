"""Conversation files: one safetensors file holding a whole session, written atomically and read
defensively, and the mapping between a ``Session`` and such a file.

A *full* file holds every state tensor (rings trimmed), optional ``audio.*`` and JSON metadata
(key ``parley``); a *compact* file (``engine.files.compact``) holds the frames to replay instead.

Reading never unpickles, and the header is checked by hand first (sizes, offsets, names, bounded
shapes), so a damaged or hostile file is refused before any tensor memory is allocated.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import struct
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file
from safetensors.torch import save as save_safetensors_bytes

from ..atomic import write_atomically
from ..audio import FRAME_SECONDS, SAMPLE_RATE
from ..errors import ConversationFileError
from ..lm import state_values
from ..lm.generate import SamplingConfig
from ..regular_files import open_regular
from ..state import StateTree, flatten
from ..version import VERSION
from . import untrusted
from .captions import Caption, captions_field, read_captions, read_turn_ends
from .personas import Persona, persona_field, read_header_persona

FORMAT_NAME = "parley.conversation"
FORMAT_VERSION = 3  # the newest version this Parley reads
# The kinds: a state snapshot (version 1), frames to replay (version 2), or a conversation with the
# person's language model (version 3: ``engine.files.chat_conversation``), which has no model state.
FULL, COMPACT, CHAT = "full", "compact", "chat"
KIND_VERSIONS = {FULL: 1, COMPACT: 2, CHAT: 3}
LAST_FIELDS = ("transcript", "chat")  # written last, in this order: a list row reads the fields before them
MAX_HEADER_BYTES = 16 * 1024 * 1024
MAX_FRAMES = 10_000_000  # 9 days of conversation: the bound of every frame count and index a file holds
MAX_TRANSCRIPT_CHARS = 1000  # one transcript entry's text (one token's piece)

_DTYPES = {
    "F32": (torch.float32, 4), "F16": (torch.float16, 2), "BF16": (torch.bfloat16, 2),
    "I64": (torch.int64, 8), "I32": (torch.int32, 4), "I16": (torch.int16, 2),
    "U8": (torch.uint8, 1), "I8": (torch.int8, 1), "BOOL": (torch.bool, 1),
}


@dataclass(frozen=True)
class ConversationFile:
    tensors: dict[str, torch.Tensor]
    meta: dict


@dataclass(frozen=True)
class SavedConversation:
    """A conversation file read for one session: its state tensors and what the host side needs."""

    state: dict[str, torch.Tensor]
    sampling: SamplingConfig
    seed: int
    frames: int
    generator_steps: int
    decoded_frames: int
    prompts: dict
    persona: Persona | None
    transcript: list[tuple[int, float, str]]
    captions: tuple[Caption, ...]  # the person's words, where a caption model heard them
    turn_ends: tuple[float, ...]  # where its voice-activity heads said the person's turn ended (seconds)
    user_audio: np.ndarray | None
    assistant_audio: np.ndarray | None


@dataclass(frozen=True)
class ConversationSnapshot:
    """A conversation file's contents as of one frame: taking it copies only the model's state;
    ``write`` does the slow part on any thread while the conversation goes on."""

    kind: str  # FULL | COMPACT
    frames: int  # the conversation's frames the file holds
    contents: Callable[[], tuple[dict[str, torch.Tensor], dict]]  # the file's tensors and metadata

    def write(self, path: str | os.PathLike) -> None:
        write_conversation(path, *self.contents())


def transcript_tuples(entries) -> list[tuple[int, float, str]]:
    """A session's transcript as (frame_index, seconds, text) tuples."""
    return [(e.frame_index, e.seconds, e.text) for e in entries]


@dataclass(frozen=True)
class SessionProgress:
    """What a session keeps on the host beside its state tree, as its files store it."""

    sampling: SamplingConfig
    seed: int
    frames: int  # live frames stepped
    generator_steps: int  # generator steps, prompt phases included
    decoded_frames: int  # frames Mimi decoded (the generator's output aligned)
    prompts: dict
    transcript: tuple[tuple[int, float, str], ...]  # (frame index, seconds, text piece)
    persona: Persona | None = None  # who the assistant is, as the person chose it
    captions: tuple[Caption, ...] = ()  # the person's words (``engine.files.captions``)
    turn_ends: tuple[float, ...] = ()  # where the caption model said the person's turn ended (seconds)


def snapshot_session(info, state: StateTree, progress: SessionProgress, recording) -> ConversationSnapshot:
    """A session's full file: trimmed state, both sides' audio as 16-bit PCM (``recording``, or None),
    and the metadata that continues it."""
    tensors_now = {name: t.to("cpu", copy=True) for name, t in trimmed_state(state).items()}
    meta = {
        "version": KIND_VERSIONS[FULL],
        "kind": FULL,
        "model": info.name,
        "fingerprint": info.fingerprint,
        "frames": progress.frames,
        "generator_steps": progress.generator_steps,
        "decoded_frames": progress.decoded_frames,
        "sampling": asdict(progress.sampling),
        "seed": progress.seed,
        "prompts": dict(progress.prompts),
        **persona_field(progress.persona),
        "transcript": [list(entry) for entry in progress.transcript],
        **captions_field(progress.captions, progress.turn_ends, progress.frames),
        "app_version": VERSION,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "sample_rate": SAMPLE_RATE,
    }

    def contents() -> tuple[dict[str, torch.Tensor], dict]:
        tensors = dict(tensors_now)
        if recording is not None:
            tensors["audio.user"], tensors["audio.assistant"] = (
                torch.from_numpy(side.int16()) for side in recording)
        return tensors, meta

    return ConversationSnapshot(FULL, progress.frames, contents)


def read_session_file(path: str | os.PathLike, fingerprint: str, live_state: StateTree,
                      lm_config=None) -> SavedConversation:
    """Read a conversation for a session whose state is ``live_state`` on the model ``fingerprint``:
    names and shapes checked against ``live_state``, then values (``engine.lm.state_values``)."""
    path = Path(path)
    expected = {name: tuple(t.shape) for name, t in flatten(live_state).items()}
    kind = file_kind(path)
    if kind == CHAT:
        raise with_language_model(path)
    if kind != FULL:
        raise ConversationFileError(f"{path.name} is a compact conversation: it opens by replaying it "
                                    "(engine.open_conversation), not by restoring a snapshot.")
    file = read_conversation(path, expected, fingerprint=fingerprint)
    meta, tensors = file.meta, file.tensors
    try:
        frames = untrusted.integer(meta, "frames", 0, MAX_FRAMES)
        record = SavedConversation(
            state={name: tensors[name] for name in expected},
            sampling=untrusted.sampling(meta), seed=untrusted.integer(meta, "seed", *untrusted.INT64),
            frames=frames, generator_steps=untrusted.integer(meta, "generator_steps", 0, MAX_FRAMES),
            decoded_frames=untrusted.integer(meta, "decoded_frames", 0, MAX_FRAMES),
            prompts=untrusted.prompts(meta), persona=read_header_persona(meta),
            transcript=read_transcript(meta, frames), captions=read_captions(meta, frames),
            turn_ends=read_turn_ends(meta, frames),
            user_audio=_audio(tensors, "audio.user"), assistant_audio=_audio(tensors, "audio.assistant"))
        state_values.check(record, lm_config)
    except untrusted.NewerVersionError as e:
        raise made_by_newer(path, e) from e
    except ValueError as e:
        raise ConversationFileError(f"{path.name} has damaged contents ({e}); open another copy.") from e
    return record


def with_language_model(path: Path) -> ConversationFileError:
    """A conversation with a language model where a speech-to-speech model's is expected."""
    return ConversationFileError(f"{Path(path).name} is a conversation with your language model, not with a speech "
                                 "model: open it in Parley's window (File, Open), which continues it with that "
                                 "language model.")


def made_by_newer(path: Path, e: untrusted.NewerVersionError) -> ConversationFileError:
    """A file that is whole but holds a part only a newer Parley reads: not damaged, and an update opens it."""
    return ConversationFileError(f"{path.name} was made by a newer Parley ({e}). Update Parley to open it.")


def read_transcript(meta: Mapping, frames: int) -> list[tuple[int, float, str]]:
    """The header's transcript ``[[frame, seconds, text], ...]``, checked: one per frame at most, in order."""
    entries = untrusted.sequence(meta, "transcript", frames)
    out, previous = [], -1
    for entry in entries:
        if not (isinstance(entry, list) and len(entry) == 3):
            raise ValueError(f"transcript entry {len(out)} is not [frame, seconds, text]")
        row = dict(zip(("frame", "seconds", "text"), entry))
        frame = untrusted.integer(row, "frame", previous, frames - 1)
        out.append((frame, untrusted.number(row, "seconds", 0, (frame + 1) * FRAME_SECONDS),
                    untrusted.text(row, "text", MAX_TRANSCRIPT_CHARS)))
        previous = frame
    return out


def _audio(tensors: Mapping[str, torch.Tensor], name: str) -> np.ndarray | None:
    """A side's recording as the file keeps it: 16-bit samples, one channel."""
    if name not in tensors:
        return None
    samples = tensors[name]
    if samples.dtype != torch.int16 or samples.dim() != 1:
        raise ValueError(f"{name} is {samples.dtype} {tuple(samples.shape)}, not 16-bit mono samples")
    return samples.numpy()


def copy_into_state(state: StateTree, stored: Mapping[str, torch.Tensor]) -> None:
    """Copy a file's tensors into the live state in place (a captured CUDA graph stays valid); slots
    beyond a trimmed ring are zeroed."""
    with torch.inference_mode():
        for name, target in flatten(state).items():
            source = stored[name]
            target.zero_()
            target[tuple(slice(0, s) for s in source.shape)].copy_(source)


def trimmed_state(state: StateTree) -> dict[str, torch.Tensor]:
    """Flatten the state, keeping only the filled slots of each ring cache."""
    out: dict[str, torch.Tensor] = {}

    def walk(tree: StateTree, prefix: str) -> None:
        is_ring = "positions" in tree and "layers" in tree
        filled = min(int(tree["offset"]), tree["positions"].shape[0]) if is_ring else None
        for key, value in tree.items():
            name = f"{prefix}{key}"
            if isinstance(value, torch.Tensor):
                out[name] = value
            elif is_ring and key == "layers":
                for layer, kv in value.items():
                    for k, t in kv.items():
                        out[f"{name}.{layer}.{k}"] = t[:, :, :filled]
            else:
                walk(value, name + ".")

    walk(state, "")
    return out


def file_kind(path: str | os.PathLike) -> str:
    """``FULL``, ``COMPACT`` or ``CHAT``, from the header alone (no ``kind``: full)."""
    path = Path(path)
    _, meta = read_header(path)
    kind = meta.get("kind", FULL)
    if not isinstance(kind, str) or kind not in KIND_VERSIONS:
        raise _damaged(path, f"unknown kind {str(kind)[:40]!r}")
    return kind


def _read_head(path: Path, max_bytes: int = MAX_HEADER_BYTES) -> tuple[bytes, int]:
    """The first 8 + header-length bytes (at most ``max_bytes`` of header) and the file size."""
    try:
        with open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
            prefix = f.read(8)
            n = struct.unpack("<Q", prefix)[0] if len(prefix) == 8 else 0
            return prefix + f.read(min(n, max_bytes)), size
    except (OSError, ValueError) as e:  # ValueError: a NUL in the name
        raise ConversationFileError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from e


def write_conversation(path: str | os.PathLike, tensors: Mapping[str, torch.Tensor], meta: Mapping) -> None:
    """Write atomically (a crash leaves the old file or the new one); a header over
    ``MAX_HEADER_BYTES``, which no reader would open, is refused before anything is written."""
    path = Path(path)
    tensors = {k: v.detach().contiguous().cpu() for k, v in tensors.items()}
    full_meta = {"format": FORMAT_NAME, "version": FORMAT_VERSION, **meta, "checksum": _checksum(tensors)}
    for name in LAST_FIELDS:  # a list row reads the header's start: the fields before these, and the text
        if name in full_meta:
            full_meta[name] = full_meta.pop(name)
    payload = save_safetensors_bytes(tensors, metadata={"parley": json.dumps(full_meta)})
    header_bytes = struct.unpack_from("<Q", payload)[0]
    if header_bytes > MAX_HEADER_BYTES:  # every reader refuses it: what Parley writes, Parley reads
        raise ConversationFileError(
            f"{path.name} was not saved: its transcript and captions would take {header_bytes / 2**20:.1f} MB of "
            f"the file's header, which holds at most {MAX_HEADER_BYTES // 2**20} MB (hours of conversation).")
    write_atomically(path, payload, private=True)


def read_conversation(path: str | os.PathLike, expected_shapes: Mapping[str, tuple[int, ...]] | None = None,
                      allowed_prefixes: tuple[str, ...] = ("audio.",), fingerprint: str | None = None
                      ) -> ConversationFile:
    """Read and validate a conversation file. ``expected_shapes``: each state name's maximum shape
    (other names need an allowed prefix); ``fingerprint`` is checked first, so another model's file is named as such."""
    path = Path(path)
    header, meta = read_header(path)
    if fingerprint is not None and meta.get("fingerprint") != fingerprint:
        raise ConversationFileError(
            f"{path.name} was saved with another model ({str(meta.get('model', 'unknown'))[:200]}); open it with "
            "that model, or start a new conversation with the one loaded.")
    if expected_shapes is not None:
        _check_names_and_shapes(header, expected_shapes, allowed_prefixes, path)
    try:
        tensors = load_file(path)
    except Exception as e:  # the header was sound, so this is damage inside the data
        raise _damaged(path, str(e)) from e
    if meta.get("checksum") != _checksum(tensors):
        raise _damaged(path, "checksum mismatch")
    return ConversationFile(tensors, meta)


def read_header(path: Path) -> tuple[dict, dict]:
    """The safetensors header (tensor entries) and the Parley metadata of a conversation file,
    checked (sizes, offsets, format and version) without reading any tensor data."""
    path = Path(path)
    header, meta = _parse_header(*_read_head(path), path)
    _check_version(meta, path)
    return header, meta


def _checksum(tensors: Mapping[str, torch.Tensor]) -> str:
    """BLAKE2b over names, dtypes, shapes and raw bytes (safetensors itself has no checksum)."""
    h = hashlib.blake2b(digest_size=16)
    for name in sorted(tensors):
        t = tensors[name].contiguous()
        h.update(f"{name}|{t.dtype}|{tuple(t.shape)}|".encode())
        h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b"")
    return h.hexdigest()


def _damaged(path: Path, why: str) -> ConversationFileError:
    """One line: what it means and what to do first, the technical reason last (behind Details)."""
    return ConversationFileError(
        f"{path.name} is not a readable Parley conversation: it may be truncated or damaged. Open another "
        f"copy, or start a new conversation. (What is wrong: {why}.)")


def _parse_header(data: bytes, file_size: int, path: Path) -> tuple[dict, dict]:
    """``data`` = the first 8 + header-length bytes of the file."""
    if len(data) < 8:
        raise _damaged(path, "file too short")
    (n,) = struct.unpack("<Q", data[:8])
    if n > MAX_HEADER_BYTES or 8 + n > file_size or len(data) < 8 + n:
        raise _damaged(path, f"header declares {n} bytes, file has {file_size}")
    try:
        header = untrusted.parse_json_object(data[8:8 + n])
    except ValueError as e:
        raise _damaged(path, f"header: {e}") from None
    raw_meta = header.pop("__metadata__", None)
    if not isinstance(raw_meta, dict) or not isinstance(raw_meta.get("parley"), str):
        raise ConversationFileError(f"{path.name} is a safetensors file but not a Parley conversation.")
    try:
        meta = untrusted.parse_json_object(raw_meta["parley"])
    except ValueError as e:
        raise _damaged(path, f"metadata: {e}") from None
    data_len = file_size - 8 - n
    end = 0
    for name, info in header.items():
        stop = _entry_end(info, data_len)
        if stop is None:
            raise _damaged(path, f"entry {name[:80]!r} is malformed, or has inconsistent size or offsets")
        end = max(end, stop)
    if end != data_len:
        raise _damaged(path, "data section does not match the header")
    return header, meta


def _entry_end(info, data_len: int) -> int | None:
    """Where a safetensors header entry's data ends, or None if malformed or outside the data."""
    if not isinstance(info, dict) or not isinstance(info.get("dtype"), str) or info["dtype"] not in _DTYPES:
        return None
    shape, offsets = info.get("shape"), info.get("data_offsets")
    if not (isinstance(shape, list) and len(shape) <= 8 and all(type(s) is int and 0 <= s < 2**40 for s in shape)):
        return None
    if not (isinstance(offsets, list) and len(offsets) == 2 and all(type(o) is int for o in offsets)):
        return None
    start, stop = offsets
    if not (0 <= start <= stop <= data_len) or stop - start != math.prod(shape) * _DTYPES[info["dtype"]][1]:
        return None
    return stop


def _check_version(meta: dict, path: Path) -> None:
    if meta.get("format") != FORMAT_NAME:
        raise ConversationFileError(f"{path.name} is not a Parley conversation file.")
    version = meta.get("version")
    if type(version) is not int or version > FORMAT_VERSION:
        raise ConversationFileError(
            f"{path.name} was written by a newer Parley (format version {version}; this one reads up to "
            f"{FORMAT_VERSION}). Update Parley to open it.")
    if version < 1:
        raise _damaged(path, f"unknown format version {version}")


def _check_names_and_shapes(header: dict, expected: Mapping[str, tuple[int, ...]],
                            allowed_prefixes: tuple[str, ...], path: Path) -> None:
    for name, info in header.items():
        if name.startswith(allowed_prefixes):
            continue
        if name not in expected:
            raise ConversationFileError(
                f"{path.name} holds state ({name!r}) that this model does not have: it was saved with a "
                "different model. Load that model, or start a new conversation.")
        limit = expected[name]
        shape = tuple(info["shape"])
        if len(shape) != len(limit) or any(s > m for s, m in zip(shape, limit)):
            raise ConversationFileError(
                f"{path.name}: {name!r} has shape {shape}, this model allows at most {limit}: it was saved "
                "with a different model configuration.")
    missing = [n for n in expected if n not in header]
    if missing:
        raise _damaged(path, f"{len(missing)} state entries missing (e.g. {missing[0]!r})")
