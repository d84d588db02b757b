"""How many torch threads a model's frame runs fastest with, measured with the app running.

Candidates leave one core to the rest of the app: where libgomp's threads outnumber the cores they
sleep between loops and frames stall. Among counts whose mean keeps up, the lowest p90 wins; where
none keeps up, the lowest mean."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import torch

from ..audio import FRAME_MS, FRAME_SIZE

MAX_THREADS = 4
ROUNDS = 4
FRAMES_PER_ROUND = 4
WARMUP_FRAMES = 2
TAIL_QUANTILE = 0.9
KEEPS_UP_MS = 0.85 * FRAME_MS  # a mean below this leaves room for the GUI, the audio and a busy spell
MEASURE_BELOW_MS = 400.0  # slower than this is far from real time anyway; measuring would take minutes

Count = TypeVar("Count", int, str)  # a thread count, or its name in a JSON report


@dataclass(frozen=True)
class ThreadChoice:
    threads: int
    mean_ms: dict[int, float]  # per candidate thread count
    p90_ms: dict[int, float]
    seconds: float  # spent measuring
    # False: nothing was measured and nothing is kept for the next start (one candidate, or a warm-up
    # too slow to measure): one cold or contended warm-up must not stand for good.
    measured: bool = True


def use_threads(count: int) -> int:
    """Run torch's CPU work with ``count`` threads from now on (0 leaves it); returns the count before.
    OpenMP keeps the count per thread: call it in the thread that runs the frames."""
    before = torch.get_num_threads()
    if count > 0:
        torch.set_num_threads(count)
    return before


@contextlib.contextmanager
def running_with(count: int) -> Iterator[None]:
    """``use_threads(count)`` for the block, then the count before again."""
    before = use_threads(count)
    try:
        yield
    finally:
        use_threads(before)


def starting_threads(cores: int | None = None) -> int:
    """The starting count, before measuring: one thread per two cores, at most ``MAX_THREADS``."""
    return max(1, min(MAX_THREADS, (cores or os.cpu_count() or 2) // 2))


def best_thread_count(mean_ms: dict[Count, float], p90_ms: dict[Count, float]) -> Count:
    """Of the counts that keep up, the one with the lowest p90; if none keeps up, the fastest on average."""
    keeping_up = [n for n, ms in mean_ms.items() if ms < KEEPS_UP_MS]
    if keeping_up:
        return min(keeping_up, key=p90_ms.__getitem__)
    return min(mean_ms, key=mean_ms.__getitem__)


def runnable_threads(cores: int | None = None) -> int:
    """The most threads a frame runs with on this machine: one per core, at most ``MAX_THREADS``."""
    return min(MAX_THREADS, cores or os.cpu_count() or 1)


def thread_candidates(cores: int | None = None) -> tuple[int, ...]:
    """The counts a live conversation chooses among: a core is left to the window and the audio
    callbacks (see the module's docstring), except on a machine with one."""
    cores = cores or os.cpu_count() or 1
    return tuple(range(1, max(1, min(runnable_threads(cores), cores - 1)) + 1))


def replay_threads(recorded: int, cores: int | None = None) -> int:
    """The thread count a rebuild runs with here: frames replay bit for bit only with the count they
    ran with (float sums are grouped per thread), so the recorded count, capped at what runs here."""
    return min(recorded, runnable_threads(cores))


def choose_threads(model, candidates: tuple[int, ...] | None = None) -> ThreadChoice:
    """Measure ``model``'s frame at each thread count in ``candidates``; leaves torch at the best."""
    candidates = candidates or thread_candidates()
    started = time.monotonic()
    if len(candidates) == 1:  # nothing to choose: no frame spent measuring
        use_threads(candidates[0])
        return ThreadChoice(candidates[0], {}, {}, time.monotonic() - started, measured=False)
    session = model.new_session(record_audio=False, run_prompts=False)
    silence = np.zeros(FRAME_SIZE, dtype=np.float32)
    for _ in range(WARMUP_FRAMES):
        t0 = time.perf_counter()
        session.step(silence)
        warm_ms = 1000.0 * (time.perf_counter() - t0)
    if warm_ms > MEASURE_BELOW_MS:
        current = torch.get_num_threads()
        measured = {current: round(warm_ms, 2)}
        return ThreadChoice(current, measured, measured, time.monotonic() - started, measured=False)
    times: dict[int, list[float]] = {n: [] for n in candidates}
    for round_index in range(ROUNDS):
        order = candidates if round_index % 2 == 0 else tuple(reversed(candidates))
        for n in order:
            use_threads(n)
            session.step(silence)  # the first frame after a change pays for waking the new threads
            for _ in range(FRAMES_PER_ROUND):
                t0 = time.perf_counter()
                session.step(silence)
                times[n].append(1000.0 * (time.perf_counter() - t0))
    mean = {n: round(float(np.mean(t)), 2) for n, t in times.items()}
    p90 = {n: round(float(np.quantile(t, TAIL_QUANTILE)), 2) for n, t in times.items()}
    best = best_thread_count(mean, p90)
    use_threads(best)
    return ThreadChoice(best, mean, p90, time.monotonic() - started)
