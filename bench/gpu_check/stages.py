"""Every stage of one model, in the order ``plan.planned_stages`` lists them, each recorded in the
report as it ends: build, eager and graph frames, the floor, the profile, the prompt, each quantised
precision, the memory caps, the reference."""

from __future__ import annotations

import traceback

import torch

from bench import gpu_memory_caps
from bench.gpu_check.frames import allocated_bytes, floor, greedy_parity, run_ours, run_prompt, run_reference
from bench.gpu_check.kernels import agreeing_kernels, with_kernel
from bench.gpu_check.models import DEMO, build_config, build_ours, build_quantised, build_reference, release
from bench.gpu_check.plan import CHOOSING, FRAMES_PER_KERNEL, MODELS, SPEECH_MODELS, Options, takes_prompts
from bench.gpu_profile import profile_frames
from bench.gpu_report import Report
from engine.kernels.quantize import weight_bytes
from engine.lm.generate import PROMPT_CHUNK_STEPS


def check(name: str, device: torch.device, dtype: torch.dtype, bandwidth: float | None, report: Report,
          options: Options) -> None:
    """Every stage of one model, each recorded in ``report`` as it finishes (see ``Report``); what
    falls between stages is guarded too (``check_error``), so that the next model still runs."""
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}: expected one of {', '.join(MODELS)}")
    entry = report.data["models"].setdefault(name, {})
    try:
        if name in SPEECH_MODELS:
            from bench.gpu_check.speech import check_speech

            check_speech(name, device, dtype, report, options)
        else:
            stages(name, device, dtype, bandwidth, report, options, entry)
    except Exception as e:  # noqa: BLE001 (recorded; the next model runs)
        traceback.print_exc()
        entry["check_error"] = f"{type(e).__name__}: {e}"
    release(device)
    report.write()


def stages(name, device, dtype, bandwidth, report: Report, options: Options, entry: dict) -> None:
    entry["frames"] = options.frames
    gen = torch.Generator().manual_seed(1)
    inputs = [(0.1 * torch.randn(1, 1, 1920, generator=gen)).to(device) for _ in range(options.frames)]
    built = report.stage(name, "build", lambda: dict(zip(("mimi", "lm"), build_ours(name, device, dtype))),
                         record=lambda _: {"ok": True})
    if built is not None:
        mimi, lm = built["mimi"], built["lm"]
        eager = report.stage(name, "eager", lambda: run_ours(mimi, lm, inputs, device, graph=False))
        graph = report.stage(name, "graph", lambda: run_ours(mimi, lm, inputs, device, graph=True))
        if eager and graph and not graph["graph_active"]:  # both ran eagerly: equal tokens would prove nothing
            entry["parity_graph_vs_eager"] = None
        elif eager and graph:
            same = [a == b for a, b in zip(eager["tokens"], graph["tokens"])]
            entry.update(parity_graph_vs_eager=all(same), frames_identical=sum(same))
        report.stage(name, "floor", lambda: floor(mimi, lm, bandwidth))
        if options.profile:
            release(device)
            report.stage(name, "profile", lambda: profile_frames(mimi, lm, inputs, device,
                                                                 replays=20 if device.type == "cuda" else 3))
        if takes_prompts(name):
            stepwise = report.stage(name, "prompt_stepwise", lambda: run_prompt(lm, device, chunk_steps=1))
            chunked = report.stage(name, "prompt_chunked", lambda: run_prompt(lm, device, PROMPT_CHUNK_STEPS))
            if stepwise and chunked:  # rounding apart: greedy frames that differ are reported, not failed
                same = [a == b for a, b in zip(stepwise["live_tokens"], chunked["live_tokens"])]
                entry["prompt_chunked_live_frames_identical"] = f"{sum(same)}/{len(same)}"
        bf16 = graph
        del mimi, lm, built
        for precision in options.precisions:
            release(device)
            check_precision(name, precision, device, dtype, inputs, bf16, bandwidth, report)
    release(device)
    if options.caps:
        report.stage(name, "memory_caps", lambda: memory_caps(name, device, dtype, inputs[:8], options))
    release(device)
    if name == DEMO:  # both load its files: the same weights (the others are random, each its own)
        report.stage(name, "greedy_float32_vs_reference", lambda: greedy_parity(name, device, inputs))
        release(device)
    if takes_prompts(name):
        entry["reference"] = {"skipped": "the PersonaPlex generator is not on PyPI (NVIDIA/personaplex)"}
        reference = None
    else:
        reference = report.stage(name, "reference", lambda: run_reference(*build_reference(name, device, dtype),
                                                                           inputs, device))
        release(device)
        if device.type == "cuda":
            report.stage(name, "reference_compiled", lambda: run_reference(
                *build_reference(name, device, dtype), inputs, device, compiled=True))
    release(device)
    ours = (entry.get("graph") or {}).get("times", {}).get("median_ms")
    ref = (reference or {}).get("times", {}).get("median_ms")
    entry["ours_over_reference"] = round(ours / ref, 3) if ours and ref else None


