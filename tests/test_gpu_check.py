"""The GPU check cannot break on the device machine: it imports without the packages that image
lacks, its memory-cap stage runs against a faked CUDA memory API here (as torch checks the
device index), and its budget skips stages instead of overrunning. (tests/test_gpu.py runs the
whole smoke check with those packages blocked, and checks that its plan names the stages a run
records.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import torch
from torch.cuda._utils import _get_device_index

from bench import gpu_memory_caps
from bench.gpu_check import cli, frames, models

ROOT = Path(__file__).resolve().parent.parent
# Parley's dependencies that the GPU machine's image does not have (its package list).
MISSING_ON_THE_DEVICE = ("soxr", "platformdirs", "sounddevice", "PySide6", "soundfile", "pyloudnorm", "webrtc_audio")
BLOCKER = f"""
import sys
class Missing:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {MISSING_ON_THE_DEVICE!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}} (blocked: not on the device image)")
sys.meta_path.insert(0, Missing())
"""


def run_python(code: str, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCKER + code], cwd=ROOT, capture_output=True, text=True,
                          timeout=240, env=env or os.environ)


def test_the_engine_and_the_gpu_benchmarks_import_without_the_packages_the_device_image_lacks():
    proc = run_python("import soxr\n")
    assert proc.returncode != 0 and "blocked" in proc.stderr  # the blocker works
    proc = run_python("import engine, bench.gpu_check.cli, bench.gpu_check.speech, bench.gpu_load, bench.op_count, "
                      "bench.gpu_profile, bench.tts_model\n"
                      f"assert not set({MISSING_ON_THE_DEVICE!r}) & set(sys.modules), sys.modules.keys()\n"
                      "print('imported')\n")
    assert proc.returncode == 0 and "imported" in proc.stdout, proc.stderr


def test_without_platformdirs_the_demo_is_built_in_a_temporary_cache():
    env = {k: v for k, v in os.environ.items() if k != "PARLEY_CACHE_DIR"}
    proc = run_python("from bench.gpu_check.cli import prepare_environment\n"
                      "from engine.files.demo import demo_dir\n"
                      "prepare_environment()\n"
                      "print(demo_dir())\n", env=env)
    assert proc.returncode == 0, proc.stderr
    assert Path(proc.stdout.strip()).is_relative_to(Path(tempfile.gettempdir()) / "parley-gpu-check-cache")


class FakeCuda:
    """torch.cuda's memory calls for a 24 GB card with a 0.5 GB context, checking each device
    argument as torch does (an index, or a device with one). A build "runs out of memory" when
    the cap leaves less than ``needed_gb[precision]``."""

    GB = 1e9

    def __init__(self, needed_gb: dict[str, float]):
        self.total, self.context, self.needed_gb = 24 * self.GB, 0.5 * self.GB, needed_gb
        self.fraction, self.fractions, self.in_use = 1.0, [], 0.0

    def current_device(self) -> int:
        return 0

    def mem_get_info(self, device):
        _get_device_index(device)
        return self.total - self.context - self.in_use, self.total

    def memory_reserved(self, device) -> int:
        _get_device_index(device)
        return int(self.in_use)

    def max_memory_allocated(self, device) -> int:
        _get_device_index(device)
        return int(self.in_use)

    def reset_peak_memory_stats(self, device) -> None:
        _get_device_index(device)

    def set_per_process_memory_fraction(self, fraction: float, device) -> None:
        _get_device_index(device)  # raises for torch.device("cuda"), as the real call does
        assert 0 < fraction <= 1
        self.fraction = fraction
        self.fractions.append(fraction)

    def empty_cache(self) -> None:
        self.in_use = 0.0

    def allocate(self, precision: str) -> None:
        if self.needed_gb[precision] * self.GB > self.fraction * self.total:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB (fake)")
        self.in_use = self.needed_gb[precision] * self.GB


def test_the_memory_cap_stage_runs_against_a_faked_cuda_memory_api():
    """A real tiny model built and run (on the CPU) under each cap of a faked 24 GB card; the
    device handed to torch's memory calls is ``torch.device("cuda")`` as the check's own is."""
    cuda = FakeCuda({"bfloat16": 15.0, "int8": 4.0})

    def build(precision):
        mimi, lm, load_s = models.build_quantised("tiny", precision, torch.device("cpu"), torch.float32)
        cuda.allocate(precision)
        return mimi, lm, load_s

    inputs = [0.1 * torch.randn(1, 1, 1920) for _ in range(6)]  # frames after the (would-be) capture are timed
    out = gpu_memory_caps.memory_caps(
        models.build_config("tiny"), torch.device("cuda"), torch.bfloat16, (12, 16), ("bfloat16", "int8"),
        build=build, run=lambda mimi, lm: frames.run_ours(mimi, lm, inputs, torch.device("cpu"), graph=True),
        cuda=cuda)
    assert out["context_gb"] == 0.5 and out["total_gb"] == 24.0
    assert out["bfloat16@12GB"]["fits"] is False and "out of memory" in out["bfloat16@12GB"]["error"]
    assert out["bfloat16@16GB"]["fits"] and out["bfloat16@16GB"]["gpu_memory"]["device_used_gb"] == 15.5
    assert out["int8@12GB"]["fits"] and out["int8@12GB"]["times"]["n"] > 0
    estimate = out["int8@12GB"]["estimate_gb"]  # the engine's flat allowance puts even the tiny model near 5 GB
    assert 4.5 < estimate < 15.5
    assert out["int8@12GB"]["estimate_ok"] and out["int8@16GB"]["estimate_ok"]  # 4.5 GB in use
    assert out["bfloat16@16GB"]["estimate_ok"] is False  # 15.5 GB in use: above the estimate
    assert out["bfloat16@12GB"]["estimate_ok"] is False  # did not fit a card above the estimate
    # each cap is what the card leaves beside the context, lifted again after each run
    assert cuda.fractions[0::2] == pytest.approx([11.5 / 24, 15.5 / 24] * 2) and set(cuda.fractions[1::2]) == {1.0}
    assert cuda.fraction == 1.0


def test_a_budget_skips_what_would_not_finish_and_the_report_is_complete(tmp_path):
    out = tmp_path / "check.json"
    assert cli.main(["--smoke", "--budget-s", "0", "--skip-kernel-times", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["complete"] and report["kernels"] == {"skipped": "--skip-kernel-times"}
    assert "--budget-s 0" in report["copy_bandwidth_gb_s"]["skipped"]
    for name in ("tiny", "tiny-personaplex", "demo"):
        stages = report["models"][name]
        assert all("skipped" in stages[s] for s in ("build", "reference")), stages
        assert "floor" not in stages  # it needs the built model

