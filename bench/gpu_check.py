"""One GPU check (< 5 minutes on a CUDA machine): CUDA graph vs eager parity, per-frame times,
int8, the reference on the same GPU, and the memory-bandwidth floor.

For the demo model (built locally, no download) and for random-weight models with the full 7B
Moshi and PersonaPlex configurations (built on the device in bf16):

- eager ``FrameStep`` vs graph ``FrameStep`` from the same seed over ``--frames`` frames (sampled):
  the tokens must be identical (``parity``);
- per-frame time with CUDA events (median, p99): eager, graph, graph + int8 weight-only (with the
  int8 kernel the engine chose by timing, fused or unfused, and with the other one), each run
  with whether it really replayed a graph (``graph_active``) or why not (``fallback_reason``);
- the reference ``moshi`` LMGen + Mimi (its own CUDA graphs, no torch.compile) on the same GPU;
- demo only (both load its files): ours and the reference greedy in float32 on the same GPU, the
  frames whose tokens are identical (exactness on the device, not only on the CPU);
- the GPU memory each run needed (peak allocated; in use on the device with the CUDA context);
- the bandwidth floor: bytes touched per frame (LM weights without embeddings, the temporal KV
  ring read by attention, Mimi's weights) / measured device-to-device copy bandwidth.

Each stage (build, eager, graph, int8, reference, ...) is written to the JSON as soon as it ends;
a stage that fails is recorded with its error and the others still run (exit status 1).

Graph frames run under ``torch.cuda.set_sync_debug_mode("error")`` (a host sync raises) and the
capture uses ``capture_error_mode="global"`` (inside ``FrameStep``).

    python -m bench.gpu_check                 # CUDA: writes bench/results/gpu_check.json
    python -m bench.gpu_check --smoke --out X # CPU: tiny LMs and the demo, 5 frames (CI keeps it working)
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import sys
import time
import traceback
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("NO_TORCH_COMPILE", "1")  # the reference: compiling needs Triton and minutes

import torch  # noqa: E402

from bench.common import summary  # noqa: E402
from engine.atomic import write_atomically  # noqa: E402
from engine.codec.mimi import Mimi, MimiConfig, load_mimi  # noqa: E402
from engine.files.hub_layout import MIMI_NAME, MOSHI_NAME  # noqa: E402
from engine.kernels.quantize import (  # noqa: E402
    _FUSED,
    KERNEL_CHOICES,
    fused_kernel_usable,
    quantize_lm_int8,
    weight_bytes,
)
from engine.lm.generate import SamplingConfig, make_generator  # noqa: E402
from engine.lm.model import LMConfig, LMModel, load_lm  # noqa: E402
from engine.lm.personaplex import VoicePrompt, run_prompt_phases  # noqa: E402
from engine.runtime.cpu import cpu_model  # noqa: E402
from engine.runtime.frame_step import FrameStep, sync_debug_error  # noqa: E402
from engine.runtime.gpu_memory import kv_cache_bytes  # noqa: E402
from engine.runtime.prompt_steps import PromptSteps  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
MODELS = ("demo", "moshi-7b", "personaplex-7b", "tiny", "tiny-personaplex")
PROMPT_VOICE_FRAMES = 125  # a 10 s voice recording at 12.5 frames/s
PROMPT_TEXT_TOKENS = 30  # a one-sentence role prompt with its <system> tags

TINY = LMConfig(dim=64, num_heads=4, num_layers=2, text_card=100, depformer_dim=32, depformer_dim_feedforward=64,
                depformer_num_heads=2, depformer_num_layers=1, context=50)
TINY_REFERENCE = dict(dim=64, num_heads=4, num_layers=2, text_card=100, depformer_dim=32,
                      depformer_dim_feedforward=64, depformer_num_heads=2, depformer_num_layers=1, context=50)


class Clock:
    """Per-call milliseconds: CUDA events on a GPU, perf_counter on the CPU."""

    def __init__(self, device: torch.device):
        self.cuda = device.type == "cuda"

    def time(self, fn):
        if self.cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            out = fn()
            end.record()
            end.synchronize()
            return out, start.elapsed_time(end)
        t0 = time.perf_counter()
        out = fn()
        return out, (time.perf_counter() - t0) * 1e3


def run_ours(mimi, lm, inputs, device, graph: bool, seed: int = 7, sampling: SamplingConfig = SamplingConfig()
             ) -> dict:
    """Tokens of every frame, the times of the frames after the capture point and, on CUDA, the
    memory the run needed (``gpu_memory``)."""
    if device.type == "cuda":
        release(device)
        torch.cuda.reset_peak_memory_stats(device)
    gen = make_generator(lm, sampling)
    step = FrameStep(mimi, gen, {"mimi": mimi.init_state(1), "gen": gen.init_state(1, seed)}, use_cuda_graph=graph)
    clock, tokens, ms = Clock(device), [], []

    def guarded(pcm, i):
        replaying = step.graph_active and device.type == "cuda"
        with sync_debug_error() if replaying else nullcontext():  # replay: a host sync raises
            return step(pcm, i)

    for i, pcm in enumerate(inputs):
        timed = i > gen.first_output_frame + step.aligned.warmup  # after the capture frame: replay (or eager)
        (text, audio, _), t = clock.time(lambda pcm=pcm, i=i: guarded(pcm, i))
        tokens.append([int(text[0])] + audio[0].tolist())
        if timed:
            ms.append(t)
    return {"tokens": tokens, "times": summary(ms), "graph_active": step.graph_active,
            "fallback_reason": step.fallback_reason, "gpu_memory": gpu_memory(device)}


def gpu_memory(device: torch.device) -> dict | None:
    """GB the process needs on the GPU: the allocator's peak since the last reset (weights, state,
    the graph's pool) and what the device has in use now (with the CUDA context and the cache)."""
    if device.type != "cuda":
        return None
    free, total = torch.cuda.mem_get_info(device)
    return {"peak_allocated_gb": round(torch.cuda.max_memory_allocated(device) / 1e9, 2),
            "device_used_gb": round((total - free) / 1e9, 2)}


