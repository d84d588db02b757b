"""Parley's demo model: Moshi's architecture, tiny, random weights, built from ``assets/demo_model.json``;
it exercises the whole pipeline on a CPU. A folder whose config.json is exactly the recipe's is a demo."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from ..errors import ModelError
from .family import Family, Preset
from .moshi import MOSHI_DELAYS

ASSETS = Path(__file__).resolve().parents[2] / "assets"
RECIPE_PATH = ASSETS / "demo_model.json"
DEMO_GB = 0.47


def load_recipe(path: Path = RECIPE_PATH) -> dict:
    """A demo model's recipe (this one's by default; ``engine.families.demo_stt`` has another)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise ModelError(f"the demo model recipe {path} cannot be read ({e}); reinstall Parley.") from e


@cache
def _recipe_config_json(path: Path) -> str:
    return json.dumps(load_recipe(path)["config"], sort_keys=True)


def is_recipe_config(config: Mapping[str, Any], path: Path = RECIPE_PATH) -> bool:
    """Whether ``config`` is exactly the config.json the recipe at ``path`` writes."""
    try:
        return json.dumps(config, sort_keys=True) == _recipe_config_json(path)
    except (TypeError, ValueError):  # not what JSON holds: not the recipe's
        return False


def _claims(config: Mapping[str, Any]) -> bool:
    return is_recipe_config(config)


FAMILY = Family(
    name="demo", title="the demo model", generator="moshi", claims=_claims,
    config_defaults={"model_type": "moshi"}, delays=MOSHI_DELAYS, dep_q=8, takes_prompts=False,
    refines="moshi", is_demo=True, recipe=RECIPE_PATH,
    presets=(
        Preset("demo", None, "demo", False, "MIT", DEMO_GB, "cpu"),
    ),
)
