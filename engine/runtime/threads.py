"""How many torch threads a model's frame runs fastest with, measured where it runs.

More intra-op threads help a large model on an idle machine and hurt a small one on a busy
one: with two cores, a second OpenMP thread competes with the GUI and audio threads and makes
the frame time's tail worse on one machine and better on another. So the app measures it with
everything else running: frames of silence through a throw-away session at each candidate,
in alternating rounds (a busy spell hits every candidate), and keeps the lowest p90 (what
decides whether frames keep up, rather than the median).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import numpy as np
import torch

from ..audio import FRAME_SIZE

MAX_THREADS = 4
ROUNDS = 3
FRAMES_PER_ROUND = 4
WARMUP_FRAMES = 2
TAIL_QUANTILE = 0.9
# A model slower than this per frame is far from real time on the CPU anyway; measuring it would
# take minutes, so it keeps the thread count it was loaded with.
MEASURE_BELOW_MS = 400.0


@dataclass(frozen=True)
class ThreadChoice:
    threads: int
    p90_ms: dict[int, float]  # per candidate thread count
    seconds: float  # spent measuring


def thread_candidates(cores: int | None = None) -> tuple[int, ...]:
    cores = cores or os.cpu_count() or 1
    return tuple(range(1, min(MAX_THREADS, cores) + 1))


def choose_threads(model, candidates: tuple[int, ...] | None = None) -> ThreadChoice:
    """Measure ``model``'s frame at each thread count in ``candidates``; leaves torch at the best."""
    candidates = candidates or thread_candidates()
    started = time.monotonic()
    session = model.new_session(record_audio=False, run_prompts=False)
    silence = np.zeros(FRAME_SIZE, dtype=np.float32)
    for _ in range(WARMUP_FRAMES):
        t0 = time.perf_counter()
        session.step(silence)
        warm_ms = 1000.0 * (time.perf_counter() - t0)
    if warm_ms > MEASURE_BELOW_MS:
        current = torch.get_num_threads()
        return ThreadChoice(current, {current: round(warm_ms, 2)}, time.monotonic() - started)
    times: dict[int, list[float]] = {n: [] for n in candidates}
    for round_index in range(ROUNDS):
        order = candidates if round_index % 2 == 0 else tuple(reversed(candidates))
        for n in order:
            torch.set_num_threads(n)
            session.step(silence)  # the first frame after a change pays for waking the new threads
            for _ in range(FRAMES_PER_ROUND):
                t0 = time.perf_counter()
                session.step(silence)
                times[n].append(1000.0 * (time.perf_counter() - t0))
    p90 = {n: float(np.quantile(t, TAIL_QUANTILE)) for n, t in times.items()}
    best = min(p90, key=p90.get)
    torch.set_num_threads(best)
    return ThreadChoice(best, {n: round(v, 2) for n, v in p90.items()}, time.monotonic() - started)
