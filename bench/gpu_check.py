"""One GPU check (about 7 minutes on an H100 or H200, ``--budget-s``): CUDA graph vs eager parity,
per-frame times in each precision (bfloat16, int8 with each kernel candidate, fp8, int4), the reference
on the same GPU, the memory-bandwidth floor, bfloat16 and int8 under the memory of a 12, 16 and
24 GB card, and where a frame's time goes (``--profile``).

For the demo model (built locally, no download) and for random-weight models with the full 7B
Moshi and PersonaPlex configurations in the released layout (built on the device as a load
builds them: ``random_lm``):

- eager ``FrameStep`` vs graph ``FrameStep`` from the same seed over ``--frames`` frames (sampled):
  the tokens must be identical (``parity``);
- per-frame time with CUDA events (median, p95, p99): eager, graph, and per quantised precision
  (``precisions``): the graph with int8 weights through each kernel candidate that agrees with its
  dequantised reference (``engine.kernels.int8``; which one the engine chose by timing), with fp8
  weights (the kernel the engine chose, ``engine.kernels.fp8``) and with int4 weights; each with the
  ratio of its median to bfloat16's, the time to build and quantise (``load_s``), the tokens
  identical to bfloat16's, and whether it really replayed a graph
  (``graph_active``) or why not (``fallback_reason``);
- ``kernels``: each int8 and fp8 candidate's time at the 7B matmul shapes, and the int4 ones (the plain
  dequantising path and torch's ``_weight_int4pack_mm`` on its tiled layout), each against its
  reference;
- ``memory_caps`` (``--caps``, ``--cap-precisions``): per precision and card size, the process
  limited with ``torch.cuda.set_per_process_memory_fraction`` to what such a card leaves beside
  this CUDA context: the model built, quantised and run for a few frames (the KV cache is
  allocated for the full context from the start), whether it fit, the memory in use, and the
  estimate (``engine.runtime.gpu_memory.needed_gb``) that must not be below it (``estimate_ok``;
  ``bench/gpu_memory_caps.py``);
- ``profile`` (``--profile``; 7B models): torch.profiler with CUDA activity over one eager frame and
  20 graph replays: kernels per frame, the top 30 kernels by time, attention µs per call, the
  matrix-vector products' GB/s per shape (``bench/gpu_profile.py``);
- the reference ``moshi`` LMGen + Mimi (its own CUDA graphs) on the same GPU, without its
  torch.compile (``reference``) and, on CUDA, with it (``reference_compiled``: as its users run it);
- demo only (both load its files): ours and the reference greedy in float32 on the same GPU, the
  frames whose tokens are identical (exactness on the device, not only on the CPU);
- the GPU memory each run needed (peak allocated; in use on the device with the CUDA context);
- the bandwidth floor: bytes touched per frame (LM weights without embeddings, the temporal KV
  ring read by attention, Mimi's weights) / measured device-to-device copy bandwidth.

Each stage (the copy bandwidth, the kernel timings, and per model build, eager, graph, int8,
reference, ...) is written to the JSON as soon as it ends; a stage that fails is recorded with its
error and the others still run (exit status 1). ``--budget-s`` (default 420 on CUDA: one short
call) skips a stage whose estimate (``STAGE_S``) would not finish in the time left beside what the
next models' stages need; ``--estimate`` prints the plan and its total without running anything.
Nothing here needs soxr, platformdirs or the app's packages (the device image has none of them);
the reference needs ``moshi`` (see bench/README.md).

Graph frames run under ``torch.cuda.set_sync_debug_mode("error")`` (a host sync raises) and the
capture uses ``capture_error_mode="global"`` (inside ``FrameStep``).

    python -m bench.gpu_check                 # CUDA: writes bench/results/gpu_check.json
    python -m bench.gpu_check --estimate      # the stages a run would take, and their seconds
    python -m bench.gpu_check --smoke         # CPU: tiny LMs and the demo, 5 frames (CI keeps it working);
                                              # writes SMOKE_OUT unless --out says where
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import traceback
from contextlib import nullcontext
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import torch

from bench import gpu_memory_caps
from bench.common import PROMPT_TEXT_TOKENS, PROMPT_VOICE_FRAMES, summary
from bench.gpu_profile import profile_frames
from bench.gpu_report import Report
from engine.codec.mimi import Mimi, MimiConfig, load_mimi
from engine.files.hub_layout import MIMI_NAME, MOSHI_NAME
from engine.kernels import fp8, int4_tiled, int8
from engine.kernels.int4 import Int4Weight
from engine.kernels.int4_tiled import TiledInt4
from engine.kernels.kernel_choice import KernelChoice, time_call
from engine.kernels.quantize import load_targets, quantizer, weight_bytes
from engine.lm.generate import PROMPT_CHUNK_STEPS, SamplingConfig, make_generator
from engine.lm.model import UNGENERATED_TOKEN, LMConfig, LMModel, load_lm, share_stored_steps
from engine.lm.personaplex import VoicePrompt, run_prompt_phases
from engine.runtime.cpu import cpu_model
from engine.runtime.frame_step import FrameStep, sync_debug_error
from engine.runtime.gpu_memory import kv_cache_bytes

RESULTS = Path(__file__).resolve().parent / "results"
SMOKE_OUT = Path(tempfile.gettempdir()) / "parley-gpu_check-smoke.json"  # never the stored GPU results
CARDS_GB = (8, 12, 16, 24)  # what gpu_load emulates
CHECK_CARDS_GB = (12, 16, 24)  # the memory caps this check runs each 7B model under
CAP_PRECISIONS = ("bfloat16", "int8")
QUANTISED = ("int8", "fp8", "int4")
CHOOSING = {"int8": int8.CHOICE, "fp8": fp8.CHOICE}  # the precisions whose matmuls choose among kernels
# Those whose graph frames run once per candidate that agrees (fp8's two run as chosen: its
# candidates are timed at the 7B shapes by the kernel timings, which keeps the check near 7 minutes).
FRAMES_PER_KERNEL = ("int8",)
BUDGET_S = 420.0  # one short GPU call: the whole check, both 7B models, in 7 minutes
# Seconds a stage takes for a 7B model on an H100/H200 at the default 60 frames. Measured on the
# H200 (bench/results/gpu_check.json: the whole earlier check, build, eager, graph, two int8 kernels
# and the reference for the demo and both 7B models, took 56 s; per frame: eager 79-88 ms, graph
# 13-17 ms, int8 33-92 ms, the reference 21 ms; the prompt 4.3 s eager step by step),
# rounded up. Estimated, never measured there: the compiles (Inductor's int8 matmul at ~11 shapes
# with coordinate-descent tuning, once per process; the reference's torch.compile), int4 (its build
# tiles every stored step for ``_weight_int4pack_mm`` and lets go of the stored copies; its frames,
# one fused kernel a matmul reading half int8's bytes, are counted as int8's), the profiler and the
# memory caps (6 builds, 3 of them failing part-way). Stages of the demo and the tiny models:
# SMALL_STAGE_S each.
STAGE_S = {"build": 5, "eager": 6, "graph": 3, "floor": 1, "profile": 8, "prompt_stepwise": 6, "prompt_chunked": 2,
           "build_int8": 6, "int8_choice": 5, "graph_int8": 6, "graph_int8/compiled": 40, "build_fp8": 6,
           "fp8_choice": 5, "graph_fp8": 6, "build_int4": 8,
           "graph_int4": 6, "memory_caps": 40, "reference": 5, "reference_compiled": 45}
SMALL_STAGE_S = 3
TOP_STAGE_S = {"copy_bandwidth": 1, "kernels": 40}  # kernels: the compiled candidate compiled at 4 shapes
MODELS = ("demo", "moshi-7b", "personaplex-7b", "tiny", "tiny-personaplex")
PROMPT_CHECK_FRAMES = 8  # greedy live frames after the prompt, compared between chunked and stepwise

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


def allocated_bytes(device: torch.device) -> int | None:
    """What the process's tensors hold on the GPU now (after a build: the model's weights and
    Mimi, to set beside ``weight_bytes``: int4 held once as tiles is its int4 size, not twice it)."""
    return torch.cuda.memory_allocated(device) if device.type == "cuda" else None


def gpu_memory(device: torch.device) -> dict | None:
    """GB the process needs on the GPU: the allocator's peak since the last reset (weights, state,
    the graph's pool) and what the device has in use now (with the CUDA context and the cache)."""
    if device.type != "cuda":
        return None
    free, total = torch.cuda.mem_get_info(device)
    return {"peak_allocated_gb": round(torch.cuda.max_memory_allocated(device) / 1e9, 2),
            "device_used_gb": round((total - free) / 1e9, 2)}


