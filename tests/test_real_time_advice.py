"""The too-slow warning names only what can help on this machine (app.engine_thread.real_time.too_slow_text with
engine.Precision.lighter): no precision the model already uses, none that would not compute faster
here (int8 anywhere, bfloat16 where the CPU does not multiply it natively), no GPU to someone on one."""

from __future__ import annotations

import pytest
import torch

from app.engine_thread.real_time import too_slow_text
from engine import Precision
from engine.runtime import loading

CPU, CUDA = torch.device("cpu"), torch.device("cuda")


@pytest.mark.parametrize("native", [False, True])
def test_lighter_precisions_are_those_that_could_compute_faster_here(monkeypatch, native):
    monkeypatch.setattr(loading, "native_bf16_matmul", lambda: native)
    # int8 saves memory, not time, on either device; bfloat16 only where it is multiplied natively.
    assert Precision.FLOAT32.lighter(CPU) == ((Precision.BFLOAT16,) if native else ())
    assert Precision.FLOAT32.lighter(CUDA) == (Precision.BFLOAT16,)
    assert Precision.BFLOAT16.lighter(CPU) == Precision.BFLOAT16.lighter(CUDA) == ()
    assert Precision.INT8.lighter(CPU) == Precision.INT8.lighter(CUDA) == ()


def test_the_advice_names_what_can_help():
    start = "This computer is too slow to run the demo model in real time (95 ms per 80 ms frame). "
    assert too_slow_text("the demo model", 95.4, ("bfloat16",), on_gpu=False) == start + (
        "Try precision bfloat16 (Model → Model manager), a GPU, or close other programs.")
    assert too_slow_text("the demo model", 95.4, (), on_gpu=False) == start + "Try a GPU, or close other programs."
    assert too_slow_text("the demo model", 95.4, ("bfloat16",), on_gpu=True) == start + (
        "Try precision bfloat16 (Model → Model manager), or close other programs.")
    assert too_slow_text("the demo model", 95.4, (), on_gpu=True) == start + "Close other programs."
