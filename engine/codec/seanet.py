"""SEANet encoder and decoder (Mimi's convolutional front and back end), streaming with explicit state.

Module indices equal the reference ``nn.Sequential`` indices (ELU layers hold a slot but no
parameters), so ``model.{i}.conv.conv.weight`` and friends are the released checkpoint keys.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from ..state import StateTree
from .conv import StreamingConv1d, StreamingConvTranspose1d


@dataclass(frozen=True)
class SEANetConfig:
    channels: int = 1
    dimension: int = 512
    n_filters: int = 64
    ratios: tuple[int, ...] = (8, 6, 5, 4)  # decoder order; the encoder uses them reversed
    kernel_size: int = 7
    last_kernel_size: int = 3
    residual_kernel_size: int = 3
    n_residual_layers: int = 1
    dilation_base: int = 2
    compress: int = 2

    @property
    def hop_length(self) -> int:
        return math.prod(self.ratios)


class ResnetBlock(nn.Module):
    """``x + conv(ELU(conv(ELU(x))))`` with an identity shortcut; indices 1 and 3 are the convs."""

    def __init__(self, dim: int, kernel_size: int, dilation: int, compress: int):
        super().__init__()
        hidden = dim // compress
        self.block = nn.ModuleList([
            nn.ELU(), StreamingConv1d(dim, hidden, kernel_size, dilation=dilation),
            nn.ELU(), StreamingConv1d(hidden, dim, 1),
        ])

    def init_state(self, batch_size: int, device=None, dtype=None) -> StateTree:
        return {"1": self.block[1].init_state(batch_size, device, dtype)}

    def forward(self, x: torch.Tensor, state: StateTree) -> torch.Tensor:
        h = self.block[1](F.elu(x), state["1"])
        h = self.block[3](F.elu(h, inplace=True), {})
        return x + h


class _Stack(nn.Module):
    """A ``model`` list of ELUs and stateful layers run in order; ELUs work in place because
    every layer returns a fresh tensor."""

    model: nn.ModuleList

    def _stateful(self):
        return [(str(i), m) for i, m in enumerate(self.model) if not isinstance(m, nn.ELU)]

    def init_state(self, batch_size: int, device=None, dtype=None) -> StateTree:
        return {name: m.init_state(batch_size, device, dtype) for name, m in self._stateful()}

    def reach(self, scale: float) -> float:
        """Bound, in 24 kHz samples, on how far back the state depends on input steps of ``scale`` samples."""
        total = 0.0
        for _, m in self._stateful():
            conv = m.block[1] if isinstance(m, ResnetBlock) else m
            if isinstance(conv, StreamingConvTranspose1d):  # its tail holds the previous input step
                total += scale * (conv.overlap > 0)
                scale /= conv.stride
            else:
                total += conv.history * scale
                scale *= conv.stride
        return total

    def forward(self, x: torch.Tensor, state: StateTree) -> torch.Tensor:
        for i, m in enumerate(self.model):
            x = F.elu(x, inplace=True) if isinstance(m, nn.ELU) else m(x, state[str(i)])
        return x


class SEANetEncoder(_Stack):
    """[B, channels, T] at the sample rate -> [B, dimension, T / hop_length]."""

    def __init__(self, cfg: SEANetConfig):
        super().__init__()
        nf = cfg.n_filters
        layers: list[nn.Module] = [StreamingConv1d(cfg.channels, nf, cfg.kernel_size)]
        mult = 1
        for ratio in reversed(cfg.ratios):
            layers += [ResnetBlock(mult * nf, cfg.residual_kernel_size, cfg.dilation_base ** j, cfg.compress)
                       for j in range(cfg.n_residual_layers)]
            layers += [nn.ELU(), StreamingConv1d(mult * nf, 2 * mult * nf, 2 * ratio, stride=ratio)]
            mult *= 2
        layers += [nn.ELU(), StreamingConv1d(mult * nf, cfg.dimension, cfg.last_kernel_size)]
        self.model = nn.ModuleList(layers)


class SEANetDecoder(_Stack):
    """[B, dimension, T] -> [B, channels, T * hop_length]."""

    def __init__(self, cfg: SEANetConfig):
        super().__init__()
        nf = cfg.n_filters
        mult = 2 ** len(cfg.ratios)
        layers: list[nn.Module] = [StreamingConv1d(cfg.dimension, mult * nf, cfg.kernel_size)]
        for ratio in cfg.ratios:
            layers += [nn.ELU(), StreamingConvTranspose1d(mult * nf, mult * nf // 2, 2 * ratio, stride=ratio)]
            layers += [ResnetBlock(mult * nf // 2, cfg.residual_kernel_size, cfg.dilation_base ** j, cfg.compress)
                       for j in range(cfg.n_residual_layers)]
            mult //= 2
        layers += [nn.ELU(), StreamingConv1d(nf, cfg.channels, cfg.last_kernel_size)]
        self.model = nn.ModuleList(layers)
