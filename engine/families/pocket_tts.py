"""kyutai's Pocket TTS (``engine.pocket_tts``): text to speech on the CPU. No config.json claims it;
one preset per released language row, pinned to the ungated repository's commit that pocket-tts 4.0.1 names."""

from __future__ import annotations

from ..pocket_tts.releases import LANGUAGES, LAYERS_24, REPOSITORY_WITHOUT_CLONING, revisions
from .family import Family, Preset

# Estimated download sizes: one row's bfloat16 weights (120M parameters with 6 layers, 340M with 24) and voices.
SIX_LAYERS_GB = 0.25
TWENTY_FOUR_LAYERS_GB = 0.7


def preset_name(row: str) -> str:
    return "pocket-tts" if row == "english" else f"pocket-tts-{row}"


def _preset(row: str) -> Preset:
    layers = 24 if row in LAYERS_24 else 6
    return Preset(preset_name(row), REPOSITORY_WITHOUT_CLONING, "pocket_tts", gated=False, licence="CC-BY 4.0",
                  approx_gb=TWENTY_FOUR_LAYERS_GB if layers == 24 else SIX_LAYERS_GB,
                  runs_on="cpu",
                  revision=revisions(row)[1], config=None)


FAMILY = Family(
    name="pocket_tts", title="Pocket TTS", generator="pocket_tts", claims=lambda config: False,
    config_defaults={}, delays=(), dep_q=0, takes_prompts=False,
    presets=tuple(_preset(row) for row in (*LANGUAGES, *LAYERS_24)), text_to_speech=True, runs_on_cpu=True)
