"""A PersonaPlex 7B model folder as a first user meets it, on a GPU: load, voice and role prompt,
live frames, in bfloat16, int8 and int4, through the engine's public API (``load_model``,
``new_session``, ``Session.step``).

The folder is written first in the released layout, with random weights: ``config.json`` holding
only ``{"model_type": "personaplex", "version": "7b-v1"}``, the LM file with the released 8-step
depth transformer (and its extra ``depformer_emb.7``), whose 16 steps hold each stored weight once, the
demo's Mimi file (the released size), a word-level tokenizer with a piece for every text token,
and ``voices/NATF0.pt`` as a tensors-only torch file (converted to safetensors at first use, never
unpickled). Per precision it records the load time, the host memory the load took (peak and
kept, beyond what the process held before: a quantised load must not pass the float LM through
host RAM), the session's start (CUDA-graph warm-up and capture, the voice and role prompt), the
live frames' wall time as the app sees it (host copies included), and the GPU memory in use.
Then, as on an 8, 12, 16 and 24 GB card (``cards``: the allocator capped to what such a card
leaves beside the CUDA context, and ``auto`` told that card's memory): which precision ``auto``
chooses (int4 allowed) and why, whether it loads and runs, and that bfloat16 fails with the
engine's plain message where it cannot fit.

    python -m bench.gpu_load                   # CUDA: writes bench/results/gpu_load.json
    python -m bench.gpu_load --smoke           # CPU, a small PersonaPlex, float32 and int8 (to a temporary file)
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import sentencepiece as spm
import torch
from safetensors.torch import save_file

from bench.common import PROMPT_VOICE_FRAMES, rss_bytes, summary
from bench.gpu_check.cli import RESULTS
from bench.gpu_check.frames import gpu_memory
from bench.gpu_check.models import release
from bench.gpu_check.plan import CARDS_GB
from bench.gpu_report import Report
from engine import ModelError, load_model
from engine.files.demo import ensure_demo_model
from engine.files.hub_layout import CONFIG_NAME, MIMI_NAME, MOSHI_NAME, TOKENIZER_NAME, VOICES_DIR
from engine.lm.model import LMConfig, LMModel
from engine.lm.personaplex import wrap_with_system_tags
from engine.lm.prompts import DEFAULT_ROLE
from engine.runtime import gpu_memory as gpu_budget
from engine.runtime.cpu import cpu_model

RELEASED_CONFIG = {"model_type": "personaplex", "version": "7b-v1"}
SMALL = dict(dim=512, num_heads=8, num_layers=4, context=100, text_card=4000, depformer_dim=256,
             depformer_num_heads=4, depformer_num_layers=2, depformer_dim_feedforward=1056)
VOICE_CACHE_SHAPE = (1, 17, 4)  # PersonaPlex's token cache after the voice prompt
SMOKE_OUT = Path(tempfile.gettempdir()) / "parley-gpu_load-smoke.json"  # never the stored GPU results


def write_folder(folder: Path, smoke: bool, device: torch.device) -> dict:
    """The released layout with random weights (built on ``device``, written from the host)."""
    folder.mkdir(parents=True)
    config = LMConfig(**SMALL) if smoke else LMConfig.personaplex_7b()
    released = replace(config, dep_q=8, model_type="moshi")  # the file's 8 depth-transformer steps
    dtype = torch.float32 if smoke else torch.bfloat16
    t0 = time.perf_counter()
    torch.manual_seed(0)
    lm = LMModel(released, device=device, dtype=dtype)
    tensors = {k: v.to("cpu").contiguous() for k, v in lm.state_dict().items()}
    del lm
    tensors["depformer_emb.7.weight"] = 0.02 * torch.randn(config.card + 1, config.depformer_dim).to(dtype)
    save_file(tensors, str(folder / MOSHI_NAME))
    lm_bytes = sum(t.numel() * t.element_size() for t in tensors.values())
    del tensors
    release(device)
    demo = ensure_demo_model()
    shutil.copyfile(demo / MIMI_NAME, folder / MIMI_NAME)
    (folder / TOKENIZER_NAME).write_bytes(word_tokenizer(config.text_card))
    hub_config = {**RELEASED_CONFIG, **({**SMALL, "dep_q": 16} if smoke else {})}
    (folder / CONFIG_NAME).write_text(json.dumps(hub_config))
    (folder / VOICES_DIR).mkdir()
    voice = {"embeddings": 0.02 * torch.randn(PROMPT_VOICE_FRAMES, 1, 1, config.dim).to(dtype),
             "cache": torch.zeros(VOICE_CACHE_SHAPE, dtype=torch.long)}
    torch.save(voice, folder / VOICES_DIR / "NATF0.pt")
    return {"lm_file_gb": round(lm_bytes / 1e9, 2), "write_s": round(time.perf_counter() - t0, 1)}


def word_tokenizer(pieces: int) -> bytes:
    """A SentencePiece model with as many pieces as the LM has text tokens (the demo's has 1000; a
    sampled token must name a piece): the role prompt's words and numbered fillers."""
    words = wrap_with_system_tags(DEFAULT_ROLE).split() + [f"w{i}" for i in range(pieces)]
    model = io.BytesIO()
    lines = [" ".join(words[i:i + 20]) for i in range(0, len(words), 20)]
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=model, vocab_size=pieces,
                                   model_type="word", minloglevel=2)
    return model.getvalue()


