"""Parley's demo interpreter: Hibiki-Zero's layout, tiny, random weights, built from
``assets/demo_interpreter_model.json``; it exercises the interpreter path on a CPU."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .demo import ASSETS, is_recipe_config
from .family import Family, Preset
from .hibiki import FAMILY as HIBIKI

RECIPE_PATH = ASSETS / "demo_interpreter_model.json"
DEMO_INTERPRETER_GB = 0.53


def _claims(config: Mapping[str, Any]) -> bool:
    return is_recipe_config(config, RECIPE_PATH)


FAMILY = Family(
    name="demo_interpreter", title="the demo interpreter", generator=HIBIKI.generator, claims=_claims,
    config_defaults=HIBIKI.config_defaults, delays=HIBIKI.delays, dep_q=HIBIKI.dep_q, takes_prompts=False,
    refines=HIBIKI.name, is_demo=True, recipe=RECIPE_PATH, interprets=True,
    presets=(
        Preset("demo-interpreter", None, "demo_interpreter", False, "MIT", DEMO_INTERPRETER_GB, "cpu"),
    ),
)
