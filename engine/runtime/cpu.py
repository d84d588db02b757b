"""Which CPU this is, as precisely as the system says (a VM may name only a family and hide
extensions): the kernel plan is keyed by its name, family, model, stepping and flags."""

from __future__ import annotations

import functools
import hashlib
import platform
import subprocess
import sys

# /proc/cpuinfo fields that tell CPUs of one marketing name apart (x86, then ARM).
IDENTITY_FIELDS = ("cpu family", "model", "stepping", "CPU implementer", "CPU part", "CPU variant", "CPU revision")


@functools.cache
def _cpuinfo() -> dict[str, str]:
    """The first processor's fields in /proc/cpuinfo; empty where there is none (not Linux)."""
    fields: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    if fields:
                        break
                    continue
                key, _, value = line.partition(":")
                fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    return fields


@functools.cache
def _macos_brand() -> str:
    """The Mac's CPU name ("Apple M2 Pro"), where ``platform.processor()`` only says "arm"."""
    if sys.platform != "darwin":
        return ""
    try:
        result = subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True, text=True,
                                timeout=5)
    except (OSError, subprocess.SubprocessError):
        return ""
    return result.stdout.strip()


def cpu_model() -> str:
    """The CPU's marketing name, with its family, model and stepping where the system says."""
    info = _cpuinfo()
    name = info.get("model name") or _macos_brand() or platform.processor() or platform.machine()
    identity = ", ".join(f"{key} {info[key]}" for key in IDENTITY_FIELDS if key in info)
    return f"{name} ({identity})" if identity else name


def cpu_features() -> str:
    """A short digest of the instruction-set flags the CPU reports; "" where the system says none."""
    info = _cpuinfo()
    flags = info.get("flags") or info.get("Features") or ""
    return hashlib.sha256(" ".join(sorted(flags.split())).encode()).hexdigest()[:12] if flags else ""
