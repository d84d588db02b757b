"""`parley say --model <Kyutai TTS folder>` end to end on a tiny random-weight model in the released
layout, with a ``voices/`` folder in kyutai/tts-voices' layout: its JSON's text tokens and audio
codes of every frame, words and end step are the reference ``TTSModel.generate``'s (temperature 0,
guidance 2.0, as ``simple_generate``), its WAV the reference's voice; a stopped stream ends before
the next frame; bad input is one sentence with exit code 2."""

from __future__ import annotations

import json
import os
import shutil
import threading

import numpy as np
import pytest
import torch

from app.cli.command import main
from engine import read_wav
from engine.files.kyutai_voices import DEFAULT_VOICE, voice_suffix
from tests.test_kyutai_tts import SMALL, build, hub_folder, one_thread  # noqa: F401 (one_thread: autouse)

TEXT = "Hello world, this is a test."


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """The folder, with its voice filed under kyutai's default voice name."""
    built = tmp_path_factory.mktemp("built")
    build(built)
    folder = hub_folder(built, tmp_path_factory.mktemp("say") / "tts")
    voice = folder / "voices" / (DEFAULT_VOICE + voice_suffix(SMALL))
    voice.parent.mkdir(parents=True)
    shutil.copy(folder / "voice.safetensors", voice)
    return folder


def reference(folder):
    from moshi.models import loaders
    from moshi.models.tts import TTSModel

    info = loaders.CheckpointInfo.from_hf_repo(
        "local", moshi_weights=folder / SMALL["moshi_name"], mimi_weights=folder / SMALL["mimi_name"],
        tokenizer=folder / SMALL["tokenizer_name"], config_path=folder / "config.json")
    return TTSModel.from_checkpoint_info(info, n_q=SMALL["n_q"], temp=0.0, device="cpu", dtype=torch.float32)


@pytest.mark.reference
def test_say_writes_the_reference_s_tokens_words_and_voice(model, tmp_path):
    out, report = tmp_path / "out.wav", tmp_path / "out.json"
    assert main(["say", "--model", str(model), "--text", TEXT, "--temp", "0", "--device", "cpu",
                 "--output", str(out), "--json", str(report)]) == 0
    got = json.loads(report.read_text())

    tts = reference(model)
    voice = model / "voices" / (DEFAULT_VOICE + voice_suffix(SMALL))
    with torch.no_grad():
        result = tts.generate([tts.prepare_script([TEXT], padding_between=1)],
                              [tts.make_condition_attributes([voice], cfg_coef=2.0)])
    frames = torch.cat(result.frames, dim=2)[0]  # [1 + Q, T], the aligned frames
    assert got["text_tokens"] == frames[0].tolist()
    assert got["audio_codes"] == frames[1:].T.tolist()
    assert got["end_step"] == result.end_steps[0] and not got["stopped"]
    assert [tuple(w) for w in got["words"]] == result.all_transcripts[0]
    assert len(set(frames[1].tolist())) > 5 and got["timings"]["ms_per_frame"] > 0

    want = tts.simple_generate(TEXT, str(voice), cfg_coef=2.0, show_progress=False)[0].numpy()
    audio = read_wav(str(out))
    assert audio.size == want.size > 0
    assert np.abs(want - audio).max() <= 2 / 32768 + 1e-5  # 16-bit WAV: its quantisation step


def test_a_stopped_stream_ends_before_the_next_frame(model):
    from engine import KyutaiRun, SamplingConfig, kyutai_voice, load_kyutai_speech, resolve_model

    files = resolve_model(str(model))
    speech = load_kyutai_speech(files, "cpu", "float32", SamplingConfig.greedy())
    run, stop, frames = KyutaiRun(), threading.Event(), []
    for frame in speech.stream(TEXT, [kyutai_voice(files, str(model / "voice.safetensors"))], run, stop):
        frames.append(frame)
        if len(frames) == 3:
            stop.set()
    assert len(frames) == run.frames == 3 and run.stopped and run.end_step is None


@pytest.mark.parametrize("args, message", [
    (["--text", "   "], "no text to speak"),
    (["--text", "hi", "--voice", "expresso/nobody.wav"], "no voice 'expresso/nobody.wav'"),
    (["--text", "hi", "--voice", "../x"], "neither a voice name"),
    (["--text", "hi", "--voice", "missing.safetensors"], "cannot be read"),
    (["--text", "hi", "--voice", "{model}/" + SMALL["moshi_name"]], "holds no Kyutai TTS voice"),
    (["--text", "hi", "--voice", "{model}/narrow.safetensors"], "for another model"),
    (["--text", "hi", "--language", "french"], "--language"),
])
def test_bad_input_is_one_sentence_and_exit_code_2(model, tmp_path, capsys, args, message):
    from safetensors.torch import save_file

    save_file({"speaker_wavs": torch.zeros(1, 3, 4)}, str(model / "narrow.safetensors"))
    args = [a.replace("{model}", str(model)) for a in args]
    assert main(["say", "--model", str(model), "--device", "cpu", "--output", str(tmp_path / "out.wav"), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_as_voice_is_refused_without_waiting(model, tmp_path, capsys):
    fifo = tmp_path / "voice.safetensors"
    os.mkfifo(fifo)
    assert main(["say", "--model", str(model), "--device", "cpu", "--text", "hi", "--voice", str(fifo),
                 "--output", str(tmp_path / "o.wav")]) == 2
    assert "cannot be read" in capsys.readouterr().err


def test_the_kyutai_tts_preset_is_kyutai_s_release_not_pocket_tts(tmp_path, monkeypatch, capsys):
    """``--model kyutai-tts`` resolves kyutai/tts-1.6b-en_fr (offline here: its released file names)."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    assert main(["say", "--model", "kyutai-tts", "--text", "hi", "--output", str(tmp_path / "o.wav")]) == 2
    err = capsys.readouterr().err
    assert "kyutai/tts-1.6b-en_fr" in err and "dsm_tts_1e68beda@240.safetensors" in err
