"""Hibiki as an interpreter on the CPU, at the demo's size (``write_hibiki_variant``: Hibiki-Zero's
architecture, the demo's widths, random weights): `parley offline` writes the whole translation
and its text; the end of the source is one journaled frame of the initial token, and a crash
journal and a saved conversation continue exactly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from engine import FRAME_SIZE, SamplingConfig, load_model, read_wav, record_frames, recover
from engine.files.demo import write_hibiki_variant
from engine.lm.generate import HibikiGenerator
from tests.test_recovery import assert_same_state, talk

ROOT = Path(__file__).resolve().parent.parent
SOURCE_FRAMES = 12
TAIL_S = 1.0  # the random model never ends its translation: the tail is cut here


@pytest.fixture(scope="module")
def hibiki_dir(tmp_path_factory, demo_model_dir):
    return write_hibiki_variant(tmp_path_factory.mktemp("hibiki") / "hibiki-demo")


@pytest.fixture(scope="module")
def model(hibiki_dir):
    return load_model(str(hibiki_dir), device="cpu", precision="float32")


def test_the_folder_loads_as_an_interpreter(model):
    assert model.info.family == "hibiki" and model.info.interprets
    assert model.mimi.num_codebooks == 16 == model.lm.config.n_q - model.lm.config.dep_q
    assert isinstance(model.new_session(SamplingConfig.greedy()).generator, HibikiGenerator)


def test_the_end_of_source_is_one_journaled_frame_and_recovery_is_exact(model, tmp_path):
    session = model.new_session(SamplingConfig(), seed=5)
    recorder = record_frames(session, tmp_path / "j.journal")
    result = session.process(talk(SOURCE_FRAMES).reshape(-1), tail_s=TAIL_S)
    recorder.close()
    tail = round(TAIL_S / 0.08)
    assert result.frames_in == SOURCE_FRAMES + 1 + tail == session.frames
    assert result.pcm.size == result.frames_in * FRAME_SIZE  # the translation goes on after the source
    codes = recorder.user_codes.array()
    assert (codes[SOURCE_FRAMES] == model.lm.config.card).all()  # the end of the source
    assert (codes[:SOURCE_FRAMES] < model.lm.config.card).all() and (codes[SOURCE_FRAMES + 1:] < 2048).all()
    recovered = recover(model, tmp_path / "j.journal")
    assert recovered.frames == session.frames and recovered.damage is None
    assert_same_state(session.state, recovered.session.state)


def test_a_saved_interpretation_continues_exactly(model, tmp_path):
    pcm = talk(10)
    one = model.new_session(SamplingConfig(), seed=9)
    for frame in pcm[:6]:
        one.step(frame)
    one.end_source()
    one.save(tmp_path / "talk.parley")
    other = type(one).load(tmp_path / "talk.parley", model)
    assert_same_state(one.state, other.state)
    for frame in pcm[6:]:
        a, b = one.step(frame), other.step(frame)
        assert (a.text_token, a.audio_codes) == (b.text_token, b.audio_codes) and np.array_equal(a.pcm, b.pcm)


def test_a_model_that_does_not_interpret_has_no_source_end(app_demo_model):
    from engine import ModelError

    with pytest.raises(ModelError, match="not an interpreter"):
        app_demo_model.new_session().end_source()


def test_parley_offline_writes_the_translation_and_its_text(hibiki_dir, tmp_path):
    source = talk(SOURCE_FRAMES).reshape(-1)
    from engine import write_wav

    write_wav(tmp_path / "talk_fr.wav", source)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "2"}
    out = {name: tmp_path / name for name in ("talk_en.wav", "talk_en.txt", "talk.json")}
    proc = subprocess.run([sys.executable, "-m", "app.cli.command", "offline", "--model", str(hibiki_dir),
                           "--device", "cpu", "--precision", "float32", "--temp", "0", "--temp-text", "0",
                           "--input", str(tmp_path / "talk_fr.wav"), "--output", str(out["talk_en.wav"]),
                           "--text", str(out["talk_en.txt"]), "--json", str(out["talk.json"]),
                           "--translation-tail", str(TAIL_S)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(out["talk.json"].read_text())
    # the end of the source, then the translation's tail (which the random model never ends)
    assert payload["frames_in"] == SOURCE_FRAMES + 1 + round(TAIL_S / 0.08)
    assert read_wav(out["talk_en.wav"]).size == payload["frames_in"] * FRAME_SIZE > source.size
    assert out["talk_en.txt"].read_text(encoding="utf-8") == payload["text"].strip() + "\n"
    assert len(payload["text_tokens"]) == payload["frames_in"]  # the lead-in took Hibiki's delay of 2
    assert all(len(c) == 16 for c in payload["audio_codes"])


def test_classifier_free_guidance_doubles_only_the_lm_state(hibiki_dir):
    from engine.lm.model import LMConfig, load_lm

    write_hibiki_variant(hibiki_dir.parent / "conditioned", conditioned=True)
    folder = hibiki_dir.parent / "conditioned"
    config = LMConfig.from_hub_config(json.loads((folder / "config.json").read_text()))
    lm = load_lm(folder / "model.safetensors", config, dtype=torch.float32)
    guided = HibikiGenerator(lm, SamplingConfig(), cfg_coef=3.0)
    state = guided.init_state(1)
    assert state["tokens"]["cache"].shape[0] == 1 and state["lm"]["temporal"]["layers"]["0"]["k"].shape[0] == 2
    text, audio = guided.step(torch.zeros(1, 16, dtype=torch.long), state)
    assert text.shape == (1,) and audio.shape == (1, 16)


# --------------------------------------------------------------------------- the demo interpreter

def test_the_demo_interpreter_is_hibiki_zero_at_the_demos_widths():
    """Its recipe is Hibiki-Zero's released architecture with only the sizes and file names changed."""
    from engine.families import PRESETS, demo_interpreter
    from engine.families.demo import load_recipe
    from engine.families.hibiki import HIBIKI_ZERO_3B_CONFIG

    config = load_recipe(demo_interpreter.RECIPE_PATH)["config"]
    sizes = {"dim", "text_card", "num_heads", "num_layers", "context", "depformer_dim", "depformer_num_heads",
             "depformer_num_layers", "moshi_name", "mimi_name", "tokenizer_name"}
    assert {k: v for k, v in config.items() if k not in sizes} == \
        {k: v for k, v in HIBIKI_ZERO_3B_CONFIG.items() if k not in sizes}
    assert "demo-interpreter" in PRESETS and demo_interpreter.FAMILY.interprets and demo_interpreter.FAMILY.is_demo


def test_the_demo_interpreter_is_built_recognised_and_interprets_on_the_cpu():
    from engine.families import demo_interpreter, recognise
    from engine.files.models import resolve_model

    files = resolve_model("demo-interpreter")
    assert files.family == "demo_interpreter" and files.source == "demo"
    assert recognise(files.lm_config) is demo_interpreter.FAMILY
    model = load_model("demo-interpreter", device="cpu", precision="float32")
    assert model.info.interprets and model.info.is_demo
    assert model.info.label == "demo-interpreter (untrained, babbles)"
    session = model.new_session(SamplingConfig(), seed=1)
    assert isinstance(session.generator, HibikiGenerator)
    out = [session.step(frame) for frame in talk(8)]
    assert all(r.pcm.shape == (FRAME_SIZE,) for r in out) and any(np.abs(r.pcm).max() > 0 for r in out)
