"""kyutai's Moshi (moshiko, moshika, RL-aligned moshika): Mimi codec, a 7B temporal transformer and a
depth transformer writing the assistant's 8 codebooks (the user's 8 are input only). It takes no prompt."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .family import Family, Preset
from .rules import StepRules

# Text, then the assistant's 8 codebooks, then the user's 8: semantic codebooks at 0, acoustic at 1.
MOSHI_DELAYS = (0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1)

MOSHI_7B_GB = 15.4
MOSHI_7B_MEMORY_GB = {"bfloat16": 19.1, "int8": 13.1}

RULES = StepRules("moshi")


def _claims(config: Mapping[str, Any]) -> bool:
    return config.get("model_type") == "moshi"


FAMILY = Family(
    name="moshi", title="Moshi", generator="moshi", claims=_claims,
    config_defaults={"model_type": "moshi"}, delays=MOSHI_DELAYS, dep_q=8, takes_prompts=False,
    presets=(
        Preset("moshiko", "kyutai/moshiko-pytorch-bf16", "moshi", False, "CC-BY 4.0", MOSHI_7B_GB, "gpu",
               revision="2bfc9ae6e89079a5cc7ed2a68436010d91a3d289", memory_gb=MOSHI_7B_MEMORY_GB),
        Preset("moshika", "kyutai/moshika-pytorch-bf16", "moshi", False, "CC-BY 4.0", MOSHI_7B_GB, "gpu",
               revision="a49141e28b3d9c947cf9aa5314431e1b11cbd2f5", memory_gb=MOSHI_7B_MEMORY_GB),
        # kyutai's RL-aligned moshika (arXiv 2606.11167); its file names are assumed to be moshika's.
        Preset("moshika-rl-seamless", "kyutai/moshika-rl-seamless", "moshi", True, "CC BY-NC 4.0", MOSHI_7B_GB, "gpu",
               non_commercial=True, memory_gb=MOSHI_7B_MEMORY_GB),
    ),
)
