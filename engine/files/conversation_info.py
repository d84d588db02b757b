"""What a conversation file says about itself, read without loading it or its model: a list row,
its metadata, or its recorded audio."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from safetensors import safe_open

from ..audio import FRAME_SECONDS, int16_to_pcm
from ..errors import ConversationFileError
from . import untrusted
from .captions import Caption, read_captions, read_turn_ends
from .conversation import (
    FULL,
    KIND_VERSIONS,
    MAX_FRAMES,
    MAX_HEADER_BYTES,
    _check_version,
    _damaged,
    _parse_header,
    _read_head,
    made_by_newer,
    read_header,
    read_transcript,
)
from .personas import read_header_persona

AUDIO_NAMES = ("audio.user", "audio.assistant")
LIST_HEADER_BYTES = 32 * 1024  # the most of a header a list row reads
LIST_TEXT_CHARS = 1000  # the most of the assistant's text a list row keeps


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
    persona: str = ""  # the name of the persona it was made with ("" for none)
    captions: tuple[Caption, ...] = ()  # the person's words, where a caption model heard them
    turn_ends: tuple[float, ...] = ()  # where the person's turns were ended (seconds): Talk released, the heads
    kind: str = FULL  # engine.files.conversation's kinds: CHAT is a conversation with a language model

    @property
    def seconds(self) -> float:
        return self.frames * FRAME_SECONDS

    @property
    def text(self) -> str:
        """The assistant's whole text, as one string."""
        return "".join(text for _frame, _seconds, text in self.transcript).strip()

    @property
    def caption_text(self) -> str:
        """The person's words, as one string."""
        return "".join(text for _seconds, text in self.captions).strip()


def read_conversation_info(path: str | os.PathLike) -> ConversationInfo:
    """The metadata of a conversation file, from its header alone; ``ConversationFileError`` if unreadable."""
    path = Path(path)
    header, meta = read_header(path)
    try:
        frames = untrusted.integer(meta, "frames", 0, MAX_FRAMES)
        return ConversationInfo(
            path=path, model=_model(meta), fingerprint=_fingerprint(meta), created=_created(meta),
            frames=frames, bytes=path.stat().st_size, transcript=tuple(read_transcript(meta, frames)),
            has_audio=all(name in header for name in AUDIO_NAMES), persona=_persona(meta),
            captions=read_captions(meta, frames), turn_ends=read_turn_ends(meta, frames), kind=_kind(meta))
    except untrusted.NewerVersionError as e:
        raise made_by_newer(path, e) from e
    except ValueError as e:
        raise ConversationFileError(f"{path.name} has damaged metadata ({e}).") from e
    except OSError as e:
        raise ConversationFileError(f"cannot read {path}: {e.strerror or e}") from e


def _model(meta: dict) -> str:
    return untrusted.text(meta, "model", 1024, default="unknown")


def _fingerprint(meta: dict) -> str:
    return untrusted.text(meta, "fingerprint", untrusted.MAX_NAME_CHARS, default="")


def _persona(meta: dict) -> str:
    persona = read_header_persona(meta)
    return persona.name if persona is not None else ""


def _kind(meta: dict) -> str:
    kind = meta.get("kind", FULL)
    if not isinstance(kind, str) or kind not in KIND_VERSIONS:
        raise ValueError(f"unknown kind {str(kind)[:40]!r}")
    return kind


def _created(meta: dict) -> str:
    return untrusted.text(meta, "created", 64, default="")


@dataclass(frozen=True)
class ConversationSummary:
    """A list row of a conversation file: ``ConversationInfo`` with the text cut to ``LIST_TEXT_CHARS``."""

    path: Path
    model: str
    fingerprint: str
    created: str  # ISO 8601, UTC: as written, or the file's modification time where the read part lacks it
    frames: int
    bytes: int
    text: str  # the start of the assistant's text (stripped)
    text_complete: bool  # whether ``text`` is the whole of it
    persona: str = ""  # the name of the persona it was made with ("" for none)
    kind: str = FULL  # as ``ConversationInfo.kind``

    @property
    def seconds(self) -> float:
        return self.frames * FRAME_SECONDS


