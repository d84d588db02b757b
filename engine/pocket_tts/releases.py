"""The released Pocket TTS models: one architecture (six or 24 FlowLM layers), per-language text
rules, the hub repositories and the commits they are pinned to (those the package 4.0.1 names)."""

from __future__ import annotations

import copy

from .config import PocketConfig

REPOSITORY = "kyutai/pocket-tts"  # gated: the weights that clone a voice from a recording
REPOSITORY_WITHOUT_CLONING = "kyutai/pocket-tts-without-voice-cloning"

ARCHITECTURE = {
    "flow_lm": {
        "insert_bos_before_voice": True, "dtype": "float32", "flow": {"depth": 6, "dim": 512},
        "transformer": {"d_model": 1024, "hidden_scale": 4, "max_period": 10000, "num_heads": 16,
                        "num_layers": 6},
        "lookup_table": {"dim": 1024, "n_bins": 4000, "tokenizer": "tokenizers",
                         "tokenizer_path": "tokenizer.json"},
    },
    "mimi": {
        "dtype": "float32", "sample_rate": 24000, "inner_dim": 32, "outer_dim": 512, "channels": 1,
        "frame_rate": 12.5,
        "seanet": {"dimension": 512, "channels": 1, "n_filters": 64, "n_residual_layers": 1,
                   "ratios": [6, 5, 4], "kernel_size": 7, "residual_kernel_size": 3, "last_kernel_size": 3,
                   "dilation_base": 2, "pad_mode": "constant", "compress": 2},
        "transformer": {"d_model": 512, "num_heads": 8, "num_layers": 2, "layer_scale": 0.01, "context": 250,
                        "dim_feedforward": 2048, "input_dimension": 512, "output_dimensions": [512]},
        "quantizer": {"dimension": 32, "output_dimension": 512},
    },
}

_APOSTROPHES = {"\u2019": "'", "\u2018": "'"}
_QUOTES_AND_BRACKETS = {'"': "", "\u201c": "", "\u201d": "", "\u201e": "", "\u00ab": "", "\u00bb": "",
                        **_APOSTROPHES, "(": "", ")": "", "[": "", "]": ""}
_EN_DASH = {"\u2013": ","}

# language -> (text options, commit of REPOSITORY, commit of REPOSITORY_WITHOUT_CLONING, default voice)
_CLONING, _NO_CLONING = "3e82814a68665eec246ff649b14c71331f955c06", "1e08e6a23401048648a9fdcfde2f89348215c2a7"
LANGUAGES = {
    "english": ({"replace_characters": _APOSTROPHES}, "db04f0e653473e5c7333c69686ac92b7460b0c1d",
                "a7056f505a4a8ca72d8b5fb1440071d6f1a35739", "alba"),
    "french": ({"remove_semicolons": True, "replace_characters": {**_QUOTES_AND_BRACKETS, ":": ",", **_EN_DASH}},
               _CLONING, _NO_CLONING, "estelle"),
    "german": ({"remove_semicolons": True,
                "replace_characters": {**_QUOTES_AND_BRACKETS, **_EN_DASH, "\u2014": ","}},
               _CLONING, _NO_CLONING, "juergen"),
    "portuguese": ({"replace_characters": {**_QUOTES_AND_BRACKETS, **_EN_DASH}}, _CLONING, _NO_CLONING, "rafael"),
    "italian": ({"replace_characters": {**_QUOTES_AND_BRACKETS, **_EN_DASH}}, _CLONING, _NO_CLONING, "giovanni"),
    "spanish": ({"replace_characters": {**_QUOTES_AND_BRACKETS, "\u00a1": "", "\u00bf": "", **_EN_DASH}},
                _CLONING, _NO_CLONING, "lola"),
    "dutch": ({"replace_characters": {**_QUOTES_AND_BRACKETS, **_EN_DASH}}, _CLONING, _NO_CLONING, "daan"),
}
# The 24-layer rows of every language but English: the same rules and commits.
LAYERS_24 = tuple(f"{name}_24l" for name in LANGUAGES if name != "english")

# The voices whose states the package ships (``languages/<language>/embeddings/<name>.safetensors``).
VOICES = ("alba", "marius", "javert", "jean", "fantine", "cosette", "eponine", "azelma", "anna", "vera",
          "charles", "paul", "george", "mary", "jane", "michael", "eve", "bill_boerst", "peter_yearsley",
          "stuart_bell", "caro_davy", "giovanni", "lola", "juergen", "rafael", "daan", "estelle")


def base_language(row: str) -> str:
    return row.removesuffix("_24l")


def released_rows() -> tuple[str, ...]:
    return (*LANGUAGES, *LAYERS_24)


def package_dict(row: str) -> dict:
    """The package's config (as its YAML reads) of a released row, for ``PocketConfig``."""
    language = base_language(row)
    if language not in LANGUAGES or (row != language and row not in LAYERS_24):
        raise ValueError(f"There is no released Pocket TTS model {row!r}; the released ones are "
                         f"{', '.join(released_rows())}.")
    d = copy.deepcopy(ARCHITECTURE)
    d.update(copy.deepcopy(LANGUAGES[language][0]))
    if row in LAYERS_24:
        d["flow_lm"]["transformer"]["num_layers"] = 24
    return d


def config_for(row: str) -> PocketConfig:
    return PocketConfig.from_package_dict(package_dict(row))


def revisions(row: str) -> tuple[str, str]:
    """(commit of the cloning repository, commit of the one without cloning) for ``row``."""
    _, cloning, plain, _ = LANGUAGES[base_language(row)]
    return cloning, plain


def default_voice(row: str) -> str:
    return LANGUAGES[base_language(row)][3]
