"""kyutai's streaming text-to-speech model (tts-1.6b-en_fr): Moshi's engine with ``model_type: "tts"``.
Text goes in word by word through a state machine (the reference's ``moshi.models.tts``): the model
says when the next word starts, its tokens are then given one a step on the text stream and, two
words ahead, on a second text stream multiplexed into the same token. The voice is cross-attended
speaker embeddings; classifier-free guidance is distilled into a summed "cfg" condition."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .family import Family, Preset
from .rules import StepRules

MODEL_TYPE = "tts"
NEW_WORD_TOKEN, MAIN_SPEAKER_TOKEN, OTHER_SPEAKER_TOKEN, PAD_TOKEN = 0, 1, 2, 3  # the reference's TokenIds
INITIAL_PADDING = 2  # steps forced to pad before the first word (``TTSModel.from_checkpoint_info``)
MAX_PADDING = 8  # pads in a row before a word is asked for
FINAL_PADDING = 4  # steps generated past the end, after the audio delay
MAX_SPEAKERS = 5  # voice slots the cross-attended condition holds
DEFAULT_CFG = 2.0  # ``TTSModel.simple_generate``'s guidance
CONTROL = {"control": "ok"}  # the constant condition beside "cfg"
MAX_AUDIO_DELAY_SECONDS = 10.0  # far past the released 1.28 s: a config.json is untrusted input

_ACOUSTIC = [2] * 31
_SCHEDULE = list(range(8)) + [8] * 8 + [9] * 8 + [10] * 8
# The released config.json's keys (as a third-party manifest pins them; unchecked here).
TTS_1_6B_CONFIG: Mapping[str, Any] = {
    "model_type": MODEL_TYPE, "card": 2048, "n_q": 32, "dep_q": 32, "delays": [0, 0, *_ACOUSTIC], "dim": 2048,
    "text_card": 8000, "existing_text_padding_id": PAD_TOKEN, "num_heads": 16, "num_layers": 16,
    "hidden_scale": 4.125, "causal": True, "layer_scale": None, "context": 500, "max_period": 10000,
    "gating": "silu", "norm": "rms_norm_f32", "positional_embedding": "rope", "depformer_dim": 1024,
    "depformer_num_heads": 16, "depformer_num_layers": 4, "depformer_dim_feedforward": 3072,
    "depformer_multi_linear": True, "depformer_pos_emb": "none", "depformer_weights_per_step": True,
    "depformer_weights_per_step_schedule": _SCHEDULE, "depformer_low_rank_embeddings": 128,
    "demux_second_stream": True, "text_card_out": None, "cross_attention": True,
    "conditioners": {
        "speaker_wavs": {"type": "tensor", "tensor": {"dim": 512}},
        "cfg": {"type": "lut", "lut": {"n_bins": 7, "dim": 16, "tokenizer": "noop",
                                       "possible_values": ["1.0", "1.5", "2.0", "2.5", "3.0", "3.5", "4.0"]}},
        "control": {"type": "lut", "lut": {"dim": 2048, "n_bins": 1, "tokenizer": "noop", "possible_values": ["ok"]}},
    },
    "fuser": {"cross_attention_pos_emb": True, "cross_attention_pos_emb_scale": 1, "sum": ["control", "cfg"],
              "prepend": [], "cross": ["speaker_wavs"]},
    "tts_config": {"audio_delay": 1.28, "second_stream_ahead": 2},
    "model_id": {"sig": "1e68beda", "epoch": 240},
    "lm_gen_config": {"temp": 0.6, "text_temp": 0.6},
    "tokenizer_name": "tokenizer_spm_8k_en_fr_audio.model",
    "mimi_name": "tokenizer-e351c8d8-checkpoint125.safetensors", "moshi_name": "dsm_tts_1e68beda@240.safetensors",
}
TTS_1_6B_GB = 4.07  # the three files
VOICES_REPOSITORY = "kyutai/tts-voices"


@dataclass(frozen=True)
class SpeechTiming:
    """A config.json's ``tts_config``: how far the audio runs behind the text, and how many words
    ahead the second text stream reads (0: none)."""

    audio_delay: float = 0.0
    second_stream_ahead: int = 0

    @classmethod
    def of(cls, config: Mapping[str, Any]) -> SpeechTiming:
        settings = config.get("tts_config", {})
        if not isinstance(settings, Mapping):
            raise ValueError(f"config key 'tts_config' is {settings!r}: expected an object")
        delay, ahead = settings.get("audio_delay", 0.0), settings.get("second_stream_ahead", 0)
        if isinstance(delay, bool) or not isinstance(delay, (int, float)) or not 0 <= delay <= MAX_AUDIO_DELAY_SECONDS:
            raise ValueError(f"config key 'tts_config.audio_delay' is {delay!r}: expected seconds in "
                             f"[0, {MAX_AUDIO_DELAY_SECONDS:g}]")
        if isinstance(ahead, bool) or not isinstance(ahead, int) or not 0 <= ahead <= 16:
            raise ValueError(f"config key 'tts_config.second_stream_ahead' is {ahead!r}: expected 0 to 16 words")
        return cls(float(delay), ahead)

    def delay_steps(self, frame_rate: float) -> int:
        """The audio delay in frames, rounded down as the reference does."""
        return int(self.audio_delay * frame_rate)


RULES = StepRules(MODEL_TYPE)


def _claims(config: Mapping[str, Any]) -> bool:
    return config.get("model_type") == MODEL_TYPE


FAMILY = Family(
    name="kyutai_tts", title="Kyutai TTS", generator=MODEL_TYPE, claims=_claims,
    config_defaults=TTS_1_6B_CONFIG, delays=tuple(TTS_1_6B_CONFIG["delays"]), dep_q=32, takes_prompts=False,
    text_to_speech=True,
    presets=(
        Preset("kyutai-tts", "kyutai/tts-1.6b-en_fr", "kyutai_tts", False, "CC-BY 4.0", TTS_1_6B_GB, "gpu"),
    ),
)