def read_conversation_summary(path: str | os.PathLike) -> ConversationSummary:
    """A conversation file's list row from at most ``LIST_HEADER_BYTES`` of its header, so thousands
    of long conversations list quickly. A longer header (files put the transcript last) gives the
    fields before the limit; ``ConversationFileError`` for anything unreadable."""
    path = Path(path)
    data, size = _read_head(path, LIST_HEADER_BYTES)
    if len(data) < 8:
        raise _damaged(path, "file too short")
    n = int.from_bytes(data[:8], "little")
    if n > MAX_HEADER_BYTES or 8 + n > size:
        raise _damaged(path, f"header declares {n} bytes, file has {size}")
    try:
        if n <= LIST_HEADER_BYTES:
            _, meta = _parse_header(data, size, path)
            _check_version(meta, path)
            frames = untrusted.integer(meta, "frames", 0, MAX_FRAMES)
            pieces, complete = [t for _, _, t in read_transcript(meta, frames)], True
        else:
            meta, pieces, complete = _header_start(data[8:])
            _check_version(meta, path)
            frames = untrusted.integer(meta, "frames", 0, MAX_FRAMES)
        text = "".join(pieces).strip()
        created = _created(meta) or datetime.fromtimestamp(os.stat(path).st_mtime, timezone.utc).isoformat(
            timespec="seconds")
        return ConversationSummary(path=path, model=_model(meta), fingerprint=_fingerprint(meta), created=created,
                                   frames=frames, bytes=size, text=text[:LIST_TEXT_CHARS],
                                   text_complete=complete and len(text) <= LIST_TEXT_CHARS,
                                   persona=_persona(meta), kind=_kind(meta))
    except ConversationFileError:
        raise
    except RecursionError:  # Python's own words ("maximum recursion depth exceeded...") say nothing to a person
        raise ConversationFileError(f"{path.name} has damaged metadata (JSON nested too deeply).") from None
    except ValueError as e:
        raise ConversationFileError(f"{path.name} has damaged metadata ({e}).") from e
    except OSError as e:
        raise ConversationFileError(f"cannot read {path}: {e.strerror or e}") from e


_METADATA_START = re.compile(r'\s*\{\s*"__metadata__"\s*:\s*\{\s*"parley"\s*:\s*"')
_STRING_BODY = re.compile(r'(?:[^"\\]++|\\.)*+\\?', re.DOTALL)  # a JSON string's characters up to its quote


def _header_start(start: bytes) -> tuple[dict, list[str], bool]:
    """The metadata fields whole in ``start`` (a header's first bytes, ``{"__metadata__": {"parley": "...``),
    the transcript's pieces up to ``LIST_TEXT_CHARS`` and whether they are all of it."""
    header = start.decode("utf-8", "ignore")  # a cut may split the last character; the rest is checked below
    opening = _METADATA_START.match(header)
    if opening is None:
        raise ValueError("the header does not start with Parley's metadata")
    inner = _string_start(header, opening.end())
    meta, pieces, chars, pos = {}, [], 0, _skip(inner, 0)
    if inner[pos:pos + 1] != "{":
        raise ValueError("the metadata is not a JSON object")
    pos += 1
    while True:
        pos = _skip(inner, pos)
        if pos >= len(inner) or inner[pos] != '"':
            return meta, pieces, inner[pos:pos + 1] == "}"
        try:
            key, pos = json.decoder.scanstring(inner, pos + 1)
            pos = _skip(inner, pos)
            if inner[pos:pos + 1] != ":":
                raise ValueError("cut")
            pos = _skip(inner, pos + 1)
            if key != "transcript":
                meta[key], pos = untrusted.DECODER.raw_decode(inner, pos)
            else:
                if inner[pos:pos + 1] != "[":
                    raise ValueError("the transcript is not a list")
                pos += 1
                while chars <= LIST_TEXT_CHARS:
                    pos = _skip(inner, pos)
                    if inner[pos:pos + 1] == "]":
                        pos += 1
                        break
                    entry, pos = untrusted.DECODER.raw_decode(inner, pos)
                    if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[2], str)):
                        raise ValueError("a transcript entry is not [frame, seconds, text]")
                    pieces.append(entry[2][:LIST_TEXT_CHARS])
                    chars += len(pieces[-1])
                    pos = _skip(inner, pos)
                    pos += inner[pos:pos + 1] == ","
                else:
                    return meta, pieces, False
        except ValueError:  # cut where the read stopped (or damaged there): the fields before it
            return meta, pieces, False
        pos = _skip(inner, pos)
        pos += inner[pos:pos + 1] == ","


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _string_start(header: str, pos: int) -> str:
    """The JSON string after its opening quote at ``pos``, decoded as far as read (a cut escape dropped)."""
    body = _STRING_BODY.match(header, pos).group()
    for cut in range(len(body), max(len(body) - 6, 0) - 1, -1):  # "\uXXXX" is the longest escape
        try:
            return json.decoder.scanstring(body[:cut] + '"', 0)[0]
        except ValueError:
            continue
    raise ValueError("the metadata is not a JSON string")


def read_conversation_audio(path: str | os.PathLike) -> tuple[np.ndarray, np.ndarray]:
    """(user, assistant) float32 24 kHz recordings of a saved conversation, reading only those tensors;
    unchecksummed, so damage inside them plays as noise."""
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