def run_reference(mimi, lm, inputs, device, greedy: bool = False) -> dict:
    """The reference package's frames (imported here: a missing ``moshi`` fails this stage only):
    the times after warm-up and the tokens of every frame that has output."""
    from moshi.models.lm import LMGen

    gen = LMGen(lm, use_sampling=not greedy)
    clock, ms, tokens = Clock(device), [], []

    def frame(pcm):
        tokens = gen.step(mimi.encode(pcm))
        if tokens is not None:
            mimi.decode(tokens[:, 1:9])
        return tokens

    with torch.inference_mode(), mimi.streaming(1), gen.streaming(1):
        for i, pcm in enumerate(inputs):
            out, t = clock.time(lambda pcm=pcm: frame(pcm))
            if out is not None:
                tokens.append(out[0, :, 0].tolist())
            if i > 3:
                ms.append(t)
    return {"times": summary(ms), "tokens": tokens}


def greedy_parity(name: str, device: torch.device, inputs) -> dict:
    """Ours (graph replay) and the reference, both greedy in float32 on ``device``, from the same
    audio: how many frames with output give the same tokens, and the first that does not (a
    difference feeds back into every later frame). On the CPU every frame agrees (tests)."""
    ours = run_ours(*build_ours(name, device, torch.float32), inputs, device, graph=True,
                    sampling=SamplingConfig.greedy())
    release(device)
    reference = run_reference(*build_reference(name, device, torch.float32), inputs, device, greedy=True)
    a = [t for t in ours["tokens"] if t[0] != -2]  # -2: no output yet (the reference returns None)
    b = reference["tokens"]
    same = [x == y for x, y in zip(a, b)]
    return {"frames": len(same), "identical": sum(same), "first_difference": same.index(False) if False in same
            else None, "lengths": [len(a), len(b)]}


