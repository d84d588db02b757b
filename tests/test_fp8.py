"""float8 e4m3 weights (engine.kernels.fp8) on the CPU: storage, both kernels against the dequantised
reference (torch's CPU ``_scaled_mm`` runs the fused kernel's arithmetic), the kernel choice, a
model quantised as it streams, and the teacher-forced agreement with the float model."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from safetensors.torch import save_file

from app.cli.command import main
from engine import write_wav
from engine.kernels import fp8
from engine.kernels.fp8 import FLOAT8, FLOAT8_MAX, KERNEL_TOLERANCE, KERNELS, Float8Weight, quantize_rows
from engine.kernels.quantize import quantize_lm, quantize_lm_int8, quantizer, weight_bytes
from engine.lm.model import LMConfig, LMModel, load_lm
from tests.rounding import assert_within, linear_rounding_bound
from tests.test_quantize import SMALL

CPU = torch.device("cpu")


def test_rows_are_scaled_onto_e4m3s_range_and_round_to_its_grid():
    w = torch.randn(40, 32) * torch.linspace(0.01, 10, 40)[:, None]
    w[3] = 0.0  # an all-zero row must not divide by zero
    q, scale = quantize_rows(w)
    assert q.dtype == FLOAT8 and scale.shape == (40,) and scale.dtype == w.dtype
    assert float(q.float().abs().max()) == FLOAT8_MAX and float(q[3].float().abs().max()) == 0.0
    assert bool((q.float().abs().amax(dim=1)[torch.arange(40) != 3] == FLOAT8_MAX).all())  # full range each row
    # e4m3 keeps 3 mantissa bits: each weight within half a step, 2^-4 of itself (or of the smallest
    # normal, 2^-6, below it: subnormals are evenly spaced).
    scaled = w / scale[:, None]
    error = (q.float() - scaled).abs()
    assert bool((error <= torch.maximum(scaled.abs(), torch.tensor(2.0 ** -6)) * 2 ** -4 + 1e-6).all())


def test_fp8_weight_slices_rows_computes_linear_and_refuses_the_rest():
    w = torch.randn(24, 16)
    weight = Float8Weight.quantize(w)
    x = torch.randn(2, 1, 16)
    part = weight[8:16]
    assert part.shape == (8, 16) and part.q.dtype == FLOAT8
    dequantised = weight.q[8:16].float() * weight.scale[8:16, None]
    assert_within(F.linear(x, part), fp8.reference_linear(x, weight.q[8:16], weight.scale[8:16]),
                  linear_rounding_bound(x, dequantised, extra_roundings=2), "fp8 rows")
    torch.testing.assert_close(F.linear(x, weight), x @ w.T, rtol=0.1, atol=0.2)
    with pytest.raises(TypeError, match="row slices"):
        weight[0]
    with pytest.raises(TypeError, match="not supported"):
        torch.matmul(x, weight)


@pytest.mark.parametrize("name", ["unfused", "scaled_mm"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_each_fp8_kernel_equals_its_dequantised_reference(name, dtype):
    q, scale = quantize_rows(torch.randn(48, 64).to(dtype))
    for rows in (1, 5, 20):  # fewer rows than the fused kernel's 16 are padded; more are not
        x = torch.randn(1, rows, 64).to(dtype)
        got, want = KERNELS[name](x, q, scale), fp8.reference_linear(x, q, scale)
        assert got.shape == want.shape and got.dtype == dtype
        assert float((got.float() - want.float()).abs().max()) <= KERNEL_TOLERANCE * float(want.float().abs().max())
    assert fp8.CHOICE.agrees(name, CPU, dtype)


def test_a_kernel_that_computes_something_else_does_not_agree(monkeypatch):
    monkeypatch.setitem(KERNELS, "scaled_mm", lambda x, q, scale: F.linear(x, q.to(x.dtype)))  # scale forgotten
    assert not fp8.CHOICE.agrees("scaled_mm", CPU, torch.float32)


def test_the_cpu_keeps_the_unfused_kernel_and_the_timing_runs_both():
    times = fp8.CHOICE.time(CPU, torch.float32, shapes=((64, 48), (32, 96)), repeats=3)
    assert set(times) == {"unfused", "scaled_mm"} and all(t > 0 for t in times.values())
    assert fp8.CHOICE.kernel(CPU, torch.float32) == "unfused"


def test_fp8_takes_the_bytes_of_int8_for_the_7b_moshi():
    sizes = {kind: weight_bytes(quantize(LMModel(LMConfig.moshi_7b(), device="meta", dtype=torch.bfloat16)))
             for kind, quantize in (("fp8", quantizer("fp8")), ("int8", quantize_lm_int8))}
    assert sizes["fp8"] == sizes["int8"] and 7.3e9 < sizes["fp8"]["quantized"] < 7.5e9


def test_a_checkpoint_is_quantised_to_fp8_as_it_streams_exactly_as_after_a_float_load(tmp_path):
    torch.manual_seed(3)
    path = tmp_path / "model.safetensors"
    save_file(LMModel(SMALL).state_dict(), str(path))
    streamed = load_lm(path, SMALL, dtype=torch.bfloat16, quantize=quantizer("fp8"))
    after = quantizer("fp8")(load_lm(path, SMALL, dtype=torch.bfloat16))
    want = after.state_dict()
    assert set(streamed.state_dict()) == set(want)
    assert all(torch.equal(t.view(torch.uint8) if t.dtype == FLOAT8 else t,
                           want[k].view(torch.uint8) if want[k].dtype == FLOAT8 else want[k])
               for k, t in streamed.state_dict().items())
    assert "transformer.layers.0.self_attn.in_proj_weight_fp8" in want


def test_teacher_forced_text_agreement_with_the_float_model():
    """Same inputs every frame: the text argmax agrees and the text logits stay close (bounded
    loosely: e4m3 rounds each weight by up to 2^-4 of itself, int8 by 2^-8 of its row's largest)."""
    torch.manual_seed(0)
    float_lm = LMModel(SMALL).eval().requires_grad_(False)
    lm = quantize_lm(copy.deepcopy(float_lm), Float8Weight)
    fs, qs = float_lm.init_state(1), lm.init_state(1)
    gen = torch.Generator().manual_seed(1)
    same, errors = 0, []
    with torch.inference_mode():
        for _ in range(30):
            codes = torch.randint(0, SMALL.card, (1, SMALL.n_q + 1), generator=gen)
            codes[:, 0] %= SMALL.text_card
            _, logits_f = float_lm.temporal_step(float_lm.embed_codes(codes), fs)
            _, logits_q = lm.temporal_step(lm.embed_codes(codes), qs)
            errors.append(float((logits_q - logits_f).norm() / logits_f.norm()))
            same += int(torch.equal(logits_q.argmax(-1), logits_f.argmax(-1)))
    print(f"fp8 vs float over 30 frames: text {same / 30:.3f}, text-logit relative error max {max(errors):.4f}")
    assert 0 < max(errors) < 0.1 and same >= 24  # random weights: near-even logits, a few argmax ties flip


def test_compare_precision_runs_the_demo_in_fp8(tmp_path):
    rng = np.random.default_rng(0)
    wav, out = tmp_path / "talk.wav", tmp_path / "cmp.json"
    write_wav(wav, (0.1 * rng.standard_normal(10 * 1920)).astype(np.float32))
    assert main(["compare-precision", "--model", "demo", "--device", "cpu", "--input", str(wav),
                 "--precisions", "float32", "fp8", "--json", str(out)]) == 0
    _, result = json.loads(out.read_text())["results"]
    assert result["loaded_as"] == "fp8" and result["frames"] == 10
    print(f"demo, fp8 vs float32: {result}")
    assert 0.5 <= result["text_agreement"] <= 1.0 and result["mean_text_kl"] >= 0.0
