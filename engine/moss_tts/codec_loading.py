"""MOSS-Audio-Tokenizer's decoder from the released hub layout, unchanged:

    config.json                      the architecture (``CodecConfig.from_json``)
    model.safetensors                or model.safetensors.index.json and its shards

Every decoder tensor is checked by name and shape before anything is copied, one file tensor in
memory at a time; the encoder's tensors (``encoder.*``, the quantizer's ``in_proj``/``input_proj``)
stay in the file. Weights are computed in float32. The weight norm's tensors load under torch's
names (``parametrizations.weight.original0/1``, the reference's ``state_dict``) or the older
``weight_g``/``weight_v``.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
from safetensors import safe_open

from ..checkpoint import check_strict, source_shape, stacked_sources
from ..errors import ModelError
from .codec import MossCodecDecoder
from .codec_config import CodecConfig, UnsupportedConfig

INDEX = "model.safetensors.index.json"
SINGLE = "model.safetensors"


def weight_files(folder: Path) -> list[Path]:
    index = folder / INDEX
    if index.is_file():
        try:
            names = sorted(set(json.loads(index.read_text())["weight_map"].values()))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise ModelError(f"{index} cannot be read: {e}") from None
        if not all(isinstance(n, str) and n == Path(n).name and n not in ("", ".", "..") and "\\" not in n
                   for n in names):
            raise ModelError(f"{index} names weight files outside its folder.")
        files = [folder / n for n in names]
    else:
        files = [folder / SINGLE]
    for f in files:
        if not f.is_file():
            raise ModelError(f"{folder} holds no codec weights file {f.name}.")
    return files


def read_config(folder: Path) -> CodecConfig:
    try:
        return CodecConfig.from_json(json.loads((folder / "config.json").read_text()))
    except (OSError, ValueError) as e:  # UnsupportedConfig is a ValueError
        kind = "is not one Parley decodes" if isinstance(e, UnsupportedConfig) else "cannot be read"
        raise ModelError(f"The codec's config.json in {folder} {kind}: {e}") from None


def load_codec_decoder(folder: str | Path, config: CodecConfig | None = None) -> MossCodecDecoder:
    """The decoder of a MOSS-Audio-Tokenizer snapshot ``folder``, in eval mode, float32."""
    folder = Path(folder)
    cfg = config or read_config(folder)
    decoder = MossCodecDecoder(cfg)
    files = weight_files(folder)
    ignore = ("encoder.", "quantizer.input_proj.") + tuple(
        f"quantizer.quantizers.{i}.in_proj." for i in range(cfg.quantizer.num_quantizers))
    try:
        _load(decoder, files, ignore)
    except (OSError, ValueError, RuntimeError) as e:
        raise ModelError(f"{folder} does not hold this codec's decoder: {e}") from None
    return decoder.eval().requires_grad_(False)


# The weight norm's tensors under torch's older names (``nn.utils.weight_norm``), which the
# reference's loader (transformers) also accepts.
_LEGACY = {".weight_g": ".parametrizations.weight.original0", ".weight_v": ".parametrizations.weight.original1"}


def model_key(file_key: str) -> str:
    for old, new in _LEGACY.items():
        if file_key.endswith(old):
            return file_key[: -len(old)] + new
    return file_key


def _load(module: torch.nn.Module, files: list[Path], ignore: tuple[str, ...]) -> None:
    shapes: dict[str, tuple[int, ...]] = {}
    for path in files:
        with safe_open(str(path), framework="pt") as f:
            for key in f.keys():  # noqa: SIM118 (not a dict)
                if model_key(key) in shapes:
                    raise ValueError(f"the weights hold {model_key(key)} twice (under two names)")
                shapes[model_key(key)] = tuple(f.get_slice(key).get_shape())
    sources = stacked_sources(shapes)
    params = check_strict(module, {k: source_shape(s, shapes, k) for k, s in sources.items()}, "the codec", ignore)
    rows: dict[str, tuple[str, int]] = {}  # file key (renamed) -> (model key, first row)
    for name in params:
        row = 0
        for key in sources[name].keys:
            rows[key] = (name, row)
            row += shapes[key][0]
    with torch.no_grad():
        for path in files:
            with safe_open(str(path), framework="pt") as f:
                for key in f.keys():  # noqa: SIM118
                    if model_key(key) not in rows:
                        continue
                    value = f.get_tensor(key)
                    if value.is_floating_point() and not bool(torch.isfinite(value).all()):
                        raise ValueError(f"{key} holds values that are not finite")
                    name, row = rows[model_key(key)]
                    params[name][row:row + value.shape[0]].copy_(value)
