"""The streaming transformer shared by Mimi (context 250), the LM (context 3000) and the depth
transformer (weights per step, no positional embedding).

``forward(x, state, step)`` is a function of its input and an explicit state tree; parameter
names equal the released checkpoints' keys (stacked ``in_proj_weight``), so files load unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from ..kernels.packed import PackedMatmul
from ..state import StateTree
from .kv_cache import RingSpec, init_layer_cache
from .layers import GatedFFN, LayerScale, apply_rope, apply_rope_halves, make_norm, rope_tables


@dataclass(frozen=True)
class TransformerConfig:
    d_model: int
    num_heads: int
    num_layers: int
    dim_feedforward: int
    norm: str = "layer_norm"
    gating: str = "none"  # "none" -> GELU MLP (linear1/linear2); else the gate activation, e.g. "silu"
    layer_scale: float | None = None
    positional_embedding: str = "rope"  # "rope" (interleaved pairs), "rope_concat" (halves) or "none"
    max_period: float = 10_000.0
    context: int | None = None
    weights_per_step: int = 0  # > 0: separate attention/FFN weights for each step of a frame
    # Step s uses stored weights ``weights_schedule[s]`` (None: its own); steps may share weights.
    weights_schedule: tuple[int, ...] | None = None
    kv_repeat: int = 1  # each stored key/value head serves this many query heads (grouped-query attention)
    steps_per_frame: int = 1  # the attention window is anchored at the end of a frame (see kv_cache)
    max_steps_per_call: int | None = None  # larger calls are split; sizes the ring's extra slots
    cross_attention: bool = False  # each layer also attends to a fixed source (``set_cross_source``)

    def __post_init__(self):
        if self.d_model % self.num_heads:
            raise ValueError(f"d_model {self.d_model} is not divisible by num_heads {self.num_heads}")
        if self.positional_embedding not in ("rope", "rope_concat", "none"):
            raise ValueError("positional_embedding must be 'rope', 'rope_concat' or 'none', got "
                             f"{self.positional_embedding!r}")
        if self.num_heads % self.kv_repeat:
            raise ValueError(f"num_heads {self.num_heads} is not divisible by kv_repeat {self.kv_repeat}")
        if self.weights_schedule is not None and (
                len(self.weights_schedule) != self.weights_per_step
                or sorted(set(self.weights_schedule)) != list(range(max(self.weights_schedule, default=-1) + 1))):
            raise ValueError(f"a weights schedule names, for each of the {self.weights_per_step} steps, one of "
                             f"0, 1, ... (each used), got {self.weights_schedule!r}")
        if self.context is None and not self.weights_per_step:
            raise ValueError("a streaming transformer needs a context (or weights_per_step) to size its cache")
        if self.call_limit % self.steps_per_frame:
            raise ValueError("max_steps_per_call must be a multiple of steps_per_frame")

    @property
    def head_dim(self) -> int:
        return self.d_model // self.num_heads

    @property
    def kv_heads(self) -> int:
        return self.num_heads // self.kv_repeat

    @property
    def stored_steps(self) -> int:
        """The per-step weights a layer stores (1 without ``weights_per_step``)."""
        if self.weights_schedule is not None:
            return max(self.weights_schedule) + 1
        return max(self.weights_per_step, 1)

    def weights_of(self, step: int) -> int:
        """The stored weights step ``step`` uses (a Python int: graph-safe)."""
        return step if self.weights_schedule is None else self.weights_schedule[step]

    @property
    def call_limit(self) -> int:
        return self.max_steps_per_call or self.steps_per_frame

    @property
    def ring(self) -> RingSpec:
        if self.context is None:
            return RingSpec(self.weights_per_step, None, self.steps_per_frame)
        capacity = self.context + self.call_limit - self.steps_per_frame
        return RingSpec(capacity, self.context, self.steps_per_frame)


class StackedMatmuls:
    """The per-step slices of a stacked weight [steps * rows, in], each with its packed matmul.
    A weight storing fewer steps (a divisor) serves step s with stored step ``s % stored``."""

    def __init__(self, mult: int, rows: int):
        self.rows = rows
        self.matmuls = [PackedMatmul() for _ in range(mult)]

    def repack(self, weight: torch.Tensor) -> None:
        del self.matmuls[stored_steps(weight, self.rows):]  # one packed copy per stored step
        for step, mm in enumerate(self.matmuls):
            mm.pack(step_slice(weight, step, len(self.matmuls)))

    def __call__(self, x: torch.Tensor, weight: torch.Tensor, step: int) -> torch.Tensor:
        stored = stored_steps(weight, self.rows)
        return self.matmuls[step % stored](x, step_slice(weight, step % stored, stored))


def stored_steps(weight: torch.Tensor, rows: int) -> int:
    return weight.shape[0] // rows


def step_slice(weight: torch.Tensor, step: int, mult: int) -> torch.Tensor:
    rows = weight.shape[0] // mult
    return weight[step * rows:(step + 1) * rows]


def init_normal(weight: torch.Tensor, std: float) -> None:
    """Random initial weights, except on meta (a ``normal_`` there imports slow decompositions)."""
    if weight.device.type != "meta":
        nn.init.normal_(weight, std=std)


class StackedLinear(nn.Module):
    """``mult`` bias-free linear maps stored as one ``weight [mult*out, in]`` (the checkpoint layout)."""

    def __init__(self, in_features: int, out_features: int, mult: int, device=None, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(mult * out_features, in_features, device=device, dtype=dtype))
        init_normal(self.weight, std=in_features ** -0.5)
        self._matmuls = StackedMatmuls(mult, out_features)
        self.stacked_rows = {"weight": self._matmuls.rows}  # a step's rows (weights prepared per step)

    def repack(self) -> None:
        self._matmuls.repack(self.weight)

    def packed_matmuls(self) -> list[PackedMatmul]:
        return self._matmuls.matmuls

    def forward(self, x: torch.Tensor, step: int = 0) -> torch.Tensor:
        return self._matmuls(x, self.weight, step)


class StreamingAttention(nn.Module):
    def __init__(self, cfg: TransformerConfig, device=None, dtype=None):
        super().__init__()
        self.cfg = cfg
        mult = cfg.stored_steps
        d = cfg.d_model
        rows = d + 2 * cfg.kv_heads * cfg.head_dim  # the queries, then the keys and the values
        self.in_proj_weight = nn.Parameter(torch.empty(mult * rows, d, device=device, dtype=dtype))
        init_normal(self.in_proj_weight, std=d ** -0.5)
        self._in_proj = StackedMatmuls(mult, rows)
        self.stacked_rows = {"in_proj_weight": self._in_proj.rows}  # a step's rows (weights prepared per step)
        self.out_proj = StackedLinear(d, d, mult, device=device, dtype=dtype)
        self._rotate = apply_rope_halves if cfg.positional_embedding == "rope_concat" else apply_rope

    def repack(self) -> None:
        self._in_proj.repack(self.in_proj_weight)

    def packed_matmuls(self) -> list[PackedMatmul]:
        return self._in_proj.matmuls

    def forward(self, x, cache, slots, mask, rope, step: int) -> torch.Tensor:
        cfg = self.cfg
        B, T, d = x.shape
        weights = cfg.weights_of(step)
        qkv = self._in_proj(x, self.in_proj_weight, weights)
        if cfg.kv_repeat == 1:
            qkv = qkv.view(B, T, 3, cfg.num_heads, cfg.head_dim).permute(2, 0, 3, 1, 4)
            qk = qkv[:2] if rope is None else self._rotate(qkv[:2], rope)  # q and k rotated in one pass
            q, k, v = qk[0], qk[1], qkv[2]
        else:
            q = qkv[..., :d].view(B, T, cfg.num_heads, cfg.head_dim).transpose(1, 2)
            k, v = qkv[..., d:].view(B, T, 2, cfg.kv_heads, cfg.head_dim).permute(2, 0, 3, 1, 4)
            if rope is not None:
                q, k = self._rotate(q, rope), self._rotate(k, rope)
        cache["k"].index_copy_(2, slots, k)
        cache["v"].index_copy_(2, slots, v)
        keys, values = repeat_kv(cache["k"], cfg.kv_repeat), repeat_kv(cache["v"], cfg.kv_repeat)
        y = F.scaled_dot_product_attention(q, keys, values, attn_mask=mask)
        return self.out_proj(y.transpose(1, 2).reshape(B, T, d), weights)


class CrossAttention(nn.Module):
    """Attention from the stream to a fixed source (no mask, no positions); keys and values are
    computed once (``keys_values``). Stacked ``in_proj_weight`` as the self-attention's."""

    def __init__(self, d_model: int, num_heads: int, device=None, dtype=None):
        super().__init__()
        self.num_heads = num_heads
        self.in_proj_weight = nn.Parameter(torch.empty(3 * d_model, d_model, device=device, dtype=dtype))
        init_normal(self.in_proj_weight, std=d_model ** -0.5)
        self.out_proj = nn.Linear(d_model, d_model, bias=False, device=device, dtype=dtype)

    def keys_values(self, source: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """source [B, S, d] -> keys and values [B, heads, S, head_dim]."""
        B, S, d = source.shape
        kv = F.linear(source, self.in_proj_weight[d:]).view(B, S, 2, self.num_heads, d // self.num_heads)
        k, v = kv.permute(2, 0, 3, 1, 4)
        return k, v

    def forward(self, x: torch.Tensor, keys: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        B, T, d = x.shape
        q = F.linear(x, self.in_proj_weight[:d]).view(B, T, self.num_heads, d // self.num_heads).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, keys, values)
        return self.out_proj(y.transpose(1, 2).reshape(B, T, d))


def repeat_kv(x: torch.Tensor, times: int) -> torch.Tensor:
    """[B, kv heads, T, D] -> one per query head (head h reads stored head h // times), as the reference."""
    if times == 1:
        return x
    b, h, t, d = x.shape
    return x[:, :, None].expand(b, h, times, t, d).reshape(b, h * times, t, d)


class TransformerLayer(nn.Module):
    def __init__(self, cfg: TransformerConfig, device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.cfg = cfg
        self.cfg_gating = cfg.gating
        self.self_attn = StreamingAttention(cfg, **kw)
        self.norm1 = make_norm(cfg.norm, cfg.d_model, **kw)
        self.norm2 = make_norm(cfg.norm, cfg.d_model, **kw)
        if cfg.gating == "none":
            if cfg.weights_per_step:
                raise ValueError("weights_per_step needs a gated feed-forward")
            self.linear1 = nn.Linear(cfg.d_model, cfg.dim_feedforward, bias=False, **kw)
            self.linear2 = nn.Linear(cfg.dim_feedforward, cfg.d_model, bias=False, **kw)
        elif cfg.weights_per_step:
            self.gating = nn.ModuleList(GatedFFN(cfg.d_model, cfg.dim_feedforward, cfg.gating, **kw)
                                        for _ in range(cfg.stored_steps))
        else:
            self.gating = GatedFFN(cfg.d_model, cfg.dim_feedforward, cfg.gating, **kw)
        if cfg.layer_scale is not None:
            self.layer_scale_1 = LayerScale(cfg.d_model, cfg.layer_scale, **kw)
            self.layer_scale_2 = LayerScale(cfg.d_model, cfg.layer_scale, **kw)
        else:
            self.layer_scale_1 = self.layer_scale_2 = nn.Identity()
        if cfg.cross_attention:
            self.cross_attention = CrossAttention(cfg.d_model, cfg.num_heads, **kw)
            self.norm_cross = nn.LayerNorm(cfg.d_model, eps=1e-5, **kw)  # a LayerNorm whatever ``norm`` says
            self.layer_scale_cross = nn.Identity() if cfg.layer_scale is None else \
                LayerScale(cfg.d_model, cfg.layer_scale, **kw)

    def ffn(self, x: torch.Tensor, step: int) -> torch.Tensor:
        if self.cfg_gating == "none":
            return self.linear2(F.gelu(self.linear1(x)))
        if isinstance(self.gating, nn.ModuleList):
            return self.gating[self.cfg.weights_of(step)](x)
        return self.gating(x)

    def forward(self, x, cache, slots, mask, rope, step: int) -> torch.Tensor:
        update = self.self_attn(self.norm1(x), cache, slots, mask, rope, step)
        x = x.to(update) + self.layer_scale_1(update)
        if self.cfg.cross_attention:
            x = x + self.layer_scale_cross(self.cross_attention(self.norm_cross(x), cache["cross_k"], cache["cross_v"]))
        update = self.ffn(self.norm2(x), step)
        return x.to(update) + self.layer_scale_2(update)


def additive_mask(allowed: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """The additive (0 / -inf) mask attention would build in every layer, built once per chunk."""
    return torch.zeros(allowed.shape, dtype=dtype, device=allowed.device).masked_fill_(~allowed, float("-inf"))


class StreamingTransformer(nn.Module):
    def __init__(self, cfg: TransformerConfig, device=None, dtype=None):
        super().__init__()
        self.cfg = cfg
        self.layers = nn.ModuleList(TransformerLayer(cfg, device, dtype) for _ in range(cfg.num_layers))
        self._fixed_slots: tuple[tuple, tuple[torch.Tensor, torch.Tensor, torch.Tensor]] | None = None

    def init_state(self, batch_size: int, device=None, dtype=None) -> StateTree:
        """Fresh state. ``device``/``dtype`` default to those of the parameters."""
        param = next(self.parameters())
        device = param.device if device is None else torch.device(device)
        dtype = param.dtype if dtype is None else dtype
        ring = self.cfg.ring
        state = ring.init_state(device)
        state["layers"] = {
            str(i): init_layer_cache(batch_size, self.cfg.kv_heads, ring.capacity, self.cfg.head_dim,
                                     device, dtype)
            for i in range(self.cfg.num_layers)
        }
        return state

    def reset_state(self, state: StateTree) -> None:
        RingSpec.reset(state)

    def set_cross_source(self, state: StateTree, source: torch.Tensor) -> None:
        """Each layer's keys and values of ``source`` [B, S, d_model], kept in ``state`` for every step."""
        for i, layer in enumerate(self.layers):
            k, v = layer.cross_attention.keys_values(source.to(layer.cross_attention.in_proj_weight.dtype))
            state["layers"][str(i)]["cross_k"], state["layers"][str(i)]["cross_v"] = k, v

    def forward(self, x: torch.Tensor, state: StateTree, step: int = 0) -> torch.Tensor:
        """x [B, T, d_model] -> [B, T, d_model]; T a multiple of ``steps_per_frame``;
        ``step`` selects per-step weights (``weights_per_step``)."""
        self._check_input(x, state, step)
        limit = self.cfg.call_limit
        if x.shape[1] > limit:
            return torch.cat([self._forward_chunk(c, state, step) for c in x.split(limit, dim=1)], dim=1)
        return self._forward_chunk(x, state, step)

    def prefill(self, x: torch.Tensor, state: StateTree) -> torch.Tensor:
        """``forward`` over a prompt, in one call while it fits the ring's free slots (equal to step by
        step up to float32 rounding), then through ``forward``. Reads the offset on the host: no graphs."""
        self._check_input(x, state, 0)
        free = self.cfg.ring.capacity - int(state["offset"])
        fits = max(0, min(x.shape[1], free)) // self.cfg.steps_per_frame * self.cfg.steps_per_frame
        parts = []
        if fits:
            parts.append(self._forward_chunk(x[:, :fits], state, 0))
        if fits < x.shape[1]:
            parts.append(self.forward(x[:, fits:], state))
        return parts[0] if len(parts) == 1 else torch.cat(parts, dim=1)

    def _forward_chunk(self, x: torch.Tensor, state: StateTree, step: int) -> torch.Tensor:
        cfg, ring = self.cfg, self.cfg.ring
        T = x.shape[1]
        slots, pos_q = ring.advance(state, T)
        mask = additive_mask(ring.mask(state, pos_q), x.dtype)
        rope = None if cfg.positional_embedding == "none" else rope_tables(pos_q, cfg.head_dim, cfg.max_period)
        for i, layer in enumerate(self.layers):
            x = layer(x, state["layers"][str(i)], slots, mask, rope, step)
        ring.finish(state, T)
        return x

    def fixed_slot_step(self, x: torch.Tensor, state: StateTree, step: int) -> torch.Tensor:
        """Depth transformer step ``step`` (called 0, 1, ... in order), x [B, 1, d_model]: bit for bit
        ``reset_state`` then ``forward``, with constant slot ``s`` and mask ``0..s`` instead of the ring."""
        if self.cfg.context is not None or not self.cfg.weights_per_step or x.shape[1] != 1:
            raise ValueError("fixed slots are for the depth transformer's one-step calls")
        self._check_input(x, state, step)
        slots, masks, _ = self._constants(x.device, state["layers"]["0"]["k"].dtype)
        for i, layer in enumerate(self.layers):
            x = layer(x, state["layers"][str(i)], slots[step:step + 1], masks[step], None, step)
        return x

    def fill_fixed_slots(self, state: StateTree, steps: int) -> None:
        """The ring bookkeeping ``steps`` fixed-slot steps leave, so a saved state says which slots hold keys."""
        _, _, positions = self._constants(state["positions"].device, state["layers"]["0"]["k"].dtype)
        state["positions"].copy_(positions[steps])
        state["offset"].fill_(steps)

    def _constants(self, device: torch.device, dtype: torch.dtype):
        """(slots, additive masks [steps, 1, steps], positions after each count [steps + 1, steps]), cached."""
        if self._fixed_slots is None or self._fixed_slots[0] != (device, dtype):
            n = self.cfg.weights_per_step
            slots = torch.arange(n, device=device)
            allowed = (slots.view(1, -1) <= slots.view(-1, 1)).view(n, 1, n)
            filled = slots.view(1, -1) < torch.arange(n + 1, device=device).view(-1, 1)
            positions = torch.where(filled, slots, -1)
            self._fixed_slots = ((device, dtype), (slots, additive_mask(allowed, dtype), positions))
        return self._fixed_slots[1]

    def _check_input(self, x: torch.Tensor, state: StateTree, step: int) -> None:
        cfg = self.cfg
        if x.dim() != 3 or x.shape[-1] != cfg.d_model:
            raise ValueError(f"expected input [batch, time, {cfg.d_model}], got {tuple(x.shape)}")
        if x.shape[1] == 0 or x.shape[1] % cfg.steps_per_frame:
            raise ValueError(f"time steps must be a positive multiple of {cfg.steps_per_frame}, got {x.shape[1]}")
        cache = state["layers"]["0"]["k"]
        if x.shape[0] != cache.shape[0]:
            raise ValueError(f"expected batch size {cache.shape[0]} (the state's), got {x.shape[0]}")
        if x.device != cache.device:
            raise ValueError(f"expected input on {cache.device}, got {x.device}")
        if not x.is_floating_point():
            raise ValueError(f"expected a floating-point input, got {x.dtype}")
        if cfg.weights_per_step and not 0 <= step < cfg.weights_per_step:
            raise ValueError(f"step must be in [0, {cfg.weights_per_step}), got {step}")
