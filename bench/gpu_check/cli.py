"""``python -m bench.gpu_check``: the options, the run (each model's stages within the budget), the
JSON report and the table printed at the end."""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
from pathlib import Path

import torch

from bench import gpu_check
from bench.gpu_check.frames import copy_bandwidth
from bench.gpu_check.kernels import kernel_times
from bench.gpu_check.models import DEMO
from bench.gpu_check.plan import (
    BUDGET_S,
    CAP_PRECISIONS,
    CHECK_CARDS_GB,
    MODELS,
    OPTIONAL_STAGES,
    QUANTISED,
    TOP_STAGE_S,
    Options,
    plan_s,
    planned_stages,
    stage_estimate_s,
)
from bench.gpu_check.stages import check
from bench.gpu_report import Report
from engine.runtime.cpu import cpu_model

RESULTS = Path(__file__).resolve().parents[1] / "results"
SMOKE_OUT = Path(tempfile.gettempdir()) / "parley-gpu_check-smoke.json"  # never the stored GPU results


def prepare_environment() -> None:
    """Where platformdirs is missing (the GPU image), the demo is built in a temporary cache
    folder instead of the user's (``PARLEY_CACHE_DIR``, unless set)."""
    try:
        import platformdirs  # noqa: F401
    except ImportError:
        os.environ.setdefault("PARLEY_CACHE_DIR", str(Path(tempfile.gettempdir()) / "parley-gpu-check-cache"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.gpu_check", description=gpu_check.__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="CPU-friendly: tiny configs, a few frames")
    parser.add_argument("--frames", type=int, default=None, help="frames per run (default 60; smoke 5)")
    parser.add_argument("--models", nargs="+", default=None, help=", ".join(MODELS))
    parser.add_argument("--precisions", nargs="+", default=["bfloat16", *QUANTISED],
                        help="bfloat16 (always run), int8 (each kernel candidate), int4")
    parser.add_argument("--caps", nargs="*", type=int, default=None,
                        help=f"card sizes (GB) to run the 7B models under (default {CHECK_CARDS_GB} on CUDA; "
                             "none in smoke)")
    parser.add_argument("--cap-precisions", nargs="+", default=list(CAP_PRECISIONS),
                        help="the precisions run under each card size")
    parser.add_argument("--profile", action="store_true",
                        help="a torch.profiler stage per 7B model (smoke: per tiny model)")
    parser.add_argument("--skip-kernel-times", action="store_true", help="leave out the int8/int4 kernel timings")
    parser.add_argument("--budget-s", type=float, default=None,
                        help=f"skip the stages that would end after this many seconds (default {BUDGET_S:g} on "
                             "CUDA, none in smoke)")
    parser.add_argument("--estimate", action="store_true", help="print the stages and their estimated seconds")
    parser.add_argument("--out", type=Path, default=None,
                        help=f"JSON output (default bench/results/gpu_check.json; with --smoke {SMOKE_OUT})")
    args = parser.parse_args(argv)
    prepare_environment()
    smoke_models = ["tiny", "tiny-personaplex", DEMO, "tiny-tts"]
    gpu_models = [DEMO, "moshi-7b", "personaplex-7b", "kyutai-tts"]
    models = args.models or (smoke_models if args.smoke else gpu_models)
    options = {name: Options(
        device_type="cpu" if args.smoke else "cuda",
        # a fast smoke run; on a GPU the demo's quantised rows say nothing the 7B rows do not
        precisions=tuple(args.precisions if name in ("tiny", "moshi-7b", "personaplex-7b") else ["bfloat16"]),
        caps=tuple(args.caps if args.caps is not None else (() if args.smoke else CHECK_CARDS_GB))
        if name.endswith("7b") else (),
        cap_precisions=tuple(args.cap_precisions),
        profile=args.profile and (name.endswith("7b") or args.smoke and name.startswith("tiny")),
        frames=args.frames or (5 if args.smoke else 60)) for name in models}
    if args.estimate:
        return print_estimate(models, options, args)
    device = torch.device("cuda" if torch.cuda.is_available() and not args.smoke else "cpu")
    if device.type == "cpu" and not args.smoke:
        print("no CUDA device: run with --smoke for the CPU check", file=sys.stderr)
        return 2
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    out = args.out or (SMOKE_OUT if args.smoke else RESULTS / "gpu_check.json")
    budget = args.budget_s if args.budget_s is not None else (None if args.smoke else BUDGET_S)
    report = Report(out, {
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else platform.processor() or "cpu",
        "cpu": cpu_model(), "cores": os.cpu_count(),
        "torch": torch.__version__, "dtype": str(dtype), "smoke": args.smoke, "budget_s": budget,
        "estimate_s": round(TOP_STAGE_S["copy_bandwidth"] + TOP_STAGE_S["kernels"] * (not args.skip_kernel_times)
                            + sum(plan_s([n], options[n]) for n in models)),
        "reference_cuda_graph": os.environ.get("NO_CUDA_GRAPH", "0") in ("", "0"),
        "complete": False, "models": {}, "kernels": None,
    }, budget_s=budget, estimate_s=lambda model, stage: stage_estimate_s(
        model, stage, options[model].frames if model in options else 60))
    bandwidth = report.stage(None, "copy_bandwidth", lambda: copy_bandwidth(device, (64 << 20) if args.smoke
                                                                             else (1 << 30)) / 1e9,
                             record=lambda gb_s: round(gb_s, 1))
    bandwidth = bandwidth * 1e9 if bandwidth else None
    report.data["copy_bandwidth_gb_s"] = report.data.pop("copy_bandwidth")  # the name it always had
    if args.skip_kernel_times:
        report.data["kernels"] = {"skipped": "--skip-kernel-times"}
    else:
        report.stage(None, "kernels", lambda: kernel_times(device, dtype, repeats=3 if args.smoke else 20))
    for i, name in enumerate(models):
        report.reserve_s = sum(plan_s([later], options[later], optional=False) for later in models[i + 1:])
        check(name, device, dtype, bandwidth, report, options[name])
    report.data["wall_s"] = round(report.elapsed_s(), 1)
    report.data["complete"] = True
    report.write()
    print_table(report.data)
    print(f"wrote {out}")
    models_run = report.data["models"]
    errors = [f"{n}/{stage}" for n, r in models_run.items() for stage, v in r.items()
              if isinstance(v, dict) and "error" in v] + [n for n, r in models_run.items() if "check_error" in r]
    errors += [stage for stage in ("copy_bandwidth_gb_s", "kernels")
               if isinstance(report.data.get(stage), dict) and "error" in report.data[stage]]
    differ = [n for n, r in models_run.items()
              if r.get("parity_graph_vs_eager") is False]
    if errors:
        print(f"failed stages: {', '.join(errors)}", file=sys.stderr)
    if differ:
        print(f"graph and eager tokens differ for: {', '.join(differ)}", file=sys.stderr)
    return 1 if errors or differ else 0


def print_estimate(models, options: dict, args) -> int:
    """The plan: every stage of every model with its estimated seconds (``STAGE_S``), and the total."""
    total = TOP_STAGE_S["copy_bandwidth"] + TOP_STAGE_S["kernels"] * (not args.skip_kernel_times)
    for name in models:
        stages = {stage: stage_estimate_s(name, stage, options[name].frames)
                  for stage in planned_stages(name, options[name])}
        total += sum(stages.values())
        print(f"{name}: {sum(stages.values()):.0f} s  " + ", ".join(f"{k} {v:g}" for k, v in stages.items()))
    print(f"total about {total:.0f} s ({total / 60:.1f} min); optional (a budget skips them first): "
          f"{', '.join(OPTIONAL_STAGES)}")
    return 0


def print_table(report: dict) -> None:
    print(f"{report['device']}  torch {report['torch']}  {report['dtype']}  copy {report['copy_bandwidth_gb_s']} GB/s")
    kernels = report.get("kernels") or {}
    print(f"int8 kernels (ms at the 7B shapes): {kernels.get('int8_ms')}; int4: {kernels.get('int4_ms')}")
    print(f"{'model':16} {'run':24} {'median ms':>10} {'p95 ms':>8} {'x bf16':>7}  graph")
    for name, r in report["models"].items():
        runs = [(run, r.get(run) or {}) for run in ("eager", "graph", "reference")]
        runs += list((r.get("precisions") or {}).items())
        for run, v in runs:
            t = v.get("times") or {}
            if t.get("n"):
                graph = "" if "graph_active" not in v else f"{v['graph_active']} ({v.get('fallback_reason')})"
                mem = v.get("gpu_memory")
                mem = f"  {mem['peak_allocated_gb']} GB peak, {mem['device_used_gb']} GB in use" if mem else ""
                ratio = v.get("ratio_to_bf16") or ""
                print(f"{name:16} {run:24} {t['median_ms']:>10.2f} {t['p95_ms']:>8.2f} {ratio:>7}  {graph}{mem}")
            elif "error" in v:
                print(f"{name:16} {run:24} failed: {v['error']}")
        for run in ("prompt_stepwise", "prompt_chunked"):
            if "wall_s" in (r.get(run) or {}) and "error" not in r[run]:
                print(f"{name:16} {run:24} {r[run]['wall_s']:>9.2f}s for {r[run]['steps']} steps; live frames "
                      f"identical {r.get('prompt_chunked_live_frames_identical')}")
        for run in ("stream", "reference"):
            v = r.get(run) or {}
            if "real_time_factor" in v:
                print(f"{name:16} {run:24} first audio {v['first_audio_ms']} ms, {v['real_time_factor']}x real "
                      f"time ({v['frames_played']} frames)")
        greedy = r.get("greedy_float32_vs_reference") or {}
        if "identical" in greedy:
            print(f"{name:16} greedy float32 vs reference: {greedy['identical']}/{greedy['frames']} frames identical")
        for cap, v in (r.get("memory_caps") or {}).items():
            if isinstance(v, dict):
                used = (v.get("gpu_memory") or {}).get("device_used_gb")
                print(f"{name:16} {cap:24} fits {v['fits']}, {used} GB in use, estimate {v['estimate_gb']} GB "
                      f"(ok {v['estimate_ok']})")
        print(f"{name:16} floor bf16: {(r.get('floor') or {}).get('floor_ms')} ms; "
              f"parity {r.get('frames_identical')}/{r.get('frames')}; ours/reference {r.get('ours_over_reference')}")
