"""4-bit matmuls through torch's fused kernels on tiled copies made once at load
(engine.kernels.int4_tiled): each agrees with the dequantising path up to float32 rounding, the
depth transformer's per-step slices each compute through their own tiles, blocks the kernel cannot
take stay on the dequantising path with a reason, and a loaded int4 model computes its frames
through the kernel."""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

from engine.kernels.int4 import INT4_OFFSET, TILES_ATTRIBUTE, Int4Weight
from engine.kernels.int4_tiled import TiledInt4, cpu_compute_dtype, prepare_tiles, refusal
from engine.kernels.int8 import KERNEL_TOLERANCE
from engine.kernels.quantize import quantize_lm_int4
from engine.lm.model import LMConfig, LMModel
from engine.streaming.transformer import step_slice
from tests.rounding import assert_within, linear_rounding_bound

CPU_KERNEL = "aten::_weight_int4pack_mm_for_cpu"
# SMALL's depth transformer: 8 steps of weights, 3 x 64 rows of in_proj each, and a feed-forward
# whose hidden width (176) makes groups of 176 columns, which the kernel does not take.
SMALL = LMConfig(dim=128, num_heads=4, num_layers=2, text_card=500, depformer_dim=64,
                 depformer_dim_feedforward=264, depformer_num_heads=4, depformer_num_layers=2, context=100)


BFLOAT16_UNIT = 2.0 ** -8


def dequantising_bound(x: torch.Tensor, weight: Int4Weight, compute_dtype: torch.dtype) -> torch.Tensor:
    """How far the kernel's ``x @ ((q - 8) * scale + zero).T`` may be from the dequantising path's,
    on the magnitudes of the terms that make each weight: in float32 the sum's roundings and up to
    three in each weight's dequantisation (multiply, add, and a kernel's own grouping of them); in
    bfloat16 one rounding each of the activation, the scale and the zero, and of the output."""
    rows, cols = weight.shape
    q = torch.stack((weight.packed & 0xF, weight.packed >> 4), dim=-1).reshape(rows, weight.scale.shape[1], -1)
    magnitude = ((q.float() - INT4_OFFSET).abs() * weight.scale.abs()[..., None]
                 + weight.zero.abs()[..., None]).reshape(rows, cols)
    if compute_dtype == torch.float32:
        return linear_rounding_bound(x, magnitude, extra_roundings=3)
    return 4 * BFLOAT16_UNIT * F.linear(x.double().abs(), magnitude.double())


