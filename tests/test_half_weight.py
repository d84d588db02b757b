"""The float16-weight matmul (``engine.kernels.half_weight``): offered only where the weight is
exact in float16 after a power of two, and then float32's result up to summation order."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from engine.kernels.half_weight import HalfWeightMatmul, half_scale, runs_here
from tests.rounding import assert_linear_close

needs_fbgemm = pytest.mark.skipif(not runs_here(), reason="no FBGEMM on this CPU: the kernel is never offered")


def bf16_weight(out: int, inp: int, seed: int = 0) -> torch.Tensor:
    return (torch.randn(out, inp, generator=torch.Generator().manual_seed(seed)) * inp ** -0.5).bfloat16().float()


def test_bfloat16_weights_scale_into_float16_and_others_do_not():
    assert half_scale(bf16_weight(64, 32)) is not None
    assert half_scale(bf16_weight(64, 32) * 2.0 ** 40) is not None  # any magnitude: one power of two
    assert half_scale(torch.randn(64, 32)) is None  # float32 values: 24 significant bits
    wide = bf16_weight(64, 32)
    wide[0, 0], wide[0, 1] = 2.0 ** 20, 2.0 ** -20  # 40 binades: more than float16 spans
    assert half_scale(wide) is None
    assert half_scale(torch.tensor([[1.0, float("inf")]])) is None


@needs_fbgemm
@pytest.mark.parametrize("shape,rows", [((4096, 1024), 1), ((1024, 4096), 1), ((2048, 512), 16)])
def test_results_are_float32_up_to_summation_order_at_real_shapes(shape, rows):
    weight, bias = bf16_weight(*shape), torch.randn(shape[0])
    matmul = HalfWeightMatmul()
    assert matmul.pack(weight)
    x = torch.randn(1, rows, shape[1])
    assert_linear_close(matmul(x, weight, bias), x, weight, bias)
    assert_linear_close(matmul(x, weight), x, weight)


def test_a_weight_not_exact_in_float16_stays_on_atens_matmul():
    weight, x = torch.randn(96, 64), torch.randn(3, 64)
    matmul = HalfWeightMatmul()
    assert not matmul.pack(weight)
    assert torch.equal(matmul(x, weight), F.linear(x, weight))


@needs_fbgemm
def test_the_frame_plan_keeps_one_of_its_two_plans_whole(tmp_path):
    """``prefer_half_weights`` times whole frames: after it, either every weight exact in float16 is
    on the float16-weight kernel, or every linear is on its per-shape choice, as before."""
    from bench.pocket_reference import ROW, build, small_arch
    from engine.kernels.packed import PackedLinear
    from engine.pocket_tts.config import PocketConfig
    from engine.pocket_tts.frame_plan import _linears, prefer_half_weights
    from engine.pocket_tts.loading import load_pocket_tts

    arch = small_arch(0)
    build(tmp_path, arch)
    model = load_pocket_tts(tmp_path, ROW, PocketConfig.from_package_dict(arch))
    linears = _linears(model.flow_lm) + _linears(model.codec.decoder_transformer)
    for m in linears:  # back to the per-shape choice, then let whole frames decide again
        if isinstance(m._matmul, HalfWeightMatmul):
            m._matmul = PackedLinear.sharing(m)._matmul
            m.repack()
    before = {m: m._matmul for m in linears}
    if prefer_half_weights(model.flow_lm, model.codec):
        assert all(isinstance(m._matmul, HalfWeightMatmul) and m._matmul.packed is not None for m in linears)
    else:
        assert all(m._matmul is before[m] for m in linears)
