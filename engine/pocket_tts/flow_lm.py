"""FlowLM: the streaming transformer over text, voice and 32-dim latents, its one-step LSD flow
head and its end-of-speech head. Functions of (input, explicit state); parameter names equal the
released checkpoint's ``flow_lm.*`` keys."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from ..kernels.packed import PackedLinear
from ..state import StateTree
from .config import FlowLMConfig
from .transformer import Transformer


def modulate(x: torch.Tensor, shift: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return x * (1 + scale) + shift


def layer_norm(x: torch.Tensor, eps: float, weight: torch.Tensor | None = None,
               bias: torch.Tensor | None = None) -> torch.Tensor:
    """The flow head's LayerNorm in the package's arithmetic (mean, biased variance, a square root)."""
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, unbiased=False, keepdim=True)
    x = (x - mean) / torch.sqrt(var + eps)
    return x if weight is None else x * weight + bias


class AffineNorm(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(channels))
        self.bias = nn.Parameter(torch.zeros(channels))


class VarianceRMSNorm(nn.Module):
    """The time embedder's norm: divides by the root of the (unbiased) variance plus eps."""

    def __init__(self, dim: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.alpha = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        var = self.eps + x.var(dim=-1, keepdim=True)
        return x * (self.alpha * torch.rsqrt(var))


class TimeEmbedding(nn.Module):
    def __init__(self, hidden: int, frequencies: int = 256, max_period: float = 10000):
        super().__init__()
        half = frequencies // 2
        self.register_buffer("freqs", torch.exp(-math.log(max_period) * torch.arange(start=0, end=half) / half))
        self.mlp = nn.Sequential(nn.Linear(frequencies, hidden), nn.SiLU(), nn.Linear(hidden, hidden),
                                 VarianceRMSNorm(hidden))

    def forward(self, t: torch.Tensor) -> torch.Tensor:
        args = t * self.freqs.to(t.dtype)
        return self.mlp(torch.cat([torch.cos(args), torch.sin(args)], dim=-1))


class ResBlock(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.in_ln = AffineNorm(channels)
        self.mlp = nn.Sequential(nn.Linear(channels, channels), nn.SiLU(), nn.Linear(channels, channels))
        self.adaLN_modulation = nn.Sequential(nn.SiLU(), nn.Linear(channels, 3 * channels))

    def forward(self, x: torch.Tensor, modulation: torch.Tensor) -> torch.Tensor:
        """``modulation``: ``adaLN_modulation``'s output for the condition."""
        shift, scale, gate = modulation.chunk(3, dim=-1)
        h = modulate(layer_norm(x, 1e-6, self.in_ln.weight, self.in_ln.bias), shift, scale)
        return x + gate * self.mlp(h)


class FinalLayer(nn.Module):
    def __init__(self, channels: int, out_channels: int):
        super().__init__()
        self.linear = nn.Linear(channels, out_channels)
        self.adaLN_modulation = nn.Sequential(nn.SiLU(), nn.Linear(channels, 2 * channels))

    def forward(self, x: torch.Tensor, modulation: torch.Tensor) -> torch.Tensor:
        shift, scale = modulation.chunk(2, dim=-1)
        return self.linear(modulate(layer_norm(x, 1e-6), shift, scale))


class FlowHead(nn.Module):
    """The LSD velocity network: (backbone output, start time, end time, x) -> velocity. The two
    time embeddings depend on the step alone, so they are computed once per (start, end). Every
    block's modulation is a linear map of the same ``silu(condition)``: one matmul of their
    stacked weights computes them all (``repack`` stacks them again after the weights change)."""

    def __init__(self, latent_dim: int, dim: int, cond_dim: int, depth: int):
        super().__init__()
        self.time_embed = nn.ModuleList(TimeEmbedding(dim) for _ in range(2))
        self.cond_embed = nn.Linear(cond_dim, dim)
        self.input_proj = nn.Linear(latent_dim, dim)
        self.res_blocks = nn.ModuleList(ResBlock(dim) for _ in range(depth))
        self.final_layer = FinalLayer(dim, latent_dim)
        self._times: dict[tuple, torch.Tensor] = {}
        self._stacked: PackedLinear | None = None

    def _modulation_linears(self) -> list[nn.Linear]:
        return [m.adaLN_modulation[1] for m in (*self.res_blocks, self.final_layer)]

    def repack(self) -> None:
        linears = self._modulation_linears()
        stacked = PackedLinear(linears[0].in_features, sum(m.out_features for m in linears), device="meta")
        with torch.no_grad():
            stacked.weight = nn.Parameter(torch.cat([m.weight for m in linears]), requires_grad=False)
            stacked.bias = nn.Parameter(torch.cat([m.bias for m in linears]), requires_grad=False)
        stacked.repack()
        object.__setattr__(self, "_stacked", stacked)  # derived data: no parameter of the module

    def hidden_linears(self) -> list[PackedLinear]:
        return [] if self._stacked is None else [self._stacked]

    def modulations(self, y: torch.Tensor) -> list[torch.Tensor]:
        linears = self._modulation_linears()
        if self._stacked is None or self._stacked.weight.dtype != y.dtype:
            return [m(F.silu(y)) for m in linears]
        return list(self._stacked(F.silu(y)).split([m.out_features for m in linears], dim=-1))

    def times(self, s: float, t: float, like: torch.Tensor) -> torch.Tensor:
        key = (s, t, like.dtype, like.device, self.time_embed[0].mlp[0].weight._version)
        if key not in self._times:
            ones = torch.ones(like.shape[:-1] + (1,), dtype=like.dtype, device=like.device)
            self._times = {key: (0 + self.time_embed[0](s * ones) + self.time_embed[1](t * ones)) / 2}
        return self._times[key]

    def forward(self, c: torch.Tensor, s: float, t: float, x: torch.Tensor) -> torch.Tensor:
        y = self.cond_embed(c) + self.times(s, t, x)
        x = self.input_proj(x)
        *blocks, final = self.modulations(y)
        for block, modulation in zip(self.res_blocks, blocks):
            x = block(x, modulation)
        return self.final_layer(x, final)


class Conditioner(nn.Module):
    def __init__(self, n_bins: int, dim: int):
        super().__init__()
        self.embed = nn.Embedding(n_bins + 1, dim)  # the last row pads


class FlowLM(nn.Module):
    def __init__(self, cfg: FlowLMConfig, voice_cloning: bool = True):
        super().__init__()
        self.cfg = cfg
        d = cfg.d_model
        self.conditioner = Conditioner(cfg.n_bins, d)
        self.register_buffer("emb_std", torch.ones(cfg.latent_dim))
        self.register_buffer("emb_mean", torch.zeros(cfg.latent_dim))
        self.bos_emb = nn.Parameter(torch.randn(cfg.latent_dim))
        if cfg.bos_before_voice:
            self.bos_before_voice = nn.Parameter(torch.randn(1, 1, d))
        if voice_cloning:
            self.speaker_proj_weight = nn.Parameter(torch.zeros(d, cfg.voice_dim))
        self.input_linear = nn.Linear(cfg.latent_dim, d, bias=False)
        self.transformer = Transformer(d, cfg.num_heads, cfg.num_layers, cfg.dim_feedforward, cfg.max_period)
        self.out_norm = nn.LayerNorm(d, eps=1e-5)
        self.out_eos = nn.Linear(d, 1)
        self.flow_net = FlowHead(cfg.latent_dim, cfg.flow_dim, d, cfg.flow_depth)

    def init_state(self, capacity: int) -> StateTree:
        return self.transformer.init_state(capacity)

    def read_text(self, tokens: torch.Tensor, state: StateTree) -> None:
        """Reads text tokens [1, N] into the state."""
        self.transformer(self.conditioner.embed(tokens), state)

    def voice_prompt(self, latents: torch.Tensor) -> torch.Tensor:
        """The backbone's input for a voice recording's codec latents [1, T, latent_dim]."""
        prompt = F.linear(latents.to(self.speaker_proj_weight.dtype), self.speaker_proj_weight)
        if self.cfg.bos_before_voice:
            prompt = torch.cat([self.bos_before_voice, prompt], dim=1)
        return prompt

    def read_embeddings(self, x: torch.Tensor, state: StateTree) -> None:
        self.transformer(x, state)

    def step(self, latent: torch.Tensor | None, state: StateTree, noise: torch.Tensor,
             decode_steps: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
        """One frame: the previous latent [1, 1, latent_dim] (None: the first frame) and the flow's
        starting noise [1, latent_dim] -> (the next latent [1, latent_dim], the end-of-speech logit
        [1, 1])."""
        x = self.bos_emb.view(1, 1, -1) if latent is None else latent
        out = self.out_norm(self.transformer(self.input_linear(x), state))[:, -1].to(self.out_eos.weight.dtype)
        eos_logit = self.out_eos(out)
        current = noise.to(out.dtype)
        for i in range(decode_steps):
            velocity = self.flow_net(out, i / decode_steps, (i + 1) / decode_steps, current)
            current = current + velocity / decode_steps
        return current, eos_logit
