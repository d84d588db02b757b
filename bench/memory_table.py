"""The memory table per model family and precision, alone and with captions: estimated by the rule
the model manager and the loader follow (``engine.runtime.pair_memory``), on a GPU where nothing was
measured yet (the allowances are the defaults: ``gpu_memory.RUNTIME_GB`` for a conversation model,
``pair_memory.CAPTION_RUNTIME_GB`` for a caption model beside it). Nothing is loaded; nothing here
is measured (``bench/gpu_check/`` and ``bench/gpu_load.py`` measure on a GPU).

    .venv/bin/python -m bench.memory_table --json bench/results/memory-table.json   # markdown on stdout

The JSON is written by this tool only (never edited by hand). ``voices_beside_a_language_model``:
Kyutai TTS and Kyutai STT 1B beside a 1B, 3B or 8B language model that another program serves, on
8, 12, 16 and 24 GB cards (``engine.runtime.voice_memory``, the pair rule for three); the language
model's memory is estimated here from its published shape (weights at a llama.cpp quantisation, its
KV cache at ``LM_CONTEXT`` tokens in 16 bits, ``LM_RUNTIME_GB`` for the server's buffers).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engine.atomic import write_atomically
from engine.errors import ModelError
from engine.families import ALL_PRESETS, family_named
from engine.runtime.gpu_memory import RUNTIME_GB, Gpu
from engine.runtime.pair_memory import ANY_GPU, CAPTION_RUNTIME_GB, ModelShape, Need, need, plan_pair
from engine.runtime.voice_memory import SPEECH_RUNTIME_GB, plan_voices

# One preset per distinct architecture (the RL-aligned presets share moshika's and PersonaPlex's).
CONVERSATION = ("moshiko", "personaplex", "hibiki-zero", "hibiki-2b", "hibiki-1b")
CAPTIONS = ("stt-1b-en_fr", "stt-2.6b-en")
PRECISIONS = ("bfloat16", "int8", "int4", "fp8")  # fp8 multiplies natively on compute capability 8.9 and later
CAPTION_PRECISIONS = ("bfloat16", "int8")  # what the plan gives a caption model on a GPU
GPU_SIZES_GB = (8, 12, 16, 24, 32, 48, 80)
FREE_BELOW_TOTAL_GB = 0.5  # what a desktop holds of a card's memory, in the "what fits" table
VOICE, EAR = "kyutai-tts", "stt-1b-en_fr"
VOICE_CARDS_GB = (8, 12, 16, 24)
# Language models as their config.json files publish them: parameters (billions), layers, key/value
# heads, head width. Llama 3.2 1B and 3B (tied embeddings), Llama 3.1 8B.
LANGUAGE_MODELS = {"llama-3.2-1b": (1.24, 16, 8, 64), "llama-3.2-3b": (3.21, 28, 8, 128),
                   "llama-3.1-8b": (8.03, 32, 8, 128)}
LM_BITS = {"Q4_K_M": 4.85, "Q8_0": 8.5}  # llama.cpp's bits a weight (Q4_K_M: Ollama's default)
LM_CONTEXT = 8192
LM_RUNTIME_GB = 0.8  # the server's CUDA context and compute buffers (unmeasured: errs high)


def architecture(name: str) -> str:
    preset = ALL_PRESETS[name]
    if preset.config is None:
        return "not known before its download"
    return "its family's released config" if not preset.config else "its preset's own keys (engine/families)"


def need_row(n: Need) -> dict:
    return {"weights_gb": round(n.tensors.weights, 2), "kv_cache_gb": round(n.tensors.kv_cache, 3),
            "mimi_gb": round(n.tensors.mimi, 2), "allowance_gb": n.allowance_gb, "total_gb": round(n.gb, 2)}


def model_entry(name: str, captions: bool) -> dict:
    preset = ALL_PRESETS[name]
    entry = {"family": family_named(preset.family).title, "download_gb": preset.approx_gb,
             "architecture": architecture(name)}
    try:
        model = ModelShape.of_preset(name)
    except ModelError as e:
        return {**entry, "not_estimated": str(e)}
    entry["context_frames"] = model.config.context
    precisions = CAPTION_PRECISIONS if captions else PRECISIONS
    entry["precisions"] = {p: need_row(need(model, p, captions=captions)) for p in precisions}
    return entry


def pairs(conversation: str) -> dict:
    """GB the pair needs, per caption model, conversation precision and caption precision."""
    try:
        model = ModelShape.of_preset(conversation)
    except ModelError:
        return {}
    out = {}
    for name in CAPTIONS:
        captions = ModelShape.of_preset(name)
        out[name] = {p: {k: round(need(model, p).gb + need(captions, k, captions=True).gb, 2)
                         for k in CAPTION_PRECISIONS} for p in PRECISIONS}
    return out


def what_fits(total_gb: float) -> dict:
    """Per conversation model and caption model: the precisions ``auto`` plans on a card of
    ``total_gb`` ("int8 + bfloat16": conversation + captions), or why captions are off."""
    from engine.runtime.gpu_memory import Gpu

    gpu = Gpu(f"{total_gb} GB card", total_gb, total_gb - FREE_BELOW_TOTAL_GB, (8, 9))
    out = {}
    for conversation in CONVERSATION:
        try:
            model = ModelShape.of_preset(conversation)
        except ModelError:
            continue
        out[conversation] = {}
        for name in CAPTIONS:
            plan = plan_pair(model, ModelShape.of_preset(name), gpu)
            out[conversation][name] = (
                f"{plan.chosen.conversation.precision} + {plan.chosen.captions.precision}" if plan.chosen
                else "captions off" if plan.alone is not None else "does not fit")
    return out


def language_model_gb(name: str, quantisation: str) -> float:
    params_b, layers, kv_heads, head_dim = LANGUAGE_MODELS[name]
    kv_cache = 2 * layers * kv_heads * head_dim * 2 * LM_CONTEXT / 1e9
    return round(params_b * LM_BITS[quantisation] / 8 + kv_cache + LM_RUNTIME_GB, 2)


def voices_beside_a_language_model() -> dict:
    """Per card, language model and quantisation: what the three need and the precisions the voice
    and the ear take ("bfloat16 + int8"), or "does not fit"."""
    voice, ear = ModelShape.of_preset(VOICE), ModelShape.of_preset(EAR)
    alone = {p: round(need(voice, p, allowance_gb=SPEECH_RUNTIME_GB).gb, 2) for p in ("bfloat16", "int8")}
    out = {"voice": VOICE, "ear": EAR, "voice_gb": alone,
           "ear_gb": {p: round(need(ear, p, captions=True).gb, 2) for p in CAPTION_PRECISIONS},
           "language_models_gb": {n: {q: language_model_gb(n, q) for q in LM_BITS} for n in LANGUAGE_MODELS},
           "plans": {}}
    for gb in VOICE_CARDS_GB:
        gpu = Gpu(f"{gb} GB card", gb, gb - FREE_BELOW_TOTAL_GB, (8, 9))
        plans = out["plans"][str(gb)] = {}
        for name in LANGUAGE_MODELS:
            for quantisation in LM_BITS:
                lm_gb = language_model_gb(name, quantisation)
                plan = plan_voices(voice, ear, gpu, lm_gb)
                plans[f"{name} {quantisation}"] = {
                    "plan": f"{plan.chosen.conversation.precision} + {plan.chosen.captions.precision}"
                    if plan.chosen else "does not fit",
                    "total_gb": round(lm_gb + (plan.chosen.gb if plan.chosen else plan.least_gb), 2)}
    return out


def table() -> dict:
    return {
        "about": "Estimated GPU memory (GB, CUDA context included) per model and precision, alone and with a "
                 "caption model beside it; engine.runtime.pair_memory's rule on a GPU where nothing was measured. "
                 "Written by bench/memory_table.py; not measured.",
        "command": "python -m bench.memory_table --json bench/results/memory-table.json",
        "cpu": None,  # no machine's figure: the same on every CPU and GPU (nothing is measured)
        "allowances_gb": {"conversation": RUNTIME_GB, "captions_beside": CAPTION_RUNTIME_GB,
                          "speech_beside_a_language_model": SPEECH_RUNTIME_GB},
        "free_below_total_gb": FREE_BELOW_TOTAL_GB,
        "conversation_models": {n: model_entry(n, captions=False) for n in CONVERSATION},
        "caption_models": {n: model_entry(n, captions=True) for n in CAPTIONS},
        "with_captions_gb": {n: pairs(n) for n in CONVERSATION},
        "auto_plans_by_card_gb": {str(gb): what_fits(gb) for gb in GPU_SIZES_GB},
        "least_gpu_with_captions_gb": {
            n: {k: round(plan_pair(ModelShape.of_preset(n), ModelShape.of_preset(k), ANY_GPU).least_gb, 2)
                for k in CAPTIONS} for n in CONVERSATION if ALL_PRESETS[n].config is not None},
        "voices_beside_a_language_model": voices_beside_a_language_model(),
    }


def markdown(data: dict) -> str:
    lines = ["GPU memory, estimated (GB, CUDA context included; nothing measured on the GPU yet):", "",
             "| model | " + " | ".join(PRECISIONS) + " | + stt-1b-en_fr (bf16 / int8) | + stt-2.6b-en (bf16 / int8) |",
             "|---|" + "---|" * (len(PRECISIONS) + 2)]
    for name, entry in data["conversation_models"].items():
        if "precisions" not in entry:
            lines.append(f"| {name} | " + " | ".join("not known" for _ in PRECISIONS) + " | | |")
            continue
        alone = [f"{entry['precisions'][p]['total_gb']:.1f}" for p in PRECISIONS]
        with_captions = []
        for captions in CAPTIONS:
            by = data["with_captions_gb"][name][captions]
            with_captions.append(" · ".join(f"{p}: {by[p]['bfloat16']:.1f} / {by[p]['int8']:.1f}"
                                            for p in ("bfloat16", "int8")))
        lines.append(f"| {name} | " + " | ".join(alone) + " | " + " | ".join(with_captions) + " |")
    for name, entry in data["caption_models"].items():
        cells = [f"{entry['precisions'][p]['total_gb']:.1f}" if p in entry["precisions"] else "" for p in PRECISIONS]
        lines.append(f"| {name} (beside a conversation) | " + " | ".join(cells) + " | | |")
    lines += ["", "What `auto` plans with captions on a card of each size (conversation + captions):", "",
              "| card | " + " | ".join(f"{c} + {k}" for c in data["auto_plans_by_card_gb"]["8"] for k in CAPTIONS)
              + " |", "|---|" + "---|" * (len(data["auto_plans_by_card_gb"]["8"]) * len(CAPTIONS))]
    for gb, plans in data["auto_plans_by_card_gb"].items():
        lines.append(f"| {gb} GB | " + " | ".join(plans[c][k] for c in plans for k in CAPTIONS) + " |")
    voices = data["voices_beside_a_language_model"]
    lms = voices["language_models_gb"]
    lines += ["", f"{voices['voice']} (voice: {voices['voice_gb']['bfloat16']:.1f} GB in bfloat16, "
              f"{voices['voice_gb']['int8']:.1f} in int8) + {voices['ear']} (ear) beside a language model "
              f"served by another program ({LM_CONTEXT} tokens of context): voice + ear precisions, and GB in all:", "",
              "| card | " + " | ".join(f"{n} {q} ({lms[n][q]:.1f} GB)" for n in lms for q in lms[n]) + " |",
              "|---|" + "---|" * sum(len(q) for q in lms.values())]
    for gb, plans in voices["plans"].items():
        lines.append(f"| {gb} GB | " + " | ".join(f"{v['plan']} ({v['total_gb']:.1f})" for v in plans.values()) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="write the table here as JSON")
    args = parser.parse_args(argv)
    data = table()
    if args.json is not None:
        write_atomically(args.json, (json.dumps(data, indent=1) + "\n").encode())
    print(markdown(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
