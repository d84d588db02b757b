"""The built-in demo model: deterministic build, atomic install, resolution, and a model that babbles."""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import pytest
import torch

from engine.files.demo import MANIFEST_NAME, build_demo_model, demo_dir, ensure_demo_model, load_recipe
from engine.files.models import preset_status, resolve_model
from engine.lm.model import LMConfig
from engine.lm.tokenizer import TextTokenizer

FRAME = 1920


def digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo model resolved with an empty HF_HOME, offline, in a private Parley cache."""
    root = tmp_path_factory.mktemp("demo")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PARLEY_CACHE_DIR", str(root / "parley"))
        mp.setenv("HF_HOME", str(root / "hf"))
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.delenv("HF_HUB_CACHE", raising=False)
        assert not preset_status("demo").present
        files = resolve_model("demo")
        yield files, digests(files.lm_path.parent)


def test_resolves_like_a_model_folder(demo):
    files, _ = demo
    folder = files.lm_path.parent
    assert files.source == "demo" and files.name == "demo" and files.family == "demo"
    assert LMConfig.from_hub_config(files.lm_config).model_type == "moshi"  # Moshi's architecture and generator
    assert folder == demo_dir() and folder.parent.parent == Path(__import__("os").environ["PARLEY_CACHE_DIR"])
    assert files.lm_config == load_recipe()["config"]
    assert TextTokenizer(files.tokenizer_path).vocab_size == files.lm_config["text_card"]
    status = preset_status("demo")
    assert status.present and status.path == folder
    before = files.lm_path.stat().st_mtime_ns
    assert resolve_model("demo") == files and files.lm_path.stat().st_mtime_ns == before  # not rebuilt


def test_build_is_deterministic(demo, tmp_path):
    _, expected = demo
    build_demo_model(tmp_path)
    assert digests(tmp_path) == expected


def test_half_built_or_damaged_folders_are_never_used(demo, tmp_path, monkeypatch):
    _, expected = demo
    monkeypatch.setenv("PARLEY_CACHE_DIR", str(tmp_path))
    target = demo_dir()
    target.mkdir(parents=True)
    (target / "config.json").write_text("{}")  # an interrupted build: no manifest
    leftover = target.parent / f".{target.name}-building-x"
    leftover.mkdir()
    (leftover / "model.safetensors").write_bytes(b"partial")
    assert not preset_status("demo").present
    assert ensure_demo_model() == target and digests(target) == expected

    weights = target / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])  # damaged after the build
    assert not preset_status("demo").present
    assert ensure_demo_model() == target and digests(target) == expected
    assert sorted(p.name for p in target.parent.iterdir()) == sorted([target.name, leftover.name])
    assert (target / MANIFEST_NAME).is_file()


def _chirp(frames: int, amplitude: float = 0.3) -> torch.Tensor:
    t = torch.arange(frames * FRAME, dtype=torch.float32) / 24000
    return (amplitude * torch.sin(2 * math.pi * (200 * t + 400 * t * t))).view(1, 1, -1)


def test_random_weights_make_a_working_babbling_model(demo):
    from engine.codec.mimi import load_mimi
    from engine.lm.generate import SamplingConfig, make_generator
    from engine.lm.model import LMConfig, load_lm

    files, _ = demo
    torch.set_num_threads(1)
    mimi = load_mimi(files.mimi_path)
    lm = load_lm(files.lm_path, LMConfig.from_hub_config(files.lm_config), dtype=torch.float32)
    frames = 24

    def encode(pcm):
        state = mimi.init_state(1)
        return torch.cat([mimi.encode_step(pcm[..., i * FRAME:(i + 1) * FRAME], state) for i in range(frames)], -1)

    codes = encode(_chirp(frames))
    assert all(len(set(codes[0, k].tolist())) >= frames // 2 for k in range(8)), "codes should follow the input"
    assert not torch.equal(codes, encode(torch.zeros(1, 1, frames * FRAME)))

    for sampling in (SamplingConfig(), SamplingConfig.greedy()):
        gen = make_generator(lm, sampling)
        gen_state, dec_state = gen.init_state(1, seed=0), mimi.init_state(1)
        texts, audio, pcm = [], [], []
        for i in range(frames):
            text, agent = gen.step(codes[:, :, i], gen_state)
            if i >= gen.first_output_frame:
                texts.append(int(text))
                audio.append(agent[0].tolist())
                pcm.append(mimi.decode_step(agent.unsqueeze(-1), dec_state))
        assert len(set(texts)) >= 5, f"text tokens should vary ({sampling}): {texts}"
        assert all(0 <= t < files.lm_config["text_card"] for t in texts)
        assert len({a[0] for a in audio}) >= 5 and len({a[7] for a in audio}) >= 5
        out = torch.cat(pcm, -1)
        rms = out.pow(2).mean().sqrt().item()
        assert torch.isfinite(out).all() and 0.01 < rms < 0.5 and out.abs().max() < 1.0, f"rms {rms}"


@pytest.mark.reference
def test_reference_loads_the_demo_files_strictly(demo):
    from tests.reference import require_moshi

    require_moshi()
    from moshi.models import loaders

    files, _ = demo
    mimi = loaders.get_mimi(str(files.mimi_path), device="cpu")  # load_state_dict(strict=True)
    lm_kwargs = {k: v for k, v in files.lm_config.items()
                 if k not in ("moshi_name", "mimi_name", "tokenizer_name", "model_type")}
    lm = loaders.get_moshi_lm(str(files.lm_path), lm_kwargs=lm_kwargs, device="cpu", dtype=torch.float32)
    assert lm.text_card == files.lm_config["text_card"] and lm.dep_q == 8
    from engine.codec.mimi import load_mimi

    ours = load_mimi(files.mimi_path)
    pcm = _chirp(4)
    with torch.no_grad():
        expected = mimi.encode(pcm)
    state = ours.init_state(1)
    assert torch.equal(torch.cat([ours.encode_step(pcm[..., i * FRAME:(i + 1) * FRAME], state)
                                  for i in range(4)], -1), expected)
