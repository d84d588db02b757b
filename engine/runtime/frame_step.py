"""One frame (Mimi encode → LM step → Mimi decode) as one function of static buffers and the
session state, driven by every path that runs frames. On CUDA, live frames are captured once as a
CUDA graph after ``warmup`` eager frames, then replayed. Outputs are static buffers: callers copy."""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, replace

import torch

from ..codec.mimi import Mimi
from ..lm.generate import NO_PROBE, Forcing, Mark, Probe
from ..lm.model import UNGENERATED_TOKEN
from ..state import StateTree, clone, flatten, load_into

log = logging.getLogger(__name__)

STAGES = ("encode", "temporal", "depth", "decode")  # the marks of an eager frame, in order


@dataclass(frozen=True)
class FrameOptions:
    """How a driver runs a frame: whether Mimi encodes ``pcm_in``, whether the step reads
    ``user_codes`` as given (then Mimi's codes go to ``encoded``), whether Mimi decodes, the forcing,
    and ``steps`` per frame (Kyutai STT's reference gives its first frame twice)."""

    encode: bool = True
    codes_given: bool = False
    decode: bool = True
    forcing: Forcing | None = None
    steps: int = 1


LIVE = FrameOptions()  # what the graph captures


class FrameStep:
    """``FrameStep(mimi, generator, state, use_cuda_graph)(pcm [1, 1, 1920], step_index)``
    -> ``(text [1] long, audio [1, dep_q] long, pcm_out [1, 1, 1920])`` (static buffers).

    ``step_index`` counts generator steps (prompt included) and decides alignment. ``hidden``: an
    observer of the temporal output that writes static buffers only, part of the graph.
    """

    def __init__(self, mimi: Mimi, generator, state: StateTree, use_cuda_graph: bool = True, warmup: int = 2,
                 forcing: Forcing | None = None, hidden: Callable[[torch.Tensor], None] | None = None):
        self.mimi, self.generator, self.state = mimi, generator, state
        cache = state["gen"]["tokens"]["cache"]
        if cache.shape[0] != 1:
            raise ValueError(f"FrameStep runs one conversation (batch 1), the state has batch {cache.shape[0]}")
        device = self.device = cache.device
        pcm_dtype = mimi.pcm_dtype
        c = generator.config
        self.pcm_in = torch.zeros(1, 1, mimi.frame_size, device=device, dtype=pcm_dtype)
        self.user_codes = torch.zeros(1, generator.user_streams, dtype=torch.long, device=device)
        self.encoded = torch.zeros_like(self.user_codes)  # what Mimi encoded where the codes are given
        self.text = torch.full((1,), UNGENERATED_TOKEN, dtype=torch.long, device=device)
        self.audio = torch.full((1, c.dep_q), UNGENERATED_TOKEN, dtype=torch.long, device=device)
        self.pcm_out = torch.zeros(1, 1, mimi.frame_size, device=device, dtype=pcm_dtype)
        self.source_ended = torch.zeros(1, dtype=torch.bool, device=device)  # an interpreter's end of source
        self.forcing = forcing or Forcing(torch.zeros(1, c.token_streams, dtype=torch.long, device=device),
                                          torch.zeros(c.token_streams, dtype=torch.bool, device=device))
        self.hidden = hidden
        self.decodes = c.has_depformer  # a text-only model writes no audio
        self.aligned = GraphedStep(lambda mark=None: self.compute(LIVE, Probe(mark=mark)), device, use_cuda_graph,
                                   warmup, "frame step")

    @property
    def graph(self) -> torch.cuda.CUDAGraph | None:
        return self.aligned.graph

    @property
    def fallback_reason(self) -> str | None:
        return self.aligned.fallback_reason

    @property
    def graph_active(self) -> bool:
        """True once the frame has been captured; frames then replay the graph."""
        return self.aligned.graph is not None

    @property
    def graph_pending(self) -> bool:
        """True while a capture is still to come (CUDA, enabled, not failed, not yet captured)."""
        return self.aligned.pending

    def __call__(self, pcm: torch.Tensor, step_index: int, mark: Mark | None = None
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """A live frame: from the graph once aligned and captured; ``mark(stage)`` is called for
        each of ``STAGES`` of an eager frame (no "decode" before alignment)."""
        if tuple(pcm.shape) != tuple(self.pcm_in.shape) or pcm.device != self.device:
            raise ValueError(f"expected pcm {tuple(self.pcm_in.shape)} on {self.device}, got "
                             f"{tuple(pcm.shape)} on {pcm.device}")
        with torch.inference_mode():
            self.pcm_in.copy_(pcm)
            if step_index >= self.generator.first_output_frame:
                self.aligned(mark)
            else:  # on the warm-up's side stream while a capture is to come
                with side_stream(self.device) if self.graph_pending else nullcontext():
                    self.compute(FrameOptions(decode=False), Probe(mark=mark))
        return self.text, self.audio, self.pcm_out

    def run(self, options: FrameOptions, probe: Probe = NO_PROBE) -> None:
        """One frame run eagerly as ``options`` say, on the buffers the driver filled."""
        with torch.inference_mode():
            self.compute(options, probe)

    def prepare(self, step_index: int) -> None:
        """Warm up and capture now, before live frame ``step_index``, leaving the state as it was."""
        if not self.graph_pending:
            return
        self.rehearse(max(step_index, self.generator.first_output_frame), lambda: self.graph_pending)

    def rehearse(self, step_index: int, more) -> None:
        """Run frames of silence at aligned ``step_index`` while ``more()``, then restore the state in place."""
        saved = clone(self.state)
        silence = torch.zeros_like(self.pcm_in)
        while more():
            self(silence, step_index)
        with torch.inference_mode():
            load_into(self.state, flatten(saved))

    def compute(self, options: FrameOptions, probe: Probe) -> None:
        """The frame: encode → step → decode, on the static buffers and the state."""
        mark = probe.mark or _no_mark
        state = self.state
        if options.encode:
            codes = self.mimi.encode_step(self.pcm_in, state["mimi"])
            if options.codes_given:
                self.encoded.copy_(codes[:, :, 0])
            else:
                if self.generator.end_of_source_token is not None:
                    codes = torch.where(self.source_ended, self.generator.end_of_source_token, codes)
                self.user_codes.copy_(codes[:, :, 0])
        mark("encode")
        forcing = self.forcing if options.forcing is None else options.forcing
        step_probe = probe if self.hidden is None else replace(probe, hidden=self.hidden)
        for _ in range(options.steps):
            text, audio = self.generator.step(self.user_codes, state["gen"], forcing, step_probe)
        self.text.copy_(text)
        self.audio.copy_(audio)
        mark("depth")
        if options.decode and self.decodes:
            agent = audio[:, :self.mimi.num_codebooks, None]
            self.pcm_out.copy_(self.mimi.decode_step(agent, state["mimi"]))
            mark("decode")
        else:
            self.pcm_out.zero_()


class GraphedStep:
    """``run(*args)`` (static buffers and state only) through a CUDA graph once ``warmup`` eager runs
    went by on a side stream; eagerly where no graph can run (``fallback_reason`` says why). A replay
    runs the eager kernels in the same order: the same state, bit for bit."""

    def __init__(self, run, device: torch.device, use_cuda_graph: bool, warmup: int, what: str) -> None:
        self.run, self.device, self.warmup, self.what = run, device, warmup, what
        self.fallback_reason = graph_unavailable_reason(device, use_cuda_graph)
        self.graph: torch.cuda.CUDAGraph | None = None
        self.warm_runs = 0  # eager runs on the side stream so far (the warm-up before a capture)

    @property
    def pending(self) -> bool:
        """True while a capture is still to come (CUDA, enabled, not failed, not yet captured)."""
        return self.graph is None and self.fallback_reason is None

    def __call__(self, *args) -> None:
        if self.graph is not None:
            self.graph.replay()
        elif self.fallback_reason is not None:
            self.run(*args)
        elif self.warm_runs < self.warmup:
            with side_stream(self.device):
                self.run(*args)
            self.warm_runs += 1
        else:
            self.graph, self.fallback_reason = capture(self.run, self.device)
            if self.graph is None:
                log.warning("%s: %s", self.what, self.fallback_reason)
                self.run(*args)  # the capture ran no kernels: the state is still this step's input
            else:
                # what the eager warm-up left cached outside the graph's pool is never used again
                release_cached_blocks(self.device)
                self.graph.replay()


def graph_unavailable_reason(device: torch.device, use_cuda_graph: bool) -> str | None:
    """Why computations on ``device`` run eagerly, or None where a CUDA graph may be captured."""
    if device.type != "cuda":
        return f"runs eagerly on {device.type} (CUDA graphs need a CUDA device)"
    if not use_cuda_graph:
        return "CUDA graph turned off (--no-cuda-graph or the app's setting)"
    return None


def capture(compute, device: torch.device) -> tuple[torch.cuda.CUDAGraph | None, str | None]:
    """Capture ``compute()`` as one CUDA graph: ``(graph, None)``, or ``(None, why)``. A capture runs
    no kernels: the caller replays the graph (or computes eagerly) to get the results."""
    graph = torch.cuda.CUDAGraph()
    try:
        torch.cuda.synchronize(device)
        with torch.cuda.graph(graph, capture_error_mode="global"), sync_debug_error():
            compute()
    except Exception as e:  # noqa: BLE001 - any capture failure means: run eagerly
        torch.cuda.synchronize(device)
        return None, f"CUDA graph capture failed, running eagerly: {type(e).__name__}: {e}"
    return graph, None


def release_cached_blocks(device: torch.device) -> None:
    """Hand the CUDA caching allocator's unused blocks back to the driver (after a capture or prompt)."""
    if device.type == "cuda":
        torch.cuda.empty_cache()


def _no_mark(stage: str) -> None:
    pass


@contextmanager
def side_stream(device: torch.device):
    """Run on a side stream joined to the current one before and after (CUDA warm-up)."""
    if device.type != "cuda":
        yield
        return
    current = torch.cuda.current_stream(device)
    side = torch.cuda.Stream(device)
    side.wait_stream(current)
    with torch.cuda.stream(side):
        yield
    current.wait_stream(side)


@contextmanager
def sync_debug_error():
    """Turn host syncs into Python errors (a sync inside a capture would corrupt it)."""
    previous = torch.cuda.get_sync_debug_mode()
    torch.cuda.set_sync_debug_mode("error")
    try:
        yield
    finally:
        torch.cuda.set_sync_debug_mode(previous)
