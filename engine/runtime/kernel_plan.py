"""The kernel plan: for each distinct hot-path operation at the shape a streaming frame gives it,
the fastest of its exact kernels, measured on this machine (a kernel fast on one CPU was slow on another).

Sites with the same operation are timed as a group in frame order, so each weight reaches the caches
as in a real frame; bfloat16-weight matmuls are candidates only at precision bfloat16. The plan is
cached on disk per CPU, threads, torch, model and dtype. ``PARLEY_KERNELS`` forces one kernel (tests).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from ..atomic import write_atomically
from ..audio import FRAME_SIZE
from ..codec.conv import StreamingConv1d, StreamingConvTranspose1d
from ..files.demo import cache_root
from ..kernels.packed import (
    BF16_MATMUL_KERNEL,
    BF16_UNSUPPORTED,
    MATMUL_KERNELS,
    TRANSPOSED_MATMUL_KERNEL,
    PackedLinear,
    PackedMatmul,
    bf16_matmul_runs,
    matmul_kernels,
)
from ..streaming.transformer import StackedLinear, StreamingAttention, step_slice
from .cpu import cpu_features, cpu_model

log = logging.getLogger(__name__)

PLAN_VERSION = 3  # 2: bfloat16 matmul candidates; 3: ATen on a transposed weight
TIMED_SITES = 4  # layers per group timed (different weights, same shapes): a 7B model's sweep stays short
SWEEP_REPEATS = 4  # ABBA blocks of frame-order sweeps, one sweep per candidate in each
MAX_RECORDING_FRAMES = 16
FORCE_ENV = "PARLEY_KERNELS"
FORCE_VALUES = ("rule", *MATMUL_KERNELS)


@dataclass(frozen=True)
class Choice:
    """One distinct operation: the kernel chosen and each candidate's median time (microseconds)."""

    op: str
    kernel: str
    times_us: dict[str, float]
    sites: int  # layers that share this operation


@dataclass(frozen=True)
class KernelPlan:
    key: dict[str, str]
    choices: tuple[Choice, ...]
    planning_s: float  # measuring (0 when the plan came from the cache or was forced)
    source: str  # "measured" | "cache" | "forced:<kernel>"

    def as_json(self) -> dict:
        return {"source": self.source, "planning_s": round(self.planning_s, 3), "key": self.key,
                "choices": [asdict(c) for c in self.choices]}

    @property
    def uses_bf16(self) -> bool:
        """Whether any operation computes with bfloat16 weights (then results are not float32-exact)."""
        return any(c.kernel.endswith(BF16_MATMUL_KERNEL) for c in self.choices)

    def summary(self) -> str:
        counts: dict[str, int] = {}
        for c in self.choices:
            counts[c.kernel] = counts.get(c.kernel, 0) + c.sites
        return f"{self.source}: " + ", ".join(f"{k} x{n}" for k, n in sorted(counts.items()))



class _MatmulSite:
    """A linear layer's matmul (step ``step`` of ``steps`` of a stacked parameter). Holds no tensor of
    the weight: ``hold_weights_once`` relays parameters, and a held view would keep the old layout."""

    def __init__(self, matmul: PackedMatmul, holder: tuple[nn.Module, str], step: int, steps: int,
                 bias: torch.Tensor | None, rows: int, allow_bf16: bool):
        self.matmul, self.holder, self.step, self.steps = matmul, holder, step, steps
        self.bias, self.rows = bias, rows
        self._kernels = matmul_kernels(self.weight, allow_bf16)

    @property
    def weight(self) -> torch.Tensor:
        module, name = self.holder
        return step_slice(getattr(module, name), self.step, self.steps)

    @property
    def op(self) -> str:
        out_f, in_f = self.weight.shape
        return f"linear {self.rows}x{in_f}->{out_f}" + (" +bias" if self.bias is not None else "")

    def candidates(self) -> tuple[str, ...]:
        return self._kernels

    def apply(self, kernel: str) -> None:
        self.matmul.use(kernel)

    def runner(self) -> Callable[[], torch.Tensor]:
        weight = self.weight
        x = torch.randn(self.rows, weight.shape[1], dtype=weight.dtype)
        return lambda: self.matmul(x, weight, self.bias)


