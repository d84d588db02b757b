"""Pocket TTS configurations as frozen dataclasses, read from the package's config schema.

The released files hold weights only; their shapes (heads, codec layout, text rules) are those of
the package's per-language configs. ``PocketConfig.from_package_dict`` reads that schema (a
``dict`` as its YAML gives it) and refuses, with a sentence, every option this code does not
compute (other flow heads, grouped-query attention, low-rank tables, separate decoder shapes).
"""

from __future__ import annotations

from dataclasses import dataclass

# The package's own generation constants (TTSModel): tokens spoken per second when sizing a chunk's
# frame budget, the seconds added to it, the frames before which end-of-speech is ignored.
TOKENS_PER_SECOND_ESTIMATE = 3.0
GEN_SECONDS_PADDING = 2.0
MIN_FRAMES_BEFORE_EOS = 6
MAX_TOKENS_PER_CHUNK = 50
FADE_IN_SECONDS = 1 / 200  # the first samples of each chunk's fresh decoder are faded in


class UnsupportedConfig(ValueError):
    """A configuration this code does not compute: refused rather than run wrongly."""


@dataclass(frozen=True)
class FlowLMConfig:
    d_model: int
    num_heads: int
    num_layers: int
    dim_feedforward: int
    max_period: float
    latent_dim: int
    flow_dim: int
    flow_depth: int
    n_bins: int
    bos_before_voice: bool
    voice_dim: int  # width of the codec encoder's latents, projected into a voice prompt

    @property
    def head_dim(self) -> int:
        return self.d_model // self.num_heads


@dataclass(frozen=True)
class SEANetConfig:
    dimension: int
    n_filters: int
    n_residual_layers: int
    ratios: tuple[int, ...]
    kernel_size: int
    residual_kernel_size: int
    last_kernel_size: int
    dilation_base: int
    compress: int
    pad_mode: str

    @property
    def hop_length(self) -> int:
        hop = 1
        for r in self.ratios:
            hop *= r
        return hop


@dataclass(frozen=True)
class CodecTransformerConfig:
    d_model: int
    num_heads: int
    num_layers: int
    dim_feedforward: int
    layer_scale: float
    context: int
    max_period: float


@dataclass(frozen=True)
class CodecConfig:
    sample_rate: int
    frame_rate: float
    latent_dim: int
    inner_dim: int
    outer_dim: int
    seanet: SEANetConfig
    transformer: CodecTransformerConfig

    @property
    def frame_size(self) -> int:
        return int(self.sample_rate / self.frame_rate)

    @property
    def upsample_stride(self) -> int:
        """Codec-transformer steps per latent frame."""
        return self.frame_size // self.seanet.hop_length


@dataclass(frozen=True)
class TextRules:
    """How the package turns text into a prompt (see ``engine.pocket_tts.text``)."""

    remove_semicolons: bool = False
    append_terminal_punctuation: bool = True
    capitalize_first_letter: bool = True
    pad_with_spaces_for_short_inputs: bool = False
    replace_characters: tuple[tuple[str, str], ...] = ()
    frames_after_eos: int | None = None  # None: the package's guess from the word count


