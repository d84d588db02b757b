"""The matmul kernel of each linear, measured on this machine at load: a frame multiplies one row
by every FlowLM weight and a few by the codec's, and which kernel streams a weight fastest for one row (ATen's, oneDNN's
prepacked, ATen's on a transposed copy) depends on the CPU and the shape. All three are exact
(float32, each summing in its own order). Weights of one shape share the measurement."""

from __future__ import annotations

import time

import torch
from torch import nn

from ..kernels.packed import EXACT_MATMUL_KERNELS, PackedLinear

REPEATS = 15


def choose_kernels(module: nn.Module, rows: int = 1) -> dict[tuple[int, int], str]:
    """Sets every ``PackedLinear`` of ``module`` to the fastest exact kernel for ``rows`` rows (what
    a frame gives it) of its weight's shape; returns the choice per shape."""
    linears = [m for m in module.modules() if isinstance(m, PackedLinear)]
    linears += [m for owner in module.modules() for m in getattr(owner, "hidden_linears", list)()]
    linears = [m for m in linears if m.weight.dtype == torch.float32]
    chosen: dict[tuple[int, int], str] = {}
    for linear in linears:
        shape = tuple(linear.weight.shape)
        if shape not in chosen:
            chosen[shape] = _fastest(linear, rows)
        linear._matmul.use(chosen[shape])
    return chosen


def _fastest(linear: PackedLinear, rows: int) -> str:
    x = torch.randn(1, rows, linear.in_features)
    best, best_time = EXACT_MATMUL_KERNELS[0], float("inf")
    with torch.no_grad():
        for kernel in EXACT_MATMUL_KERNELS:
            linear._matmul.use(kernel)
            linear(x)  # a first call may allocate
            times = []
            for _ in range(REPEATS):
                start = time.perf_counter()
                linear(x)
                times.append(time.perf_counter() - start)
            median = sorted(times)[len(times) // 2]
            if median < best_time:
                best, best_time = kernel, median
    return best


def choose_conv_kernels(codec: nn.Module, decode_one_frame) -> dict[str, str]:
    """Sets each streaming convolution of ``codec`` to its faster kernel (ATen's convolution or
    Parley's matmul form) at the time steps one decoded frame gives it, measured here;
    ``decode_one_frame()`` decodes a frame on a scratch state. Returns the choice per layer."""
    from ..codec.conv import StreamingConv1d, StreamingConvTranspose1d

    inputs: dict[str, torch.Tensor] = {}

    def keep(name: str):
        def hook(module, args) -> None:
            inputs.setdefault(name, args[0].clone())
        return hook

    hooks = [m.register_forward_pre_hook(keep(name))
             for name, m in codec.named_modules() if isinstance(m, (StreamingConv1d, StreamingConvTranspose1d))]
    try:
        with torch.no_grad():
            decode_one_frame()
    finally:
        for hook in hooks:
            hook.remove()
    modules = dict(codec.named_modules())
    chosen = {}
    for name, x in inputs.items():
        conv = modules[name]
        if isinstance(conv, StreamingConvTranspose1d):
            steps, native, matmul = x.shape[-1], "convtr", "matmul" if conv._matmul_ok else None
        else:
            steps, native, matmul = x.shape[-1] // conv.stride, "conv", "im2col" if conv.layer.groups == 1 else None
        if matmul is None:
            continue
        candidates = [(native, None)] + [(matmul, k) for k in EXACT_MATMUL_KERNELS]
        timings = {}
        with torch.no_grad():
            for kernel, matmul_kernel in candidates:
                conv.kernels[steps] = kernel
                if matmul_kernel is not None:
                    conv._linear.use(matmul_kernel)
                state = conv.init_state(1)
                conv(x, state)
                times = []
                for _ in range(REPEATS):
                    start = time.perf_counter()
                    conv(x, state)
                    times.append(time.perf_counter() - start)
                timings[kernel, matmul_kernel] = sorted(times)[len(times) // 2]
        best = min(timings, key=timings.get)
        conv.kernels[steps] = best[0]
        if best[1] is not None:
            conv._linear.use(best[1])
        chosen[name] = "/".join(k for k in best if k)
    return chosen
