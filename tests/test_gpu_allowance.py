"""What running needs beyond a model's tensors, measured on the GPU it runs on and kept for the
next estimate (engine.runtime.gpu_allowance). The measurement runs on a GPU in tests/test_gpu.py;
here its arithmetic, the loaded model's once-only measurement after a session's first frames and
the kept file run against a faked CUDA memory API, and the estimates use what was kept."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from engine import FRAME_SIZE, load_model
from engine.lm.model import LMConfig
from engine.runtime import gpu_allowance
from engine.runtime.gpu_allowance import MARGIN_GB, gpu_key, remember, remembered
from engine.runtime.gpu_memory import RUNTIME_GB, Gpu, choose_precision, model_bytes, needed_gb

CARD = "NVIDIA GeForce RTX 4090"
KEY = gpu_key(CARD, 25.4)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PARLEY_CACHE_DIR", str(tmp_path))
    return tmp_path


class FakeCudaMemory:
    """torch.cuda's memory calls as a GPU would answer them (bytes)."""

    def __init__(self, monkeypatch, total: float, free: float, reserved: float, peak: float):
        self.total, self.free, self.reserved, self.peak, self.resets = total, free, reserved, peak, 0
        monkeypatch.setattr(torch.cuda, "mem_get_info", lambda device=None: (self.free, self.total))
        monkeypatch.setattr(torch.cuda, "memory_reserved", lambda device=None: self.reserved)
        monkeypatch.setattr(torch.cuda, "max_memory_reserved", lambda device=None: self.peak)
        monkeypatch.setattr(torch.cuda, "reset_peak_memory_stats", self._reset)
        monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: CARD)
        monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: (8, 9))

    def _reset(self, device=None) -> None:
        self.resets += 1


def test_an_allowance_is_kept_per_gpu_and_precision_the_largest_measured(cache):
    assert remembered(KEY) == {}
    remember(KEY, "bfloat16", 2.5)
    remember(KEY, "int8", 3.1)
    remember(KEY, "bfloat16", 2.0)  # a smaller one later: the larger is kept
    assert remembered(KEY) == {"bfloat16": 2.5, "int8": 3.1}
    remember(KEY, "bfloat16", 2.75)
    assert remembered(KEY)["bfloat16"] == 2.75
    assert remembered(gpu_key("NVIDIA GeForce RTX 4080", 16.4)) == {}  # another GPU measures its own
    assert remembered({**KEY, "torch": "0.0"}) == {}  # another torch build too


def test_a_damaged_or_foreign_file_is_measured_again_and_an_unwritable_folder_costs_nothing(cache, caplog):
    path = gpu_allowance.allowance_path(KEY)
    path.parent.mkdir(parents=True)
    for damaged in ("{not json", json.dumps({"key": KEY, "allowance_gb": {"bfloat16": "lots"}}), "[]"):
        path.write_text(damaged)
        assert remembered(KEY) == {}
    assert "damaged GPU memory allowance" in caplog.text
    path.write_text(json.dumps({"key": {**KEY, "gpu": "another"}, "allowance_gb": {"bfloat16": 1.0}}))
    assert remembered(KEY) == {}
    path.unlink()
    path.parent.rmdir()
    path.parent.write_text("a file where the folder goes")
    remember(KEY, "int8", 3.0)  # said in the log, nothing raised
    assert remembered(KEY) == {}


def test_the_estimates_take_a_measured_allowance_with_a_margin_else_the_flat_one():
    gpu = Gpu(CARD, 25.4, 24.5, (8, 9), {"bfloat16": 1.2})
    assert gpu.allowance_gb("bfloat16") == pytest.approx(1.2 + MARGIN_GB)
    assert gpu.allowance_gb("int8") == RUNTIME_GB
    moshi = LMConfig.moshi_7b()
    flat = needed_gb(moshi, "bfloat16")
    assert needed_gb(moshi, "bfloat16", allowance_gb=gpu.allowance_gb("bfloat16")) == \
        pytest.approx(flat - RUNTIME_GB + 1.2 + MARGIN_GB)
    # With the flat allowance bfloat16 does not fit in 20 GB free; with what this GPU measured, it does.
    free = flat - 1.0
    assert choose_precision("moshiko", moshi, Gpu(CARD, 25.4, free, (8, 9))).precision == "int8"
    measured = choose_precision("moshiko", moshi, Gpu(CARD, 25.4, free, (8, 9), {"bfloat16": 1.2}))
    assert measured.precision == "bfloat16"


def test_gpu_of_reads_what_this_gpu_measured(cache, monkeypatch):
    FakeCudaMemory(monkeypatch, total=25.4e9, free=24e9, reserved=0, peak=0)
    remember(KEY, "int8", 3.3)
    gpu = Gpu.of(torch.device("cuda"))
    assert (gpu.name, gpu.key, gpu.allowances) == (CARD, KEY, {"int8": 3.3})


def test_the_measurement_is_the_peak_beyond_the_models_tensors_plus_what_torch_did_not_reserve(monkeypatch):
    fake = FakeCudaMemory(monkeypatch, total=25.4e9, free=24.0e9, reserved=0.2e9, peak=0)
    outside = gpu_allowance.start_measuring(torch.device("cuda"))
    assert fake.resets == 1 and outside == pytest.approx(1.2)  # 1.4 GB in use, 0.2 of it torch's
    fake.peak = 21.5e9
    assert gpu_allowance.measured_gb(torch.device("cuda"), int(19.0e9), outside) == pytest.approx(3.7)


def test_a_loaded_model_measures_once_after_its_first_session_frames_and_keeps_it(cache, monkeypatch,
                                                                                   demo_model_dir):
    """On CUDA a loaded model starts unmeasured; here (a CPU model, whose frames never wait for a
    graph) the faked memory API stands in for the GPU's."""
    model = load_model(str(demo_model_dir), device="cpu", precision="float32")
    assert model.runtime_unmeasured is False  # the CPU measures nothing
    fake = FakeCudaMemory(monkeypatch, total=25.4e9, free=24e9, reserved=0, peak=0)
    tensors = model_bytes(model.lm, model.mimi)
    fake.peak = tensors + 0.9e9
    model.runtime_unmeasured, model._outside_torch_gb = True, 0.6
    session = model.new_session(record_audio=False)
    session.step(np.zeros(FRAME_SIZE, np.float32))
    assert model.runtime_unmeasured is False
    key = gpu_key(CARD, 25.4)
    assert remembered(key) == {"float32": pytest.approx(1.5, abs=1e-3)}
    fake.peak = tensors + 5e9  # later frames measure nothing more
    session.step(np.zeros(FRAME_SIZE, np.float32))
    model.new_session(record_audio=False).step(np.zeros(FRAME_SIZE, np.float32))
    assert remembered(key) == {"float32": pytest.approx(1.5, abs=1e-3)}