def run_precision(folder: Path, device: torch.device, precision: str, frames: int) -> dict:
    """Load, start a session with the voice and role prompt, run live frames; then let go of it all."""
    release(device)
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    t0 = time.perf_counter()
    with HostPeak() as host:
        model = load_model(str(folder), device=device.type, precision=precision, allow_int4=True)
    load_s = time.perf_counter() - t0
    after_load = gpu_memory(device)
    t0 = time.perf_counter()
    session = model.new_session(seed=1, voice_prompt="NATF0", text_prompt=DEFAULT_ROLE)
    start_s = time.perf_counter() - t0
    rng = np.random.default_rng(0)
    ms, texts = [], []
    for _ in range(frames):
        pcm = rng.normal(0, 0.1, 1920).astype(np.float32)
        t0 = time.perf_counter()
        result = session.step(pcm)
        ms.append((time.perf_counter() - t0) * 1e3)
        texts.append(result.text_token)
    out = {"precision": model.info.precision.value, "precision_reason": model.info.precision_reason,
           "load_s": round(load_s, 2), "host_load_gb": host.gb(), "gpu_after_load": after_load,
           "session_start_s": round(start_s, 2), "prompt_steps": session.generator_steps - frames,
           "graph_active": session.graph.active, "graph_reason": session.graph.reason,
           "frames": summary(ms[5:]), "first_frames_ms": [round(t, 2) for t in ms[:5]],
           "text_tokens_seen": len({t for t in texts if t is not None}), "gpu_after_frames": gpu_memory(device)}
    del session, model
    release(device)
    return out


