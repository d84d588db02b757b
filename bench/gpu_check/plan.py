"""What a run of the check does: the models, each model's stages in order, and the seconds each
is expected to take (what ``--budget-s`` and ``--estimate`` read)."""

from __future__ import annotations

from dataclasses import dataclass

from bench.gpu_check.models import DEMO, build_config
from engine.families import recognise
from engine.kernels import fp8, int8

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
# Kyutai TTS 1.6B (bench.gpu_check.speech), estimated: a random build, 60 eager frames of ~80 ms
# after a warm-up, the reference's build and its two runs.
SPEECH_STAGE_S = {"build": 10, "stream": 15, "reference": 30}
TOP_STAGE_S = {"copy_bandwidth": 1, "kernels": 40}  # kernels: the compiled candidate compiled at 4 shapes
SPEECH_MODELS = ("kyutai-tts", "tiny-tts")  # text to speech: build, stream, reference (bench.gpu_check.speech)
MODELS = (DEMO, "moshi-7b", "personaplex-7b", "tiny", "tiny-personaplex", *SPEECH_MODELS)


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
    """The kernels of ``precision`` a plan expects to run: on the CPU one run labelled with its first
    candidate (each weight shape chooses its own as it runs), every candidate on a GPU (those that
    disagree there are left out at run time)."""
    choice = CHOOSING[precision]
    return choice.cpu_kernels[:1] if device_type == "cpu" else tuple(choice.kernels)


def planned_stages(name: str, options: Options) -> list[str]:
    """The stages ``check`` runs for model ``name``, in order (the budget's plan; a test keeps the
    two the same)."""
    if name in SPEECH_MODELS:
        return ["build", "stream", "reference"]
    stages = ["build", "eager", "graph", "floor"]
    if options.profile:
        stages.append("profile")
    if takes_prompts(name):
        stages += ["prompt_stepwise", "prompt_chunked"]
    for precision in options.precisions:
        if precision in FRAMES_PER_KERNEL:
            stages += [f"build_{precision}", f"{precision}_choice",
                       *(f"graph_{precision}/{k}" for k in kernel_candidates(precision, options.device_type))]
        elif precision != "bfloat16":
            stages += [f"build_{precision}", f"graph_{precision}"]
    if options.caps:
        stages.append("memory_caps")
    if name == DEMO:
        stages.append("greedy_float32_vs_reference")
    if not takes_prompts(name):
        stages.append("reference")
        if options.device_type == "cuda":
            stages.append("reference_compiled")
    return stages


def takes_prompts(name: str) -> bool:
    """Whether the model runs a voice and role prompt before the conversation (its family's capability)."""
    return name != DEMO and recognise({"model_type": build_config(name).model_type}).takes_prompts


OPTIONAL_STAGES = ("graph_int8/compiled", "reference_compiled", "memory_caps")  # the first a budget gives up


def stage_estimate_s(model: str | None, stage: str, frames: int = 60) -> float:
    """Seconds ``stage`` is expected to take (``STAGE_S``; frame-bound stages scaled to ``frames``)."""
    if model is None:
        return TOP_STAGE_S.get(stage, SMALL_STAGE_S)
    if model == "kyutai-tts":
        return SPEECH_STAGE_S.get(stage, 10)
    if not model.endswith("7b"):
        return SMALL_STAGE_S
    seconds = STAGE_S.get(stage, STAGE_S.get(stage.split("/")[0], 10))
    return seconds * frames / 60 if stage in ("eager", "graph") or stage.startswith("graph_") else seconds


def plan_s(models, options: Options, optional: bool = True) -> float:
    """The estimated seconds of ``models``' stages (without the optional ones unless ``optional``)."""
    return sum(stage_estimate_s(name, stage, options.frames) for name in models
               for stage in planned_stages(name, options) if optional or stage not in OPTIONAL_STAGES)
