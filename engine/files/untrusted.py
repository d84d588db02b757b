"""Reading files that anyone may have written (conversation files, compact files, journals): their
JSON parsed totally and their fields read with types and bounds checked.

Every failure of a parse here is a ``ValueError`` with a one-line reason, never an OverflowError
(``"frames": 1e400`` overflows to infinity, then ``int()`` of it), a RecursionError (JSON nested
thousands deep) or a blocked thread (a FIFO named like a conversation), which would pass every
handler of the caller. The readers of each format turn that ``ValueError`` into their own error
naming the file.

- JSON: no ``NaN``/``Infinity`` constants, no number that overflows to them, no integer longer
  than ``MAX_INT_DIGITS`` digits (Python's own limit is a ValueError only past 4300).
- Fields: an integer is an ``int`` (not ``2.0``, not ``true``) within stated bounds; a number is
  finite and within bounds; a string has a bounded length.
- Files: only regular files are opened, and without blocking (``engine.regular_files``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from ..lm.generate import SamplingConfig
from ..lm.prompts import NO_VOICE, VOICE_SUFFIXES, VoiceNameFromFile

MAX_INT_DIGITS = 24  # the largest integer any header holds is a 64-bit seed (19 digits and a sign)
MAX_TEXT_CHARS = 64 * 1024  # one free-text field: a role prompt, a model name
MAX_NAME_CHARS = 64  # a voice name
_VOICE_NAME = re.compile(rf"[A-Za-z0-9][A-Za-z0-9_-]{{0,{MAX_NAME_CHARS - 1}}}")
USER_NAME = re.compile(r"\w[\w '()-]{0,39}")  # a voice or persona of the user's: a safe file name on every OS
INT64 = (-(2**63), 2**63 - 1)


# ---- JSON ------------------------------------------------------------------------------------

def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a Parley file holds")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:24]} is out of range")
    return value


def _bounded_int(text: str) -> int:
    if len(text) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(text)} digits")
    return int(text)


_STRICT = {"parse_constant": _constant, "parse_float": _finite_float, "parse_int": _bounded_int}
DECODER = json.JSONDecoder(**_STRICT)  # the same rules, for reading JSON a value at a time (``raw_decode``)


def parse_json_object(data: bytes | str) -> dict:
    """A JSON object from untrusted bytes; ``ValueError`` for anything else (see the module)."""
    value = parse_json(data)
    if not isinstance(value, dict):
        raise ValueError(f"a JSON {type(value).__name__} where an object belongs")
    return value


def parse_json(data: bytes | str) -> Any:
    """Any JSON value from untrusted bytes; ``ValueError`` for anything else (see the module)."""
    try:
        value = json.loads(data, **_STRICT)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"not valid JSON ({e.msg} at character {e.pos})") from None
    return value


# ---- fields ----------------------------------------------------------------------------------

def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def integer(obj: Mapping, key: str, low: int, high: int, default: int | None = None) -> int:
    """``obj[key]`` as an integer in [low, high] (``default`` when absent, if given)."""
    value = obj.get(key, default)
    if type(value) is not int or not low <= value <= high:
        raise ValueError(f"'{key}' is {_shown(value)}, expected an integer in [{low}, {high}]")
    return value


def number(obj: Mapping, key: str, low: float, high: float) -> float:
    """``obj[key]`` as a finite number in [low, high]."""
    value = obj.get(key)
    if type(value) not in (int, float) or not low <= value <= high:
        raise ValueError(f"'{key}' is {_shown(value)}, expected a number in [{low:g}, {high:g}]")
    return float(value)


def text(obj: Mapping, key: str, max_chars: int = MAX_TEXT_CHARS, default: str | None = None,
         optional: bool = False) -> str | None:
    """``obj[key]`` as a string of at most ``max_chars``; None allowed when ``optional``."""
    value = obj.get(key, default)
    if value is None and optional:
        return None
    if not isinstance(value, str) or len(value) > max_chars:
        raise ValueError(f"'{key}' is {_shown(value)}, expected text of at most {max_chars} characters")
    return value


def mapping(obj: Mapping, key: str) -> dict:
    value = obj.get(key)
    if not isinstance(value, dict):
        raise ValueError(f"'{key}' is {_shown(value)}, expected an object")
    return value


def sequence(obj: Mapping, key: str, max_items: int) -> list:
    value = obj.get(key, [])
    if not isinstance(value, list) or len(value) > max_items:
        raise ValueError(f"'{key}' is not a list of at most {max_items} items")
    return value


# ---- what the headers hold -------------------------------------------------------------------

def sampling(obj: Mapping) -> SamplingConfig:
    """The sampling settings a header stores (``asdict(SamplingConfig)``), checked as
    ``SamplingConfig`` checks them."""
    settings = mapping(obj, "sampling")
    unknown = set(settings) - set(SamplingConfig.__dataclass_fields__)
    if unknown:
        raise ValueError(f"'sampling' has unknown settings {sorted(unknown)[:3]}")
    return SamplingConfig(**settings)


def voice_name(value: Any) -> VoiceNameFromFile | None:
    """A voice named in a file's header: the name of a voice a model ships (``NATF2``,
    ``NATF2.pt``), of one of the user's own voices, or ``"none"``. A path is refused: a received
    file must not make this machine read one of its files as a voice."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ValueError(f"the voice is {_shown(value)}, expected a voice name")
    stem = value
    for suffix in VOICE_SUFFIXES:
        stem = stem.removesuffix(suffix)
    if value != NO_VOICE and not _VOICE_NAME.fullmatch(stem) and not USER_NAME.fullmatch(value):
        raise ValueError(f"the voice {_shown(value)} is not the name of a voice (a file can name only the voices "
                         "a model ships or your own, never a file on this machine); start a new conversation "
                         "with that voice instead")
    return VoiceNameFromFile(value)


def prompts(obj: Mapping) -> dict:
    """``{"voice": shipped voice name or None, "text": role text or None}`` from a header."""
    stored = obj.get("prompts") or {}
    if not isinstance(stored, dict):
        raise ValueError(f"'prompts' is {_shown(stored)}, expected an object")
    return {"voice": voice_name(stored.get("voice")), "text": text(stored, "text", optional=True)}