def run_reference(mimi, lm, inputs, device, greedy: bool = False, compiled: bool = False) -> dict:
    """The reference package's frames (imported here: a missing ``moshi`` fails this stage only):
    the times after warm-up and the tokens of every frame that has output. ``compiled``: with the
    package's own torch.compile of its small functions (as its users run it), else without."""
    from moshi.models.lm import LMGen
    from moshi.utils.compile import no_compile

    gen = LMGen(lm, use_sampling=not greedy)
    clock, ms, tokens = Clock(device), [], []

    def frame(pcm):
        tokens = gen.step(mimi.encode(pcm))
        if tokens is not None:
            mimi.decode(tokens[:, 1:9])
        return tokens

    with torch.inference_mode(), mimi.streaming(1), gen.streaming(1), nullcontext() if compiled else no_compile():
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
    a = [t for t in ours["tokens"] if t[0] != UNGENERATED_TOKEN]  # no output yet (the reference returns None)
    b = reference["tokens"]
    same = [x == y for x, y in zip(a, b)]
    return {"frames": len(same), "identical": sum(same), "first_difference": same.index(False) if False in same
            else None, "lengths": [len(a), len(b)]}


def run_prompt(lm, device, chunk_steps: int, seed: int = 9) -> dict:
    """PersonaPlex's prompt phases from a fresh state, as a session starts (``chunk_steps`` forced
    steps a temporal-transformer call; 1: step by step), then ``PROMPT_CHECK_FRAMES`` greedy live
    frames: wall time of the prompt, and the live frames' tokens (which a chunked prompt changes only
    through rounding)."""
    gen = make_generator(lm, SamplingConfig.greedy())
    state = gen.init_state(1, seed)
    rng = torch.Generator().manual_seed(5)
    dtype = next(lm.parameters()).dtype
    embeddings = 0.02 * torch.randn(PROMPT_VOICE_FRAMES, 1, 1, lm.config.dim, generator=rng)
    voice = VoicePrompt(embeddings=embeddings.to(device, dtype), cache=state["tokens"]["cache"].clone())
    text = torch.randint(0, lm.config.text_card, (PROMPT_TEXT_TOKENS,), generator=rng).tolist()
    users = torch.randint(0, lm.config.card, (PROMPT_CHECK_FRAMES, 1, gen.user_streams), generator=rng).to(device)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    t0 = time.perf_counter()
    with torch.inference_mode():
        steps = run_prompt_phases(gen, state, voice, text, chunk_steps=chunk_steps)
        steps[-1].text.tolist()  # a read: the device has finished the prompt
        wall_s = time.perf_counter() - t0
        live = [[t.tolist() for t in gen.step(user, state)] for user in users]
    return {"steps": len(steps), "chunk_steps": chunk_steps, "wall_s": round(wall_s, 3), "live_tokens": live}


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