def run_prompt(lm, device, graph: bool, seed: int = 9) -> dict:
    """PersonaPlex's prompt phases from a fresh state, as a session starts: wall time (the first run
    on a new state includes the graphs' warm-up and capture) and every step's outputs."""
    gen = make_generator(lm, SamplingConfig())
    state = gen.init_state(1, seed)
    rng = torch.Generator().manual_seed(5)
    dtype = next(lm.parameters()).dtype
    embeddings = 0.02 * torch.randn(PROMPT_VOICE_FRAMES, 1, 1, lm.config.dim, generator=rng)
    voice = VoicePrompt(embeddings=embeddings.to(device, dtype), cache=state["tokens"]["cache"].clone())
    text = torch.randint(0, lm.config.text_card, (PROMPT_TEXT_TOKENS,), generator=rng).tolist()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    t0 = time.perf_counter()
    with torch.inference_mode():
        runner = PromptSteps(gen, state, use_cuda_graph=graph)
        steps = run_prompt_phases(gen, state, voice, text, steps=runner)
        outputs = [(s.phase, s.text.tolist(), s.audio.tolist()) for s in steps]  # reads sync the device
    return {"steps": len(steps), "wall_s": round(time.perf_counter() - t0, 3), "graphs_active": runner.graphs_active,
            "fallback_reason": runner.forced_step.fallback_reason, "tokens": outputs}


def copy_bandwidth(device: torch.device, nbytes: int) -> float:
    """Device-to-device copy bandwidth in bytes/s, counting the read and the write."""
    src = torch.empty(nbytes, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    clock = Clock(device)
    dst.copy_(src)
    times = [clock.time(lambda: dst.copy_(src))[1] for _ in range(10)]
    return 2 * nbytes / (statistics.median(times) / 1e3)


def touched_bytes(mimi, lm, state_bytes_kv: int) -> int:
    """Weight bytes read per frame: the LM without its embedding tables (only 17 rows are read),
    the temporal KV ring (attention reads every slot, masked), and Mimi's weights."""
    embeddings = sum(p.numel() * p.element_size() for n, p in lm.named_parameters() if "emb" in n)
    codec = sum(p.numel() * p.element_size() for p in mimi.parameters())
    return weight_bytes(lm)["total"] - embeddings + state_bytes_kv + codec


def build_ours(name: str, device: torch.device, dtype: torch.dtype):
    """(mimi, lm): the demo's files, or random weights with the 7B (or a tiny) configuration."""
    if name == "demo":
        folder = demo_folder()
        config = LMConfig.from_hub_config(json.loads((folder / "config.json").read_text()))
        return (load_mimi(folder / MIMI_NAME, device=device),
                load_lm(folder / MOSHI_NAME, config, device=device, dtype=dtype))
    torch.manual_seed(0)
    mimi = Mimi(MimiConfig()).to(device).eval().requires_grad_(False)
    mimi.prepare()
    config = {"tiny": TINY, "tiny-personaplex": replace(TINY, dep_q=16, model_type="personaplex"),
              "moshi-7b": LMConfig.moshi_7b(), "personaplex-7b": LMConfig.personaplex_7b()}[name]
    return mimi, LMModel(config, device=device, dtype=dtype).eval().requires_grad_(False)


def build_reference(name: str, device: torch.device, dtype: torch.dtype):
    """The reference package's (mimi, lm) for the same model (random weights of its own for 7B)."""
    from moshi.models import loaders

    if name == "demo":
        folder = demo_folder()
        info = loaders.CheckpointInfo.from_hf_repo(
            "local", moshi_weights=folder / MOSHI_NAME, mimi_weights=folder / MIMI_NAME,
            tokenizer=next(folder.glob("*.model")), config_path=folder / "config.json")
        return info.get_mimi(device=device), info.get_moshi(device=device, dtype=dtype)
    overrides = TINY_REFERENCE if name == "tiny" else {}
    return (loaders.get_mimi(None, device=device),
            loaders.get_moshi_lm(None, device=device, dtype=dtype, lm_kwargs_overrides=overrides))


def demo_folder() -> Path:
    from engine.files.demo import ensure_demo_model

    return ensure_demo_model()


class Report:
    """The JSON report, written (atomically) after every stage, so a crash or a kill loses at most
    the stage that was running. A stage that raises is recorded with its error; the rest go on."""

    def __init__(self, path: Path, data: dict):
        self.path, self.data = path, data
        self.write()

    def write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(self.path, (json.dumps(self.data, indent=2) + "\n").encode())

    def stage(self, model: str, name: str, fn, record=None):
        """Run one stage: ``record(result)`` (default: the result without its tokens), or
        ``{"error": ...}``, goes under models/model/name. Returns the full result (``None`` on failure)."""
        entry = self.data["models"].setdefault(model, {})
        t0 = time.perf_counter()
        try:
            full = fn()
        except Exception as e:  # a failed stage is a result too; the next stages still run
            traceback.print_exc()
            entry[name] = {"error": f"{type(e).__name__}: {e}", "wall_s": round(time.perf_counter() - t0, 1)}
            self.write()
            return None
        entry[name] = record(full) if record else {k: v for k, v in full.items() if k != "tokens"}
        self.write()
        return full


def check(name: str, device: torch.device, dtype: torch.dtype, frames: int, bandwidth: float,
          report: Report) -> None:
    """Every stage of one model, each recorded in ``report`` as it finishes (see ``Report``)."""
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}: expected one of {', '.join(MODELS)}")
    built = report.stage(name, "build", lambda: dict(zip(("mimi", "lm"), build_ours(name, device, dtype))),
                         record=lambda _: {"ok": True})
    entry = report.data["models"][name]
    entry["frames"] = frames
    gen = torch.Generator().manual_seed(1)
    inputs = [(0.1 * torch.randn(1, 1, 1920, generator=gen)).to(device) for _ in range(frames)]
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
        if lm.config.is_personaplex:
            eager_prompt = report.stage(name, "prompt_eager", lambda: run_prompt(lm, device, graph=False))
            graph_prompt = report.stage(name, "prompt_graph", lambda: run_prompt(lm, device, graph=True))
            if eager_prompt and graph_prompt:  # None where no graph replayed (eager against eager)
                entry["prompt_parity_graph_vs_eager"] = (eager_prompt["tokens"] == graph_prompt["tokens"]
                                                         if graph_prompt["graphs_active"] else None)
        if report.stage(name, "quantize_int8", lambda: quantize_with_choice(lm, device, dtype)) is not None:
            int8 = report.stage(name, "graph_int8", lambda: run_ours(mimi, lm, inputs, device, graph=True))
            if int8 and graph:
                entry["int8_frames_identical_to_bf16"] = sum(a == b for a, b in zip(graph["tokens"], int8["tokens"]))
            report.stage(name, "graph_int8_other_kernel", lambda: with_other_int8_kernel(
                device, dtype, lambda: run_ours(mimi, lm, inputs, device, graph=True)))
            report.stage(name, "floor_int8", lambda: floor(mimi, lm, bandwidth))
        del mimi, lm, built
    release(device)
    if name == "demo":  # both load its files: the same weights (the others are random, each its own)
        report.stage(name, "greedy_float32_vs_reference", lambda: greedy_parity(name, device, inputs))
        release(device)
    if name in ("personaplex-7b", "tiny-personaplex"):
        entry["reference"] = {"skipped": "the PersonaPlex generator is not on PyPI (NVIDIA/personaplex)"}
        reference = None
    else:
        reference = report.stage(name, "reference", lambda: run_reference(*build_reference(name, device, dtype),
                                                                           inputs, device))
    release(device)
    ours = (entry.get("graph") or {}).get("times", {}).get("median_ms")
    ref = (reference or {}).get("times", {}).get("median_ms")
    entry["ours_over_reference"] = round(ours / ref, 3) if ours and ref else None
    report.write()


