"""The model families Parley runs, and how a model folder's family is recognised.

``FAMILIES`` lists them; ``recognise`` names the family of a ``config.json``; ``family_named``
looks one up. ``PRESETS`` are the conversation models (the model manager shows them in this order),
``CAPTION_PRESETS`` the speech-to-text ones (``parley transcribe``, captions); ``ALL_PRESETS`` both.
Each family is one module of this package (``family.py`` says what a family declares).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ModelError
from . import demo, demo_interpreter, demo_stt, hibiki, moshi, personaplex, stt
from .family import GENERATORS, Family, Preset

FAMILIES: tuple[Family, ...] = (demo.FAMILY, moshi.FAMILY, personaplex.FAMILY, hibiki.FAMILY, demo_interpreter.FAMILY,
                                demo_stt.FAMILY, stt.FAMILY)
PRESETS: dict[str, Preset] = {p.name: p for f in FAMILIES if not f.speech_to_text for p in f.presets}
CAPTION_PRESETS: dict[str, Preset] = {p.name: p for f in FAMILIES if f.speech_to_text for p in f.presets}
ALL_PRESETS: dict[str, Preset] = {**PRESETS, **CAPTION_PRESETS}
_BY_NAME = {f.name: f for f in FAMILIES}


def family_named(name: str) -> Family:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ModelError(f"unknown model family {name!r}: Parley runs {', '.join(_BY_NAME)}") from None


def recognise(config: Mapping[str, Any] | None, where: str = "config.json", hint: str = "moshi") -> Family:
    """The family of a model folder whose ``config.json`` is ``config`` (None: the folder has none).

    The family the config claims (the most specific where several do: one that refines another
    wins); a config that names no model type is the ``hint`` family's (a preset's own, else
    Moshi, as the reference loader assumes). A model type no family runs is a ModelError.
    """
    if config is None:
        return family_named(hint)
    claimed = [f for f in FAMILIES if f.claims(config)]
    refined = {f.refines for f in claimed}
    chosen = [f for f in claimed if f.name not in refined]
    if len(chosen) == 1:
        return chosen[0]
    if chosen:
        raise ModelError(f"{where} fits several model families ({', '.join(f.name for f in chosen)}); "
                         "Parley cannot tell which one it is.")
    model_type = config.get("model_type")
    if model_type is None:
        return family_named(hint)
    titles = [f.title for f in FAMILIES if not f.is_demo and not f.speech_to_text]
    kinds = f"{', '.join(titles[:-1])} or {titles[-1]}" if len(titles) > 1 else titles[0]
    raise ModelError(f"{where} describes a {model_type!r} model; Parley runs the speech-to-speech models "
                     f"({', '.join(sorted({f.generator for f in FAMILIES}))}). Pick a {kinds} model.")


__all__ = ["ALL_PRESETS", "CAPTION_PRESETS", "FAMILIES", "GENERATORS", "PRESETS", "Family", "Preset", "family_named",
           "recognise"]
