"""Which device Parley can run on, and in one plain sentence why not CUDA.

The CUDA bundle runs anywhere: without an NVIDIA driver or GPU it falls back to the CPU (and the
demo model). ``cuda_unavailable_reason`` says why, ``announce_cpu_fallback`` says it once on stderr
when a CUDA build of torch starts on the CPU, and ``device_report`` is the selftest's "device" field.
"""

from __future__ import annotations

import ctypes
import sys
import warnings

from app.i18n import translate

DRIVER_LIBRARY = "nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1"


def cuda_unavailable_reason() -> str | None:
    """None when torch can use a CUDA device, else the reason (no CUDA build, no driver, no device, ...)."""
    import torch

    if not torch.version.cuda:
        return translate("DeviceReport", "this build of torch ({version}) has no CUDA support").format(
            version=torch.__version__)
    if sys.platform != "darwin":
        try:
            ctypes.CDLL(DRIVER_LIBRARY)
        except OSError:
            return translate("DeviceReport", "no NVIDIA driver found ({library})").format(library=DRIVER_LIBRARY)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            available, count = torch.cuda.is_available(), torch.cuda.device_count()
        except Exception as e:  # noqa: BLE001 - a broken driver install: say what torch says
            return translate("DeviceReport", "CUDA does not initialise: {problem}").format(
                problem=f"{type(e).__name__}: {e}")
    if available and count > 0:
        return None
    said = [str(w.message).split("\n")[0].strip() for w in caught if "CUDA" in str(w.message)]
    if said:  # e.g. "CUDA initialization: The NVIDIA driver on your system is too old ..."
        return translate("DeviceReport", "the NVIDIA driver is there but CUDA does not start: {problem}").format(
            problem=said[0])
    return translate("DeviceReport", "no CUDA device (the NVIDIA driver found no GPU)")


def device_report(requested: str) -> dict:
    """The selftest's "device" field: what was asked for, what runs ("cpu", "cuda", or None when
    --device cuda cannot run), why not CUDA, and why the CPU."""
    import torch

    reason = cuda_unavailable_reason()
    if requested == "cuda":
        used = "cuda" if reason is None else None
    else:
        used = "cuda" if requested == "auto" and reason is None else "cpu"
    why_cpu = None
    if used == "cpu":
        why_cpu = reason if reason is not None else f"--device {requested} was asked for (CUDA is available)"
    return {"requested": requested, "used": used, "torch": torch.__version__, "cuda_build": torch.version.cuda,
            "cuda_available": reason is None, "cuda_unavailable_reason": reason, "why_cpu": why_cpu}


def announce_cpu_fallback(requested: str | None) -> str | None:
    """Say once, on stderr, that a CUDA build runs on the CPU and why (device auto or unset only).
    Returns the sentence (None when there is nothing to say)."""
    import torch

    if not torch.version.cuda or requested not in (None, "auto"):
        return None
    reason = cuda_unavailable_reason()
    if reason is None:
        return None
    sentence = f"running on the CPU: {reason} (fine for the demo model; the real models need an NVIDIA GPU)"
    print(f"parley: {sentence}", file=sys.stderr, flush=True)
    return sentence
