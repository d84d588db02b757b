"""Frames run and timed: ours (eager or graph replay), the reference's, PersonaPlex's prompt,
greedy parity with the reference, the GPU memory a run needed and the memory-bandwidth floor."""

from __future__ import annotations

import statistics
import time
from contextlib import nullcontext

import torch

from bench.common import PROMPT_TEXT_TOKENS, PROMPT_VOICE_FRAMES, summary
from bench.gpu_check.models import build_ours, build_reference, release
from engine.kernels.quantize import weight_bytes
from engine.lm.generate import SamplingConfig, make_generator
from engine.lm.model import UNGENERATED_TOKEN
from engine.lm.personaplex import VoicePrompt, run_prompt_phases
from engine.runtime.frame_step import FrameStep, sync_debug_error
from engine.runtime.gpu_memory import kv_cache_bytes

PROMPT_CHECK_FRAMES = 8  # greedy live frames after the prompt, compared between chunked and stepwise


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


def floor(mimi, lm, bandwidth: float) -> dict:
    nbytes = touched_bytes(mimi, lm, kv_cache_bytes(lm))
    return {"bytes_per_frame": nbytes, "floor_ms": round(nbytes / bandwidth * 1e3, 3)}
