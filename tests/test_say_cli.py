"""`parley say` on a random-weight model at the released English shapes, in the released layout:
its JSON's latents and end frame are the package's (float32, temperature 0), its WAV holds the
frames it reports, and bad input is one sentence with exit code 2."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import torch

from app.cli.command import main
from bench.pocket_reference import ROW, VOICE, build
from engine import read_wav
from engine.pocket_tts.releases import package_dict
from tests.rounding import UNIT_ROUNDOFF

pytest.importorskip("pocket_tts")

TEXT = "Hello there, my friend."


@pytest.fixture(scope="module")
def english(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pocket-english")
    ref, _ = build(folder, package_dict(ROW))
    return folder, ref


def test_say_writes_the_packages_latents_end_frame_and_audio(english, tmp_path):
    folder, ref = english
    out, report = tmp_path / "out.wav", tmp_path / "out.json"
    assert main(["say", "--model", str(folder), "--text", TEXT, "--voice", VOICE, "--temp", "0",
                 "--output", str(out), "--json", str(report)]) == 0
    got = json.loads(report.read_text())
    latents = torch.tensor(got["latents"], dtype=torch.float64)
    assert latents.shape[1] == 32 and got["timings"]["cpu_ms_per_frame"] > 0
    state = ref.get_state_for_audio_prompt(str(folder / "languages" / ROW / "embeddings" / f"{VOICE}.safetensors"))
    want_audio = ref.generate_audio(state, TEXT).numpy()
    frames = want_audio.size // 1920
    assert latents.shape[0] == frames  # the same end of speech (or the same frame budget)
    chunk = got["chunks"][0]
    assert chunk["frames"] == frames and got["end_frame"] == chunk["end_frame"]
    audio = read_wav(str(out))
    assert audio.size == want_audio.size
    # 16-bit WAV: equal to the package's audio to within its quantisation step (and float32 rounding)
    scale = max(float(np.abs(want_audio).max()), 1.0)
    assert np.abs(np.clip(want_audio, -1, 1) - audio).max() <= 2 / 32768 + 1e4 * UNIT_ROUNDOFF * scale


@pytest.mark.parametrize("args, message", [
    (["--text", "   "], "no text to speak"),
    (["--text", "x" * (1 << 20)], "at most"),
    (["--text", "bell \x07 here"], "control character"),
    ([], "needs the text"),
    (["--text", "hi", "--voice", "nobody"], "no voice 'nobody'"),
])
def test_bad_input_is_one_sentence_and_exit_code_2(english, tmp_path, capsys, args, message):
    folder, _ = english
    assert main(["say", "--model", str(folder), "--output", str(tmp_path / "out.wav"), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_as_text_or_voice_is_refused_without_waiting(english, tmp_path, capsys):
    folder, _ = english
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert main(["say", "--model", str(folder), "--text-file", str(fifo)]) == 2
    assert "cannot be read" in capsys.readouterr().err
    voice = tmp_path / "voice.safetensors"
    os.mkfifo(voice)
    assert main(["say", "--model", str(folder), "--text", "hi", "--voice", str(voice), "--output",
                 str(tmp_path / "o.wav")]) == 2
    assert "cannot be read" in capsys.readouterr().err


def test_one_of_the_persons_voices_by_name_is_the_same_voice_as_its_recording(english, tmp_path, monkeypatch, capsys):
    """A voice in Parley's voice library, named, is its recording given as a file (one loaded model:
    the voice state is the same tensor for tensor), and `say` speaks with it."""
    from app.cli.say import load_voice
    from engine import VoiceLibrary, load_pocket_tts

    monkeypatch.setenv("PARLEY_VOICES_DIR", str(tmp_path / "voices"))
    t = np.arange(12 * 24000) / 24000
    speech_like = (0.3 * np.sin(2 * np.pi * 180 * t) * (0.6 + 0.4 * np.sin(2 * np.pi * 3 * t))).astype(np.float32)
    own = VoiceLibrary().add("Ana", speech_like)
    assert not own.problem, own.problem
    folder, _ = english
    model = load_pocket_tts(folder)
    named, given = load_voice(model, "Ana"), load_voice(model, str(own.path))
    assert torch.equal(named.k, given.k) and torch.equal(named.v, given.v)
    assert main(["say", "--model", str(folder), "--text", TEXT, "--voice", "ana", "--temp", "0",
                 "--output", str(tmp_path / "o.wav")]) == 0
    assert main(["say", "--model", str(folder), "--text", TEXT, "--voice", "Nobody"]) == 2
    assert "no voice 'Nobody'" in capsys.readouterr().err
