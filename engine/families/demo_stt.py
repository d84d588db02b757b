"""Parley's demo speech-to-text model: Kyutai STT 1B's layout, tiny, random weights, built from
``assets/demo_stt_model.json``; it exercises the captioning path on a CPU."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .demo import ASSETS, is_recipe_config
from .family import Family, Preset
from .stt import FAMILY as STT

RECIPE_PATH = ASSETS / "demo_stt_model.json"
DEMO_STT_GB = 0.39


def _claims(config: Mapping[str, Any]) -> bool:
    return is_recipe_config(config, RECIPE_PATH)


FAMILY = Family(
    name="demo_stt", title="the demo speech-to-text model", generator=STT.generator, claims=_claims,
    config_defaults=STT.config_defaults, delays=STT.delays, dep_q=0, takes_prompts=False,
    refines=STT.name, is_demo=True, recipe=RECIPE_PATH, speech_to_text=True,
    presets=(
        Preset("demo-stt", None, "demo_stt", False, "MIT", DEMO_STT_GB, "cpu"),
    ),
)
