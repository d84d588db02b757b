"""Random-weight Pocket TTS models built with the package's own constructors (``pocket-tts``,
the test oracle) and saved in the released hub layout, for the parity tests and the paired
benchmark: ``languages/<row>/model.safetensors`` (bfloat16, as released), ``tokenizer.json``,
``embeddings/<voice>.safetensors`` (a voice state the package exports) and the package's YAML
config pointing at them."""

from __future__ import annotations

import copy
import string
from pathlib import Path

import torch
from safetensors.torch import save_file

ROW = "english"
VOICE = "random"


def tokenizer_json(path: Path, size: int) -> None:
    """A byte-pair tokenizer over characters with SentencePiece's word marks, of exactly ``size``
    tokens (sentence marks are tokens of their own, as in the released vocabularies)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    chars = ["<unk>", "\u2581"] + list(string.ascii_letters + string.digits + string.punctuation)
    merges = [("\u2581", c) for c in string.ascii_letters]
    vocab = chars + ["".join(m) for m in merges]
    vocab += [f"<extra_{i}>" for i in range(size - len(vocab))]
    if len(vocab) != size:
        raise ValueError(f"a tokenizer needs at least {len(chars) + len(merges)} tokens")
    tok = Tokenizer(models.BPE({t: i for i, t in enumerate(vocab)}, merges, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tok.save(str(path))


def package_config(arch: dict, folder: Path) -> dict:
    """``arch`` (the package's config schema) pointed at the files of ``folder``."""
    d = copy.deepcopy(arch)
    d["weights_path"] = str(folder / "languages" / ROW / "model.safetensors")
    d["flow_lm"]["lookup_table"]["tokenizer"] = "tokenizers"
    d["flow_lm"]["lookup_table"]["tokenizer_path"] = str(folder / "languages" / ROW / "tokenizer.json")
    return d


def _randomise(model: torch.nn.Module, seed: int) -> None:
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            fan_in = p.shape[-1] if p.dim() > 1 else 1
            if p.dim() >= 3:
                fan_in = p.shape[1] * p.shape[2]
            scale = fan_in ** -0.5 if p.dim() > 1 else 0.1
            noise = torch.randn(p.shape, generator=gen) * scale
            if name.endswith(("norm1.weight", "norm2.weight", "out_norm.weight", "in_ln.weight", ".alpha")):
                noise += 1
            if name.endswith(".scale"):
                noise = noise.abs()
            p.copy_(noise)
        model.flow_lm.out_eos.weight.mul_(30)  # end-of-speech logits that vary from frame to frame
        std = model.flow_lm.emb_std
        std.copy_(0.5 + torch.rand(std.shape, generator=gen))
        model.flow_lm.emb_mean.copy_(0.1 * torch.randn(std.shape, generator=gen))


def build(folder: Path, arch: dict, seed: int = 0, voice_seconds: float = 2.0, eos_bias: float | None = None):
    """Writes a random model in the released layout under ``folder``; returns the package's
    ``TTSModel`` loaded from it (temperature 0) and the path of its YAML."""
    import yaml
    from pocket_tts.models.model_state import export_model_state
    from pocket_tts.models.tts_model import TTSModel

    base = folder / "languages" / ROW
    (base / "embeddings").mkdir(parents=True, exist_ok=True)
    tokenizer_json(base / "tokenizer.json", arch["flow_lm"]["lookup_table"]["n_bins"])
    d = package_config(arch, folder)
    config_path = folder / "package_config.yaml"
    d_init = copy.deepcopy(d)
    d_init["weights_path"] = None
    config_path.write_text(yaml.safe_dump(d_init, allow_unicode=True))
    import logging
    logging.getLogger("pocket_tts").setLevel(logging.ERROR)
    fresh = TTSModel.load_model(config=str(config_path), temp=0)
    _randomise(fresh, seed)
    if eos_bias is not None:
        with torch.no_grad():
            fresh.flow_lm.out_eos.bias.fill_(eos_bias)
    weights = {k: v.detach().to(torch.bfloat16).contiguous() for k, v in fresh.state_dict().items()}
    save_file(weights, str(base / "model.safetensors"))
    config_path.write_text(yaml.safe_dump(d, allow_unicode=True))
    model = TTSModel.load_model(config=str(config_path), temp=0)
    audio = 0.3 * torch.randn(1, int(voice_seconds * 24000), generator=torch.Generator().manual_seed(seed + 1))
    export_model_state(model.get_state_for_audio_prompt(audio), base / "embeddings" / f"{VOICE}.safetensors")
    return model, config_path


def small_arch(variant: int = 0) -> dict:
    """Small configurations of the released schema: the codec's attention window (context) is
    shorter than a few frames, so that its ring wraps within a test."""
    arch = {
        "flow_lm": {
            "insert_bos_before_voice": variant == 0, "dtype": "float32",
            "flow": {"depth": 2 if variant == 0 else 1, "dim": 48},
            "transformer": {"d_model": 64, "hidden_scale": 4 if variant == 0 else 2, "max_period": 10000,
                            "num_heads": 4 if variant == 0 else 2, "num_layers": 2 if variant == 0 else 3},
            "lookup_table": {"dim": 64, "n_bins": 300, "tokenizer": "tokenizers", "tokenizer_path": ""},
        },
        "mimi": {
            "dtype": "float32", "sample_rate": 24000, "inner_dim": 32, "outer_dim": 32, "channels": 1,
            "frame_rate": 12.5,
            "seanet": {"dimension": 32, "channels": 1, "n_filters": 4, "n_residual_layers": 1 + variant,
                       "ratios": [6, 5, 4] if variant == 0 else [8, 5, 3], "kernel_size": 7,
                       "residual_kernel_size": 3, "last_kernel_size": 3, "dilation_base": 2,
                       "pad_mode": "constant", "compress": 2},
            "transformer": {"d_model": 32, "num_heads": 2, "num_layers": 1 + variant, "layer_scale": 0.01,
                            "context": 20, "dim_feedforward": 64, "input_dimension": 32,
                            "output_dimensions": [32]},
            "quantizer": {"dimension": 32, "output_dimension": 32},
        },
    }
    if variant == 0:
        arch["replace_characters"] = {"\u2019": "'"}
    else:
        arch["remove_semicolons"] = True
    return arch


def raw_eos_logits(model, state, text: str) -> list[float]:
    """The package's end-of-speech logits, less the head's bias, for each frame of ``text``."""
    logits: list[float] = []
    head = model.flow_lm.out_eos
    handle = head.register_forward_hook(lambda m, i, out: logits.append(float(out.view(-1)[0] - m.bias[0])))
    try:
        model.generate_audio(state, text)
    finally:
        handle.remove()
    return logits[1:]  # the first is the text prompt's


def eos_bias_for(raw: list[float], threshold: float, earliest: int = 8) -> tuple[float, int]:
    """A bias (exact in bfloat16) with which the first end of speech counted (frame >= 6) falls on
    the first frame ``k >= earliest`` whose logit clears every earlier counted one."""
    for k in range(earliest, len(raw)):
        before = max(raw[6:k])
        if raw[k] > before + 0.1:
            bias = float(torch.tensor(threshold - (raw[k] + before) / 2).to(torch.bfloat16))
            if raw[k] + bias > threshold >= before + bias:
                return bias, k
    raise ValueError("no frame's end-of-speech logit clears the earlier ones")
