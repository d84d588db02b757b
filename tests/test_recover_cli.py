"""The crash guarantee through the CLI: `parley offline --journal` killed with SIGKILL mid-run,
`parley recover`, then `--resume` with more audio gives the tokens of an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from engine import FRAME_SIZE, ConversationFileError, read_journal, read_wav, write_wav

ROOT = Path(__file__).resolve().parent.parent
MORE = 6  # frames fed after the recovery


def parley(env, *args):
    proc = subprocess.run([sys.executable, "-m", "app.cli.command", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, f"parley {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}"
    return proc


def journal_frames(path: Path) -> int:
    try:
        return read_journal(path).frames
    except ConversationFileError:  # not even the header yet
        return 0


@pytest.mark.slow
@pytest.mark.parametrize("sampling", [["--temp", "0", "--temp-text", "0"], []], ids=["greedy", "sampled"])
def test_killed_offline_run_recovers_and_resumes_to_the_same_tokens(demo_model_dir, tmp_path, sampling):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    model = ["--model", str(demo_model_dir), "--device", "cpu", "--seed", "9", *sampling]
    t = np.arange(600 * FRAME_SIZE) / 24000
    talk = (0.3 * np.sin(2 * np.pi * (150 + 40 * t) * t)
            + 0.05 * np.random.default_rng(2).standard_normal(t.size)).astype(np.float32)
    write_wav(tmp_path / "long.wav", talk)
    pcm = read_wav(tmp_path / "long.wav")  # exactly what the runs read (16-bit samples)
    journal = tmp_path / "talk.journal"
    run = subprocess.Popen([sys.executable, "-m", "app.cli.command", "offline", *model,
                            "--input", str(tmp_path / "long.wav"), "--output", str(tmp_path / "never.wav"),
                            "--journal", str(journal)],
                           cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 300
        while journal_frames(journal) < 12:
            assert run.poll() is None, run.stderr.read().decode()
            assert time.monotonic() < deadline, "the journal did not grow"
            time.sleep(0.05)
    finally:
        run.send_signal(signal.SIGKILL)
        run.wait()
    assert not (tmp_path / "never.wav").exists()  # it really died mid-run

    parley(env, "recover", str(journal), "--model", str(demo_model_dir), "--device", "cpu",
           "--save-state", str(tmp_path / "rec.parley"), "--json", str(tmp_path / "rec.json"))
    report = json.loads((tmp_path / "rec.json").read_text())
    frames = report["frames"]
    assert frames >= 12 and report["rebuild_seconds"] > 0 and report["encoder_mismatches"] == 0

    write_wav(tmp_path / "more.wav", pcm[frames * FRAME_SIZE:(frames + MORE) * FRAME_SIZE])
    parley(env, "offline", "--model", str(demo_model_dir), "--device", "cpu", "--resume", str(tmp_path / "rec.parley"),
           "--input", str(tmp_path / "more.wav"), "--output", str(tmp_path / "more_out.wav"),
           "--json", str(tmp_path / "resumed.json"))
    write_wav(tmp_path / "whole.wav", pcm[:(frames + MORE) * FRAME_SIZE])
    parley(env, "offline", *model, "--input", str(tmp_path / "whole.wav"), "--output", str(tmp_path / "whole_out.wav"),
           "--json", str(tmp_path / "whole.json"))
    resumed = json.loads((tmp_path / "resumed.json").read_text())
    whole = json.loads((tmp_path / "whole.json").read_text())
    assert len(resumed["text_tokens"]) == MORE
    assert resumed["text_tokens"] == whole["text_tokens"][-MORE:]
    assert resumed["audio_codes"] == whole["audio_codes"][-MORE:]


def test_recover_errors_are_one_line(demo_model_dir, tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    (tmp_path / "bad.journal").write_bytes(b"not a journal at all")
    proc = subprocess.run([sys.executable, "-m", "app.cli.command", "recover", str(tmp_path / "bad.journal"),
                           "--model", str(demo_model_dir), "--device", "cpu",
                           "--save-state", str(tmp_path / "o.parley")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2 and "not a Parley journal" in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert not (tmp_path / "o.parley").exists()


@pytest.mark.skipif(os.name != "posix", reason="FIFOs are POSIX's")
def test_recover_refuses_to_save_over_what_is_not_a_file(demo_model_dir, tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    (tmp_path / "bad.journal").write_bytes(b"not a journal at all")
    os.mkfifo(tmp_path / "o.parley")
    proc = subprocess.run([sys.executable, "-m", "app.cli.command", "recover", str(tmp_path / "bad.journal"),
                           "--model", str(demo_model_dir), "--device", "cpu",
                           "--save-state", str(tmp_path / "o.parley")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert "a pipe (FIFO) is there, and Parley replaces only files" in proc.stderr
