"""Small helpers shared by the benchmark scripts."""

from __future__ import annotations

import math
import statistics

from engine.runtime.kernel_plan import cpu_model  # noqa: F401  (re-exported for the benchmarks)


def percentile(ms: list[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in (0, 1]) of a non-empty list."""
    s = sorted(ms)
    return s[min(len(s), math.ceil(q * len(s))) - 1]


def summary(ms: list[float], digits: int = 2) -> dict:
    """What every benchmark reports for a list of timings in ms: count, median, p95, p99."""
    if not ms:
        return {"n": 0}
    return {"n": len(ms), "median_ms": round(statistics.median(ms), digits),
            "p95_ms": round(percentile(ms, 0.95), digits), "p99_ms": round(percentile(ms, 0.99), digits)}
