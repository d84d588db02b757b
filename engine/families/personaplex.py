"""NVIDIA's PersonaPlex-7B (and kyutai's RL-aligned PersonaPlex): Moshi's architecture whose depth
transformer writes 16 codebooks (the assistant's 8, then the user's 8 as it predicts them), with
PersonaPlex's generator semantics; a voice prompt and a text role prompt condition it first. Its
released ``config.json`` names only the model type; a ``dep_q`` of 16 also marks it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .family import Family, Preset
from .moshi import GPU_NEED, MOSHI_DELAYS

PERSONAPLEX_DEP_Q = 16  # its depth transformer: the assistant's 8 codebooks, then the user's 8
# Its released file stores the depth transformer's first 8 steps (Moshi's layout) and one input table
# more; its loader serves steps 8..15 from them (``engine.lm.model.share_stored_steps``).
RELEASED_STORED_STEPS = 8
VOICES_ARCHIVE = "voices.tgz"  # the shipped voice prompt embeddings
PERSONAPLEX_7B_GB = 16.7  # the bf16 weights with 16 depth-transformer steps
PERSONAPLEX_7B_MEMORY_GB = {"bfloat16": 22.1, "int8": 15.1}  # family.MEASURED_ON (bench/results/gpu_load.json)


def _claims(config: Mapping[str, Any]) -> bool:
    """PersonaPlex's rule for a hub ``config.json``: its ``model_type``, or a 16-step depth
    transformer (its loader always builds 16 steps) where the config names no other family's type
    (Hibiki's depth transformer has 16 steps too)."""
    return config.get("model_type") == "personaplex" or (
        config.get("dep_q") == PERSONAPLEX_DEP_Q and config.get("model_type") in (None, "moshi"))


FAMILY = Family(
    name="personaplex", title="PersonaPlex", generator="personaplex", claims=_claims,
    config_defaults={"model_type": "personaplex"}, forced_config={"dep_q": PERSONAPLEX_DEP_Q},
    delays=MOSHI_DELAYS, dep_q=PERSONAPLEX_DEP_Q, takes_prompts=True, extra_files=(VOICES_ARCHIVE,),
    refines="moshi",
    presets=(
        Preset("personaplex", "nvidia/personaplex-7b-v1", "personaplex", True, "NVIDIA Open Model License",
               PERSONAPLEX_7B_GB,
               "PersonaPlex-7B (NVIDIA): choose a voice and a text role prompt; gated, accept the "
               f"licence on its page first; {GPU_NEED}",
               revision="fdaf4090a61cb315c138a1faee287ffd6c716309", memory_gb=PERSONAPLEX_7B_MEMORY_GB),
        # PersonaPlex RL-aligned by kyutai (June 2026, arXiv 2606.11167; published by kyutai, not
        # NVIDIA), in PersonaPlex's weights layout. Its model card names the repository, the
        # licence (CC BY-NC 4.0 combined with the NVIDIA Open Model License) and the gate.
        # Assumed, not checked here (the hub cannot be reached from where this was written): it
        # ships PersonaPlex's file names including voices.tgz, and its commit, so it is pinned to
        # the commit first downloaded.
        Preset("personaplex-rl-seamless", "kyutai/personaplex-rl-seamless", "personaplex", True,
               "CC BY-NC 4.0 and NVIDIA Open Model License", PERSONAPLEX_7B_GB,
               "PersonaPlex-7B RL-aligned by kyutai for better turn-taking (pauses, backchannels, "
               "interruptions); choose a voice and a text role prompt; non-commercial licence, gated; "
               f"{GPU_NEED}",
               non_commercial=True, memory_gb=PERSONAPLEX_7B_MEMORY_GB),  # PersonaPlex's layout: its memory
    ),
)
