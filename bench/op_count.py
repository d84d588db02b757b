"""Device kernels per frame, counted at the dispatch level on the CPU.

A 7B frame on a GPU replays one CUDA graph whose cost, beyond reading the weights, is about
2.2 µs a kernel (H200), so the kernel count is the figure to cut. It is counted with a
``TorchDispatchMode`` over one whole aligned frame as ``FrameStep`` runs it (Mimi's encode, the
temporal transformer, text sampling, the depth transformer with its sampling, Mimi's decode):
every ATen op that reaches the dispatcher's backend is one kernel (matmuls, means, attention and
copies included; an op that runs others counts once, as its own kernel), except the ops that
launch none: views and other metadata ops (``func.is_view`` and ``NO_KERNEL``: reshapes, slices,
allocations). The count depends on the layer counts, the codebooks and the dtype, not on the
widths, so the LM has the 7B layer counts (32 temporal, 6 depth-transformer layers, 8 or 16 steps)
with small widths, in bfloat16 as on a GPU, sampling on (the live default); Mimi is the released
codec (its size is the real one). The engine's plain ATen path is counted (no CPU kernel plan;
Mimi's prepared matmuls count one kernel each, as on a GPU).

    .venv/bin/python -m bench.op_count --json bench/results/op_count.json

writes ``{"moshi-7b": {"kernels_per_frame": N, "stages": {...}, "top": {...}}, "personaplex-7b": ...}``
(``stages``: the kernels of each of ``FrameStep``'s marks: encode, temporal, depth, decode) and, for
PersonaPlex, a prompt-phase step (every stream forced: no text head, sampling or depth transformer)
and a whole prompt (``prompt_kernels``: a 10 s stored voice, the silences and a 30-token role),
step by step and in chunks. ``kyutai-tts``: one Kyutai TTS frame past the audio delay, as
``KyutaiSpeech.stream`` runs it (the 1.6B's 16 temporal layers with cross-attention to a voice, the
summed conditions, the text choice, 32 codebooks through the 4-layer scheduled depth transformer,
sampling on, then Mimi's decode of 32 codebooks; stages temporal, depth, decode); the host's text
machine gives the step its two-token choice and reads whether a word was asked for, two copies
outside the counted step.
``kernels_per_frame`` counts the paths a CUDA bfloat16 frame takes (``cuda_paths``: the fused
RMSNorm); ``exact_path_kernels_per_frame`` the reference's exact path that float32 and the CPU take.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from collections import Counter
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from bench.common import PROMPT_TEXT_TOKENS, PROMPT_VOICE_FRAMES
from engine.codec.mimi import Mimi, MimiConfig
from engine.lm.generate import PROMPT_CHUNK_STEPS, Forcing, SamplingConfig, make_generator
from engine.lm.model import LMConfig, LMModel
from engine.lm.personaplex import VoicePrompt, run_prompt_phases
from engine.runtime.cpu import cpu_model
from engine.runtime.frame_step import FrameStep
from engine.streaming import layers

SMALL_WIDTHS = dict(dim=64, num_heads=2, hidden_scale=4.125, text_card=64, card=64, depformer_dim=32,
                    depformer_num_heads=2, depformer_dim_feedforward=132, context=50)
MODELS = {"moshi-7b": LMConfig(**SMALL_WIDTHS),
          "personaplex-7b": LMConfig.from_hub_config({**SMALL_WIDTHS, "model_type": "personaplex"})}

# Ops that launch no kernel but are not marked as views: allocations and metadata.
NO_KERNEL = {"aten::" + n for n in (
    "as_strided", "view", "_unsafe_view", "reshape", "transpose", "t", "permute", "expand", "select", "slice",
    "unsqueeze", "squeeze", "unflatten", "flatten", "alias", "detach", "unbind", "split", "split_with_sizes",
    "chunk", "empty", "empty_strided", "empty_like", "new_empty", "new_empty_strided", "lift_fresh",
    "resolve_conj", "resolve_neg", "result_type", "resize_", "_reshape_alias", "set_")}


def launches_a_kernel(func) -> bool:
    return not func.is_view and func._schema.name not in NO_KERNEL


class KernelCounter(TorchDispatchMode):
    """Counts the ops that become device kernels (``launches_a_kernel``), by name and by stage
    (``mark(stage)`` closes the stage whose ops came since the last mark)."""

    def __init__(self):
        super().__init__()
        self.kernels: Counter[str] = Counter()
        self.stages: dict[str, int] = {}
        self._since_mark = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if launches_a_kernel(func):
            self.kernels[func._schema.name] += 1
            self._since_mark += 1
        return func(*args, **(kwargs or {}))

    def mark(self, stage: str) -> None:
        self.stages[stage] = self.stages.get(stage, 0) + self._since_mark
        self._since_mark = 0

    @property
    def total(self) -> int:
        return sum(self.kernels.values())


def released_mimi() -> Mimi:
    """Mimi at the released size (random weights)."""
    torch.manual_seed(0)
    mimi = Mimi(MimiConfig()).eval().requires_grad_(False)
    mimi.prepare()
    return mimi


def frame_step(config: LMConfig, dtype: torch.dtype = torch.bfloat16, mimi: Mimi | None = None) -> FrameStep:
    """An eager ``FrameStep`` of ``config`` (seeded random weights) and Mimi, warmed up to an aligned frame."""
    mimi = mimi or released_mimi()
    torch.manual_seed(0)
    lm = LMModel(config, dtype=dtype).eval().requires_grad_(False)
    gen = make_generator(lm, SamplingConfig())
    step = FrameStep(mimi, gen, {"mimi": mimi.init_state(1), "gen": gen.init_state(1, 0)}, use_cuda_graph=False)
    step.index = 0
    for _ in range(gen.first_output_frame + 2):
        run_frame(step)
    return step


def run_frame(step: FrameStep, mark=None) -> None:
    step(0.1 * torch.ones(1, 1, step.mimi.frame_size), step.index, mark)
    step.index += 1


def count_frame(step: FrameStep) -> KernelCounter:
    """The kernels of one aligned frame of ``step``."""
    counter = KernelCounter()
    with counter:
        run_frame(step, counter.mark)
    return counter


def count_prompt_step(step: FrameStep) -> KernelCounter:
    """The kernels of a PersonaPlex prompt-phase step: every stream forced, nothing sampled."""
    gen = step.generator
    state = step.state["gen"]
    user = torch.zeros(1, gen.user_streams, dtype=torch.long)
    forced = Forcing(torch.zeros(1, gen.config.token_streams, dtype=torch.long), sample=False)
    counter = KernelCounter()
    with counter:
        gen.step(user, state, forced)
    return counter


def count_prompt(config: LMConfig, chunk_steps: int, dtype: torch.dtype = torch.bfloat16) -> KernelCounter:
    """The kernels of a whole PersonaPlex prompt as a session starts (a stored voice of
    ``PROMPT_VOICE_FRAMES``, the silences and a role of ``PROMPT_TEXT_TOKENS``), ``chunk_steps``
    forced steps a temporal-transformer call (1: step by step). The LM has the released card (the
    prompt's tokens are real Mimi codes) and the 7B's context, which holds the whole prompt."""
    torch.manual_seed(0)
    lm = LMModel(replace(config, card=2048, context=3000), dtype=dtype).eval().requires_grad_(False)
    gen = make_generator(lm, SamplingConfig())
    state = gen.init_state(1)
    rng = torch.Generator().manual_seed(5)
    voice = VoicePrompt(embeddings=0.02 * torch.randn(PROMPT_VOICE_FRAMES, 1, 1, config.dim, generator=rng).to(dtype),
                        cache=state["tokens"]["cache"].clone())
    text = torch.randint(0, config.text_card, (PROMPT_TEXT_TOKENS,), generator=rng).tolist()
    counter = KernelCounter()
    with counter:
        run_prompt_phases(gen, state, voice, text, chunk_steps=chunk_steps)
    return counter


@contextmanager
def cuda_paths():
    """The CPU takes the paths a CUDA bfloat16 frame takes where they differ (the fused RMSNorm)."""
    saved = layers.FUSED_RMS_NORM_DEVICES
    layers.FUSED_RMS_NORM_DEVICES = saved | {"cpu"}
    try:
        yield
    finally:
        layers.FUSED_RMS_NORM_DEVICES = saved


def counts(name: str, dtype: torch.dtype = torch.bfloat16, mimi: Mimi | None = None) -> dict:
    """One frame's kernels as a CUDA bfloat16 frame runs them (``kernels_per_frame``, by stage and
    the most common ops), and on the exact path float32 and the CPU take (the reference's RMSNorm)."""
    step = frame_step(MODELS[name], dtype, mimi)
    exact = count_frame(step)
    with cuda_paths():
        frame = count_frame(step)
    out = {"kernels_per_frame": frame.total, "stages": frame.stages, "top": dict(frame.kernels.most_common(15)),
           "exact_path_kernels_per_frame": exact.total, "exact_path_stages": exact.stages}
    if hasattr(step.generator, "forced_steps"):  # a generator with prompt phases
        with cuda_paths():
            out["prompt_step_kernels"] = count_prompt_step(step).total
            out["prompt_kernels"] = {"step_by_step": count_prompt(MODELS[name], 1, dtype).total,
                                     "chunked": count_prompt(MODELS[name], PROMPT_CHUNK_STEPS, dtype).total}
    return out


def count_tts_frames(dtype: torch.dtype = torch.bfloat16) -> tuple[KernelCounter, KernelCounter]:
    """The kernels of Kyutai TTS's first two frames whose audio is decoded (bench.tts_model, the
    released layer counts with small widths): the exact path's, then the CUDA paths' (``cuda_paths``)."""
    from bench import tts_model
    from engine.lm.step import Probe
    from engine.runtime.speech_frames import SpeechDecoder

    name = "kyutai-tts-small"
    torch.manual_seed(0)
    gen = tts_model.build_generator(name, torch.device("cpu"), dtype)
    mimi = tts_model.build_mimi(gen.codebooks, torch.device("cpu"))
    state, text = tts_model.voiced_state(gen, name), tts_model.machine(gen, tts_model.words_for(64))
    decoder = SpeechDecoder(mimi, gen.delay_steps, torch.device("cpu"))
    user = torch.empty(1, 0, dtype=torch.long)
    first = gen.first_output_frame + gen.delay_steps + 2  # the first frame whose audio is played
    counters = []
    for step in range(first + 2):
        choice = torch.tensor([text.choices(step)])
        counter = KernelCounter()
        counting = step >= first
        with counter if counting else contextlib.nullcontext(), cuda_paths() if step > first else \
                contextlib.nullcontext():
            result = gen.step(user, state, Forcing(text_choice=choice), Probe(mark=counter.mark))
            counter.mark("depth")
            if step >= gen.first_output_frame:
                played = decoder.push(result, None)
            counter.mark("decode")
        if counting:
            assert played is not None
            counters.append(counter)
        text.advance(step, bool(state["text_machine"]["asked_word"][0]))
    return counters[0], counters[1]


def tts_counts(dtype: torch.dtype = torch.bfloat16) -> dict:
    exact, frame = count_tts_frames(dtype)
    return {"kernels_per_frame": frame.total, "stages": frame.stages, "top": dict(frame.kernels.most_common(15)),
            "exact_path_kernels_per_frame": exact.total, "exact_path_stages": exact.stages}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the counts here")
    args = parser.parse_args(argv)
    mimi = released_mimi()
    results = {name: counts(name, mimi=mimi) for name in MODELS}
    results["kyutai-tts"] = tts_counts()
    for name, r in results.items():
        print(f"{name}: {r['kernels_per_frame']} kernels a frame {r['stages']} (the exact path: "
              f"{r['exact_path_kernels_per_frame']}); most common: {list(r['top'].items())[:8]}")
    if args.json:
        meta = {"cpu": cpu_model(), "torch": torch.__version__, "dtype": "bfloat16 (Mimi float32)"}
        args.json.write_text(json.dumps({**results, "meta": meta}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
