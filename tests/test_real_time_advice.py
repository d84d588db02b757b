"""The too-slow warning names only what can help on this machine (app.conversation.health.too_slow_text with
engine.Precision.lighter): no precision the model already uses, none that would not compute faster
here (int8 anywhere, bfloat16 where the CPU does not multiply it natively), the GPU only where there
is one and the model is not on it."""

from __future__ import annotations

import pytest
import torch

from app.conversation.health import too_slow_text
from engine import Precision
from engine.runtime import model_info

CPU, CUDA = torch.device("cpu"), torch.device("cuda")


@pytest.mark.parametrize("native", [False, True])
def test_lighter_precisions_are_those_that_could_compute_faster_here(monkeypatch, native):
    monkeypatch.setattr(model_info, "native_bf16_matmul", lambda: native)
    # int8 saves memory, not time, on either device; bfloat16 only where it is multiplied natively.
    assert Precision.FLOAT32.lighter(CPU) == ((Precision.BFLOAT16,) if native else ())
    assert Precision.FLOAT32.lighter(CUDA) == (Precision.BFLOAT16,)
    assert Precision.BFLOAT16.lighter(CPU) == Precision.BFLOAT16.lighter(CUDA) == ()
    assert Precision.INT8.lighter(CPU) == Precision.INT8.lighter(CUDA) == ()


def test_the_advice_says_what_is_heard_and_names_only_what_can_help_here():
    heard = "Too slow for real time: replies come late and break up. To help, "
    manager = "(Model → Model manager)"
    assert too_slow_text(("bfloat16",), on_cpu=True, gpu_available=False) == heard + (
        f"choose bfloat16 {manager} or close other programs.")
    assert too_slow_text((), on_cpu=True, gpu_available=False) == heard + "close other programs."
    assert too_slow_text(("bfloat16",), on_cpu=True, gpu_available=True) == heard + (
        f"choose bfloat16 {manager}, run it on the GPU {manager} or close other programs.")
    assert too_slow_text((), on_cpu=False, gpu_available=True) == heard + "close other programs."
