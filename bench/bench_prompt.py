"""PersonaPlex's prompt phases on the CPU, step by step against chunked
(``PersonaPlexGenerator.forced_steps``), on the demo-size PersonaPlex
(``engine.files.demo.write_personaplex_variant``) loaded as the app loads it (float32, packed
matmuls with this machine's kernel plan): a stored 10 s voice, the silences and a 30-token role, as
a session starts. The two alternate run by run, so machine noise hits both alike; the load average
is recorded beside the times.

    .venv/bin/python -m bench.bench_prompt [--repeats 5] [--threads 2]   # -> bench/results/prompt.json
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import torch

from bench.common import PROMPT_TEXT_TOKENS, PROMPT_VOICE_FRAMES, cpu_model, summary
from engine.files.demo import write_personaplex_variant
from engine.lm.generate import PROMPT_CHUNK_STEPS, SamplingConfig, make_generator
from engine.lm.personaplex import VoicePrompt, run_prompt_phases
from engine.runtime.loading import load_model

RESULTS = Path(__file__).resolve().parent / "results" / "prompt.json"


def prompt_seconds(gen, voice_embeddings: torch.Tensor, text: list[int], chunk_steps: int) -> tuple[float, int]:
    state = gen.init_state(1, seed=9)
    voice = VoicePrompt(embeddings=voice_embeddings, cache=state["tokens"]["cache"].clone())
    started = time.perf_counter()
    with torch.inference_mode():
        steps = run_prompt_phases(gen, state, voice, text, chunk_steps=chunk_steps)
    return time.perf_counter() - started, len(steps)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        model = load_model(str(write_personaplex_variant(Path(tmp) / "personaplex")), device="cpu",
                           precision="float32")
    gen = make_generator(model.lm, SamplingConfig())
    rng = torch.Generator().manual_seed(5)
    embeddings = 0.02 * torch.randn(PROMPT_VOICE_FRAMES, 1, 1, gen.config.dim, generator=rng)
    text = torch.randint(0, gen.config.text_card, (PROMPT_TEXT_TOKENS,), generator=rng).tolist()
    runs = {"step_by_step": 1, "chunked": PROMPT_CHUNK_STEPS}
    times: dict[str, list[float]] = {name: [] for name in runs}
    prompt_seconds(gen, embeddings, text, 1)  # warm-up
    for _ in range(args.repeats):
        for name, chunk in runs.items():
            seconds, steps = prompt_seconds(gen, embeddings, text, chunk)
            times[name].append(seconds * 1000)
    result = {name: summary(ms) for name, ms in times.items()}
    result.update(steps=steps, chunk_steps=PROMPT_CHUNK_STEPS, threads=args.threads, cpu=cpu_model(),
                  torch=torch.__version__, load_average=[round(x, 2) for x in os.getloadavg()],
                  speedup=round(result["step_by_step"]["median_ms"] / result["chunked"]["median_ms"], 2))
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
