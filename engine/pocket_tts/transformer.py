"""Pocket TTS's streaming transformer (FlowLM's backbone and the codec's): pre-norm LayerNorm
layers, interleaved RoPE, a tanh-GELU MLP, optional layer scale; keys and values in a ring
(``engine.streaming.kv_cache``) whose capacity the caller chooses. Parameter names equal the
released checkpoint's (``self_attn.in_proj.weight``, ``linear1``, ``layer_scale_1.scale``)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ..state import StateTree
from ..streaming.kv_cache import RingSpec, init_layer_cache
from ..streaming.layers import LayerScale, apply_rope, rope_tables
from ..streaming.transformer import additive_mask


class Attention(nn.Module):
    def __init__(self, d_model: int, num_heads: int):
        super().__init__()
        self.num_heads, self.head_dim = num_heads, d_model // num_heads
        self.in_proj = nn.Linear(d_model, 3 * d_model, bias=False)
        self.out_proj = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x: torch.Tensor, cache: StateTree, slots: torch.Tensor, mask: torch.Tensor,
                rope: torch.Tensor) -> torch.Tensor:
        B, T, d = x.shape
        qkv = self.in_proj(x).view(B, T, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        qk = apply_rope(qkv[:2], rope)
        cache["k"].index_copy_(2, slots, qk[1])
        cache["v"].index_copy_(2, slots, qkv[2])
        held = mask.shape[-1]  # the slots that may hold keys: a prefix of the ring
        y = F.scaled_dot_product_attention(qk[0], cache["k"][:, :, :held], cache["v"][:, :, :held], attn_mask=mask)
        return self.out_proj(y.transpose(1, 2).reshape(B, T, d))


class Layer(nn.Module):
    def __init__(self, d_model: int, num_heads: int, dim_feedforward: int, layer_scale: float | None):
        super().__init__()
        self.self_attn = Attention(d_model, num_heads)
        self.norm1 = nn.LayerNorm(d_model, eps=1e-5)
        self.norm2 = nn.LayerNorm(d_model, eps=1e-5)
        self.linear1 = nn.Linear(d_model, dim_feedforward, bias=False)
        self.linear2 = nn.Linear(dim_feedforward, d_model, bias=False)
        scaled = layer_scale is not None
        self.layer_scale_1 = LayerScale(d_model, layer_scale) if scaled else nn.Identity()
        self.layer_scale_2 = LayerScale(d_model, layer_scale) if scaled else nn.Identity()

    def forward(self, x, cache, slots, mask, rope) -> torch.Tensor:
        x = x + self.layer_scale_1(self.self_attn(self.norm1(x), cache, slots, mask, rope))
        update = self.linear2(F.gelu(self.linear1(self.norm2(x)), approximate="tanh"))
        return x + self.layer_scale_2(update)


class Transformer(nn.Module):
    """``forward(x [B, T, d], state) -> [B, T, d]``; ``context`` None attends to every position
    held (the ring must then hold the whole stream: the caller sizes it, and attention reads only
    the filled slots, as the package reads its cache's filled part)."""

    def __init__(self, d_model: int, num_heads: int, num_layers: int, dim_feedforward: int,
                 max_period: float, context: int | None = None, layer_scale: float | None = None):
        super().__init__()
        self.d_model, self.num_heads, self.head_dim = d_model, num_heads, d_model // num_heads
        self.max_period, self.context = max_period, context
        self.layers = nn.ModuleList(Layer(d_model, num_heads, dim_feedforward, layer_scale)
                                    for _ in range(num_layers))

    def init_state(self, capacity: int, batch_size: int = 1) -> StateTree:
        param = self.layers[0].linear1.weight
        state = RingSpec(capacity, self.context).init_state(param.device)
        state["layers"] = {str(i): init_layer_cache(batch_size, self.num_heads, capacity, self.head_dim,
                                                    param.device, param.dtype)
                           for i in range(len(self.layers))}
        return state

    def forward(self, x: torch.Tensor, state: StateTree) -> torch.Tensor:
        ring = RingSpec(state["positions"].shape[0], self.context)
        T = x.shape[1]
        slots, pos_q = ring.advance(state, T)
        allowed = ring.mask(state, pos_q)
        if self.context is None:  # no window: the ring fills from slot 0 and never wraps (checked)
            end = int(state["offset"]) + T
            if end > ring.capacity:
                raise ValueError(f"the stream outgrew its cache ({end} > {ring.capacity} positions)")
            allowed = allowed[:, :end]
        mask = additive_mask(allowed, x.dtype)
        rope = rope_tables(pos_q, self.head_dim, self.max_period)
        for i, layer in enumerate(self.layers):
            x = layer(x, state["layers"][str(i)], slots, mask, rope)
        ring.finish(state, T)
        return x
