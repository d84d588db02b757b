"""kyutai's streaming speech-to-text models (Kyutai STT: stt-1b-en_fr, stt-2.6b-en): Mimi's 32
codebooks of the person's voice in, text out, no depth transformer (``dep_q`` 0). The text comes a
fixed time after the words (``stt_config.audio_delay_seconds``: 0.5 s for the 1B, 2.5 s for the
2.6B) and the reference feeds ``audio_silence_prefix_seconds`` of silence before the audio. The 1B
has extra heads on its temporal transformer (``extra_heads_num_heads``: voice activity). They run
on kyutai's ``LMGen`` (Moshi's generator semantics) with ``model_type: "stt"`` in config.json."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .family import Family, Preset

MODEL_TYPE = "stt"
MAX_TIMING_SECONDS = 60.0  # far past the released 2.5 s: a config.json is untrusted input

# The download sizes are estimates from the parameter counts in their names (bf16 weights, about
# 2 bytes a parameter) plus Mimi (0.38 GB); not measured here (the hub cannot be reached from
# where this was written). Their commits could not be read either: pinned on first download.
STT_1B_GB = 2.4
STT_2_6B_GB = 5.6
CPU_OR_GPU = "runs on an NVIDIA GPU or, slowly, on the CPU"


@dataclass(frozen=True)
class SpeechToTextTiming:
    """What a config.json's ``stt_config`` says, with the reference's defaults (0 s) for a key it
    lacks: the text's delay behind the audio and the silence fed before the audio."""

    audio_delay_seconds: float = 0.0
    audio_silence_prefix_seconds: float = 0.0

    @classmethod
    def of(cls, config: Mapping[str, Any]) -> SpeechToTextTiming:
        settings = config.get("stt_config", {})
        if not isinstance(settings, Mapping):
            raise ValueError(f"config key 'stt_config' is {settings!r}: expected an object")
        values = {}
        for name in ("audio_delay_seconds", "audio_silence_prefix_seconds"):
            value = settings.get(name, 0.0)
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not 0.0 <= value <= MAX_TIMING_SECONDS:
                raise ValueError(f"config key 'stt_config.{name}' is {value!r}: expected seconds in "
                                 f"[0, {MAX_TIMING_SECONDS:g}]")
            values[name] = float(value)
        return cls(**values)


def _claims(config: Mapping[str, Any]) -> bool:
    return config.get("model_type") == MODEL_TYPE


# The 1B's architecture, for a config.json that names only the model type (the released ones name it
# all): from kyutai's published server configuration of stt-1b-en_fr (d_model 2048, 16 heads and
# layers, feed-forward 8192, context 750, RoPE max period 100000, 32 codebooks of 2048 in, 8000 text
# tokens, 4 extra heads of 6), not checked against the hub's config.json here.
STT_1B = {
    "model_type": MODEL_TYPE, "dim": 2048, "num_heads": 16, "num_layers": 16, "hidden_scale": 4.0,
    "context": 750, "max_period": 100000, "n_q": 32, "dep_q": 0, "card": 2048, "text_card": 8000,
    "delays": [0] * 33, "extra_heads_num_heads": 4, "extra_heads_dim": 6,
    "stt_config": {"audio_delay_seconds": 0.5},  # its silence prefix: the reference's default
}

# The 2.6B's keys where they differ from the 1B's (an estimate before the download reads them; the
# downloaded config.json decides what loads): d_model 2048, 48 layers of 32 heads, feed-forward 11264
# gated (hidden_scale 4.125), a context of 375 frames, 4000 text tokens, no extra heads, the text
# 2.5 s behind after 1 s of silence. From a third-party port's listing of the released config.json,
# not checked against the hub here.
STT_2_6B = {
    "num_heads": 32, "num_layers": 48, "hidden_scale": 4.125, "context": 375, "text_card": 4000,
    "extra_heads_num_heads": 0, "stt_config": {"audio_delay_seconds": 2.5, "audio_silence_prefix_seconds": 1.0},
}

FAMILY = Family(
    name="stt", title="Kyutai STT", generator="moshi", claims=_claims,
    config_defaults=STT_1B, delays=(0,) * 33, dep_q=0, takes_prompts=False,
    speech_to_text=True,
    presets=(
        Preset("stt-1b-en_fr", "kyutai/stt-1b-en_fr", "stt", False, "CC-BY 4.0", STT_1B_GB,
               "Kyutai STT 1B: English and French speech to text, 0.5 s behind the words, with "
               f"voice-activity heads; {CPU_OR_GPU}"),
        Preset("stt-2.6b-en", "kyutai/stt-2.6b-en", "stt", False, "CC-BY 4.0", STT_2_6B_GB,
               f"Kyutai STT 2.6B: English speech to text, 2.5 s behind the words; {CPU_OR_GPU}", config=STT_2_6B),
    ),
)
