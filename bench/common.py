"""Small helpers shared by the benchmark scripts."""

from __future__ import annotations

import math
import platform
import statistics


def cpu_model() -> str:
    """The CPU's marketing name (Linux /proc/cpuinfo), else what the platform module knows."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


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
