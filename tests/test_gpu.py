"""CUDA graph frame step on a real GPU (skipped without CUDA), and the CPU smoke run of the GPU
check script so that it keeps working where CI has no GPU."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from bench.gpu_check import plan
from engine.codec.mimi import load_mimi
from engine.lm.generate import SamplingConfig, make_generator
from engine.lm.model import LMConfig, load_lm
from engine.runtime.frame_step import FrameStep, graph_unavailable_reason
from engine.state import clone, flatten, load_into

ROOT = Path(__file__).resolve().parent.parent
FRAMES = 50


def test_gpu_check_smoke_runs_on_cpu(tmp_path):
    out = tmp_path / "gpu_check.json"
    env = {**os.environ, "OMP_NUM_THREADS": "2"}
    proc = subprocess.run([sys.executable, "-m", "bench.gpu_check", "--smoke", "--profile", "--out", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=400)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text())
    for name, stages in report["models"].items():  # the budget's plan names the stages a run records
        options = plan.Options(device_type="cpu", profile=name.startswith("tiny"),
                                    precisions=("bfloat16", *plan.QUANTISED) if name == "tiny" else ("bfloat16",))
        assert [s for s, v in stages.items() if isinstance(v, dict) and "stage_s" in v] == \
            plan.planned_stages(name, options), name
    profile = report["models"]["tiny"]["profile"]  # the profile stage's figures, from the CPU's ops here
    assert profile["kernels_per_frame"] > 100 and profile["top_kernels"] and profile["gemv"][0]["weight_gb_s"] > 0
    assert profile["attention"]["calls_per_frame"] >= 2 and profile["attention"]["us_per_call"] > 0
    tiny = report["models"]["tiny"]
    # No graph replays on the CPU: the check claims no graph/eager parity from two eager runs.
    assert report["complete"] and tiny["parity_graph_vs_eager"] is None and "frames_identical" not in tiny
    runs = [tiny["eager"], tiny["graph"], *tiny["precisions"].values()]
    for run in runs:  # every run says whether it replayed a graph, and why not
        assert run["times"]["n"] > 0 and run["graph_active"] is False
        assert "CUDA" in run["fallback_reason"] or "eager" in run["fallback_reason"], run
    assert tiny["reference"]["times"]["n"] > 0 and tiny["floor"]["floor_ms"] > 0
    int8_run = f"int8/{plan.kernel_candidates('int8', 'cpu')[0]}"  # one run: each weight shape picks its kernel
    assert set(tiny["precisions"]) == {int8_run, "fp8", "int4"}
    int8, fp8, int4 = (tiny["precisions"][p] for p in (int8_run, "fp8", "int4"))
    assert int4["floor"]["bytes_per_frame"] < int8["floor"]["bytes_per_frame"] < tiny["floor"]["bytes_per_frame"]
    assert fp8["floor"]["bytes_per_frame"] == int8["floor"]["bytes_per_frame"]  # a byte a weight, a scale a row
    for run in (int8, fp8):
        assert run["ratio_to_bf16"] > 0 and run["chosen"] and run["frames_identical_to_bf16"] <= 5
    assert {"unfused", "int8pack", "int8pack_bf16", "int_mm"} <= set(report["kernels"]["int8_agree"])
    assert report["kernels"]["fp8_agree"] == ["unfused", "scaled_mm"]  # torch's CPU _scaled_mm agrees too
    assert "int4_disagree" not in report["kernels"]
    greedy = report["models"]["demo"]["greedy_float32_vs_reference"]  # the CPU's parity: ours vs the reference
    assert greedy["identical"] == greedy["frames"] == 4 and greedy["first_difference"] is None
    persona = report["models"]["tiny-personaplex"]  # its prompt phases ran step by step and in chunks
    assert persona["parity_graph_vs_eager"] is None and "skipped" in persona["reference"]
    assert persona["prompt_stepwise"]["steps"] == persona["prompt_chunked"]["steps"] > 125
    assert persona["prompt_chunked"]["chunk_steps"] > 1 == persona["prompt_stepwise"]["chunk_steps"]
    assert persona["prompt_chunked_live_frames_identical"] == "8/8"  # float32 on the CPU: rounding apart
    assert "median ms" in proc.stdout


def test_a_smoke_run_never_writes_the_stored_gpu_results():
    from bench import gpu_check
    from bench.gpu_check.cli import RESULTS, SMOKE_OUT

    assert SMOKE_OUT.parent != RESULTS and SMOKE_OUT.name != "gpu_check.json"
    assert "SMOKE_OUT unless --out" in gpu_check.__doc__


def test_gpu_check_records_a_failed_stage_and_goes_on(tmp_path):
    """Without the reference package (as on an offline GPU machine that lacks it) the reference
    stage fails with its error in the JSON; our runs before it are kept, and the check ends. The
    packages the device image lacks (soxr, platformdirs, the app's) are blocked as well."""
    from tests.test_gpu_check import BLOCKER

    out = tmp_path / "gpu_check.json"
    script = (BLOCKER + "import sys; sys.modules['moshi'] = None; from bench.gpu_check.cli import main; "
              f"sys.exit(main(['--smoke', '--out', {str(out)!r}]))")
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env={**os.environ, "OMP_NUM_THREADS": "2"},
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1 and "failed stages: tiny/reference" in proc.stderr, proc.stderr
    report = json.loads(out.read_text())
    tiny = report["models"]["tiny"]
    assert report["complete"] and "ModuleNotFoundError" in tiny["reference"]["error"]
    int8_run = f"int8/{plan.kernel_candidates('int8', 'cpu')[0]}"
    assert "error" not in tiny["graph"] and tiny["precisions"][int8_run]["times"]["n"] > 0


@pytest.fixture(scope="module")
def demo_parts(demo_model_dir):
    folder = demo_model_dir
    config = LMConfig.from_hub_config(json.loads((folder / "config.json").read_text()))
    lm = load_lm(folder / "model.safetensors", config, device="cuda", dtype=torch.bfloat16)
    mimi = load_mimi(folder / "tokenizer-e351c8d8-checkpoint125.safetensors", device="cuda")
    return mimi, lm


def new_step(mimi, lm, graph: bool, seed: int = 11) -> FrameStep:
    gen = make_generator(lm, SamplingConfig())
    return FrameStep(mimi, gen, {"mimi": mimi.init_state(1), "gen": gen.init_state(1, seed)}, use_cuda_graph=graph)


def cuda_frames(n: int) -> list[torch.Tensor]:
    rng = np.random.default_rng(0)
    return [torch.from_numpy(rng.normal(0, 0.1, 1920).astype(np.float32)).view(1, 1, -1).cuda() for _ in range(n)]


def run(step: FrameStep, inputs, start: int = 0) -> list[tuple]:
    out = []
    for i, pcm in enumerate(inputs, start):
        text, audio, pcm_out = step(pcm, i)
        out.append((int(text[0]), tuple(audio[0].tolist()), pcm_out.clone()))
    return out


@pytest.mark.gpu
def test_graph_equals_eager_on_the_demo(demo_parts):
    inputs = cuda_frames(FRAMES)
    eager_step = new_step(*demo_parts, graph=False)
    eager = run(eager_step, inputs)
    assert not eager_step.graph_active
    assert eager_step.fallback_reason == graph_unavailable_reason(torch.device("cuda"), use_cuda_graph=False)
    step = new_step(*demo_parts, graph=True)
    graph = run(step, inputs)
    assert step.graph_active, step.fallback_reason
    assert [g[:2] for g in graph] == [e[:2] for e in eager]
    for g, e in zip(graph, eager):
        torch.testing.assert_close(g[2], e[2], rtol=0, atol=1e-4)
    assert len({g[0] for g in graph}) > 3


@pytest.mark.gpu
def test_graph_stays_valid_after_restoring_a_conversation(demo_parts):
    """Restoring copies into the live state: the same graph replays the restored conversation."""
    inputs = cuda_frames(30)
    step = new_step(*demo_parts, graph=True)
    fresh = clone(step.state)
    run(step, inputs[:10])
    saved = clone(step.state)
    graph = step.graph
    first = run(step, inputs[10:30], start=10)
    assert step.graph_active and step.graph is graph
    load_into(step.state, flatten(saved))  # back to frame 10
    again = run(step, inputs[10:30], start=10)
    assert step.graph is graph and [a[:2] for a in again] == [f[:2] for f in first]
    load_into(step.state, flatten(fresh))  # a new conversation: early frames run eagerly, then replay
    restart = run(step, inputs[:10])
    twin = run(new_step(*demo_parts, graph=False), inputs[:10])
    assert step.graph is graph and [r[:2] for r in restart] == [t[:2] for t in twin]



@pytest.mark.gpu
def test_a_new_session_is_captured_before_its_first_live_frame(demo_model_dir):
    """Warm-up and capture happen at session creation: live frames only replay, with the tokens of
    an eager session (unverified here: written without a GPU)."""
    from engine import load_model

    graphed = load_model(str(demo_model_dir), device="cuda")
    eager = load_model(str(demo_model_dir), device="cuda", cuda_graph=False)
    session, twin = graphed.new_session(seed=3), eager.new_session(seed=3)
    assert session.graph.active, session.graph.reason
    graph, warm_runs = session.frame_step.graph, session.frame_step.aligned.warm_runs
    rng = np.random.default_rng(1)
    for _ in range(12):
        pcm = rng.normal(0, 0.1, 1920).astype(np.float32)
        a, b = session.step(pcm), twin.step(pcm)
        assert (a.text_token, a.audio_codes) == (b.text_token, b.audio_codes)
    assert session.frame_step.graph is graph and session.frame_step.aligned.warm_runs == warm_runs  # replays only


@pytest.mark.gpu
@pytest.mark.parametrize("stored_voice", [False, True], ids=["voice-codes", "voice-embeddings"])
def test_a_prompt_in_chunks_on_cuda_leaves_the_step_by_step_state_up_to_rounding(stored_voice):
    """PersonaPlex's prompt in chunks on CUDA: what tests/test_prompt_steps.py checks on the CPU
    (unverified here: written without a GPU)."""
    from tests.test_personaplex import tiny_personaplex_lm
    from tests.test_prompt_steps import check_chunked_prompt

    check_chunked_prompt(tiny_personaplex_lm().to("cuda"), stored_voice)


def test_gpu_load_smoke_runs_on_cpu(tmp_path):
    """The first-user load check on a small PersonaPlex folder in the released layout: both
    precisions load, take the stored voice and the role prompt, and run live frames."""
    out = tmp_path / "gpu_load.json"
    proc = subprocess.run([sys.executable, "-m", "bench.gpu_load", "--smoke", "--out", str(out)], cwd=ROOT,
                          env={**os.environ, "OMP_NUM_THREADS": "2"}, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text())
    entry = report["models"]["personaplex-7b"]
    assert report["complete"] and entry["folder"]["lm_file_gb"] > 0
    for precision in ("float32", "int8"):
        run = entry[precision]
        assert run["precision"] == precision and run["frames"]["n"] == 3 and run["load_s"] > 0
        assert run["prompt_steps"] > 125 + 12  # the stored voice, two silences and the role prompt's tokens
        assert run["graph_active"] is False and run["gpu_after_load"] is None
        assert run["precision_reason"] == "" and run["host_load_gb"]["peak"] >= run["host_load_gb"]["kept"]
    # int8 quantises as the file streams: no float LM passes through host memory on the way
    assert entry["int8"]["host_load_gb"]["peak"] <= entry["float32"]["host_load_gb"]["peak"]
    assert entry["16gb_gpu"]["skipped"] == "needs a CUDA device"  # (with the seconds the stage took)


# ------------------------------------------------------------------------- quantised weights

@pytest.mark.gpu
@pytest.mark.parametrize("kernel", ["unfused", "compiled", "int8pack", "int_mm"])
def test_each_int8_kernel_equals_its_reference_on_the_gpu(kernel):
    """Each candidate that runs here equals its dequantised reference within the stated bound
    (``compiled`` needs Triton: where it does not run, it is not a candidate, and says so)."""
    from engine.kernels import int8

    device = torch.device("cuda")
    q, scale = int8.quantize_rows(torch.randn(4096, 1024, device=device, dtype=torch.bfloat16))
    runs = int8.kernel_agrees(kernel, device, torch.bfloat16)
    if kernel == "compiled" and not runs:
        pytest.skip("torch.compile does not run here (no Triton?)")
    assert runs
    for rows in (1, 17, 64):
        x = torch.randn(1, rows, 1024, device=device, dtype=torch.bfloat16)
        got, want = int8.KERNELS[kernel](x, q, scale).float(), int8.reference_linear(x, q, scale).float()
        assert float((got - want).abs().max()) <= int8.KERNEL_TOLERANCE * float(want.abs().max())
    assert int8.chosen_kernel(device, torch.bfloat16) in int8.KERNEL_CHOICES[("cuda", torch.bfloat16)]["agree"]


@pytest.mark.gpu
def test_torch_int4pack_kernel_equals_the_plain_int4_reference():
    from bench.gpu_check.kernels import int4pack_call
    from engine.kernels.int4 import Int4Weight
    from engine.kernels.int8 import KERNEL_TOLERANCE

    weight = Int4Weight.quantize(torch.randn(3072, 1024, device="cuda", dtype=torch.bfloat16) / 32)
    x = torch.randn(1, 1024, device="cuda", dtype=torch.bfloat16)
    got, want = int4pack_call(x, weight)().float(), torch.nn.functional.linear(x, weight).float()
    assert float((got - want).abs().max()) <= KERNEL_TOLERANCE * float(want.abs().max())


@pytest.mark.gpu
@pytest.mark.parametrize("precision", ["int8", "fp8", "int4"])
def test_a_load_quantised_on_the_gpu_equals_one_quantised_on_the_cpu(demo_model_dir, precision):
    """The file streams into the GPU's quantised buffers, each tensor quantised there (no float copy
    of the LM there); the buffers equal the CPU's bit for bit."""
    from engine.kernels.quantize import quantizer

    config = LMConfig.from_hub_config(json.loads((demo_model_dir / "config.json").read_text()))
    path = demo_model_dir / "model.safetensors"
    gpu = load_lm(path, config, device="cuda", dtype=torch.bfloat16, quantize=quantizer(precision))
    cpu = load_lm(path, config, device="cpu", dtype=torch.bfloat16, quantize=quantizer(precision))
    want = cpu.state_dict()
    bits = lambda t: t.view(torch.uint8) if t.dtype == torch.float8_e4m3fn else t
    assert all(torch.equal(bits(t.cpu()), bits(want[k])) for k, t in gpu.state_dict().items())


@pytest.mark.gpu
def test_a_model_measures_what_running_needs_on_this_gpu_once_its_graph_runs(demo_model_dir, tmp_path, monkeypatch):
    """The allowance kept for the next estimate: positive, below the card, measured once the graph replays."""
    from engine import FRAME_SIZE, load_model
    from engine.runtime.gpu_allowance import remembered
    from engine.runtime.gpu_memory import Gpu

    monkeypatch.setenv("PARLEY_CACHE_DIR", str(tmp_path))
    model = load_model(str(demo_model_dir), device="cuda", precision="bfloat16")
    assert model.runtime_unmeasured
    session = model.new_session(record_audio=False)
    while session.graph.pending:
        session.step(np.zeros(FRAME_SIZE, np.float32))
    session.step(np.zeros(FRAME_SIZE, np.float32))
    gpu = Gpu.of(torch.device("cuda"))
    assert not model.runtime_unmeasured and 0 < remembered(gpu.key)["bfloat16"] < gpu.total_gb
