"""Streaming 1-D convolutions with explicit state (causal left padding, no right padding):
one call over a whole signal equals any chunking of it into multiples of the stride.

Two kernels compute the same thing: ATen's convolution (fast on long inputs) and im2col + a
``PackedMatmul`` (fast on the few steps of one streaming frame). The kernel plan
(``engine.kernels.plan``) records a choice per static step count in ``kernels``; other counts use
``MATMUL_MAX_STEPS``. ``repack()`` after changing weights.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ..kernels.packed import PackedMatmul

# Unplanned shapes: up to this many output (conv) / input (transposed conv) steps use the matmul kernel.
MATMUL_MAX_STEPS = 128


class Wrapped(nn.Module):
    """A single named child reproducing a wrapper level of the reference, so parameter names equal checkpoint keys."""

    def __init__(self, name: str, module: nn.Module):
        super().__init__()
        self.add_module(name, module)


class StreamingConv1d(nn.Module):
    """Causal Conv1d; parameters at ``conv.conv.{weight,bias}``. ``pad_mode`` "constant" pads the
    stream's start with zeros, "replicate" with the first input sample (per-batch ``first`` flag)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 dilation: int = 1, groups: int = 1, bias: bool = True, pad_mode: str = "constant"):
        super().__init__()
        if pad_mode not in ("constant", "replicate"):
            raise ValueError(f"pad_mode must be 'constant' or 'replicate', got {pad_mode!r}")
        self.pad_mode = pad_mode
        self.stride, self.dilation = stride, dilation
        self.kernel_size = kernel_size
        self.history = (kernel_size - 1) * dilation + 1 - stride
        if self.history < 0:
            raise ValueError(f"stride {stride} is larger than the effective kernel size")
        self.conv = Wrapped("conv", nn.Conv1d(in_channels, out_channels, kernel_size, stride,
                                              dilation=dilation, groups=groups, bias=bias))
        self._linear = PackedMatmul()
        self.kernels: dict[int, str] = {}  # planned kernel per number of output steps

    def kernel_for(self, steps: int) -> str:
        if self.layer.groups != 1:
            return "conv"
        return self.kernels.get(steps) or ("im2col" if steps <= MATMUL_MAX_STEPS else "conv")

    def packed_matmuls(self) -> list[PackedMatmul]:
        return [self._linear]

    def repack(self) -> None:
        """Refresh the packed matmul weight (after loading or moving the parameters)."""
        if self.layer.groups == 1:
            w = self.layer.weight
            self._linear.pack(w.view(w.shape[0], -1), MATMUL_MAX_STEPS)

    @property
    def layer(self) -> nn.Conv1d:
        return self.conv.conv

    def init_state(self, batch_size: int, device=None, dtype=None) -> dict[str, torch.Tensor]:
        w = self.layer.weight
        device = w.device if device is None else device
        dtype = w.dtype if dtype is None else dtype
        state = {}
        if self.history:
            state["previous"] = torch.zeros(batch_size, self.layer.in_channels, self.history,
                                            device=device, dtype=dtype)
        if self.pad_mode == "replicate":
            state["first"] = torch.ones(batch_size, device=device, dtype=torch.bool)
        return state

    def forward(self, x: torch.Tensor, state: dict[str, torch.Tensor]) -> torch.Tensor:
        """x [B, C_in, T] (T a multiple of the stride) -> [B, C_out, T / stride]."""
        if x.shape[-1] % self.stride:
            raise ValueError(f"time steps ({x.shape[-1]}) must be a multiple of the stride {self.stride}")
        if not self.history:
            return self._conv(x)
        previous = state["previous"]
        if self.pad_mode == "replicate":
            first = state["first"]
            previous.copy_(torch.where(first.view(-1, 1, 1), x[..., :1], previous))
            first.zero_()
        full = torch.cat([previous, x], dim=-1)
        y = self._conv(full)
        previous.copy_(full[..., -self.history:])
        return y

    def _conv(self, x: torch.Tensor) -> torch.Tensor:
        layer = self.layer
        steps = (x.shape[-1] - self.history) // self.stride
        if self.kernel_for(steps) == "conv":
            return F.conv1d(x, layer.weight, layer.bias, self.stride, dilation=self.dilation)
        B, C, _ = x.shape
        k_eff = self.history + self.stride
        cols = x.unfold(-1, k_eff, self.stride)[..., ::self.dilation]  # [B, C, steps, k]
        cols = cols.transpose(1, 2).reshape(B * steps, C * self.kernel_size)
        y = self._linear(cols, layer.weight.view(layer.out_channels, -1), layer.bias)
        return y.view(B, steps, -1).transpose(1, 2)


