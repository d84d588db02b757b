"""The GPU check's memory-cap stage: per precision and card size, does the model run in what such
a card leaves beside this process's CUDA context, how much is in use after a few frames, and is
the engine's estimate above it.

The CUDA memory calls go through ``cuda`` (``torch.cuda`` itself on a GPU), so that a test on the
CPU can hand in a fake of that API and run this logic: the device it passes is always an index,
as ``torch.cuda.set_per_process_memory_fraction`` requires (a ``torch.device("cuda")`` without
one raises, which once lost this whole stage for both 7B models).
"""

from __future__ import annotations

import gc

import torch

from engine.runtime.gpu_memory import needed_gb


def device_index(device: torch.device, cuda) -> int:
    """The CUDA device's index: its own, or the current one for a plain ``torch.device("cuda")``."""
    return device.index if device.index is not None else cuda.current_device()


def in_use_gb(cuda, index: int) -> dict:
    """GB the allocator peaked at since the last reset, and in use on the device now (with the
    CUDA context and the allocator's cache)."""
    free, total = cuda.mem_get_info(index)
    return {"peak_allocated_gb": round(cuda.max_memory_allocated(index) / 1e9, 2),
            "device_used_gb": round((total - free) / 1e9, 2)}


def memory_caps(config, device: torch.device, dtype: torch.dtype, caps, precisions, build, run, cuda=torch.cuda
                ) -> dict:
    """``build(precision) -> (mimi, lm, load_s)`` and ``run(mimi, lm) -> {"times": ...}`` under each
    cap; an out-of-memory error is a result (``fits: False``), and the cap is lifted after each."""
    index = device_index(device, cuda)
    release(cuda)
    free, total = cuda.mem_get_info(index)
    context = (total - free - cuda.memory_reserved(index)) / 1e9  # the CUDA context and the driver's
    out = {"context_gb": round(context, 2), "total_gb": round(total / 1e9, 2)}
    for precision in precisions:
        estimate = needed_gb(config, precision, dtype)
        for card in caps:
            key = f"{precision}@{card}GB"
            cuda.set_per_process_memory_fraction(min(max(card - context, 0.1) * 1e9 / total, 1.0), index)
            try:
                cuda.reset_peak_memory_stats(index)
                mimi, lm, load_s = build(precision)
                frames = run(mimi, lm)
                used = in_use_gb(cuda, index)
                out[key] = {"fits": True, "load_s": load_s, "times": frames["times"], "gpu_memory": used,
                            "estimate_gb": round(estimate, 2), "estimate_ok": estimate >= used["device_used_gb"]}
                del mimi, lm, frames
            except torch.OutOfMemoryError as e:
                out[key] = {"fits": False, "error": str(e).splitlines()[0], "estimate_gb": round(estimate, 2),
                            "estimate_ok": estimate > card}
            finally:
                cuda.set_per_process_memory_fraction(1.0, index)
                release(cuda)
    return out


def release(cuda) -> None:
    gc.collect()
    cuda.empty_cache()