def floor(mimi, lm, bandwidth: float) -> dict:
    nbytes = touched_bytes(mimi, lm, kv_cache_bytes(lm))
    return {"bytes_per_frame": nbytes, "floor_ms": round(nbytes / bandwidth * 1e3, 3)}


def quantize_with_choice(lm, device, dtype) -> dict:
    """Quantise, then make (and report) the fused-or-unfused choice for the device the LM is on."""
    quantize_lm_int8(lm)
    fused_kernel_usable(device, dtype)
    return {"kernel_choice": KERNEL_CHOICES.get((device.type, dtype))}


def with_other_int8_kernel(device, dtype, run):
    """``run`` with the int8 kernel that was not chosen (fused <-> unfused), to see the difference;
    skipped where the fused kernel is unusable."""
    key = (device.type, dtype)
    if not KERNEL_CHOICES.get(key, {}).get("fused_correct"):
        return {"skipped": "the fused kernel does not run (or disagrees) here"}
    chosen = _FUSED[key]
    _FUSED[key] = not chosen
    try:
        return {**run(), "kernel": "unfused" if chosen else "fused"}
    finally:
        _FUSED[key] = chosen


def release(device: torch.device) -> None:
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="CPU-friendly: tiny configs, a few frames")
    parser.add_argument("--frames", type=int, default=None, help="frames per run (default 60; smoke 5)")
    parser.add_argument("--models", nargs="+", default=None, help=", ".join(MODELS))
    parser.add_argument("--out", type=Path, default=None, help="JSON output (default bench/results/gpu_check.json)")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    device = torch.device("cuda" if torch.cuda.is_available() and not args.smoke else "cpu")
    if device.type == "cpu" and not args.smoke:
        print("no CUDA device: run with --smoke for the CPU check", file=sys.stderr)
        return 2
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    frames = args.frames or (5 if args.smoke else 60)
    smoke_models, gpu_models = ["tiny", "tiny-personaplex", "demo"], ["demo", "moshi-7b", "personaplex-7b"]
    models = args.models or (smoke_models if args.smoke else gpu_models)
    bandwidth = copy_bandwidth(device, (64 << 20) if args.smoke else (1 << 30))
    out = args.out or RESULTS / "gpu_check.json"
    report = Report(out, {
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else platform.processor() or "cpu",
        "cpu": cpu_model(), "cores": os.cpu_count(),
        "torch": torch.__version__, "dtype": str(dtype), "smoke": args.smoke,
        "copy_bandwidth_gb_s": round(bandwidth / 1e9, 1),
        "reference_cuda_graph": os.environ.get("NO_CUDA_GRAPH", "0") in ("", "0"),
        "complete": False, "models": {},
    })
    for name in models:
        check(name, device, dtype, frames, bandwidth, report)
    report.data["wall_s"] = round(time.perf_counter() - t0, 1)
    report.data["complete"] = True
    report.write()
    print_table(report.data)
    print(f"wrote {out}")
    models_run = report.data["models"]
    errors = [f"{n}/{stage}" for n, r in models_run.items() for stage, v in r.items()
              if isinstance(v, dict) and "error" in v]
    differ = [n for n, r in models_run.items()
              if False in (r.get("parity_graph_vs_eager"), r.get("prompt_parity_graph_vs_eager"))]
    if errors:
        print(f"failed stages: {', '.join(errors)}", file=sys.stderr)
    if differ:
        print(f"graph and eager tokens differ for: {', '.join(differ)}", file=sys.stderr)
    return 1 if errors or differ else 0


