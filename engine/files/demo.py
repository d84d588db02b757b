"""The built-in demo model: random weights in the real layouts, built on first use from a recipe.

The same recipe (``assets/demo_model.json``) always gives byte-identical files (each tensor has its
own random stream), written in the hub layout and loaded like any model folder. The LM is tiny; Mimi
is the full released architecture, since the codec's cost is part of what the demo shows.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import torch

from ..codec.mimi import Mimi
from ..families import demo_interpreter, hibiki, personaplex
from ..families.demo import ASSETS, RECIPE_PATH, load_recipe
from ..lm.model import LMConfig, LMModel
from .hub_layout import CONFIG_NAME, MIMI_NAME, MOSHI_NAME

FILE_KEYS = ("moshi_name", "mimi_name", "tokenizer_name")  # config.json's names of the model's files
MANIFEST_NAME = "demo_build.json"  # written last; lists every file and its size
_BUILD_VERSION = 2  # bump when the code below changes what a recipe produces


def _tokenizer_asset(recipe: dict) -> Path:
    return ASSETS / recipe["tokenizer"]["model"]


def recipe_hash(recipe: dict) -> str:
    """Identifies what a build produces: the recipe, the tokenizer file and the builder version."""
    h = hashlib.sha256()
    h.update(json.dumps({"recipe": recipe, "builder": _BUILD_VERSION}, sort_keys=True).encode())
    h.update(_tokenizer_asset(recipe).read_bytes())
    return h.hexdigest()[:12]


def cache_root() -> Path:
    """Parley's cache folder (``PARLEY_CACHE_DIR`` overrides the platform's user cache)."""
    override = os.environ.get("PARLEY_CACHE_DIR")
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("parley"))


def demo_dir(recipe: dict | None = None) -> Path:
    recipe = load_recipe() if recipe is None else recipe
    return cache_root() / "models" / f"{recipe.get('folder', 'demo')}-{recipe_hash(recipe)}"


def _is_complete(folder: Path) -> bool:
    try:
        manifest = json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))
        return all((folder / name).is_file() and (folder / name).stat().st_size == size
                   for name, size in manifest["files"].items())
    except (OSError, ValueError, KeyError, AttributeError, TypeError):
        return False


def built_demo_dir(recipe_path: Path = RECIPE_PATH) -> Path | None:
    """The folder of the demo built from ``recipe_path`` if it is already built and complete."""
    folder = demo_dir(load_recipe(recipe_path))
    return folder if _is_complete(folder) else None


def ensure_demo_model(recipe_path: Path = RECIPE_PATH) -> Path:
    """The folder of the demo model built from ``recipe_path``, built first if needed or damaged.
    Built in a temporary folder renamed into place, so an interrupted build is never taken for a model."""
    recipe = load_recipe(recipe_path)
    target = demo_dir(recipe)
    if _is_complete(target):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}-building-", dir=target.parent))
    try:
        build_demo_model(tmp, recipe)
        if target.exists():  # damaged: move it out of the way first (rename is atomic)
            broken = Path(tempfile.mkdtemp(prefix=f".{target.name}-broken-", dir=target.parent))
            os.replace(target, broken / "old")
            shutil.rmtree(broken, ignore_errors=True)
        try:
            os.replace(tmp, target)
        except OSError:
            if not _is_complete(target):  # not a concurrent build that finished first
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def build_demo_model(folder: Path, recipe: dict | None = None) -> None:
    """Write the demo model's files (hub layout) into an existing, empty ``folder``."""
    from safetensors.torch import save_file

    recipe = load_recipe() if recipe is None else recipe
    config = recipe["config"]
    seed, init = recipe["seed"], recipe["init"]
    (folder / CONFIG_NAME).write_text(json.dumps(config, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    # bf16 like the released LM files (and half the size); Mimi stays fp32 like the released codec.
    lm = {k: _init_lm_tensor(k, shape, config, init["lm"], seed).to(torch.bfloat16)
          for k, shape in lm_tensor_shapes(config).items()}
    save_file(lm, str(folder / config.get("moshi_name", MOSHI_NAME)), metadata={"parley_demo": recipe_hash(recipe)})
    mimi = {k: _init_mimi_tensor(k, shape, init["mimi"], seed) for k, shape in mimi_tensor_shapes().items()}
    save_file(mimi, str(folder / config.get("mimi_name", MIMI_NAME)),
              metadata={"parley_demo": recipe_hash(recipe)})
    shutil.copyfile(_tokenizer_asset(recipe), folder / config["tokenizer_name"])
    files = {p.name: p.stat().st_size for p in sorted(folder.iterdir())}
    (folder / MANIFEST_NAME).write_text(json.dumps({"recipe": recipe_hash(recipe), "files": files},
                                                   indent=2) + "\n", encoding="utf-8")


def write_personaplex_variant(folder: Path, seed: int = 0) -> Path:
    """A PersonaPlex-architecture folder from the demo's files (its Mimi, tokenizer and widths, random
    LM weights): PersonaPlex's prompt phases on a CPU for tests and benchmarks; no shipped voices."""
    from safetensors.torch import save_file

    demo = ensure_demo_model()
    folder.mkdir(parents=True, exist_ok=True)
    for f in demo.iterdir():
        shutil.copy(f, folder / f.name)
    family = personaplex.FAMILY
    config = {**json.loads((demo / CONFIG_NAME).read_text()), "model_type": family.generator, **family.forced_config}
    (folder / CONFIG_NAME).write_text(json.dumps(config))
    torch.manual_seed(seed)
    lm = LMModel(LMConfig.from_hub_config(config))
    save_file({k: v.contiguous() for k, v in lm.state_dict().items()}, str(folder / config["moshi_name"]))
    return folder


def write_hibiki_variant(folder: Path, seed: int = 0, conditioned: bool = False) -> Path:
    """A Hibiki-architecture folder from the demo's files and the demo interpreter's LM config, random
    float32 weights (``conditioned``: with Hibiki 2B's description conditioner), for tests and benchmarks."""
    from safetensors.torch import save_file

    demo = ensure_demo_model()
    folder.mkdir(parents=True, exist_ok=True)
    for f in demo.iterdir():
        shutil.copy(f, folder / f.name)
    names = json.loads((demo / CONFIG_NAME).read_text())
    config = {**load_recipe(demo_interpreter.RECIPE_PATH)["config"], **{k: names[k] for k in FILE_KEYS}}
    if conditioned:
        config.update(copy.deepcopy(hibiki.DESCRIPTION_CONDITIONER))  # the config's own, never the family's
    (folder / CONFIG_NAME).write_text(json.dumps(config))
    torch.manual_seed(seed)
    lm = LMModel(LMConfig.from_hub_config(config))
    save_file({k: v.contiguous() for k, v in lm.state_dict().items()}, str(folder / config["moshi_name"]))
    return folder


def _randn(shape: tuple[int, ...], seed: int, name: str) -> torch.Tensor:
    digest = hashlib.sha256(f"{seed}/{name}".encode()).digest()
    gen = torch.Generator().manual_seed(int.from_bytes(digest[:8], "little") & (2**63 - 1))
    return torch.randn(shape, generator=gen, dtype=torch.float32)


def _fan_in_normal(shape, seed, name, gain: float, fan_in: int) -> torch.Tensor:
    return _randn(shape, seed, name) * (gain / fan_in ** 0.5)


def _init_lm_tensor(name: str, shape: tuple[int, ...], config: dict, init: dict, seed: int) -> torch.Tensor:
    if name.endswith(".alpha"):  # RMSNorm gains
        return torch.ones(shape)
    if name.endswith(".bias"):  # the LayerNorms' (Hibiki's depth transformer)
        return torch.zeros(shape)
    if len(shape) == 1:  # the LayerNorms' gains
        return torch.ones(shape)
    if name.endswith("emb.weight") or name.startswith(("emb.", "depformer_emb.")):  # embedding tables
        return _randn(shape, seed, name) * init["embedding_std"]
    if name == "text_linear.weight":
        return _fan_in_normal(shape, seed, name, init["text_logit_std"], shape[1])
    if name.startswith("linears."):
        return _fan_in_normal(shape, seed, name, init["audio_logit_std"], shape[1])
    return _fan_in_normal(shape, seed, name, init["linear_gain"], shape[1])


def _init_mimi_tensor(name: str, shape: tuple[int, ...], init: dict, seed: int) -> torch.Tensor:
    if name.endswith("_codebook._initialized"):
        return torch.ones(shape)
    if name.endswith("_codebook.cluster_usage"):
        return torch.ones(shape)
    if name.endswith("_codebook.embedding_sum"):
        # Equal-norm code vectors: codes follow the latent's direction, whatever its loudness.
        v = _randn(shape, seed, name)
        return v / v.norm(dim=-1, keepdim=True) * init["codebook_radius"]
    if name.endswith(("norm1.weight", "norm2.weight")):
        return torch.ones(shape)
    if name.endswith(".bias"):
        return torch.zeros(shape)
    if name.endswith((".layer_scale_1.scale", ".layer_scale_2.scale")):
        return torch.full(shape, float(init["layer_scale"]))
    if name == "decoder.model.14.conv.conv.weight":
        return _fan_in_normal(shape, seed, name, init["output_gain"], shape[1] * shape[2])
    if ".convtr." in name:  # ConvTranspose [in, out/groups, k], k = 2 * stride: an output sums 2 taps per input
        channels_in = 1 if name.startswith("upsample.") else shape[0]  # the upsampler is depthwise
        return _fan_in_normal(shape, seed, name, init["conv_gain"], 2 * channels_in)
    if len(shape) == 3:  # Conv1d [out, in, k]
        return _fan_in_normal(shape, seed, name, init["conv_gain"], shape[1] * shape[2])
    return _fan_in_normal(shape, seed, name, init["linear_gain"], shape[1])


def lm_tensor_shapes(config: dict) -> dict[str, tuple[int, ...]]:
    """Key -> shape of a Moshi LM checkpoint (stacked attention keys) with this config.json."""
    with torch.device("meta"):
        model = LMModel(LMConfig.from_hub_config(config))
    return {k: tuple(v.shape) for k, v in sorted(model.state_dict().items())}


def mimi_tensor_shapes() -> dict[str, tuple[int, ...]]:
    """Key -> shape of the released Mimi file (tokenizer-e351c8d8-checkpoint125.safetensors)."""
    with torch.device("meta"):
        model = Mimi()
    return {k: tuple(v.shape) for k, v in sorted(model.state_dict().items())}


def train_demo_tokenizer(recipe: dict | None = None) -> bytes:
    """How ``assets/demo_tokenizer.model`` was made (and is checked): BPE on the shipped text."""
    from ..lm.tokenizer import train_tokenizer

    recipe = load_recipe() if recipe is None else recipe
    spec = recipe["tokenizer"]
    lines = (ASSETS / spec["text"]).read_text(encoding="utf-8").splitlines()
    return train_tokenizer(lines, spec["vocab_size"])
