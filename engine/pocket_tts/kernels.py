"""The matmul kernel of each linear, measured on this machine at load: a frame multiplies one row
by every FlowLM weight and a few by the codec's, and which kernel streams a weight fastest for one row (ATen's, oneDNN's
prepacked, ATen's on a transposed copy, FBGEMM's on a float16 copy where that copy is exact) depends
on the CPU and the shape. All are exact (float32, each summing in its own order). Weights of one
shape share the measurement."""

from __future__ import annotations

import functools
import time

import torch
from torch import nn

from ..kernels.half_weight import HALF_WEIGHT_KERNEL, HalfWeightMatmul
from ..kernels.packed import EXACT_MATMUL_KERNELS, PackedLinear, PackedMatmul

REPEATS = 15


def choose_kernels(module: nn.Module, rows: int = 1) -> dict[tuple[int, int], str]:
    """Sets every ``PackedLinear`` of ``module`` to the fastest exact kernel for ``rows`` rows (what
    a frame gives it) of its weight's shape, the float16-weight one (``engine.kernels.half_weight``)
    among them where its weight allows it; returns the choice per shape."""
    linears = [m for m in module.modules() if isinstance(m, PackedLinear)]
    linears += [m for owner in module.modules() for m in getattr(owner, "hidden_linears", list)()]
    linears = [m for m in linears if m.weight.dtype == torch.float32]
    timings: dict[tuple[int, int], dict[str, float]] = {}
    chosen: dict[tuple[int, int], str] = {}
    for linear in linears:
        shape = tuple(linear.weight.shape)
        if isinstance(linear._matmul, HalfWeightMatmul):  # chosen before: measure afresh
            linear._matmul = PackedMatmul()
            linear._matmul.pack(linear.weight)
        half = HalfWeightMatmul()
        exact_in_half = half.pack(linear.weight)
        if shape not in timings:
            timings[shape] = _timings(linear, rows)
        if exact_in_half and HALF_WEIGHT_KERNEL not in timings[shape]:
            timings[shape][HALF_WEIGHT_KERNEL] = _median_time(
                functools.partial(half, weight=linear.weight, bias=linear.bias), linear.in_features, rows)
        usable = {k: t for k, t in timings[shape].items() if k != HALF_WEIGHT_KERNEL or exact_in_half}
        best = min(usable, key=usable.get)
        if best == HALF_WEIGHT_KERNEL:
            linear._matmul = half
        else:
            linear._matmul.use(best)
        chosen[shape] = best if chosen.get(shape, best) == best else "mixed"
    return chosen


def _median_time(fn, in_features: int, rows: int) -> float:
    x = torch.randn(1, rows, in_features)
    with torch.no_grad():
        fn(x)  # a first call may allocate
        times = []
        for _ in range(REPEATS):
            start = time.perf_counter()
            fn(x)
            times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def _timings(linear: PackedLinear, rows: int) -> dict[str, float]:
    timings = {}
    for kernel in EXACT_MATMUL_KERNELS:
        linear._matmul.use(kernel)
        timings[kernel] = _median_time(linear, linear.in_features, rows)
    return timings


def choose_conv_kernels(codec: nn.Module, decode_one_frame) -> dict[str, str]:
    """Sets each streaming convolution of ``codec`` to its faster kernel (ATen's convolution or
    Parley's matmul form, on any matmul kernel ``choose_kernels`` offers) at the time steps one
    decoded frame gives it, measured here; ``decode_one_frame()`` decodes a frame on a scratch
    state. Returns the choice per layer."""
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
        if isinstance(conv._linear, HalfWeightMatmul):  # chosen before: measure afresh
            conv._linear = PackedMatmul()
            conv.repack()
        exact, half = conv._linear, HalfWeightMatmul()
        conv._linear = half
        conv.repack()
        if half.packed is not None:
            candidates.append((matmul, HALF_WEIGHT_KERNEL))
        timings = {}
        with torch.no_grad():
            for kernel, matmul_kernel in candidates:
                conv.kernels[steps] = kernel
                conv._linear = half if matmul_kernel == HALF_WEIGHT_KERNEL else exact
                if matmul_kernel not in (None, HALF_WEIGHT_KERNEL):
                    exact.use(matmul_kernel)
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
        conv._linear = half if best[1] == HALF_WEIGHT_KERNEL else exact
        if best[1] not in (None, HALF_WEIGHT_KERNEL):
            exact.use(best[1])
        chosen[name] = "/".join(k for k in best if k)
    return chosen
