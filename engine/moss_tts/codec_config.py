"""MOSS-Audio-Tokenizer's decoder as frozen dataclasses, read from the released ``config.json``.

The codec is patches and causal transformers only: codes (12.5 Hz) -> quantizer sum -> a
transformer per rate, each followed by an upsampling "patch" (x2, x2, x2, then x240 to samples).
Each transformer's attention window is ``int(rate * causal_transformer_context_duration)`` steps,
the rate computed as the reference does (the sample rate divided by the encoder's patches, then
multiplied by the decoder's), so a config gives the reference's windows to the step.
``CodecConfig.from_json`` refuses, with a sentence, every option this code does not compute.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


class UnsupportedConfig(ValueError):
    """A configuration this code does not compute: refused rather than run wrongly."""


@dataclass(frozen=True)
class QuantizerConfig:
    """Residual quantizer: each code picks a ``codebook_dim`` row, projected to ``rvq_dim`` and summed."""

    input_dim: int
    rvq_dim: int
    output_dim: int
    num_quantizers: int
    codebook_size: int
    codebook_dim: int


@dataclass(frozen=True)
class TransformerStage:
    input_dimension: int
    output_dimension: int
    d_model: int
    num_heads: int
    num_layers: int
    dim_feedforward: int
    layer_scale: float | None
    max_period: float
    context: int  # attention window in steps of this stage's rate (the ring's capacity)


@dataclass(frozen=True)
class PatchStage:
    """Upsampling by ``patch_size``: channel ``c * patch_size + j`` of step ``t`` -> channel ``c`` of step
    ``t * patch_size + j``."""

    patch_size: int


Stage = TransformerStage | PatchStage


@dataclass(frozen=True)
class CodecConfig:
    sample_rate: int
    downsample_rate: int  # samples per frame
    context_duration: float  # seconds each causal transformer sees
    quantizer: QuantizerConfig
    decoder: tuple[Stage, ...]

    @property
    def frame_rate(self) -> float:
        return self.sample_rate / self.downsample_rate

    def steps_per_frame(self) -> tuple[int, ...]:
        """For each decoder stage: its input steps per codec frame (1 at the first)."""
        steps, out = 1, []
        for stage in self.decoder:
            out.append(steps)
            if isinstance(stage, PatchStage):
                steps *= stage.patch_size
        return tuple(out)

    def max_frames_per_call(self) -> int:
        """The most frames one decode call may take: every stage's call must fit its ring."""
        return min(stage.context // steps for stage, steps in zip(self.decoder, self.steps_per_frame())
                   if isinstance(stage, TransformerStage))

    @classmethod
    def from_json(cls, cfg: Mapping) -> CodecConfig:
        """The decoder of a ``config.json`` as the reference's ``MossAudioTokenizerConfig`` reads it."""
        try:
            return _from_json(cfg)
        except (KeyError, TypeError) as e:
            raise UnsupportedConfig(f"the codec's config.json lacks or misstates {e}") from None


def _from_json(cfg: Mapping) -> CodecConfig:
    sample_rate = int(cfg.get("sampling_rate", cfg.get("sample_rate", 24000)))
    duration = float(cfg.get("causal_transformer_context_duration", 10.0))
    q = dict(cfg["quantizer_kwargs"])
    kind = q.get("quantizer_type", cfg.get("quantizer_type", "rvq"))
    if kind not in ("rvq", "spec_rvq", "rlfq", "random_prefix_rlfq"):
        raise UnsupportedConfig(f"the codec's quantizer type {kind!r} is not one this code decodes")
    rvq_dim = int(q.get("rvq_dim") or q["input_dim"])
    quantizer = QuantizerConfig(int(q["input_dim"]), rvq_dim, int(q.get("output_dim") or q["input_dim"]),
                                int(q["num_quantizers"]), int(q["codebook_size"]), int(q["codebook_dim"]))
    rate = float(sample_rate)
    for stage in cfg["encoder_kwargs"]:
        if stage["module_type"] == "PatchedPretransform":
            rate /= stage["patch_size"]
    stages: list[Stage] = []
    for stage in cfg["decoder_kwargs"]:
        if stage["module_type"] == "PatchedPretransform":
            stages.append(PatchStage(int(stage["patch_size"])))
            rate *= stage["patch_size"]
        elif stage["module_type"] == "Transformer":
            stages.append(_transformer(stage, int(rate * duration)))
        else:
            raise UnsupportedConfig(f"the codec's decoder has a {stage['module_type']!r} stage, unknown here")
    decoder = tuple(stages)
    _check_shapes(quantizer, decoder)
    out = CodecConfig(sample_rate, int(cfg.get("downsample_rate", 1920)), duration, quantizer, decoder)
    upsampling = out.steps_per_frame()[-1] * decoder[-1].patch_size if isinstance(decoder[-1], PatchStage) else 0
    if upsampling != out.downsample_rate:
        raise UnsupportedConfig(f"the codec's decoder makes {upsampling} samples a frame, its config says "
                                f"{out.downsample_rate}")
    return out


def _transformer(stage: Mapping, context: int) -> TransformerStage:
    wanted = {"causal": True, "norm": "layer_norm", "gating": "none", "positional_embedding": "rope",
              "conv_layout": True}
    for key, value in wanted.items():
        if stage.get(key, value) != value:
            raise UnsupportedConfig(f"a codec transformer with {key}={stage.get(key)!r} is not one this code "
                                    f"computes (only {key}={value!r})")
    if stage.get("weights_per_step"):
        raise UnsupportedConfig("a codec transformer with weights per step is not one this code computes")
    d_model, heads = int(stage["d_model"]), int(stage["num_heads"])
    if d_model % heads or (d_model // heads) % 2:
        raise UnsupportedConfig(f"d_model {d_model} over {heads} heads is no even head size")
    if context < 1:
        raise UnsupportedConfig("the codec's context duration leaves a transformer no step of context")
    scale = stage.get("layer_scale")
    return TransformerStage(int(stage["input_dimension"]), int(stage["output_dimension"]), d_model, heads,
                            int(stage["num_layers"]), int(stage["dim_feedforward"]),
                            None if scale is None else float(scale), float(stage.get("max_period", 10_000)),
                            context)


def _check_shapes(quantizer: QuantizerConfig, decoder: tuple[Stage, ...]) -> None:
    width = quantizer.output_dim
    for i, stage in enumerate(decoder):
        if isinstance(stage, PatchStage):
            if width % stage.patch_size:
                raise UnsupportedConfig(f"decoder stage {i} patches {width} channels by {stage.patch_size}")
            width //= stage.patch_size
        else:
            if stage.input_dimension != width:
                raise UnsupportedConfig(f"decoder stage {i} takes {stage.input_dimension} channels, gets {width}")
            width = stage.output_dimension
    if width != 1:
        raise UnsupportedConfig(f"the codec's decoder ends with {width} channels, not mono samples")