class _ConvSite:
    """A streaming convolution at one input shape: ATen's, or im2col (or, transposed, overlap-add) + a matmul."""

    def __init__(self, module: StreamingConv1d | StreamingConvTranspose1d, shape: torch.Size, allow_bf16: bool):
        self.module, self.shape = module, shape
        self.transposed = isinstance(module, StreamingConvTranspose1d)
        layer = module.layer
        self.steps = shape[-1] if self.transposed else shape[-1] // module.stride
        self._direct, self._matmul = ("convtr", "matmul") if self.transposed else ("conv", "im2col")
        self._matmul_kernels = matmul_kernels(layer.weight, allow_bf16) if layer.groups == 1 else ()

    @property
    def op(self) -> str:
        layer = self.module.layer
        kind = "convtr1d" if self.transposed else "conv1d"
        extra = f" d{self.module.dilation}" if not self.transposed and self.module.dilation > 1 else ""
        groups = f" g{layer.groups}" if layer.groups > 1 else ""
        return (f"{kind} {layer.in_channels}->{layer.out_channels} k{self.module.kernel_size} "
                f"s{self.module.stride}{extra}{groups}, {self.steps} steps")

    def candidates(self) -> tuple[str, ...]:
        module = self.module
        if self.transposed and not module._matmul_ok:
            return ()
        if not self.transposed and module.layer.groups != 1:
            return ()
        if not self._matmul_kernels:  # a depthwise transposed conv's matmul is elementwise
            return (self._direct, self._matmul)
        return (self._direct, *(f"{self._matmul}+{k}" for k in self._matmul_kernels))

    def apply(self, kernel: str) -> None:
        conv_kernel, _, matmul_kernel = kernel.partition("+")
        self.module.kernels[self.steps] = conv_kernel
        if matmul_kernel:
            self.module._linear.use(matmul_kernel)

    def runner(self) -> Callable[[], torch.Tensor]:
        weight = self.module.layer.weight
        x = torch.randn(*self.shape, dtype=weight.dtype)
        state = self.module.init_state(self.shape[0])
        return lambda: self.module(x, state)


def _record_sites(modules: list[nn.Module], run_frame: Callable[[], None], allow_bf16: bool) -> list:
    """The sites of ``modules`` with the shapes one frame gives them (forward hooks, removed after)."""
    shapes: dict[nn.Module, torch.Size] = {}

    def hook(module, args):
        x = args[0]
        seen = shapes.get(module)
        if seen is None or x.numel() > int(np.prod(seen)):  # the largest call of the frame
            shapes[module] = x.shape

    kinds = (PackedLinear, StackedLinear, StreamingAttention, StreamingConv1d, StreamingConvTranspose1d)
    handles = [m.register_forward_pre_hook(hook) for root in modules for m in root.modules() if isinstance(m, kinds)]
    try:
        run_frame()
    finally:
        for h in handles:
            h.remove()
    sites = []
    for module, shape in shapes.items():
        rows = int(np.prod(shape[:-1]))
        if isinstance(module, PackedLinear):
            sites.append(_MatmulSite(module._matmul, (module, "weight"), 0, 1, module.bias, rows, allow_bf16))
        elif isinstance(module, (StackedLinear, StreamingAttention)):
            name = "weight" if isinstance(module, StackedLinear) else "in_proj_weight"
            matmuls = module.packed_matmuls()
            sites += [_MatmulSite(mm, (module, name), i, len(matmuls), None, rows, allow_bf16)
                      for i, mm in enumerate(matmuls)]
        else:
            sites.append(_ConvSite(module, shape, allow_bf16))
    return [s for s in sites if s.candidates()]



def _sweep_us(runners: list[Callable[[], torch.Tensor]]) -> list[float]:
    """Run every site once in frame order; microseconds per site."""
    times = []
    for run in runners:
        started = time.perf_counter()
        run()
        times.append((time.perf_counter() - started) * 1e6)
    return times


def _groups(sites: list) -> dict[str, list]:
    groups: dict[str, list] = {}
    for site in sites:
        groups.setdefault(site.op, []).append(site)
    return groups