@pytest.mark.parametrize("compute_dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("rows, cols", [(64, 256), (1000, 128), (48, 96), (3072, 1024)])
@pytest.mark.parametrize("inputs", [1, 3])
def test_the_cpu_tiled_kernel_agrees_with_the_dequantising_path_up_to_rounding(rows, cols, inputs, compute_dtype):
    """Row counts off the kernel's multiple of 16 (1000, 48) are padded with zero rows and cut
    back; groups of 128 and 32 columns; float32 activations in both (bfloat16 inside the kernel
    where the CPU multiplies it natively)."""
    gen = torch.Generator().manual_seed(rows)
    weight = Int4Weight.quantize(torch.randn(rows, cols, generator=gen) * cols ** -0.5)
    x = torch.randn(2, inputs, cols, generator=gen)
    got = TiledInt4(weight, compute_dtype)(x)
    want = F.linear(x, weight)  # the dequantising path
    assert got.dtype == torch.float32
    assert_within(got, want, dequantising_bound(x, weight, compute_dtype), "tiled int4")


def test_a_block_the_kernel_cannot_take_is_refused_with_its_reason():
    whole_row_groups = Int4Weight.quantize(torch.randn(32, 264))  # no group size divides 264
    assert "groups of 264 columns" in refusal(whole_row_groups)
    with pytest.raises(ValueError, match="groups of 264 columns"):
        TiledInt4(whole_row_groups)
    assert refusal(Int4Weight.quantize(torch.randn(32, 256))) is None


@pytest.fixture(scope="module")
def small_lms():
    torch.manual_seed(0)
    plain = quantize_lm_int4(LMModel(SMALL).eval().requires_grad_(False))
    tiled = copy.deepcopy(plain)
    return plain, tiled, prepare_tiles(tiled)


def test_each_stored_step_of_a_stacked_weight_is_tiled_on_its_own(small_lms):
    """The CPU's tiled layout cannot be sliced per step: every step's rows have their own tiles,
    which the step's slice finds, and they equal tiles of that step alone."""
    _, lm, tiling = small_lms
    attention = lm.depformer.layers[0].self_attn
    weight = attention.in_proj_weight
    steps = weight.shape[0] // attention.stacked_rows["in_proj_weight"]
    assert steps == 8
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(1, 1, SMALL.depformer_dim, generator=gen)
    for step in range(steps):
        block = step_slice(weight, step, steps)
        assert block.tiled() is not None
        alone = TiledInt4(Int4Weight(block.packed, block.scale, block.zero))
        assert torch.equal(block.tiled()(x), alone(x))
    assert weight[1:65].tiled() is None  # rows that are no block: the dequantising path
    assert tiling.tiled == 73 and len(tiling.refused) == 16
    assert set(tiling.refused.values()) == {"groups of 176 columns (the kernel takes 32, 64, 128, 256)"}
    assert "depformer.layers.0.gating.0.linear_out.weight[0:64]" in tiling.refused


def test_a_frame_computes_through_the_tiles_and_agrees_with_the_dequantising_path(small_lms):
    """A whole frame (temporal step, then the depth transformer's steps): each tiled block is one
    fused kernel call (none without ``prepare_tiles``), and every logit agrees with the plain int4
    path's up to rounding (both from the same 4-bit values; each step is fed the same token)."""
    plain, tiled, tiling = small_lms
    gen = torch.Generator().manual_seed(2)
    codes = torch.cat((torch.randint(0, SMALL.text_card, (1, 1), generator=gen),
                       torch.randint(0, SMALL.card, (1, SMALL.n_q), generator=gen)), dim=1)
    results = {}
    for name, lm in (("plain", plain), ("tiled", tiled)):
        logits = []

        def record(step_logits, _codebook, logits=logits):
            logits.append(step_logits)
            return torch.zeros(step_logits.shape[0], dtype=torch.long)

        state = lm.init_state(1)
        with torch.inference_mode(), profile(activities=[ProfilerActivity.CPU]) as prof:
            hidden, text_logits = lm.temporal_step(lm.embed_codes(codes), state)
            lm.depformer_frame(hidden, text_logits.argmax(-1), state["depformer"], record)
        calls = sum(e.count for e in prof.key_averages() if e.key == CPU_KERNEL)
        results[name] = ([text_logits, *logits], calls)
    assert results["plain"][1] == 0
    assert results["tiled"][1] == tiling.tiled  # every block once a frame
    assert len(results["tiled"][0]) == SMALL.dep_q + 1
    tolerance = 1e-4 if cpu_compute_dtype() == torch.float32 else KERNEL_TOLERANCE  # bfloat16 inside the kernel
    for got, want in zip(results["tiled"][0], results["plain"][0]):
        assert float((got - want).abs().max()) <= tolerance * float(want.abs().max())


def test_tiles_are_ignored_once_the_buffers_are_no_longer_theirs(small_lms):
    """A module moved or reloaded has new buffers: its stale tiles are not used."""
    _, lm, _ = small_lms
    module = copy.deepcopy(lm.transformer.layers[0].self_attn)
    assert module.in_proj_weight.tiled() is not None
    module.in_proj_weight_int4 = module.in_proj_weight_int4.clone()
    assert module.in_proj_weight.tiled() is None
    assert TILES_ATTRIBUTE in vars(module)


@pytest.mark.gpu
@pytest.mark.parametrize("rows, cols", [(3072, 1024), (1000, 4096)])
def test_the_cuda_tiled_kernel_agrees_with_the_dequantising_path(rows, cols):
    from engine.kernels.int8 import KERNEL_TOLERANCE

    gen = torch.Generator().manual_seed(0)
    weight = Int4Weight.quantize((torch.randn(rows, cols, generator=gen) * cols ** -0.5).cuda().bfloat16())
    x = torch.randn(1, 3, cols, generator=gen).cuda().bfloat16()
    got, want = TiledInt4(weight)(x).float(), F.linear(x, weight).float()
    assert float((got - want).abs().max()) <= KERNEL_TOLERANCE * float(want.abs().max())
