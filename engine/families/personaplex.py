"""NVIDIA's PersonaPlex-7B (and kyutai's RL-aligned one): Moshi's architecture whose depth transformer
writes 16 codebooks (the assistant's 8, then the user's 8); voice and role prompts condition it first."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .family import Family, Preset
from .moshi import MOSHI_DELAYS
from .rules import StepRules

PERSONAPLEX_DEP_Q = 16  # its depth transformer: the assistant's 8 codebooks, then the user's 8
RELEASED_STORED_STEPS = 8  # the file stores 8 depth steps; steps 8..15 share them
VOICES_ARCHIVE = "voices.tgz"  # the shipped voice prompt embeddings
PERSONAPLEX_7B_GB = 16.7
PERSONAPLEX_7B_MEMORY_GB = {"bfloat16": 22.1, "int8": 15.1}

RULES = StepRules("personaplex", writes_user_codebooks=True, stored_depth_steps=RELEASED_STORED_STEPS)


def _claims(config: Mapping[str, Any]) -> bool:
    """Its ``model_type``, or a 16-step depth transformer where no other type is named (Hibiki has 16 too)."""
    return config.get("model_type") == "personaplex" or (
        config.get("dep_q") == PERSONAPLEX_DEP_Q and config.get("model_type") in (None, "moshi"))


FAMILY = Family(
    name="personaplex", title="PersonaPlex", generator="personaplex", claims=_claims,
    config_defaults={"model_type": "personaplex"}, forced_config={"dep_q": PERSONAPLEX_DEP_Q},
    delays=MOSHI_DELAYS, dep_q=PERSONAPLEX_DEP_Q, takes_prompts=True, extra_files=(VOICES_ARCHIVE,),
    refines="moshi",
    presets=(
        Preset("personaplex", "nvidia/personaplex-7b-v1", "personaplex", True, "NVIDIA Open Model License",
               PERSONAPLEX_7B_GB, "gpu",
               revision="fdaf4090a61cb315c138a1faee287ffd6c716309", memory_gb=PERSONAPLEX_7B_MEMORY_GB),
        # kyutai's RL-aligned PersonaPlex (arXiv 2606.11167); its file names are assumed to be PersonaPlex's.
        Preset("personaplex-rl-seamless", "kyutai/personaplex-rl-seamless", "personaplex", True,
               "CC BY-NC 4.0 + NVIDIA Open Model License", PERSONAPLEX_7B_GB, "gpu",
               non_commercial=True, memory_gb=PERSONAPLEX_7B_MEMORY_GB),
    ),
)