@dataclass(frozen=True)
class PocketConfig:
    flow: FlowLMConfig
    codec: CodecConfig
    text: TextRules
    tokenizer: str  # "tokenizers" (tokenizer.json) or "sentencepiece" (tokenizer.model)
    temperature: float
    eos_threshold: float

    @classmethod
    def from_package_dict(cls, d: dict) -> PocketConfig:
        """The configuration of a package config (its YAML as a dict), or ``UnsupportedConfig``."""
        flow, mimi = d["flow_lm"], d["mimi"]
        _refuse_unsupported(flow, mimi)
        t, lut = flow["transformer"], flow["lookup_table"]
        flow_cfg = FlowLMConfig(
            d_model=t["d_model"], num_heads=t["num_heads"], num_layers=t["num_layers"],
            dim_feedforward=t.get("dim_feedforward") or t["d_model"] * t["hidden_scale"],
            max_period=float(t["max_period"]), latent_dim=mimi["quantizer"]["dimension"],
            flow_dim=flow["flow"]["dim"], flow_depth=flow["flow"]["depth"], n_bins=lut["n_bins"],
            bos_before_voice=bool(flow.get("insert_bos_before_voice", False)),
            voice_dim=mimi.get("inner_dim") or mimi["seanet"]["dimension"])
        s, mt = mimi["seanet"], mimi["transformer"]
        seanet = SEANetConfig(
            dimension=s["dimension"], n_filters=s["n_filters"], n_residual_layers=s["n_residual_layers"],
            ratios=tuple(s["ratios"]), kernel_size=s["kernel_size"],
            residual_kernel_size=s["residual_kernel_size"], last_kernel_size=s["last_kernel_size"],
            dilation_base=s["dilation_base"], compress=s["compress"], pad_mode=s["pad_mode"])
        codec = CodecConfig(
            sample_rate=mimi["sample_rate"], frame_rate=float(mimi["frame_rate"]),
            latent_dim=mimi["quantizer"]["dimension"], inner_dim=mimi.get("inner_dim") or s["dimension"],
            outer_dim=mimi.get("outer_dim") or s["dimension"], seanet=seanet,
            transformer=CodecTransformerConfig(
                d_model=mt["d_model"], num_heads=mt["num_heads"], num_layers=mt["num_layers"],
                dim_feedforward=mt["dim_feedforward"], layer_scale=float(mt["layer_scale"]),
                context=mt["context"], max_period=float(mt.get("max_period", 10000.0))))
        text = TextRules(
            remove_semicolons=bool(d.get("remove_semicolons", False)),
            append_terminal_punctuation=bool(d.get("append_terminal_punctuation", True)),
            capitalize_first_letter=bool(d.get("capitalize_first_letter", True)),
            pad_with_spaces_for_short_inputs=bool(d.get("pad_with_spaces_for_short_inputs", False)),
            replace_characters=tuple((d.get("replace_characters") or {}).items()),
            frames_after_eos=d.get("model_recommended_frames_after_eos"))
        kind = lut.get("tokenizer", "sentencepiece")
        if kind == "json" or str(lut.get("tokenizer_path", "")).split("@")[0].endswith(".json"):
            kind = "tokenizers"
        return cls(flow=flow_cfg, codec=codec, text=text, tokenizer=kind,
                   temperature=float(d.get("default_temperature", 0.3)),
                   eos_threshold=float(d.get("default_eos_threshold", -4.0)))


def _refuse_unsupported(flow: dict, mimi: dict) -> None:
    t = flow["transformer"]
    problems = []
    if flow["flow"].get("type", "lsd") != "lsd":
        problems.append(f"its flow head is {flow['flow']['type']!r} (only 'lsd' is supported)")
    if t.get("num_kv_heads") not in (None, t["num_heads"]):
        problems.append("it uses grouped-query attention")
    if t.get("attn_dim") not in (None, t["d_model"]):
        problems.append("its attention width differs from the model width")
    if flow["lookup_table"].get("rank") is not None:
        problems.append("its text table is low-rank")
    if flow.get("z_dim") is not None:
        problems.append("it projects the backbone output (z_dim)")
    if flow["lookup_table"]["dim"] != t["d_model"]:
        problems.append("its text table width differs from the model width")
    if mimi.get("decoder_seanet") or mimi.get("decoder_transformer"):
        problems.append("its codec decoder has its own shapes")
    if flow.get("dtype", "float32") != "float32" or mimi.get("dtype", "float32") != "float32":
        problems.append("it computes in another dtype than float32")
    if mimi["seanet"]["pad_mode"] != "constant" or mimi.get("channels", 1) != 1:
        problems.append("its codec pads or has channels this code does not handle")
    if mimi["quantizer"]["output_dimension"] != (mimi.get("outer_dim") or mimi["seanet"]["dimension"]):
        problems.append("its codec's quantizer output differs from its outer width")
    mt = mimi["transformer"]
    if mt["input_dimension"] != mt["d_model"] or list(mt["output_dimensions"]) != [mt["d_model"]]:
        problems.append("its codec transformer projects its input or output")
    if problems:
        raise UnsupportedConfig("This Pocket TTS model is not supported: " + "; ".join(problems) + ".")
