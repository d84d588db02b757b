"""`parley transcribe`: a recording's words from the demo speech-to-text model, as SubRip, WebVTT
and plain text files that parse back to the engine's own words and times; bad input is one clear
line and exit code 2, and never overwrites what is there."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli.command import STT_MODEL_HELP, main
from engine.audio import read_audio
from engine.families import CAPTION_PRESETS
from engine.files.subtitles import MAX_CUE_WORDS
from engine.runtime.transcriber import load_speech_to_text, words
from tests.conftest import SPEECH

ROOT = Path(__file__).resolve().parent.parent
HELLO = SPEECH["hello_24k.wav"]
_SRT_TIME = r"(\d\d):(\d\d):(\d\d),(\d\d\d)"
_VTT_TIME = r"(\d\d):(\d\d):(\d\d)\.(\d\d\d)"


def _seconds(h, m, s, ms) -> float:
    return int(h) * 3600 + int(m) * 60 + int(s) + int(ms) / 1000


def parse_srt(text: str) -> list[tuple[float, float, str]]:
    cues = []
    for i, block in enumerate(text.strip().split("\n\n"), 1):
        number, times, caption = block.split("\n")
        assert int(number) == i
        m = re.fullmatch(f"{_SRT_TIME} --> {_SRT_TIME}", times)
        assert m, times
        cues.append((_seconds(*m.groups()[:4]), _seconds(*m.groups()[4:]), caption))
    return cues


def parse_vtt(text: str) -> list[tuple[float, float, str]]:
    header, _, body = text.partition("\n\n")
    assert header == "WEBVTT"
    cues = []
    for block in body.strip().split("\n\n"):
        times, caption = block.split("\n")
        m = re.fullmatch(f"{_VTT_TIME} --> {_VTT_TIME}", times)
        assert m, times
        cues.append((_seconds(*m.groups()[:4]), _seconds(*m.groups()[4:]), caption))
    return cues


@pytest.fixture(scope="module")
def expected_words():
    """The engine's own words for the sample, in this process."""
    return words(load_speech_to_text("demo-stt", device="cpu").transcribe(read_audio(HELLO)))


def test_the_help_names_every_speech_to_text_preset():
    assert STT_MODEL_HELP.startswith(f"a speech-to-text preset ({', '.join(CAPTION_PRESETS)}) ")


def test_the_command_writes_subrip_that_parses_back_to_the_words(tmp_path, expected_words):
    out = tmp_path / "hello.srt"
    proc = subprocess.run([sys.executable, "-m", "app.cli.command", "transcribe", "--model", "demo-stt", "--device",
                           "cpu", "--input", HELLO, "--output", str(out)], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"}, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"\d+ frames, [\d.]+ ms/frame -> .*hello\.srt", proc.stderr)
    cues = parse_srt(out.read_text(encoding="utf-8"))
    assert expected_words and " ".join(c[2] for c in cues) == " ".join(w.text for w in expected_words)
    assert cues[0][0] == pytest.approx(expected_words[0].start, abs=1e-3)
    assert all(start <= end for start, end, _ in cues)
    assert all(a[0] <= b[0] for a, b in zip(cues, cues[1:]))
    assert all(len(c[2].split()) <= MAX_CUE_WORDS for c in cues)
    assert out.stat().st_mode & 0o777 == 0o600  # what a person said is theirs only


def test_webvtt_and_text_and_the_terminal(tmp_path, capsys, expected_words):
    said = " ".join(w.text for w in expected_words)
    assert main(["transcribe", "--device", "cpu", "--input", HELLO, "--output", str(tmp_path / "a.vtt")]) == 0
    cues = parse_vtt((tmp_path / "a.vtt").read_text(encoding="utf-8"))
    assert " ".join(c[2] for c in cues) == said
    assert main(["transcribe", "--device", "cpu", "--input", HELLO, "--output", str(tmp_path / "a.TXT")]) == 0
    assert (tmp_path / "a.TXT").read_text(encoding="utf-8") == said + "\n"
    capsys.readouterr()
    assert main(["transcribe", "--device", "cpu", "--input", HELLO]) == 0
    assert capsys.readouterr().out == said + "\n"


@pytest.mark.parametrize(("args", "message"), [
    ([], "transcribe needs --input"),
    (["--input", HELLO, "--output", "x.mp4"], "should end in .srt, .vtt, .txt"),
    (["--input", HELLO, "--output", "/no/such/folder/x.srt"], "does not exist"),
    (["--input", "MISSING.wav"], "MISSING.wav"),
    (["--model", "demo", "--input", HELLO], "not a speech-to-text one"),
    (["--model", "no-such-model", "--input", HELLO], "unknown model 'no-such-model'"),
])
def test_bad_input_is_one_line_and_exit_code_2(capsys, args, message):
    assert main(["transcribe", "--device", "cpu", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_file_that_is_not_audio_leaves_the_output_as_it_was(tmp_path, capsys):
    bad = tmp_path / "bad.wav"
    bad.write_bytes(b"RIFF\x10\x00\x00\x00WAVEjunk that is not a wav")
    out = tmp_path / "kept.srt"
    out.write_text("the person's earlier captions\n")
    assert main(["transcribe", "--device", "cpu", "--input", str(bad), "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert "bad.wav" in err and err.startswith("parley: error: ") and "Traceback" not in err
    assert out.read_text() == "the person's earlier captions\n"


@pytest.mark.skipif(os.name != "posix", reason="FIFOs and /dev/null are POSIX's")
def test_an_output_that_is_not_a_file_is_refused_before_the_run_and_left_as_it_was(tmp_path, capsys):
    """--output on a link to a device became a regular file (as root, /dev/null itself would have)."""
    device, fifo = tmp_path / "null.srt", tmp_path / "fifo.srt"
    device.symlink_to(os.devnull)
    os.mkfifo(fifo)
    for output, kind in ((device, "a device"), (fifo, "a pipe (FIFO)")):
        assert main(["transcribe", "--device", "cpu", "--input", HELLO, "--output", str(output)]) == 2
        err = capsys.readouterr().err
        assert f"{kind} is there, and Parley replaces only files" in err and "ms/frame" not in err, err
    assert device.is_symlink() and os.readlink(device) == os.devnull
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