def check_precision(name: str, precision: str, device, dtype, inputs, bf16: dict | None, bandwidth: float,
                    report: Report) -> None:
    """The graph frames of one quantised precision, under ``precisions/<precision>[/<kernel>]``:
    int8 once per kernel candidate that agrees with its reference here (the chosen one first)."""
    if precision == "bfloat16":
        return
    entry = report.data["models"][name].setdefault("precisions", {})
    built = report.stage(name, f"build_{precision}", lambda: dict(zip(
        ("mimi", "lm", "load_s"), build_quantised(name, precision, device, dtype))),
        record=lambda b: {"load_s": b["load_s"], "weight_bytes": weight_bytes(b["lm"]),
                          "allocated_bytes": allocated_bytes(device)})
    if built is None:
        return
    mimi, lm = built["mimi"], built["lm"]
    kernels = [None]
    if precision in FRAMES_PER_KERNEL:
        choice = CHOOSING[precision]
        kernels = report.stage(name, f"{precision}_choice", lambda: agreeing_kernels(choice, device, dtype),
                               record=lambda k: {"chosen": k[0], "agree": k,
                                                 **choice.measured.get((device.type, dtype), {})})
        if kernels is None:
            return
    for kernel in kernels:
        label = precision if kernel is None else f"{precision}/{kernel}"
        run = report.stage(name, f"graph_{label}", lambda kernel=kernel: with_kernel(
            CHOOSING.get(precision), device, dtype, kernel, lambda: run_ours(mimi, lm, inputs, device, graph=True)))
        if run is None:
            continue
        median = run["times"].get("median_ms")
        base = ((bf16 or {}).get("times") or {}).get("median_ms")
        entry[label] = {"times": run["times"], "gpu_memory": run["gpu_memory"], "load_s": built["load_s"],
                        "graph_active": run["graph_active"], "fallback_reason": run["fallback_reason"],
                        "chosen": kernel is None or kernel == kernels[0],
                        "ratio_to_bf16": round(median / base, 3) if median and base else None,
                        "frames_identical_to_bf16": sum(a == b for a, b in zip((bf16 or {}).get("tokens", []),
                                                                               run["tokens"])),
                        "floor": floor(mimi, lm, bandwidth)}
    report.write()


def memory_caps(name: str, device: torch.device, dtype: torch.dtype, inputs, options: Options) -> dict:
    """``gpu_memory_caps.memory_caps`` for model ``name``: built at each precision, a few graph frames."""
    if device.type != "cuda":
        return {"skipped": "needs a CUDA device"}
    return gpu_memory_caps.memory_caps(
        build_config(name), device, dtype, options.caps, options.cap_precisions,
        build=lambda precision: build_quantised(name, precision, device, dtype),
        run=lambda mimi, lm: run_ours(mimi, lm, inputs, device, graph=True))
