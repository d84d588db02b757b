"""The GPU check's profile stage: where a frame's time goes, from torch.profiler.

One eager frame (with the ops' input shapes) and ``replays`` frames replayed from the CUDA graph
are profiled with CUDA activity. From the replays: the kernels a frame launches, the 30 that take
the most time, and the attention kernels' microseconds per call (one call per layer and step).
From the eager frame (where each kernel still has its op and shapes): the matrix-vector products'
bandwidth per shape, the weight's bytes over the kernel time (a frame is one row, so the weight is
nearly all a matmul reads).

On the CPU (the smoke run, so that this code keeps working) the same figures come from the ops
themselves: leaf ATen ops without views and allocations stand for kernels, their CPU time for
kernel time.
"""

from __future__ import annotations

from collections import defaultdict

import torch
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile

from bench.op_count import NO_KERNEL
from engine.lm.generate import SamplingConfig, make_generator
from engine.runtime.frame_step import FrameStep

TOP = 30
ATTENTION_WORDS = ("attention", "fmha", "flash")  # in the names of SDPA's kernels (CUDA and CPU)
MATMULS = ("aten::mm", "aten::addmm")


def kernel_events(prof, cuda: bool) -> list:
    if cuda:
        return [e for e in prof.events() if e.device_type == DeviceType.CUDA]
    return [e for e in prof.events() if e.name.startswith("aten::") and not e.cpu_children and e.name not in NO_KERNEL]


def attention_us(prof, cuda: bool) -> list[float]:
    """Microseconds of each attention call: SDPA's kernels on CUDA, its whole op on the CPU (where
    it runs ops of its own)."""
    if cuda:
        return [e.device_time for e in kernel_events(prof, cuda) if any(w in e.name.lower() for w in ATTENTION_WORDS)]
    return [e.cpu_time_total for e in prof.events() if e.name == "aten::scaled_dot_product_attention"]


def kernel_us(event, cuda: bool) -> float:
    return event.device_time if cuda else event.cpu_time


def profile_frames(mimi, lm, inputs, device: torch.device, replays: int = 20) -> dict:
    """The figures above for one eager frame and ``replays`` graph frames (eager ones where no
    graph runs), each step from a fresh state, warmed up past the capture."""
    cuda = device.type == "cuda"
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    gen = make_generator(lm, SamplingConfig())
    eager = FrameStep(mimi, gen, {"mimi": mimi.init_state(1), "gen": gen.init_state(1, 3)}, use_cuda_graph=False)
    graph = FrameStep(mimi, gen, {"mimi": mimi.init_state(1), "gen": gen.init_state(1, 3)}, use_cuda_graph=True)
    warm = gen.first_output_frame + graph.aligned.warmup + 2  # past the capture: every later frame replays
    frame = lambda step, i: step(inputs[i % len(inputs)], i)  # noqa: E731
    for i in range(warm):
        frame(eager, i)
        frame(graph, i)
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    sync()
    with profile(activities=activities, record_shapes=True) as eager_prof:
        frame(eager, warm)
        sync()
    with profile(activities=activities) as graph_prof:
        for i in range(warm, warm + replays):
            frame(graph, i)
        sync()
    kernels = kernel_events(graph_prof, cuda)
    by_name: dict[str, list[float]] = defaultdict(list)
    for e in kernels:
        by_name[e.name].append(kernel_us(e, cuda))
    total_us = sum(sum(v) for v in by_name.values())
    top = sorted(by_name.items(), key=lambda kv: -sum(kv[1]))[:TOP]
    attention = attention_us(graph_prof, cuda)
    return {
        "replays": replays, "graph_active": graph.graph_active, "fallback_reason": graph.fallback_reason,
        "kernels_per_frame": round(len(kernels) / replays, 1),
        "kernel_ms_per_frame": round(total_us / replays / 1e3, 3),
        "eager_kernels_per_frame": len(kernel_events(eager_prof, cuda)),
        "top_kernels": [{"name": name[:160], "calls_per_frame": round(len(v) / replays, 2),
                         "us_per_frame": round(sum(v) / replays, 2), "share": round(sum(v) / total_us, 4)}
                        for name, v in top],
        "attention": {"calls_per_frame": round(len(attention) / replays, 1),
                      "us_per_call": round(sum(attention) / len(attention), 2) if attention else None},
        "gemv": gemv_bandwidth(eager_prof, cuda, next(lm.parameters()).element_size()),
    }


def gemv_bandwidth(prof, cuda: bool, element: int) -> list[dict]:
    """Per matmul shape (rows, in, out) of the eager frame: calls, kernel µs per call, and the
    weight's bytes (``element`` bytes a weight) over that time in GB/s."""
    shapes: dict[tuple, list[float]] = defaultdict(list)
    for e in prof.events():
        if e.name not in MATMULS or not e.input_shapes:
            continue
        a, b = e.input_shapes[-2:]  # addmm(bias, x, w.T) and mm(x, w.T): the last two are the product's
        if len(a) != 2 or len(b) != 2:
            continue
        us = e.device_time_total if cuda else e.cpu_time_total
        shapes[(a[0], a[1], b[1])].append(us)
    out = []
    for (rows, n_in, n_out), times in sorted(shapes.items(), key=lambda kv: -sum(kv[1])):
        us = sum(times) / len(times)
        out.append({"rows": rows, "in": n_in, "out": n_out, "calls": len(times), "us_per_call": round(us, 2),
                    "weight_gb_s": significant(n_in * n_out * element / (us * 1e3)) if us > 0 else None})
    return out


def significant(x: float) -> float:
    """``x`` to 3 significant digits (a tiny model's gemv reads < 0.1 GB/s)."""
    return float(f"{x:.3g}")
