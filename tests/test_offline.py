"""`parley offline` end to end: token parity with the reference, the JSON contract, errors, and
the conversation-file resume guarantee across processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from app.engine_thread.real_time import WARMUP_FRAMES, FrameTimeSummary
from engine.audio import read_wav, write_wav
from tests.conftest import SPEECH
from tests.reference import require_moshi

ROOT = Path(__file__).resolve().parent.parent
STORY = SPEECH["story_16k.wav"]  # 16 kHz mono: resampled on the way in


@pytest.fixture(scope="module")
def cache_env(demo_model_dir):
    """The environment of the `parley` subprocesses (the test cache comes with it) and the demo folder."""
    return {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "2"}, demo_model_dir


def parley(env, *args, check=True):
    proc = subprocess.run([sys.executable, "-m", "app.cli.command", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    if check and proc.returncode != 0:
        raise AssertionError(f"parley {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    return proc


def reference_tokens(model_dir: Path, pcm: np.ndarray) -> tuple[list[int], list[list[int]], np.ndarray]:
    """The reference package's greedy LMGen + Mimi, loaded from the same hub-layout folder."""
    require_moshi()
    from moshi.models import loaders
    from moshi.models.lm import LMGen

    info = loaders.CheckpointInfo.from_hf_repo(
        "local", moshi_weights=model_dir / "model.safetensors",
        mimi_weights=model_dir / "tokenizer-e351c8d8-checkpoint125.safetensors",
        tokenizer=next(model_dir.glob("*.model")), config_path=model_dir / "config.json")
    mimi = info.get_mimi(device="cpu")
    lm = info.get_moshi(device="cpu", dtype=torch.float32)
    gen = LMGen(lm, use_sampling=False)
    frames = -(-pcm.size // 1920)
    padded = np.zeros(frames * 1920, np.float32)
    padded[:pcm.size] = pcm
    text, audio, out = [], [], [np.zeros(1920, np.float32)]
    with torch.inference_mode(), mimi.streaming(1), gen.streaming(1):
        for i in range(frames):
            codes = mimi.encode(torch.from_numpy(padded[i * 1920:(i + 1) * 1920]).view(1, 1, -1))
            tokens = gen.step(codes)
            if tokens is None:
                continue
            text.append(int(tokens[0, 0, 0]))
            audio.append([int(c) for c in tokens[0, 1:, 0]])
            out.append(mimi.decode(tokens[:, 1:]).view(-1).numpy())
    return text, audio, np.concatenate(out)


@pytest.mark.reference
@pytest.mark.slow
def test_greedy_token_parity_with_reference_through_parley_offline(cache_env, tmp_path):
    env, model_dir = cache_env
    pcm = read_wav(STORY)[: 24000 * 9]  # 9 s of speech
    assert pcm.size >= 24000 * 8
    out_wav, out_json = tmp_path / "out.wav", tmp_path / "out.json"
    parley(env, "offline", "--model", str(model_dir), "--input", STORY, "--output", str(out_wav),
           "--json", str(out_json), "--temp", "0", "--temp-text", "0", "--device", "cpu", "--precision", "float32")
    ours = json.loads(out_json.read_text())
    ref_text, ref_audio, ref_pcm = reference_tokens(model_dir, read_wav(STORY))

    frames_in = -(-read_wav(STORY).size // 1920)
    assert ours["frames_in"] == frames_in
    assert len(ours["text_tokens"]) == len(ref_text) == frames_in - 1  # the first call produces none
    same = [a == b and list(x) == list(y) for a, b, x, y in
            zip(ours["text_tokens"], ref_text, ours["audio_codes"], ref_audio)]
    assert all(same), f"{len(same) - sum(same)} frames differ, the first at {same.index(False)}"
    assert len(set(ours["text_tokens"])) > 5  # the demo babbles: the comparison is not trivial

    got = read_wav(out_wav)
    assert got.size == read_wav(STORY).size  # same duration as the input
    ref = ref_pcm[: got.size]
    noise = np.sum((got - ref) ** 2)
    snr = 10 * np.log10(np.sum(ref**2) / max(noise, 1e-20))
    assert snr > 40, snr  # 16-bit wav quantisation bounds this, not the model


def test_json_contract_and_output_duration(cache_env, tmp_path):
    env, model_dir = cache_env
    src = SPEECH["interrupt_48k_stereo.wav"]
    pcm = read_wav(src)[: 24000 * 2 + 700]  # 2 s and a partial frame
    short = tmp_path / "short.wav"
    write_wav(short, pcm)
    parley(env, "offline", "--model", "demo", "--input", str(short), "--output", str(tmp_path / "o.wav"),
           "--json", str(tmp_path / "o.json"), "--seed", "3")
    data = json.loads((tmp_path / "o.json").read_text())
    assert set(data) == {"text", "text_tokens", "audio_codes", "frames_in", "ms_per_frame", "ms_per_frame_median",
                         "ms_per_frame_p95", "warmup_frames", "warmup_ms"}
    assert data["frames_in"] == 26
    assert data["warmup_frames"] == len(data["warmup_ms"]) == WARMUP_FRAMES
    assert all(ms > 0 for ms in data["warmup_ms"])
    assert 0 < data["ms_per_frame_median"] <= data["ms_per_frame_p95"]
    # Compute is part of the wall time: the steady median cannot be far above the wall-time mean.
    assert data["ms_per_frame_median"] < 2 * data["ms_per_frame"]
    assert len(data["text_tokens"]) == len(data["audio_codes"]) == 25
    assert all(len(c) == 8 and all(0 <= x < 2048 for x in c) for c in data["audio_codes"])
    assert data["ms_per_frame"] > 0 and isinstance(data["text"], str)
    assert read_wav(tmp_path / "o.wav").size == read_wav(short).size


def test_the_steady_state_leaves_out_the_warm_up_frames():
    slow_start = [230.0, 120.0, 90.0] + [70.0 + i for i in range(20)]
    summary = FrameTimeSummary.of(slow_start)
    assert summary.warmup_ms == (230.0, 120.0, 90.0) and summary.frames == 23
    assert summary.median_ms == pytest.approx(79.5)
    assert 86.0 < summary.p95_ms < 89.0
    assert summary.real_time
    too_short = FrameTimeSummary.of([230.0, 120.0])
    assert too_short.median_ms is None and too_short.p95_ms is None and too_short.real_time is None


@pytest.mark.parametrize("args, words", [
    (["--input", "missing.wav"], "missing.wav"),
    (["--input", "EMPTY"], "empty.wav' contains no audio (empty data chunk)"),
    (["--model", "/no/such/folder"], "model folder not found"),
    (["--model", "nonsense-preset"], "unknown model"),
    (["--text-prompt", "hello"], "not a PersonaPlex model"),
])
def test_errors_are_one_actionable_line_with_exit_code_2(cache_env, tmp_path, args, words):
    env, _ = cache_env
    empty = tmp_path / "empty.wav"
    write_wav(empty, np.zeros(0, np.float32))
    base = {"--model": "demo", "--input": SPEECH["hello_24k.wav"],
            "--output": str(tmp_path / "o.wav")}
    pairs = dict(zip(args[::2], args[1::2]))
    if pairs.get("--input") == "EMPTY":
        pairs["--input"] = str(empty)
    argv = ["offline"] + [x for k, v in {**base, **pairs}.items() for x in (k, v)]
    proc = parley(env, *argv, check=False)
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("parley: error:"), proc.stderr
    assert words in lines[0]
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "o.wav").exists()


@pytest.mark.slow
@pytest.mark.parametrize("sampling", [["--temp", "0", "--temp-text", "0"], ["--seed", "7"]],
                         ids=["greedy", "sampled"])
def test_resume_in_a_new_process_equals_one_run(cache_env, tmp_path, sampling):
    """A then B in one go == A, save, B resumed from the file in a new process: token for token,
    sample for sample."""
    env, _ = cache_env
    speech = read_wav(SPEECH["hello_24k.wav"])
    a, b = speech[: 1920 * 30], speech[1920 * 30: 1920 * 55]
    for name, pcm in (("a", a), ("b", b), ("ab", np.concatenate([a, b]))):
        write_wav(tmp_path / f"{name}.wav", pcm)
    common = ["--model", "demo", *sampling]

    def run(name, *extra):
        parley(env, "offline", *common, "--input", str(tmp_path / f"{name}.wav"),
               "--output", str(tmp_path / f"{name}_out.wav"), "--json", str(tmp_path / f"{name}.json"), *extra)
        return json.loads((tmp_path / f"{name}.json").read_text())

    whole = run("ab")
    first = run("a", "--save-state", str(tmp_path / "talk.parley"))
    second = run("b", "--resume", str(tmp_path / "talk.parley"))
    assert first["text_tokens"] + second["text_tokens"] == whole["text_tokens"]
    assert first["audio_codes"] + second["audio_codes"] == whole["audio_codes"]
    joined = np.concatenate([read_wav(tmp_path / "a_out.wav"), read_wav(tmp_path / "b_out.wav")])
    assert np.array_equal(joined, read_wav(tmp_path / "ab_out.wav"))


def test_resume_refuses_a_file_from_another_model(cache_env, tmp_path):
    env, model_dir = cache_env
    other = tmp_path / "other-model"
    other.mkdir()
    for f in model_dir.iterdir():
        (other / f.name).symlink_to(f)
    (other / "config.json").unlink()
    config = json.loads((model_dir / "config.json").read_text())
    config["context"] = 2000  # another model configuration
    (other / "config.json").write_text(json.dumps(config))
    src = SPEECH["hello_24k.wav"]
    parley(env, "offline", "--model", "demo", "--input", src, "--output", str(tmp_path / "o.wav"),
           "--save-state", str(tmp_path / "talk.parley"))
    before = (tmp_path / "talk.parley").read_bytes()
    proc = parley(env, "offline", "--model", str(other), "--input", src, "--output", str(tmp_path / "p.wav"),
                  "--resume", str(tmp_path / "talk.parley"), "--save-state", str(tmp_path / "talk.parley"),
                  check=False)
    assert proc.returncode == 2
    assert "another model" in proc.stderr or "different model" in proc.stderr, proc.stderr
    assert (tmp_path / "talk.parley").read_bytes() == before


def test_the_cli_offers_exactly_the_engines_precisions():
    from app.cli.command import PRECISIONS, build_parser
    from engine import Precision

    assert tuple(p.value for p in Precision) == PRECISIONS
    assert build_parser().parse_args(["offline", "--int8"]).precision == "int8"
    assert build_parser().parse_args(["offline"]).precision == "auto"
    assert build_parser().parse_args([]).precision is None  # the app falls back to its saved choice


@pytest.mark.skipif(os.name != "posix", reason="FIFOs are POSIX's")
def test_every_output_is_checked_before_the_run_and_nothing_else_is_replaced(cache_env, tmp_path):
    """--text naming a folder failed after --output was written; a FIFO at --output became a file."""
    env, _ = cache_env
    out, folder, fifo = tmp_path / "o.wav", tmp_path / "words", tmp_path / "fifo.wav"
    folder.mkdir()
    os.mkfifo(fifo)
    base = ["offline", "--model", "demo", "--device", "cpu", "--input", SPEECH["hello_24k.wav"]]
    for extra, words in ((["--output", str(out), "--text", str(folder)], "a folder is there"),
                         (["--output", str(fifo)], "a pipe (FIFO) is there"),
                         (["--output", str(out), "--json", str(out)], "name the same file")):
        proc = parley(env, *base, *extra, check=False)
        lines = proc.stderr.splitlines()
        assert proc.returncode == 2 and len(lines) == 1 and words in lines[0], proc.stderr
        assert not out.exists() and folder.is_dir() and not any(folder.iterdir())
    assert os.path.exists(fifo) and not os.path.isfile(fifo)
