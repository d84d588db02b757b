"""Reading files anyone may have written: JSON parsed totally, fields read with types and bounds checked.

Every failure is a one-line ``ValueError``, never an OverflowError (``1e400``), a RecursionError or
a blocked thread (a FIFO), which would slip past callers' handlers.
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


class NewerVersionError(ValueError):
    """A part of a file written by a newer Parley: not damaged, this Parley is too old for it."""


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


def sampling(obj: Mapping) -> SamplingConfig:
    """The sampling settings a header stores (``asdict(SamplingConfig)``), checked."""
    settings = mapping(obj, "sampling")
    unknown = set(settings) - set(SamplingConfig.__dataclass_fields__)
    if unknown:
        raise ValueError(f"'sampling' has unknown settings {sorted(unknown)[:3]}")
    return SamplingConfig(**settings)


def voice_name(value: Any) -> VoiceNameFromFile | None:
    """A voice a header names: shipped (``NATF2``), the user's own, or ``"none"``. Never a path: a
    received file must not make this machine read one of its files as a voice."""
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