def build_ours(name: str, device: torch.device, dtype: torch.dtype, precision: str = "bfloat16"):
    """(mimi, lm): the demo's files, or random weights with the 7B (or a tiny) configuration, in
    the released layout (PersonaPlex: 8 stored depth-transformer steps, held once), with the LM's
    matmul weights at ``precision`` (int4: tiled for the fused kernel as a load does, on a GPU each
    tiled weight then held once, as tiles: ``engine.kernels.int4_tiled.prepare_tiles``)."""
    if name == "demo":
        folder = demo_folder()
        mimi = load_mimi(folder / MIMI_NAME, device=device)
        lm = load_lm(folder / MOSHI_NAME, build_config(name), device=device, dtype=dtype, quantize=quantizer(precision))
    else:
        torch.manual_seed(0)
        mimi = Mimi(MimiConfig()).to(device).eval().requires_grad_(False)
        mimi.prepare()
        lm = random_lm(build_config(name), device, dtype, precision)
    if precision == "int4":
        print(f"{name}: {int4_tiled.prepare_tiles(lm).summary()}", flush=True)
    return mimi, lm


def random_lm(config: LMConfig, device: torch.device, dtype: torch.dtype, precision: str) -> LMModel:
    """An LM with seeded random weights, built as a load builds it: on the meta device, PersonaPlex's
    steps shared as its released 8-step file would have them, quantised there, then each weight
    filled in place (a quantised one quantises its float rows), so that no float copy of a
    quantised LM occupies the device. Every precision draws the same float weights."""
    with torch.device("meta"):
        lm = LMModel(config, dtype=dtype)
    if config.is_personaplex:
        released = LMModel(replace(config, dep_q=config.dep_q // 2, model_type="moshi"), device="meta")
        shapes = {k: tuple(v.shape) for k, v in released.state_dict().items()}
        share_stored_steps(lm, {**shapes, "depformer_emb.7.weight": (config.card + 1, config.depformer_dim)})
    quantize = quantizer(precision)
    if quantize is not None:
        quantize(lm)
    lm = lm.to_empty(device=device)
    gen = torch.Generator(device=device).manual_seed(0)
    with torch.no_grad():
        for key, target in sorted(load_targets(lm).items()):
            shape = tuple(target.shape)
            if len(shape) != 2:  # the norms' gains (and layer scales)
                target.copy_(torch.ones(shape, device=device))
                continue
            w = torch.randn(shape, generator=gen, device=device)
            target.copy_(w if "emb" in key else w * shape[1] ** -0.5)
    return lm.eval().requires_grad_(False)


def build_config(name: str) -> LMConfig:
    if name == "demo":
        return LMConfig.from_hub_config(json.loads((demo_folder() / "config.json").read_text()))
    tiny_personaplex = LMConfig.from_hub_config({**asdict(TINY), "model_type": "personaplex"})
    return {"tiny": TINY, "tiny-personaplex": tiny_personaplex,
            "moshi-7b": LMConfig.moshi_7b(), "personaplex-7b": LMConfig.personaplex_7b()}[name]


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


@dataclass(frozen=True)
class Options:
    """What a run does beside each model's core stages."""

    device_type: str = "cuda"
    precisions: tuple[str, ...] = ("bfloat16", *QUANTISED)
    caps: tuple[int, ...] = ()
    cap_precisions: tuple[str, ...] = CAP_PRECISIONS
    profile: bool = False
    frames: int = 60


def kernel_candidates(precision: str, device_type: str) -> tuple[str, ...]:
    """The kernels of ``precision`` a plan expects to run: the CPU's one, every candidate on a GPU
    (those that disagree there are left out at run time)."""
    choice = CHOOSING[precision]
    return (choice.cpu_kernel,) if device_type == "cpu" else tuple(choice.kernels)


def planned_stages(name: str, options: Options) -> list[str]:
    """The stages ``check`` runs for model ``name``, in order (the budget's plan; a test keeps the
    two the same)."""
    stages = ["build", "eager", "graph", "floor"]
    if options.profile:
        stages.append("profile")
    if is_personaplex(name):
        stages += ["prompt_stepwise", "prompt_chunked"]
    for precision in options.precisions:
        if precision in FRAMES_PER_KERNEL:
            stages += [f"build_{precision}", f"{precision}_choice",
                       *(f"graph_{precision}/{k}" for k in kernel_candidates(precision, options.device_type))]
        elif precision != "bfloat16":
            stages += [f"build_{precision}", f"graph_{precision}"]
    if options.caps:
        stages.append("memory_caps")
    if name == "demo":
        stages.append("greedy_float32_vs_reference")
    if not is_personaplex(name):
        stages.append("reference")
        if options.device_type == "cuda":
            stages.append("reference_compiled")
    return stages


def is_personaplex(name: str) -> bool:
    return name != "demo" and build_config(name).is_personaplex


OPTIONAL_STAGES = ("graph_int8/compiled", "reference_compiled", "memory_caps")  # the first a budget gives up


def stage_estimate_s(model: str | None, stage: str, frames: int = 60) -> float:
    """Seconds ``stage`` is expected to take (``STAGE_S``; frame-bound stages scaled to ``frames``)."""
    if model is None:
        return TOP_STAGE_S.get(stage, SMALL_STAGE_S)
    if not model.endswith("7b"):
        return SMALL_STAGE_S
    seconds = STAGE_S.get(stage, STAGE_S.get(stage.split("/")[0], 10))
    return seconds * frames / 60 if stage in ("eager", "graph") or stage.startswith("graph_") else seconds


def plan_s(models, options: Options, optional: bool = True) -> float:
    """The estimated seconds of ``models``' stages (without the optional ones unless ``optional``)."""
    return sum(stage_estimate_s(name, stage, options.frames) for name in models
               for stage in planned_stages(name, options) if optional or stage not in OPTIONAL_STAGES)


def check(name: str, device: torch.device, dtype: torch.dtype, bandwidth: float | None, report: Report,
          options: Options) -> None:
    """Every stage of one model, each recorded in ``report`` as it finishes (see ``Report``); what
    falls between stages is guarded too (``check_error``), so that the next model still runs."""
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}: expected one of {', '.join(MODELS)}")
    entry = report.data["models"].setdefault(name, {})
    try:
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
        if lm.config.is_personaplex:
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
    if name == "demo":  # both load its files: the same weights (the others are random, each its own)
        report.stage(name, "greedy_float32_vs_reference", lambda: greedy_parity(name, device, inputs))
        release(device)
    if is_personaplex(name):
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


def floor(mimi, lm, bandwidth: float) -> dict:
    nbytes = touched_bytes(mimi, lm, kv_cache_bytes(lm))
    return {"bytes_per_frame": nbytes, "floor_ms": round(nbytes / bandwidth * 1e3, 3)}


def build_quantised(name: str, precision: str, device: torch.device, dtype: torch.dtype):
    """(mimi, lm, seconds): ``build_ours`` at ``precision``, timed."""
    t0 = time.perf_counter()
    mimi, lm = build_ours(name, device, dtype, precision)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return mimi, lm, round(time.perf_counter() - t0, 2)


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


def agreeing_kernels(choice: KernelChoice, device: torch.device, dtype: torch.dtype) -> list[str]:
    """The kernels of ``choice`` that agree with its reference here, the one the engine chose first."""
    chosen = choice.kernel(device, dtype)
    agree = choice.measured.get((device.type, dtype), {}).get("agree", [chosen])
    return [chosen, *(k for k in agree if k != chosen)]


def with_kernel(choice: KernelChoice | None, device, dtype, kernel: str | None, run):
    """``run`` with the matmuls of ``choice`` through ``kernel`` (None, or no choice: as chosen),
    the choice restored after."""
    if choice is None or kernel is None:
        return run()
    key = (device.type, dtype)
    chosen = choice.kernel(device, dtype)
    choice.chosen[key] = kernel
    try:
        return run()
    finally:
        choice.chosen[key] = chosen


def kernel_times(device: torch.device, dtype: torch.dtype, repeats: int = 20) -> dict:
    """Each int8 and fp8 candidate at the 7B shapes (those that agree with their reference), eagerly
    and, on CUDA, replayed from a graph as a frame runs it (``int8_ms_graph``: no launch gaps between
    a many-kernel candidate's kernels); and int4: the plain dequantising path against torch's fused
    kernel on its tiled copy (``_weight_int4pack_mm``; on the CPU ``_weight_int4pack_mm_for_cpu``)."""
    shapes = int8.TIMED_SHAPES if device.type == "cuda" else ((64, 48), (32, 96))
    out: dict = {"int4_ms": {"plain": 0.0}}
    for precision, choice in CHOOSING.items():
        tried = [k for k in choice.kernels if device.type == "cuda" or k != "compiled"]  # the CPU compiles for minutes
        agree = [k for k in tried if choice.agrees(k, device, dtype)]
        out[f"{precision}_agree"] = agree
        out[f"{precision}_ms"] = choice.time(device, dtype, agree, shapes, repeats)
        if device.type == "cuda":
            out[f"{precision}_ms_graph"] = graph_kernel_times(choice, device, dtype, agree, shapes, repeats)
    gen = torch.Generator().manual_seed(0)
    for n_in, n_out in shapes:
        x = torch.randn(1, n_in, generator=gen).to(device, dtype)
        weight = Int4Weight.quantize(torch.randn(n_out, n_in, generator=gen).to(device, dtype) * n_in ** -0.5)
        calls = {"plain": functools.partial(torch.nn.functional.linear, x, weight)}
        if int4_tiled.refusal(weight) is None:
            calls["int4pack"] = int4pack_call(x, weight)
        want = calls["plain"]().float()
        for kernel, call in calls.items():
            got = call().float()
            if not bool((got - want).abs().max() <= int8.KERNEL_TOLERANCE * want.abs().max()):
                out.setdefault("int4_disagree", []).append(kernel)
            ms = statistics.median(time_call(call, device, repeats))
            out["int4_ms"][kernel] = round(out["int4_ms"].get(kernel, 0.0) + ms, 4)
    return out


def graph_kernel_times(choice: KernelChoice, device, dtype, names, shapes, repeats: int) -> dict:
    """``choice.time`` with each call replayed from a CUDA graph (a kernel that cannot be captured:
    its error instead of a time)."""
    totals: dict[str, float | str] = dict.fromkeys(names, 0.0)
    gen = torch.Generator().manual_seed(0)
    for n_in, n_out in shapes:
        x = torch.randn(1, n_in, generator=gen).to(device, dtype)
        q, scale = choice.quantize_rows(torch.randn(n_out, n_in, generator=gen).to(device, dtype))
        for name in names:
            if isinstance(totals[name], str):
                continue
            try:
                replay = graphed(functools.partial(choice.kernels[name], x, q, scale))
            except Exception as e:  # noqa: BLE001 (recorded for this kernel; the others are timed)
                totals[name] = f"{type(e).__name__}: {e}"
                continue
            totals[name] += statistics.median(time_call(replay, device, repeats))
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in totals.items()}


