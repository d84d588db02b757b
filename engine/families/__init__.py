"""The model families Parley runs, and how a model folder's family is recognised. ``PRESETS``: the
conversation models; ``CAPTION_PRESETS``: speech to text; ``SPEECH_PRESETS``: text to speech."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ModelError
from . import demo, demo_interpreter, demo_stt, hibiki, kyutai_tts, moshi, personaplex, pocket_tts, stt
from .family import GENERATORS, Family, Preset
from .rules import StepRules

FAMILIES: tuple[Family, ...] = (demo.FAMILY, moshi.FAMILY, personaplex.FAMILY, hibiki.FAMILY, demo_interpreter.FAMILY,
                                demo_stt.FAMILY, stt.FAMILY, pocket_tts.FAMILY, kyutai_tts.FAMILY)
_LM_FAMILIES = tuple(f for f in FAMILIES if not f.text_to_speech)
_BY_NAME = {f.name: f for f in FAMILIES}
PRESETS: dict[str, Preset] = {p.name: p for f in _LM_FAMILIES if not f.speech_to_text for p in f.presets}
CAPTION_PRESETS: dict[str, Preset] = {p.name: p for f in FAMILIES if f.speech_to_text for p in f.presets}
ALL_PRESETS: dict[str, Preset] = {**PRESETS, **CAPTION_PRESETS}
SPEECH_PRESETS: dict[str, Preset] = {p.name: p for f in FAMILIES if f.text_to_speech for p in f.presets}
# What ``resolve_model`` fetches and reads as a model folder: the above and the text-to-speech models
# on the LM runtime (Kyutai TTS; Pocket TTS has its own files and resolver).
HUB_PRESETS: dict[str, Preset] = {**ALL_PRESETS, **{n: p for n, p in SPEECH_PRESETS.items()
                                                    if _BY_NAME[p.family].generator in GENERATORS}}
_RULES = {r.kind: r for r in (moshi.RULES, personaplex.RULES, hibiki.RULES, kyutai_tts.RULES)}


def rules_of(kind: str) -> StepRules:
    """The rules of the generator kind ``kind`` (``Family.generator``, ``LMConfig.model_type``)."""
    try:
        return _RULES[kind]
    except KeyError:
        raise ModelError(f"unknown generator kind {kind!r}: Parley runs {', '.join(_RULES)}") from None


def family_named(name: str) -> Family:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ModelError(f"unknown model family {name!r}: Parley runs {', '.join(_BY_NAME)}") from None


def recognise(config: Mapping[str, Any] | None, where: str = "config.json", hint: str = "moshi") -> Family:
    """The family ``config`` claims (one that refines another wins); with no config or no model type,
    the ``hint`` family's (Moshi by default, as the reference loader assumes)."""
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
    titles = [f.title for f in _LM_FAMILIES if not f.is_demo and not f.speech_to_text]
    kinds = f"{', '.join(titles[:-1])} or {titles[-1]}" if len(titles) > 1 else titles[0]
    raise ModelError(f"{where} describes a {model_type!r} model; Parley runs the speech-to-speech models "
                     f"({', '.join(sorted({f.generator for f in _LM_FAMILIES}))}). Pick a {kinds} model.")


__all__ = ["ALL_PRESETS", "CAPTION_PRESETS", "FAMILIES", "GENERATORS", "HUB_PRESETS", "PRESETS", "SPEECH_PRESETS",
           "Family", "Preset", "StepRules", "family_named", "recognise", "rules_of"]
