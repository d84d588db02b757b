"""The quantised matmul kernels: which candidates agree with their reference here, frames run
through a chosen one, and each candidate timed at the 7B shapes (eagerly and replayed from a graph)."""

from __future__ import annotations

import functools
import statistics

import torch

from bench.gpu_check.plan import CHOOSING
from engine.kernels import int4_tiled, int8
from engine.kernels.int4 import Int4Weight
from engine.kernels.int4_tiled import TiledInt4
from engine.kernels.kernel_choice import KernelChoice, time_call


def agreeing_kernels(choice: KernelChoice, device: torch.device, dtype: torch.dtype) -> list[str]:
    """The kernels of ``choice`` that agree with its reference here, the one the engine chose first."""
    chosen = choice.kernel(device, dtype)
    agree = choice.measured.get((device.type, dtype), {}).get("agree", [chosen])
    return [chosen, *(k for k in agree if k != chosen)]


def with_kernel(choice: KernelChoice | None, device, dtype, kernel: str | None, run):
    """``run`` with the matmuls of ``choice`` through ``kernel`` (None, or no choice: as chosen),
    the choice restored after."""
    if choice is None or kernel is None:
        return run()
    key = (device.type, dtype)
    chosen = choice.kernel(device, dtype)
    choice.chosen[key] = kernel
    try:
        return run()
    finally:
        choice.chosen[key] = chosen


def kernel_times(device: torch.device, dtype: torch.dtype, repeats: int = 20) -> dict:
    """Each int8 and fp8 candidate at the 7B shapes (those that agree with their reference), eagerly
    and, on CUDA, replayed from a graph as a frame runs it (``int8_ms_graph``: no launch gaps between
    a many-kernel candidate's kernels); and int4: the plain dequantising path against torch's fused
    kernel on its tiled copy (``_weight_int4pack_mm``; on the CPU ``_weight_int4pack_mm_for_cpu``)."""
    shapes = int8.TIMED_SHAPES if device.type == "cuda" else ((64, 48), (32, 96))
    out: dict = {"int4_ms": {"plain": 0.0}}
    for precision, choice in CHOOSING.items():
        tried = [k for k in choice.kernels if device.type == "cuda" or k != "compiled"]  # the CPU compiles for minutes
        agree = [k for k in tried if choice.agrees(k, device, dtype)]
        out[f"{precision}_agree"] = agree
        out[f"{precision}_ms"] = choice.time(device, dtype, agree, shapes, repeats)
        if device.type == "cuda":
            out[f"{precision}_ms_graph"] = graph_kernel_times(choice, device, dtype, agree, shapes, repeats)
    gen = torch.Generator().manual_seed(0)
    for n_in, n_out in shapes:
        x = torch.randn(1, n_in, generator=gen).to(device, dtype)
        weight = Int4Weight.quantize(torch.randn(n_out, n_in, generator=gen).to(device, dtype) * n_in ** -0.5)
        calls = {"plain": functools.partial(torch.nn.functional.linear, x, weight)}
        if int4_tiled.refusal(weight) is None:
            calls["int4pack"] = int4pack_call(x, weight)
        want = calls["plain"]().float()
        for kernel, call in calls.items():
            got = call().float()
            if not bool((got - want).abs().max() <= int8.KERNEL_TOLERANCE * want.abs().max()):
                out.setdefault("int4_disagree", []).append(kernel)
            ms = statistics.median(time_call(call, device, repeats))
            out["int4_ms"][kernel] = round(out["int4_ms"].get(kernel, 0.0) + ms, 4)
    return out


def graph_kernel_times(choice: KernelChoice, device, dtype, names, shapes, repeats: int) -> dict:
    """``choice.time`` with each call replayed from a CUDA graph (a kernel that cannot be captured:
    its error instead of a time)."""
    totals: dict[str, float | str] = dict.fromkeys(names, 0.0)
    gen = torch.Generator().manual_seed(0)
    for n_in, n_out in shapes:
        x = torch.randn(1, n_in, generator=gen).to(device, dtype)
        q, scale = choice.quantize_rows(torch.randn(n_out, n_in, generator=gen).to(device, dtype))
        for name in names:
            if isinstance(totals[name], str):
                continue
            try:
                replay = graphed(functools.partial(choice.kernels[name], x, q, scale))
            except Exception as e:  # noqa: BLE001 (recorded for this kernel; the others are timed)
                totals[name] = f"{type(e).__name__}: {e}"
                continue
            totals[name] += statistics.median(time_call(replay, device, repeats))
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in totals.items()}


def graphed(call):
    """``call`` captured once into a CUDA graph after a warm-up on a side stream: its replay."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        call()
        call()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        call()
    return graph.replay


def int4pack_call(x: torch.Tensor, weight: Int4Weight):
    """torch's fused int4 matmul for ``x``'s device on ``weight`` tiled for it (as a load
    prepares it: ``engine.kernels.int4_tiled``)."""
    fused = TiledInt4(weight)
    return lambda: fused(x)
