"""How many torch threads a model's frame runs fastest with, measured where it runs.

More intra-op threads help a large model on an idle machine and hurt a small one on a busy
one: with two cores, a second OpenMP thread competes with the GUI and audio threads and makes
the frame time's tail worse on one machine and better on another. So the app measures it with
everything else running: frames of silence through a throw-away session at each candidate,
in alternating rounds (a busy spell hits every candidate).

The counts measured leave one core to the rest of the app (``thread_candidates``): the frames run
on the app's engine thread, not the process's first thread, and libgomp (torch's OpenMP on Linux)
counts that first thread among its own; where its threads outnumber the cores it stops spinning
between parallel loops and puts them to sleep, and each of a frame's thousands of loops then waits
for a thread to wake. On a 2-core AMD EPYC two threads on the engine thread measured 28 ms against
33 with one at the window's start, then in the same run took frames of 0.26-1.3 s whenever another
program ran (86 frames dropped in 45 s; 2 with one thread on the quiet machine); another start
measured them at 478 ms mean against 78. Replaying a file may still use every core (``replay_threads``): it runs alone.

The choice is keep up first, then latency. The mean frame time decides whether frames keep up
(the output queue absorbs a slow frame, not a slow average), the p90 how much jitter the queue
must hold, which every reply waits through. So among the counts whose mean leaves headroom in
the 80 ms frame, the lowest p90 wins; where none does, the lowest mean. Choosing by p90 alone
on a machine that cannot keep up chose one thread in 2 of 7 app runs on a 2-core AMD EPYC
whose frames were ~25% faster with two, and the app then dropped a fifth of its input.
"""

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
# A model slower than this per frame is far from real time on the CPU anyway; measuring it would
# take minutes, so it keeps the thread count it was loaded with.
MEASURE_BELOW_MS = 400.0

Count = TypeVar("Count", int, str)  # a thread count, or its name in a JSON report


@dataclass(frozen=True)
class ThreadChoice:
    threads: int
    mean_ms: dict[int, float]  # per candidate thread count
    p90_ms: dict[int, float]
    seconds: float  # spent measuring
    # False: nothing was measured, and nothing is kept for the next start: there was one candidate
    # (``mean_ms`` empty), or the warm-up was too slow to measure (``MEASURE_BELOW_MS``) and the count
    # was kept as it was. Such a warm-up says nothing about the next start: one cold or contended
    # warm-up on a busy machine (683 ms for the demo on a 2-core AMD EPYC, ~25 ms once warm) must not
    # stand for good.
    measured: bool = True


def use_threads(count: int) -> int:
    """Run torch's CPU work with ``count`` threads from now on (0 leaves the count as it is); returns
    the count before. OpenMP keeps the count per thread: call it in the thread that runs the frames.
    The one place Parley sets the count."""
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
    """What the app loads a model with, before it measures the best count: one thread per two cores
    (the GUI and audio threads need cores too), at most ``MAX_THREADS``."""
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
    """The thread count a rebuild runs with here. Its frames replay bit for bit only with the count
    they ran with (float sums are grouped per thread), but a file only says what it was made with:
    this machine decides what runs here. So the recorded count where this machine runs that many
    (``runnable_threads``), else this machine's largest; 0 (not recorded) stays 0."""
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