class HostPeak:
    """Host memory (resident) during a block, sampled every 5 ms: peak and kept, in GB beyond what
    the process held when it began."""

    def __enter__(self):
        import threading

        self.start = self.peak = rss_bytes()
        self._done = threading.Event()

        def sample():
            while not self._done.is_set():
                self.peak = max(self.peak, rss_bytes())
                time.sleep(0.005)

        self._thread = threading.Thread(target=sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._done.set()
        self._thread.join()
        self.end = rss_bytes()
        self.peak = max(self.peak, self.end)

    def gb(self) -> dict:
        return {"peak": round((self.peak - self.start) / 1e9, 2), "kept": round((self.end - self.start) / 1e9, 2)}


def run_card(folder: Path, device: torch.device, card_gb: int, frames: int) -> dict:
    """As on a ``card_gb`` card: the allocator capped to what it leaves beside this process's CUDA
    context, and ``auto`` told that card's memory; what auto chooses, and whether bfloat16 fits."""
    if device.type != "cuda":
        return {"skipped": "needs a CUDA device"}
    index = device.index if device.index is not None else torch.cuda.current_device()
    release(device)
    free, total = torch.cuda.mem_get_info(index)
    context = (total - free - torch.cuda.memory_reserved(index)) / 1e9
    real_gpu = gpu_budget.Gpu.of
    card = gpu_budget.Gpu(f"{torch.cuda.get_device_name(index)} as a {card_gb} GB card", card_gb,
                          card_gb - context, tuple(torch.cuda.get_device_capability(index)))
    torch.cuda.set_per_process_memory_fraction(max(card_gb - context, 0.1) * 1e9 / total, index)
    gpu_budget.Gpu.of = classmethod(lambda cls, device: card)
    try:
        try:
            load_model(str(folder), device="cuda", precision="bfloat16")
            bf16 = {"loaded": True}
        except ModelError as e:
            bf16 = {"loaded": False, "message": str(e)}
        release(device)
        try:
            auto = run_precision(folder, device, "auto", frames)
        except ModelError as e:
            auto = {"loaded": False, "message": str(e)}
        return {"card_gb": card_gb, "context_gb": round(context, 2), "bfloat16": bf16, "auto": auto}
    finally:
        gpu_budget.Gpu.of = real_gpu
        torch.cuda.set_per_process_memory_fraction(1.0, index)
        release(device)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="CPU: a small PersonaPlex, float32 and int8")
    parser.add_argument("--frames", type=int, default=None, help="live frames per precision (default 60; smoke 8)")
    parser.add_argument("--out", type=Path, default=None,
                        help=f"JSON output (default bench/results/gpu_load.json; with --smoke {SMOKE_OUT})")
    parser.add_argument("--precisions", nargs="*", default=None,
                        help="the precisions run in full (default bfloat16 int8 int4; smoke float32 int8)")
    parser.add_argument("--cards", nargs="*", type=int, default=None,
                        help=f"card sizes (GB) to emulate (default {CARDS_GB} on CUDA)")
    args = parser.parse_args(argv)
    device = torch.device("cuda" if torch.cuda.is_available() and not args.smoke else "cpu")
    if device.type == "cpu" and not args.smoke:
        print("no CUDA device: run with --smoke for the CPU check", file=sys.stderr)
        return 2
    frames = args.frames or (8 if args.smoke else 60)
    precisions = args.precisions if args.precisions is not None else \
        ("float32", "int8") if args.smoke else ("bfloat16", "int8", "int4")
    cards = args.cards if args.cards is not None else ((16,) if args.smoke else CARDS_GB)
    report = Report(args.out or (SMOKE_OUT if args.smoke else RESULTS / "gpu_load.json"), {
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
        "cpu": cpu_model(), "cores": os.cpu_count(),
        "torch": torch.__version__, "complete": False, "models": {}})
    with tempfile.TemporaryDirectory(prefix="parley-gpu-load-") as tmp:
        folder = Path(tmp) / "personaplex-7b"
        if report.stage("personaplex-7b", "folder", lambda: write_folder(folder, args.smoke, device)) is not None:
            for precision in precisions:
                report.stage("personaplex-7b", precision, lambda p=precision: run_precision(folder, device, p, frames))
            for card in cards:
                report.stage("personaplex-7b", f"{card}gb_gpu", lambda c=card: run_card(folder, device, c, frames))
    report.data["complete"] = True
    report.write()
    entry = report.data["models"]["personaplex-7b"]
    for name, v in entry.items():
        print(name, json.dumps(v))
    failed = [name for name, v in entry.items() if "error" in v]
    if failed:
        print(f"failed stages: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
