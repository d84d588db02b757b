"""The person's captions as conversation files and crash journals keep them: ``(seconds, text)`` pieces.

In a conversation file they are one optional metadata field, versioned on its own::

    "captions": {"version": 1, "pieces": [[seconds, text], ...]}
    "captions": {"version": 2, "pieces": [[seconds, text], ...], "turn_ends": [seconds, ...]}

Version 2 (turn ends) is written only where there are ends, so other files open in older Parleys.
Both forms (journals: ``C`` and ``E`` records) are untrusted and bounded by ``most(frames)``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from ..audio import FRAME_SECONDS
from . import untrusted
from .untrusted import NewerVersionError

Caption = tuple[float, str]  # (conversation seconds, text piece)

FIELD = "captions"
VERSION = 2  # the newest captions field this Parley reads (2: turn ends)
PIECES_ONLY_VERSION = 1  # a field without turn ends: what every Parley with captions reads
MAX_CAPTION_CHARS = 200  # one piece is one text token's: a few characters
CAPTION_DECIMALS = 3  # a piece's time is kept to the millisecond
# ``most(n)``: one piece a frame, plus a captioner's flush and a resumed one's first steps at once.
MAX_PER_FRAME = 4
MAX_FLUSH = 256


def most(frames: int) -> int:
    """The most pieces (or turn ends) a conversation of ``frames`` frames holds."""
    return MAX_PER_FRAME * frames + MAX_FLUSH


def captions_field(captions: Iterable[Caption], turn_ends: Iterable[float] = (), frames: int | None = None) -> dict:
    """The metadata field of ``captions`` and ``turn_ends`` ({} for none); with ``frames``, the
    pieces and ends past ``most(frames)`` are left out, as every reader would refuse them."""
    limit = None if frames is None else most(frames)
    pieces = [[round(seconds, CAPTION_DECIMALS), text] for seconds, text in list(captions)[:limit]]
    ends = [round(seconds, CAPTION_DECIMALS) for seconds in list(turn_ends)[:limit]]
    if ends:
        return {FIELD: {"version": VERSION, "pieces": pieces, "turn_ends": ends}}
    return {FIELD: {"version": PIECES_ONLY_VERSION, "pieces": pieces}} if pieces else {}


def read_captions(meta: Mapping, frames: int) -> tuple[Caption, ...]:
    """The checked captions of a file's metadata (() where none); ``ValueError`` names the first
    wrong one, and a newer field raises ``NewerVersionError`` (dropping it would lose it on save)."""
    if FIELD not in meta:
        return ()
    field = untrusted.mapping(meta, FIELD)
    version = untrusted.integer(field, "version", 1, 2**31)
    if version > VERSION:
        raise NewerVersionError(f"its captions were written by a newer Parley (captions version {version}; "
                                f"this one reads up to {VERSION})")
    rows = untrusted.sequence(field, "pieces", most(frames))
    return tuple(_piece(row, frames, i) for i, row in enumerate(rows))


def read_turn_ends(meta: Mapping, frames: int) -> tuple[float, ...]:
    """The checked turn ends (seconds) of the captions field (() where none or version 1)."""
    if FIELD not in meta:
        return ()
    field = untrusted.mapping(meta, FIELD)
    if untrusted.integer(field, "version", 1, 2**31) < VERSION:
        if "turn_ends" in field:
            raise ValueError("its captions field has turn ends but is version 1")
        return ()
    if "turn_ends" not in field:
        raise ValueError(f"its captions field (version {VERSION}) has no 'turn_ends'")
    rows = untrusted.sequence(field, "turn_ends", most(frames))
    return tuple(_turn_end(row, frames, i) for i, row in enumerate(rows))


def encode_caption(caption: Caption) -> bytes:
    """A journal caption record's payload."""
    seconds, text = caption
    return json.dumps([round(seconds, CAPTION_DECIMALS), text]).encode("utf-8")


def decode_caption(payload: bytes, frames: int) -> Caption:
    """A journal caption record's payload, heard within the ``frames`` journaled before it."""
    return _piece(untrusted.parse_json(payload), frames, 0)


def encode_turn_end(seconds: float) -> bytes:
    """A journal turn-end record's payload."""
    return json.dumps(round(seconds, CAPTION_DECIMALS)).encode("utf-8")


def decode_turn_end(payload: bytes, frames: int) -> float:
    """A journal turn-end record's payload, within the ``frames`` journaled before it."""
    return _turn_end(untrusted.parse_json(payload), frames, 0)


def _turn_end(value, frames: int, index: int) -> float:
    return untrusted.number({f"turn end {index}": value}, f"turn end {index}", 0.0, frames * FRAME_SECONDS)


def _piece(row, frames: int, index: int) -> Caption:
    if not (isinstance(row, list) and len(row) == 2):
        raise ValueError(f"caption {index} is not [seconds, text]")
    fields = dict(zip(("seconds", "text"), row))
    return (untrusted.number(fields, "seconds", 0.0, frames * FRAME_SECONDS),
            untrusted.text(fields, "text", MAX_CAPTION_CHARS))
