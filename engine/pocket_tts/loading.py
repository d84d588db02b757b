"""A Pocket TTS model from the released hub layout, unchanged:

    languages/<row>/model.safetensors   flow_lm.* and mimi.* (stored in bfloat16)
    languages/<row>/tokenizer.json      (or tokenizer.model, SentencePiece)
    languages/<row>/embeddings/<voice>.safetensors   the shipped voices' states

Every parameter is checked by name and shape before anything is copied; the codec's encoder and
``flow_lm.speaker_proj_weight`` are optional (the repository without voice cloning may lack them).
Weights are read as stored and computed in float32.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors import safe_open

from ..errors import ModelError
from ..kernels.packed import BF16_UNSUPPORTED, native_bf16_matmul, pack_linears
from .codec import PocketCodec, checkpoint_key
from .config import PocketConfig, UnsupportedConfig
from .flow_lm import FlowLM
from .frame_plan import prefer_half_weights
from .kernels import choose_conv_kernels, choose_kernels
from .releases import config_for
from .text import PocketTokenizer

PRECISIONS = ("float32", "bfloat16")
_CLONING_PREFIXES = ("flow_lm.speaker_proj_weight", "mimi.encoder.", "mimi.encoder_transformer.", "mimi.downsample.")


@dataclass
class PocketTTS:
    config: PocketConfig
    row: str
    folder: Path
    flow_lm: FlowLM
    codec: PocketCodec
    tokenizer: PocketTokenizer
    voice_cloning: bool
    precision: str

    @property
    def sample_rate(self) -> int:
        return self.config.codec.sample_rate

    @property
    def voices_folder(self) -> Path:
        return self.folder / "languages" / self.row / "embeddings"


def model_file(folder: Path, row: str) -> Path:
    return Path(folder) / "languages" / row / "model.safetensors"


def load_pocket_tts(folder: str | Path, row: str = "english", config: PocketConfig | None = None,
                    precision: str = "float32") -> PocketTTS:
    """The model of ``folder`` (a snapshot of either released repository) for language row ``row``.
    ``config``: the architecture when it is not a released row's (tests' random models)."""
    folder = Path(folder)
    if precision not in PRECISIONS:
        raise ModelError(f"Pocket TTS runs in {' or '.join(PRECISIONS)}, not {precision}.")
    if precision == "bfloat16" and not native_bf16_matmul():
        raise ModelError(BF16_UNSUPPORTED)
    try:
        cfg = config or config_for(row)
    except (ValueError, UnsupportedConfig) as e:
        raise ModelError(str(e)) from None
    weights = model_file(folder, row)
    if not weights.is_file():
        raise ModelError(f"{folder} holds no Pocket TTS model for {row!r} (no {weights.relative_to(folder)}).")
    names = _stored_names(weights)
    cloning = all(any(n.startswith(p) for n in names) for p in _CLONING_PREFIXES)
    flow_lm, codec = FlowLM(cfg.flow, voice_cloning=cloning), PocketCodec(cfg.codec, with_encoder=cloning)
    _load(weights, {"flow_lm": flow_lm, "mimi": codec})
    for module in (flow_lm, codec):
        module.eval().requires_grad_(False)
        pack_linears(module, "bf16" if precision == "bfloat16" else None)
    if precision == "float32":
        choose_kernels(flow_lm)
        choose_kernels(codec.decoder_transformer, rows=cfg.codec.upsample_stride)
        choose_conv_kernels(codec, lambda: codec.decode(torch.zeros(1, cfg.codec.latent_dim), codec.init_state()))
        prefer_half_weights(flow_lm, codec)
    tokenizer_name = "tokenizer.json" if cfg.tokenizer == "tokenizers" else "tokenizer.model"
    tokenizer_path = weights.parent / tokenizer_name
    if not tokenizer_path.is_file():
        raise ModelError(f"{folder} holds no {tokenizer_name} for {row!r}.")
    try:
        tokenizer = PocketTokenizer(tokenizer_path, cfg.flow.n_bins)
    except Exception as e:  # noqa: BLE001 - any unreadable tokenizer is this model's error
        raise ModelError(f"The tokenizer of {row!r} cannot be read: {e}") from None
    if cloning and not bool(flow_lm.speaker_proj_weight.any()):
        cloning = False  # a zero projection: the repository without cloning
    return PocketTTS(cfg, row, folder, flow_lm, codec, tokenizer, cloning, precision)


def _stored_names(path: Path) -> set[str]:
    try:
        with safe_open(str(path), framework="pt") as f:
            return set(f.keys())
    except Exception as e:  # noqa: BLE001 - a damaged file is this model's error
        raise ModelError(f"{path.name} cannot be read as safetensors: {e}") from None


def _load(path: Path, parts: dict[str, torch.nn.Module]) -> None:
    """Every tensor of ``parts`` from ``path`` (``<part>.<released key>``), checked first."""
    wanted: dict[str, torch.Tensor] = {}
    for prefix, module in parts.items():
        rename = checkpoint_key if prefix == "mimi" else (lambda name: name)
        for name, tensor in {**dict(module.named_parameters()), **dict(module.named_buffers())}.items():
            wanted[f"{prefix}.{rename(name)}"] = tensor
    with safe_open(str(path), framework="pt") as f:
        stored = set(f.keys())
        missing = sorted(set(wanted) - stored)
        extra = sorted(stored - set(wanted))
        wrong = [f"{k}: {tuple(f.get_slice(k).get_shape())} where {tuple(wanted[k].shape)} is expected"
                 for k in sorted(set(wanted) & stored) if tuple(f.get_slice(k).get_shape()) != tuple(wanted[k].shape)]
        if missing or extra or wrong:
            problems = ([f"missing {', '.join(missing[:3])}"] if missing else []) + \
                       ([f"unexpected {', '.join(extra[:3])}"] if extra else []) + wrong[:3]
            raise ModelError(f"{path} does not match this Pocket TTS architecture: {'; '.join(problems)}.")
        with torch.no_grad():
            for key, target in wanted.items():
                value = f.get_tensor(key)
                if value.is_floating_point() and not bool(torch.isfinite(value).all()):
                    raise ModelError(f"{path.name}: {key} holds values that are not finite.")
                target.copy_(value)
