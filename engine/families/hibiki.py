"""kyutai's interpreters, Moshi's architecture with ``model_type: "hibiki"``: Hibiki-Zero (3B: French,
Spanish, Portuguese or German to English) and Hibiki (2B and 1B, French to English; conditioned on a
description, as in the reference)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .family import Family, Preset
from .rules import StepRules

TEXT_END_TOKEN = 2  # the SentencePiece end of sequence: the translation is complete
TEXT_PAD_TOKEN = 3  # what an end of text sampled too early is read as (the reference's rule)
POSITIVE_DESCRIPTION = {"description": "very_good"}  # the condition a translation runs with
NEGATIVE_DESCRIPTION = {"description": "very_bad"}  # classifier-free guidance's negative
DEFAULT_CFG_COEF = 1.0  # the reference's: no guidance (kyutai suggest 3 for more voice similarity)

# Hibiki-Zero 3B's config.json in moshi 0.2.13's ``_lm_kwargs`` keys, from third-party ports (unchecked).
_ACOUSTIC = [2] * 15
HIBIKI_ZERO_3B_CONFIG: Mapping[str, Any] = {
    "model_type": "hibiki", "dim": 2048, "text_card": 48000, "existing_text_padding_id": TEXT_PAD_TOKEN,
    "card": 2048, "n_q": 32, "dep_q": 16, "delays": [0, 0, *_ACOUSTIC, 0, *_ACOUSTIC],
    "num_heads": 16, "num_layers": 28, "hidden_scale": 6.0, "causal": True, "layer_scale": None,
    "context": 3000, "max_period": 20000.0, "gating": "silu", "norm": "rms_norm_f32",
    "positional_embedding": "rope_concat", "kv_repeat": 2,
    "depformer_dim": 1024, "depformer_num_heads": 16, "depformer_num_layers": 6,
    "depformer_dim_feedforward": None, "depformer_norm": "layer_norm", "depformer_pos_emb": "none",
    "depformer_multi_linear": True, "depformer_weights_per_step": True, "depformer_kv_repeat": 1,
    "depformer_weights_per_step_schedule": [0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 8, 8, 8, 8, 8, 8],
    "conditioners": {}, "cross_attention": False,
}

# Hibiki 2B's and 1B's conditioner: a lookup table of five descriptions, summed into the input.
DESCRIPTION_CONDITIONER: Mapping[str, Any] = {
    "conditioners": {"description": {"type": "lut", "lut": {
        "n_bins": 31, "dim": 16, "tokenizer": "noop",
        "possible_values": ["very_bad", "bad", "neutral", "good", "very_good"]}}},
    "fuser": {"cross_attention_pos_emb": False, "cross_attention_pos_emb_scale": 1, "sum": ["description"],
              "prepend": [], "cross": []},
}

# Hibiki-M 1B's keys differing from Hibiki-Zero's, for estimates before download (the temporal
# transformer from kyutai's Rust configuration; depth transformer, context and RoPE period assumed).
_ACOUSTIC_8 = [2] * 7
HIBIKI_1B_CONFIG: Mapping[str, Any] = {
    "num_layers": 16, "hidden_scale": 4.0, "n_q": 16, "dep_q": 8, "delays": [0, 0, *_ACOUSTIC_8, 0, *_ACOUSTIC_8],
    "kv_repeat": 1, "positional_embedding": "rope", "max_period": 10000.0, "depformer_norm": None,
    "depformer_weights_per_step_schedule": None, **DESCRIPTION_CONDITIONER,
}

HIBIKI_ZERO_GB = 6.3  # 3.13 B parameters in bf16 (its config on the meta device)
HIBIKI_2B_GB = 5.4
HIBIKI_1B_GB = 3.4

# How hibiki-zero 0.0.4's generate starts a source: its codes at frame 0 would be read as the past.
RULES = StepRules("hibiki", text_read_as=(TEXT_END_TOKEN, TEXT_PAD_TOKEN), ends_source=True,
                  end_of_text_token=TEXT_END_TOKEN, leads_with_silence=True)


def _claims(config: Mapping[str, Any]) -> bool:
    return config.get("model_type") == "hibiki"


FAMILY = Family(
    name="hibiki", title="Hibiki", generator="hibiki", claims=_claims,
    config_defaults=HIBIKI_ZERO_3B_CONFIG, delays=tuple(HIBIKI_ZERO_3B_CONFIG["delays"]),
    dep_q=HIBIKI_ZERO_3B_CONFIG["dep_q"], takes_prompts=False, interprets=True,
    presets=(
        # The commit hibiki-zero 0.0.4 runs; the licence is what ports of these weights state.
        Preset("hibiki-zero", "kyutai/hibiki-zero-3b-pytorch-bf16", "hibiki", False, "CC-BY 4.0", HIBIKI_ZERO_GB, "gpu",
               revision="23b3e0b41782026c81dd5283a034107b01f9e513"),
        Preset("hibiki-2b", "kyutai/hibiki-2b-pytorch-bf16", "hibiki", False, "CC-BY 4.0", HIBIKI_2B_GB, "gpu",
               config=None),
        Preset("hibiki-1b", "kyutai/hibiki-1b-pytorch-bf16", "hibiki", False, "CC-BY 4.0", HIBIKI_1B_GB, "gpu",
               config=HIBIKI_1B_CONFIG),
    ),
)
