"""Small helpers shared by the benchmark scripts."""

from __future__ import annotations

import math
import os
import platform
import re
import statistics

from engine.runtime.cpu import cpu_model  # noqa: F401  (re-exported for the benchmarks)

# A PersonaPlex prompt as a session starts with a released voice: a stored 10 s voice (12.5 frames/s),
# then the silences and a one-sentence role prompt with its <system> tags.
PROMPT_VOICE_FRAMES = 125
PROMPT_TEXT_TOKENS = 30


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


def cpu_slug() -> str:
    """The results folder's name for this CPU: its vendor and family, and its model number where
    the system gives one ("intel-xeon-model167"), as the folders in bench/results/ are named."""
    name = re.sub(r"\((R|TM|tm)\)|\bCPU\b|\bProcessor\b|@.*$", " ", cpu_model().split(" (")[0])
    words = re.findall(r"[a-z0-9]+", name.lower())[:2] or ["cpu"]
    model = re.search(r"\bmodel (\d+)", cpu_model())
    return "-".join(words + ([f"model{model.group(1)}"] if model else []))


def load_average() -> float | None:
    """The machine's 1-minute load average, to read a timing by (None where the OS has none: Windows)."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def rss_bytes() -> int:
    """Current resident set size (Linux /proc; elsewhere the peak from ``resource`` or 0)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        try:
            import resource

            scale = 1 if platform.system() == "Darwin" else 1024
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
        except ImportError:  # Windows
            return 0
