"""4-bit matmuls through torch's fused kernels on tiled copies made once at load
(engine.kernels.int4_tiled): each agrees with the dequantising path up to float32 rounding, the
depth transformer's per-step slices each compute through their own tiles, blocks the kernel cannot
take stay on the dequantising path with a reason, and a loaded int4 model computes its frames
through the kernel."""

from __future__ import annotations

import copy
from collections import Counter

import pytest
import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile
from torch.utils._python_dispatch import TorchDispatchMode

from engine.kernels.int4 import INT4_OFFSET, TILES_ATTRIBUTE, Int4Weight
from engine.kernels.int4_tiled import (
    CPU_COMPUTE_CHOICES,
    CPU_COMPUTE_DTYPES,
    KERNEL_GROUP_SIZES,
    TiledInt4,
    cpu_compute_dtype,
    prepare_tiles,
    refusal,
)
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


def test_the_cpu_kernel_computes_in_the_faster_dtype_measured_per_block_shape():
    """Each block shape is timed once in each compute dtype; a tiled block takes the faster."""
    gen = torch.Generator().manual_seed(5)
    for rows in (96, 160):
        block = Int4Weight.quantize(torch.randn(rows, 256, generator=gen))
        chosen = cpu_compute_dtype(block)
        record = CPU_COMPUTE_CHOICES[(rows, 256, 128, torch.float32, torch.get_num_threads())]
        assert set(record["ms"]) <= set(CPU_COMPUTE_DTYPES) and chosen == min(record["ms"], key=record["ms"].get)
        assert TiledInt4(block).compute_dtype == chosen


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
    in_float32 = all(t.compute_dtype == torch.float32 for m in tiled.modules()
                     for tiles in getattr(m, TILES_ATTRIBUTE, {}).values() for t in tiles.by_rows.values())
    tolerance = 1e-4 if in_float32 else KERNEL_TOLERANCE  # bfloat16 inside the kernel
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


# ---- the CUDA path's bookkeeping, on the CPU --------------------------------------------------


def test_the_cuda_tiling_takes_the_even_column_in_the_high_nibble_and_groups_first():
    """What the CUDA kernel is handed, from real values: gpt-fast's ``q[:, ::2] << 4 | q[:, 1::2]``
    bytes (the stored layout has the even column in the low nibble), and the scales and zeros as
    [groups, rows, 2]."""
    from engine.kernels.int4_tiled import cpu_kernel_values, cuda_kernel_bytes, kernel_scales_and_zeros

    gen = torch.Generator().manual_seed(0)
    weight = Int4Weight.quantize(torch.randn(24, 256, generator=gen))
    q = cpu_kernel_values(weight.packed)  # [rows, cols], one value an int32
    assert torch.equal(q.to(torch.uint8)[:, 0::2] | (q.to(torch.uint8)[:, 1::2] << 4), weight.packed)
    assert torch.equal(cuda_kernel_bytes(weight.packed), (q[:, 0::2] << 4 | q[:, 1::2]).to(torch.uint8))
    pairs = kernel_scales_and_zeros(weight.scale, weight.zero, torch.bfloat16)
    assert pairs.shape == (2, 24, 2) and pairs.is_contiguous()
    assert torch.equal(pairs[1, 5], torch.stack((weight.scale[5, 1], weight.zero[5, 1])).bfloat16())


