"""The person's captions as conversation files and crash journals keep them.

A caption is one piece of text a speech-to-text model heard the person say
(``engine.runtime.captioner``) and where in the conversation they said it: ``(seconds, text)``,
seconds from the conversation's start, a piece that starts a word beginning with a space.

In a conversation file (either kind) they are one optional metadata field, versioned on its own
so that a file without captions (every file from before them) is unchanged and opens as before::

    "captions": {"version": 1, "pieces": [[seconds, text], ...]}
    "captions": {"version": 2, "pieces": [[seconds, text], ...], "turn_ends": [seconds, ...]}

Version 2 adds where a caption model's voice-activity heads said the person's turn ended
(``engine.runtime.voice_activity``), so that the conversation's turns come back as they were live;
it is written only where there are such ends, so that a file captioned without them stays version
1 and opens in a Parley from before them (one that reads version 1 only refuses a version 2 field
rather than dropping its ends on the next save).

In a crash journal each piece is one record of its own (``engine.files.journal``, kind ``C``),
its payload the JSON ``[seconds, text]``, appended after the frame it was heard in; each turn end
too (kind ``E``, journal version 4), its payload the JSON ``seconds``.

Both are read as untrusted input: a piece's time lies within the conversation (the frames the file
or journal holds so far) and its text is bounded.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from ..audio import FRAME_SECONDS
from . import untrusted

Caption = tuple[float, str]  # (conversation seconds, text piece)

FIELD = "captions"
VERSION = 2  # the newest captions field this Parley reads (2: turn ends)
PIECES_ONLY_VERSION = 1  # a field without turn ends: what every Parley with captions reads
MAX_CAPTION_CHARS = 200  # one piece is one text token's: a few characters
CAPTION_DECIMALS = 3  # a piece's time is kept to the millisecond
# One piece a model step, and each finish adds the steps of its flush (up to two minutes' worth):
# no count follows from the frames, so the bound is the header's own size (16 MB, ~8 bytes a piece).
MAX_PIECES = 2_000_000


def captions_field(captions: Iterable[Caption], turn_ends: Iterable[float] = ()) -> dict:
    """The metadata field of ``captions`` and the person's ``turn_ends`` (seconds) ({} for none: a
    file without captions has no field; version 2 only where there are turn ends)."""
    pieces = [[round(seconds, CAPTION_DECIMALS), text] for seconds, text in captions]
    ends = [round(seconds, CAPTION_DECIMALS) for seconds in turn_ends]
    if ends:
        return {FIELD: {"version": VERSION, "pieces": pieces, "turn_ends": ends}}
    return {FIELD: {"version": PIECES_ONLY_VERSION, "pieces": pieces}} if pieces else {}


def read_captions(meta: Mapping, frames: int) -> tuple[Caption, ...]:
    """The captions a file's metadata holds (() where it has none), each checked: a time within
    the file's ``frames`` and a bounded text. ``ValueError`` names the first wrong one; a field
    from a newer Parley is refused rather than dropped (saving again would lose it)."""
    if FIELD not in meta:
        return ()
    field = untrusted.mapping(meta, FIELD)
    version = untrusted.integer(field, "version", 1, 2**31)
    if version > VERSION:
        raise ValueError(f"its captions were written by a newer Parley (captions version {version}; this one "
                         f"reads up to {VERSION}): update Parley to open it")
    rows = untrusted.sequence(field, "pieces", MAX_PIECES)
    return tuple(_piece(row, frames, i) for i, row in enumerate(rows))


def read_turn_ends(meta: Mapping, frames: int) -> tuple[float, ...]:
    """Where the person's turns ended (seconds, as the captions field holds them: () where it has
    none, a version 1 field included), each a time within the file's ``frames``. ``ValueError``
    names the first wrong one (``read_captions`` checks the field's version)."""
    if FIELD not in meta:
        return ()
    field = untrusted.mapping(meta, FIELD)
    if untrusted.integer(field, "version", 1, 2**31) < VERSION:
        if "turn_ends" in field:
            raise ValueError("its captions field has turn ends but is version 1")
        return ()
    if "turn_ends" not in field:
        raise ValueError(f"its captions field (version {VERSION}) has no 'turn_ends'")
    rows = untrusted.sequence(field, "turn_ends", MAX_PIECES)
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
