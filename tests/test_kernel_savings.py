"""The per-frame kernel savings keep the bits: RMSNorm's cached float32 weight follows the weight,
and the additive mask built once per chunk gives attention exactly what a boolean mask gives."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from bench.op_count import count_frame
from engine.lm.model import LMConfig
from engine.streaming.layers import RMSNorm
from engine.streaming.transformer import additive_mask


def test_the_cached_float32_weight_follows_loads_and_moves():
    norm = RMSNorm(16, eps=1e-8, dtype=torch.bfloat16)
    x = torch.randn(1, 3, 16, dtype=torch.bfloat16)

    def uncached(n, x):
        x32 = x.float()
        return (x32 * (n.alpha.float() * torch.rsqrt(1e-8 + (x32 * x32).mean(-1, keepdim=True)))).to(x.dtype)

    assert torch.equal(norm(x), uncached(norm, x))
    with torch.no_grad():
        norm.alpha.copy_(torch.randn(1, 1, 16))  # what a checkpoint load does
    assert torch.equal(norm(x), uncached(norm, x))
    norm.alpha.data = torch.randn(1, 1, 16, dtype=torch.bfloat16)  # a new tensor (a move, to_empty)
    assert torch.equal(norm(x), uncached(norm, x))
    float_norm = RMSNorm(16, eps=1e-8)
    assert float_norm.alpha_f32() is float_norm.alpha  # float32 weights need no copy


def test_the_additive_mask_gives_attention_the_same_bits():
    torch.manual_seed(0)
    allowed = torch.rand(2, 40) > 0.4
    allowed[:, 0] = True
    for dtype in (torch.float32, torch.bfloat16):
        q, k, v = (torch.randn(1, 4, 2, 32, dtype=dtype) if i == 0 else torch.randn(1, 4, 40, 32, dtype=dtype)
                   for i in range(3))
        want = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
        assert torch.equal(F.scaled_dot_product_attention(q, k, v, attn_mask=additive_mask(allowed, dtype)), want)


def test_a_frame_with_7b_layer_counts_launches_fewer_kernels_than_before():
    """Before these savings the count was 2921 (Moshi layer counts, bfloat16; bench/op_count.py)."""
    config = LMConfig(dim=32, num_heads=2, text_card=32, card=32, depformer_dim=16, depformer_num_heads=2,
                      depformer_dim_feedforward=64, context=20)
    _, _, kernels = count_frame(config, warm_frames=1)
    assert sum(kernels.values()) <= 2600
    # attention no longer turns a boolean mask into a float one (a scalar_tensor + where per call: 169 before)
    assert kernels["aten::scalar_tensor"] < 20