class CudaInt4Checks(TorchDispatchMode):
    """The argument checks of torch's CUDA int4 kernels (``_convert_weight_to_int4pack_cuda`` and
    ``_weight_int4pack_mm_cuda`` in aten/src/ATen/native/cuda/int4mm.cu), applied to the calls
    made on fake CUDA tensors, where torch's own shape functions check far less."""

    def __init__(self):
        super().__init__()
        self.calls: Counter[str] = Counter()
        self.failed: list[str] = []

    def check(self, ok: bool, what: str) -> None:
        if not ok:
            self.failed.append(what)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func._schema.name
        if name == "aten::_convert_weight_to_int4pack":
            w, inner_k_tiles = args
            self.check(w.dim() == 2 and w.dtype == torch.uint8 and w.is_contiguous(), "convert: a contiguous 2-D uint8")
            self.check(inner_k_tiles in (2, 4, 8), "convert: inner k tiles 2, 4 or 8")
            self.check(w.shape[1] * 2 % (inner_k_tiles * 16) == 0, "convert: columns a multiple of inner k tiles * 16")
        elif name == "aten::_weight_int4pack_mm":
            a, b, group, pairs = args
            k, n, inner_k_tiles = a.shape[1], b.shape[0] * 8, b.shape[3] * 2
            self.check(a.device == b.device == pairs.device and a.device.type == "cuda", "mm: one CUDA device")
            self.check(a.dtype == torch.bfloat16 and a.is_contiguous() and a.dim() == 2, "mm: contiguous 2-D bf16 rows")
            self.check(b.dtype == torch.int32 and b.is_contiguous() and b.dim() == 4, "mm: the tiled int32 weight")
            self.check(b.shape[1] == k // (inner_k_tiles * 16) and b.shape[2] == 32, "mm: tiles of these columns")
            self.check(group in KERNEL_GROUP_SIZES and k % group == 0, "mm: a group size dividing the columns")
            self.check(tuple(pairs.shape) == (k // group, n, 2) and pairs.dtype == torch.bfloat16, "mm: [groups, n, 2]")
        if name.startswith("aten::_") and "int4pack" in name:
            self.calls[name] += 1
        return func(*args, **(kwargs or {}))


@pytest.fixture
def fake_cuda(monkeypatch):
    """Fake tensors on a CUDA device that is not there (shapes, dtypes and devices; no values), a
    compute capability the kernel takes, and the numeric agreement check, which needs real values,
    taken as passed (tests/test_gpu.py and the GPU check run it on a GPU)."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    from engine.kernels import int4_tiled

    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: (9, 0))
    monkeypatch.setattr(int4_tiled, "kernel_agrees", lambda device_type, dtype: True)
    with FakeTensorMode():
        yield torch.device("cuda")


@pytest.mark.parametrize("rows, cols", [(3072, 1024), (1000, 4096), (2048, 11264)])
def test_the_cuda_tiles_meet_the_cuda_kernels_checks(fake_cuda, rows, cols):
    """Rows off the kernel's multiple of 8 (1000) padded and cut back; one and three inputs."""
    shapes = Int4Weight.quantize(torch.empty(rows, cols, device="meta", dtype=torch.bfloat16))
    weight = Int4Weight(*(torch.empty_like(t, device=fake_cuda) for t in shapes.tensors()))
    with CudaInt4Checks() as kernels:
        fused = TiledInt4(weight)
        for inputs in (1, 3):
            y = fused(torch.randn(1, inputs, cols, device=fake_cuda, dtype=torch.bfloat16))
            assert y.shape == (1, inputs, rows) and y.dtype == torch.bfloat16 and y.device.type == "cuda"
    assert kernels.failed == []
    assert kernels.calls == {"aten::_convert_weight_to_int4pack": 1, "aten::_weight_int4pack_mm": 2}
    padding = -rows % 8  # rows, each cols / 2 bytes of values and a bf16 scale and zero a group
    assert fused.bytes() == (rows + padding) * (cols // 2 + 4 * (cols // 128))


def test_a_weight_held_as_tiles_lets_go_of_its_stored_copy_and_computes_the_same_bits(small_lms):
    """What a GPU load does (``LET_GO_DEVICES``), on the CPU's tiles with real values: every weight
    whose blocks all were tiled lets go of its stored buffers (meta tensors: their shapes, no
    memory; ``weight_bytes`` still says the int4 size), one with a refused block keeps them; the
    frame's logits are those of the copy that keeps its buffers, bit for bit; preparing again keeps
    the tiles; an input the tiles do not take raises instead of dequantising nothing. A CPU load
    keeps its stored copies (the default here)."""
    from engine.kernels.quantize import weight_bytes

    _, kept, kept_tiling = small_lms
    assert kept_tiling.let_go_bytes == 0
    held_once = copy.deepcopy(kept)
    tiling = prepare_tiles(held_once, let_go_of_stored=True)
    refused = {name.rsplit("[", 1)[0].removesuffix(".weight") for name in tiling.refused}
    assert len(refused) == 16  # the depth transformer's feed-forward outputs (2 layers x 8 steps): groups of 176
    stored = {name.removesuffix(".weight_int4"): t.is_meta for name, t in held_once.named_buffers()
              if name.endswith("_int4")}
    assert {name for name, gone in stored.items() if not gone} == refused
    resident = sum(t.numel() * t.element_size() for t in held_once.buffers() if not t.is_meta)
    assert resident == sum(t.numel() * t.element_size() for t in kept.buffers()) - tiling.let_go_bytes
    assert tiling.let_go_bytes > 0.9 * weight_bytes(kept)["quantized"] and "let go" in tiling.summary()
    assert weight_bytes(held_once) == weight_bytes(kept)

    gen = torch.Generator().manual_seed(3)
    codes = torch.cat((torch.randint(0, SMALL.text_card, (1, 1), generator=gen),
                       torch.randint(0, SMALL.card, (1, SMALL.n_q), generator=gen)), dim=1)
    outs = []
    for lm in (kept, held_once):
        state, logits = lm.init_state(1), []
        with torch.inference_mode():
            hidden, text_logits = lm.temporal_step(lm.embed_codes(codes), state)
            lm.depformer_frame(hidden, text_logits.argmax(-1), state["depformer"],
                               lambda lg, _cb, logits=logits: logits.append(lg) or lg.argmax(-1))
        outs.append([text_logits, *logits])
    assert len(outs[1]) == 1 + SMALL.dep_q and all(torch.equal(a, b) for a, b in zip(*outs))

    again = prepare_tiles(held_once, let_go_of_stored=True)
    assert (again.tiled, again.tiled_bytes, again.refused) == (tiling.tiled, tiling.tiled_bytes, tiling.refused)
    attention = held_once.transformer.layers[0].self_attn.in_proj_weight
    assert attention.tiled() is not None
    with pytest.raises(RuntimeError, match="held as tiles only"):
        F.linear(torch.randn(1, SMALL.dim, dtype=torch.float64), attention)  # not what was tiled


@pytest.mark.gpu
def test_an_int4_load_on_the_gpu_holds_its_tiled_weights_once_and_replays_its_frames(demo_model_dir):
    """On CUDA the load tiles every stored step for ``_weight_int4pack_mm`` and lets go of the
    stored copy of each weight it tiled whole (the demo's feed-forward widths are no multiple of
    128 columns: those keep theirs and dequantise); frames then replay from a CUDA graph."""
    import numpy as np

    from engine import FRAME_SIZE, load_model

    model = load_model(str(demo_model_dir), device="cuda", precision="int4")
    tiling = model.int4_tiling
    assert tiling.tiled > 0 and tiling.let_go_bytes > 0 and tiling.refused
    stored = [b for name, b in model.lm.named_buffers() if name.endswith("_int4")]
    assert any(b.is_meta for b in stored) and any(b.is_cuda for b in stored)
    session = model.new_session(record_audio=False)
    while session.graph.pending:
        session.step(np.zeros(FRAME_SIZE, np.float32))
    for _ in range(3):
        session.step(np.zeros(FRAME_SIZE, np.float32))
    assert session.graph.active, session.graph.reason
