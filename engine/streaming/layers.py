"""Stateless building blocks of the Moshi-family transformers, with checkpoint parameter names."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn


def as_f32(t: torch.Tensor) -> torch.Tensor:
    """``t`` in float32, skipping the dispatched no-op cast (per-op overhead dominates small CPU steps)."""
    return t if t.dtype == torch.float32 else t.float()


def cast_back(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return t if t.dtype == dtype else t.to(dtype)


# Devices where a bfloat16 RMSNorm runs fused ``F.rms_norm`` (launch-bound); not bit-exact with the reference.
FUSED_RMS_NORM_DEVICES = frozenset({"cuda"})


class RMSNorm(nn.Module):
    """RMSNorm with math in float32; a bfloat16 ``alpha`` is cast once and recast whenever it changes."""

    def __init__(self, dim: int, eps: float, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.alpha = nn.Parameter(torch.ones(1, 1, dim, device=device, dtype=dtype))
        self._alpha_f32: tuple[tuple, torch.Tensor] | None = None  # (what it was cast from, the copy)

    def alpha_f32(self) -> torch.Tensor:
        alpha = self.alpha
        if alpha.dtype == torch.float32:
            return alpha
        origin = (alpha.data_ptr(), alpha._version, alpha.device)
        if self._alpha_f32 is None or self._alpha_f32[0] != origin:
            with torch.no_grad():
                self._alpha_f32 = (origin, alpha.detach().float())
        return self._alpha_f32[1]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dtype == torch.bfloat16 and x.device.type in FUSED_RMS_NORM_DEVICES:
            return F.rms_norm(x, self.alpha.shape[-1:], self.alpha.view(-1).to(x.dtype), self.eps)
        x32 = as_f32(x)
        var = self.eps + torch.mean(x32 * x32, dim=-1, keepdim=True)
        return cast_back(x32 * (self.alpha_f32() * torch.rsqrt(var)), x.dtype)


class LayerNormF32(nn.LayerNorm):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x.float(), self.normalized_shape, self.weight.float(),
                            self.bias.float(), self.eps).to(x.dtype)


def make_norm(kind: str, dim: int, device=None, dtype=None) -> nn.Module:
    if kind == "layer_norm":
        return nn.LayerNorm(dim, eps=1e-5, device=device, dtype=dtype)
    if kind == "layer_norm_f32":
        return LayerNormF32(dim, eps=1e-8, device=device, dtype=dtype)
    if kind == "rms_norm":
        return RMSNorm(dim, eps=1e-5, device=device, dtype=dtype)
    if kind == "rms_norm_f32":
        return RMSNorm(dim, eps=1e-8, device=device, dtype=dtype)
    raise ValueError(f"unknown norm {kind!r}: expected layer_norm, layer_norm_f32, rms_norm or rms_norm_f32")


class LayerScale(nn.Module):
    def __init__(self, dim: int, init: float, device=None, dtype=None):
        super().__init__()
        self.scale = nn.Parameter(torch.full((dim,), init, device=device, dtype=dtype))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.scale * x


def gating_hidden(dim: int, dim_feedforward: int) -> int:
    """Hidden width of the gated FFN, with the reference's rule."""
    return (21 * dim) // 8 if dim_feedforward == 4 * dim else (2 * dim_feedforward) // 3


class GatedFFN(nn.Module):
    """``linear_out(act(h_gate) * h_up)`` with ``[h_gate; h_up] = linear_in(x)`` (first half gates)."""

    def __init__(self, dim: int, dim_feedforward: int, activation: str, device=None, dtype=None):
        super().__init__()
        hidden = gating_hidden(dim, dim_feedforward)
        self.hidden = hidden
        self.activation = getattr(F, activation)
        self.linear_in = nn.Linear(dim, 2 * hidden, bias=False, device=device, dtype=dtype)
        self.linear_out = nn.Linear(hidden, dim, bias=False, device=device, dtype=dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.linear_in(x).unflatten(-1, (2, self.hidden))
        return self.linear_out(self.activation(h[..., 0, :]) * h[..., 1, :])


def rope_tables(positions: torch.Tensor, head_dim: int, max_period: float) -> torch.Tensor:
    """float32 rotations [T, head_dim/2, 2 (in), 2 (out)] = ``[[cos, sin], [-sin, cos]]`` at ``positions``."""
    ds = torch.arange(head_dim // 2, device=positions.device, dtype=torch.float32)
    freqs = torch.exp(ds * (-math.log(max_period) * 2 / head_dim))
    angles = freqs * positions.float().view(-1, 1)
    cos, sin = torch.cos(angles), torch.sin(angles)
    return torch.stack([cos, sin, -sin, cos], dim=-1).unflatten(-1, (2, 2))


def apply_rope(x: torch.Tensor, rotation: torch.Tensor) -> torch.Tensor:
    """Rotate interleaved pairs (x[2d], x[2d+1]) of x [B, H, T, D] in float32. ``r * cos + i * (-sin)``
    equals the textbook ``r * cos - i * sin`` bit for bit (negation is exact)."""
    products = as_f32(x.unflatten(-1, (-1, 2))).unsqueeze(-1) * rotation  # [..., D/2, in, out]
    return cast_back(products[..., 0, :] + products[..., 1, :], x.dtype).flatten(-2)


def apply_rope_halves(x: torch.Tensor, rotation: torch.Tensor) -> torch.Tensor:
    """``apply_rope`` for the "rope_concat" layout: pairs (x[d], x[d + D/2]); the same bits."""
    pairs = x.unflatten(-1, (2, -1)).transpose(-1, -2)  # [..., D/2, 2]
    products = as_f32(pairs).unsqueeze(-1) * rotation
    return cast_back(products[..., 0, :] + products[..., 1, :], x.dtype).transpose(-1, -2).flatten(-2)


def sin_embedding(positions: torch.Tensor, dim: int, max_period: float = 10_000.0) -> torch.Tensor:
    """float32 sinusoidal embedding [..., dim] of ``positions`` (cosines, then sines), as the reference."""
    half = dim // 2
    positions = positions.to(torch.float32)
    steps = torch.arange(half, device=positions.device, dtype=torch.float32).view(1, 1, -1)
    phase = positions / (torch.full([], max_period, device=positions.device) ** (steps / (half - 1)))
    return torch.cat([torch.cos(phase), torch.sin(phase)], dim=-1)
