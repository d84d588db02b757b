"""kyutai's streaming speech-to-text models (stt-1b-en_fr, stt-2.6b-en): Mimi's 32 codebooks in, text
out a fixed delay behind the words, no depth transformer; Moshi's generator with ``model_type: "stt"``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .family import Family, Preset

MODEL_TYPE = "stt"
MAX_TIMING_SECONDS = 60.0  # far past the released 2.5 s: a config.json is untrusted input

# Download sizes estimated from the parameter counts (bf16) plus Mimi (0.38 GB).
STT_1B_GB = 2.4
STT_2_6B_GB = 5.6


@dataclass(frozen=True)
class SpeechToTextTiming:
    """A config.json's ``stt_config`` (the reference's default for a missing key is 0 s)."""

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


# The 1B's architecture (kyutai's published server configuration) for a config.json naming only the type.
STT_1B = {
    "model_type": MODEL_TYPE, "dim": 2048, "num_heads": 16, "num_layers": 16, "hidden_scale": 4.0,
    "context": 750, "max_period": 100000, "n_q": 32, "dep_q": 0, "card": 2048, "text_card": 8000,
    "delays": [0] * 33, "extra_heads_num_heads": 4, "extra_heads_dim": 6,
    "stt_config": {"audio_delay_seconds": 0.5},
}

# The 2.6B's keys differing from the 1B's, for estimates before download (from a third-party port).
STT_2_6B = {
    "num_heads": 32, "num_layers": 48, "hidden_scale": 4.125, "context": 375, "text_card": 4000,
    "extra_heads_num_heads": 0, "stt_config": {"audio_delay_seconds": 2.5, "audio_silence_prefix_seconds": 1.0},
}

FAMILY = Family(
    name="stt", title="Kyutai STT", generator="moshi", claims=_claims,
    config_defaults=STT_1B, delays=(0,) * 33, dep_q=0, takes_prompts=False,
    speech_to_text=True,
    presets=(
        Preset("stt-1b-en_fr", "kyutai/stt-1b-en_fr", "stt", False, "CC-BY 4.0", STT_1B_GB, "gpu_or_cpu"),
        Preset("stt-2.6b-en", "kyutai/stt-2.6b-en", "stt", False, "CC-BY 4.0", STT_2_6B_GB, "gpu_or_cpu",
               config=STT_2_6B),
    ),
)