def graphed(call):
    """``call`` captured once into a CUDA graph after a warm-up on a side stream: its replay."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        call()
        call()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        call()
    return graph.replay


def int4pack_call(x: torch.Tensor, weight: Int4Weight):
    """torch's fused int4 matmul for ``x``'s device on ``weight`` tiled for it (as a load
    prepares it: ``engine.kernels.int4_tiled``)."""
    fused = TiledInt4(weight)
    return lambda: fused(x)


def memory_caps(name: str, device: torch.device, dtype: torch.dtype, inputs, options: Options) -> dict:
    """``gpu_memory_caps.memory_caps`` for model ``name``: built at each precision, a few graph frames."""
    if device.type != "cuda":
        return {"skipped": "needs a CUDA device"}
    return gpu_memory_caps.memory_caps(
        build_config(name), device, dtype, options.caps, options.cap_precisions,
        build=lambda precision: build_quantised(name, precision, device, dtype),
        run=lambda mimi, lm: run_ours(mimi, lm, inputs, device, graph=True))


def release(device: torch.device) -> None:
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


def prepare_environment() -> None:
    """Where platformdirs is missing (the GPU image), the demo is built in a temporary cache
    folder instead of the user's (``PARLEY_CACHE_DIR``, unless set)."""
    try:
        import platformdirs  # noqa: F401
    except ImportError:
        os.environ.setdefault("PARLEY_CACHE_DIR", str(Path(tempfile.gettempdir()) / "parley-gpu-check-cache"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
    smoke_models, gpu_models = ["tiny", "tiny-personaplex", "demo"], ["demo", "moshi-7b", "personaplex-7b"]
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


if __name__ == "__main__":
    sys.exit(main())