class StreamingConvTranspose1d(nn.Module):
    """Causal ConvTranspose1d emitting ``T * stride`` samples per call; the state holds the output's
    incomplete ``K - S`` tail (without bias), added to the next call's start."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 groups: int = 1, bias: bool = True):
        super().__init__()
        if kernel_size < stride:
            raise ValueError(f"kernel_size {kernel_size} must be at least the stride {stride}")
        self.stride, self.kernel_size = stride, kernel_size
        self.overlap = kernel_size - stride
        self.convtr = Wrapped("convtr", nn.ConvTranspose1d(in_channels, out_channels, kernel_size, stride,
                                                           groups=groups, bias=bias))
        depthwise = groups == in_channels == out_channels
        self._matmul_ok = kernel_size == 2 * stride and (groups == 1 or depthwise)
        self._linear = PackedMatmul()
        self.kernels: dict[int, str] = {}  # planned kernel per number of input steps

    def kernel_for(self, steps: int) -> str:
        if not self._matmul_ok:
            return "convtr"
        return self.kernels.get(steps) or ("matmul" if steps <= MATMUL_MAX_STEPS else "convtr")

    def packed_matmuls(self) -> list[PackedMatmul]:
        return [self._linear]

    def repack(self) -> None:
        """Refresh the packed matmul weight (after loading or moving the parameters)."""
        if self._matmul_ok and self.layer.groups == 1:
            w = self.layer.weight
            self._linear.pack(w.view(w.shape[0], -1).t(), MATMUL_MAX_STEPS)

    @property
    def layer(self) -> nn.ConvTranspose1d:
        return self.convtr.convtr

    def init_state(self, batch_size: int, device=None, dtype=None) -> dict[str, torch.Tensor]:
        w = self.layer.weight
        device = w.device if device is None else device
        dtype = w.dtype if dtype is None else dtype
        if not self.overlap:
            return {}
        return {"partial": torch.zeros(batch_size, self.layer.out_channels, self.overlap,
                                       device=device, dtype=dtype)}

    def forward(self, x: torch.Tensor, state: dict[str, torch.Tensor]) -> torch.Tensor:
        """x [B, C_in, T] -> [B, C_out, T * stride]."""
        if self.kernel_for(x.shape[-1]) == "matmul":
            return self._forward_matmul(x, state["partial"])
        layer = self.layer
        y = F.conv_transpose1d(x, layer.weight, layer.bias, self.stride, groups=layer.groups)
        if not self.overlap:
            return y
        partial = state["partial"]
        y[..., :self.overlap] += partial
        tail = y[..., -self.overlap:]
        partial.copy_(tail if layer.bias is None else tail - layer.bias[:, None])
        return y[..., :-self.overlap]

    def _forward_matmul(self, x: torch.Tensor, partial: torch.Tensor) -> torch.Tensor:
        """K == 2S: input step t writes one S-sample block into output block t (``head``) and
        one into block t + 1 (``tail``); block t = head[t] + tail[t - 1] (+ bias)."""
        layer = self.layer
        B, C_in, T = x.shape
        C_out, S = layer.out_channels, self.stride
        w = layer.weight  # [C_in, C_out / groups, K]
        if layer.groups == 1:
            z = self._linear(x.transpose(1, 2).reshape(B * T, C_in), w.view(C_in, -1).t(), None)
            z = z.view(B, T, C_out, 2, S)
        else:  # depthwise
            z = (x.transpose(1, 2).unsqueeze(-1) * w.view(C_out, 2 * S)).view(B, T, C_out, 2, S)
        head, tail = z[:, :, :, 0], z[:, :, :, 1]
        before = torch.cat([partial.unsqueeze(1), tail[:, :-1]], dim=1)
        y = head + before
        if layer.bias is not None:
            y += layer.bias[:, None]
        partial.copy_(tail[:, -1])
        return y.permute(0, 2, 1, 3).reshape(B, C_out, T * S)