def _measure(sites: list) -> tuple[Choice, ...]:
    """Time every candidate of every group where the frame runs it: up to ``TIMED_SITES`` sites per
    group in frame order, candidates in ABBA order over ``SWEEP_REPEATS`` blocks, the median per call.
    Only the timed sites switch while measuring (re-packing costs as much as a call); all take the
    fastest at the end."""
    groups = _groups(sites)
    timed, counted = [], dict.fromkeys(groups, 0)
    for site in sites:
        if counted[site.op] < TIMED_SITES:
            timed.append(site)
            counted[site.op] += 1
    candidates = {op: group[0].candidates() for op, group in groups.items()}
    widest = max(len(c) for c in candidates.values())
    times: dict[str, dict[str, list[float]]] = {op: {k: [] for k in c} for op, c in candidates.items()}
    with torch.inference_mode():
        runners = [site.runner() for site in timed]
        for repeat in range(SWEEP_REPEATS):
            for k in (range(widest) if repeat % 2 == 0 else reversed(range(widest))):
                chosen = {op: c[k % len(c)] for op, c in candidates.items()}
                for site in timed:
                    site.apply(chosen[site.op])
                _sweep_us(runners)  # warm-up: first-call allocations, oneDNN primitives, caches
                for site, us in zip(timed, _sweep_us(runners)):
                    times[site.op][chosen[site.op]].append(us)
    choices = []
    for op, group in groups.items():
        # chosen from the rounded times, so the file names the fastest of its own times
        per_call = {k: round(statistics.median(v), 1) for k, v in times[op].items()}
        choices.append(Choice(op, min(per_call, key=per_call.get), per_call, len(group)))
    best = {c.op: c.kernel for c in choices}
    _apply(sites, lambda site: best[site.op])
    return tuple(choices)


def _apply(sites: list, kernel_of: Callable[[object], str | None]) -> bool:
    """Give every site ``kernel_of(site)``, each parameter first laid out for its kernels
    (``hold_weights_once``); False (nothing changed) when one has no usable answer."""
    chosen = [(site, kernel_of(site)) for site in sites]
    if any(k not in site.candidates() for site, k in chosen):
        return False
    hold_weights_once(chosen)
    for site, kernel in chosen:
        site.apply(kernel)
    return True


def _forced(site, kernel: str) -> str:
    """The matmul kernel for a matmul; for a convolution, im2col (matmul) with that matmul kernel."""
    if isinstance(site, _MatmulSite):
        return kernel
    candidates = site.candidates()
    with_matmul = [c for c in candidates if c.endswith("+" + kernel)]
    return with_matmul[0] if with_matmul else candidates[-1]



def plan_key(fingerprint: str, dtype: torch.dtype, allow_bf16: bool) -> dict[str, str]:
    return {"version": str(PLAN_VERSION), "cpu": cpu_model(), "cpu_features": cpu_features(),
            "cores": str(os.cpu_count()),
            "threads": str(torch.get_num_threads()), "torch": torch.__version__, "model": fingerprint,
            "dtype": str(dtype).removeprefix("torch."), "bf16_matmuls": "allowed" if allow_bf16 else "no"}


def plan_path(key: dict[str, str]) -> Path:
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    return cache_root() / "kernel-plans" / f"{digest}.json"


def _read_cached(path: Path, key: dict[str, str]) -> tuple[dict[str, str], dict] | None:
    """(op -> kernel, the file's data) from a cached plan made for ``key``; None when absent or damaged."""
    try:
        data = json.loads(path.read_text())
        if data.get("key") != key:
            return None
        return {c["op"]: c["kernel"] for c in data["choices"]}, data
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        log.warning("ignoring a damaged kernel plan %s (it is measured again)", path)
        return None


def _write(path: Path, plan: KernelPlan) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, (json.dumps(plan.as_json(), indent=1) + "\n").encode())
    except OSError as e:  # a read-only cache costs the next start a measurement, nothing else
        log.warning("could not save the kernel plan to %s: %s", path, e)



def plan_kernels(modules: list[nn.Module], run_frame: Callable[[], None], fingerprint: str,
                 dtype: torch.dtype, allow_bf16: bool = False) -> KernelPlan:
    """Record the sites of ``modules`` during ``run_frame()``, then apply the cached, forced
    (``PARLEY_KERNELS``) or freshly measured plan. ``allow_bf16``: bfloat16-weight matmuls may be chosen."""
    plan = _plan(_record_sites(modules, run_frame, allow_bf16), fingerprint, dtype, allow_bf16)
    log_plan(plan)
    return plan


def hold_weights_once(chosen: list[tuple[object, str]]) -> None:
    """Hold each parameter whose every matmul takes ``transposed`` column-major (read through a view,
    no copy), every other one row-major; one parameter at a time, so the transient is one weight."""
    by_holder: dict[tuple[nn.Module, str], list[str]] = {}
    for site, kernel in chosen:
        if isinstance(site, _MatmulSite):
            by_holder.setdefault(site.holder, []).append(kernel)
    for (module, name), kernels in by_holder.items():
        param = getattr(module, name)
        transposed = all(kernel == TRANSPOSED_MATMUL_KERNEL for kernel in kernels)
        if not isinstance(param, torch.Tensor) or transposed == is_column_major(param):
            continue  # a quantised weight computes through its own kernels
        with torch.no_grad():
            param.data = param.data.t().contiguous().t() if transposed else param.data.contiguous()
        module.repack()  # its matmuls' views and copies from the relaid parameter


