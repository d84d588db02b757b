"""Parley's demo interpreter: Hibiki-Zero's layout (the source speech in, English speech and text
out, 16 codebooks per stream) at the conversation demo's widths with random weights, built on this
machine from the recipe in ``assets/demo_interpreter_model.json`` (``engine.files.demo`` builds it).
It translates nothing: it babbles. It exercises the whole interpreter path (the window's Interpreter
mode, listening to the microphone or to what the computer plays) on a CPU. Its folder is recognised
by its ``config.json`` being exactly the recipe's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .demo import ASSETS, is_recipe_config
from .family import Family, Preset
from .hibiki import FAMILY as HIBIKI

RECIPE_PATH = ASSETS / "demo_interpreter_model.json"
DEMO_INTERPRETER_GB = 0.53  # the files it builds


def _claims(config: Mapping[str, Any]) -> bool:
    return is_recipe_config(config, RECIPE_PATH)


FAMILY = Family(
    name="demo_interpreter", title="the demo interpreter", generator=HIBIKI.generator, claims=_claims,
    config_defaults=HIBIKI.config_defaults, delays=HIBIKI.delays, dep_q=HIBIKI.dep_q, takes_prompts=False,
    refines=HIBIKI.name, is_demo=True, recipe=RECIPE_PATH, interprets=True,
    presets=(
        Preset("demo-interpreter", None, "demo_interpreter", False, "MIT (random weights)", DEMO_INTERPRETER_GB,
               "demo interpreter (untrained, babbles, translates nothing): a tiny random-weight model in "
               "Hibiki-Zero's layout built on this machine; exercises the interpreter path on CPU"),
    ),
)