def print_table(report: dict) -> None:
    print(f"{report['device']}  torch {report['torch']}  {report['dtype']}  copy {report['copy_bandwidth_gb_s']} GB/s")
    print(f"{'model':16} {'run':24} {'median ms':>10} {'p99 ms':>8}  graph")
    for name, r in report["models"].items():
        for run in ("eager", "graph", "graph_int8", "graph_int8_other_kernel", "reference"):
            v = r.get(run) or {}
            t = v.get("times") or {}
            if t.get("n"):
                graph = "" if "graph_active" not in v else f"{v['graph_active']} ({v['fallback_reason']})"
                mem = v.get("gpu_memory")
                mem = f"  {mem['peak_allocated_gb']} GB peak, {mem['device_used_gb']} GB in use" if mem else ""
                print(f"{name:16} {run:24} {t['median_ms']:>10.2f} {t['p99_ms']:>8.2f}  {graph}{mem}")
            elif "error" in v:
                print(f"{name:16} {run:24} failed: {v['error']}")
        for run in ("prompt_eager", "prompt_graph"):
            if "wall_s" in (r.get(run) or {}) and "error" not in r[run]:
                print(f"{name:16} {run:24} {r[run]['wall_s']:>9.2f}s for {r[run]['steps']} steps, "
                      f"graphs {r[run]['graphs_active']}; parity {r.get('prompt_parity_graph_vs_eager')}")
        greedy = r.get("greedy_float32_vs_reference") or {}
        if "identical" in greedy:
            print(f"{name:16} greedy float32 vs reference: {greedy['identical']}/{greedy['frames']} frames identical")
        print(f"{name:16} floor bf16/int8: {(r.get('floor') or {}).get('floor_ms')} / "
              f"{(r.get('floor_int8') or {}).get('floor_ms')} ms; "
              f"parity {r.get('frames_identical')}/{r.get('frames')}; "
              f"int8 kernel {(r.get('quantize_int8') or {}).get('kernel_choice')}; "
              f"ours/reference {r.get('ours_over_reference')}")


if __name__ == "__main__":
    sys.exit(main())