def is_column_major(weight: torch.Tensor) -> bool:
    return weight.dim() == 2 and weight.shape[0] > 1 and weight.stride() == (1, weight.shape[0])


def _plan(sites: list, fingerprint: str, dtype: torch.dtype, allow_bf16: bool) -> KernelPlan:
    key = plan_key(fingerprint, dtype, allow_bf16)
    forced = os.environ.get(FORCE_ENV, "").strip().lower()
    if forced:
        if forced not in FORCE_VALUES:
            raise ValueError(f"{FORCE_ENV}={forced!r}: expected one of {', '.join(FORCE_VALUES)}")
        if forced == BF16_MATMUL_KERNEL and not allow_bf16:
            raise ValueError(f"{FORCE_ENV}={forced}: bfloat16 weights need precision bfloat16 "
                             "(--precision bfloat16); this model was loaded for exact float32 results")
        if forced == BF16_MATMUL_KERNEL and not bf16_matmul_runs():
            raise ValueError(f"{FORCE_ENV}={forced}: {BF16_UNSUPPORTED}")
        if forced != "rule":
            _apply(sites, lambda site: _forced(site, forced))
        return KernelPlan(key, _describe(sites), 0.0, f"forced:{forced}")
    path = plan_path(key)
    cached = _read_cached(path, key)
    if cached is not None:
        kernels, data = cached
        if _apply(sites, lambda site: kernels.get(site.op)):
            choices = tuple(Choice(c["op"], c["kernel"], c["times_us"], c["sites"]) for c in data["choices"])
            return KernelPlan(key, choices, 0.0, "cache")
        log.warning("the cached kernel plan %s does not fit this model; measuring again", path)
    started = time.monotonic()
    choices = _measure(sites)
    plan = KernelPlan(key, choices, time.monotonic() - started, "measured")
    _write(path, plan)
    log.info("kernel plan measured in %.1f s: %s", plan.planning_s, plan.summary())
    return plan


def log_plan(plan: KernelPlan) -> None:
    """Every choice with its candidates' times, at debug level (``--verbose``)."""
    log.debug("kernel plan (%s), %s", plan.source, ", ".join(f"{k}={v}" for k, v in plan.key.items()))
    for c in plan.choices:
        times = ", ".join(f"{k} {v:.0f} us" for k, v in c.times_us.items())
        log.debug("  %-48s -> %-14s x%d  (%s)", c.op, c.kernel, c.sites, times or "not measured")


def _describe(sites: list) -> tuple[Choice, ...]:
    """The current kernel of each group, unmeasured (a forced or rule plan)."""
    return tuple(Choice(op, _current(group[0]), {}, len(group)) for op, group in _groups(sites).items())


def _current(site) -> str:
    if isinstance(site, _MatmulSite):
        return site.matmul.kernel
    kernel = site.module.kernel_for(site.steps)
    inner = site.module._linear.kernel
    return f"{kernel}+{inner}" if kernel in ("im2col", "matmul") and site._matmul_kernels else kernel


def sweep_ms(modules: list[nn.Module], run_frame: Callable[[], None], reference_kernels: bool = False,
             rounds: int = 7) -> float:
    """Milliseconds to run every matmul and convolution of a frame once, in frame order, with the
    planned kernels (``reference_kernels``: ATen's float32 ones); median of ``rounds``, plan unchanged."""
    sites = _record_sites(modules, run_frame, allow_bf16=False)
    planned = [_current(site) for site in sites]
    try:
        if reference_kernels:
            for site in sites:
                site.apply("aten" if isinstance(site, _MatmulSite) else site._direct)
        with torch.inference_mode():
            runners = [site.runner() for site in sites]
            totals = [sum(_sweep_us(runners)) / 1e3 for _ in range(rounds + 1)]
        return statistics.median(totals[1:])  # the first: warm-up
    finally:
        for site, kernel in zip(sites, planned):
            site.apply(kernel)


def silent_frame_runner(session_factory: Callable[[], object]) -> Callable[[], None]:
    """Silence through a throw-away session until Mimi decoded a frame: every stage has run once."""
    def run() -> None:
        session = session_factory()
        silence = np.zeros(FRAME_SIZE, dtype=np.float32)
        for _ in range(MAX_RECORDING_FRAMES):
            session.step(silence)
            if session.decoded_frames:
                return
        raise RuntimeError(f"no frame was decoded within {MAX_RECORDING_FRAMES} frames")
    return run
