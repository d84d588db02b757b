"""The whole per-frame computation as one function of static buffers and the session state, and
its CUDA graph.

One frame is: Mimi encode of 1920 samples -> LM temporal step -> depth transformer over all
codebooks with on-device sampling -> Mimi decode of the agent's codes. ``FrameStep`` runs it
reading one static input buffer and writing three static output buffers, so on CUDA the whole
frame can be captured once into one CUDA graph and replayed every frame.

Why one graph for the whole frame: the reference graphs six pieces (the LM's temporal step, the
depformer loop, Mimi's SEANet encoder and decoder and its two transformers) and glues them with
eager Python: RVQ, the up/down-sampling convs, the token-cache bookkeeping, and Python control
flow that returns ``None`` while the output is not aligned. All of that glue launches its small
kernels one by one from Python, every frame.
A Moshi frame is ~5,600 aten ops; eagerly that is tens of ms of launch overhead, more than the
bandwidth floor of the 7B weights on a modern GPU. Our frame has static shapes, keeps every
bookkeeping value (offsets, token cache, RNG) in the state tree and samples on the device, so
nothing stops one capture of all of it: one launch per frame, no host round trip between stages.

Capture policy (real frames, no throw-away warm-up): frames run eagerly until ``warmup`` aligned
frames (with their Mimi decode) have run eagerly in this ``FrameStep``; on CUDA these eager frames
run on a side stream, as torch recommends before a capture, so that lazy initialisations (cuBLAS
and cuDNN workspaces and algorithm choices, the int8 kernel check) happen outside the capture.
The next aligned frame is *captured* (capture records kernels without running them, so the state
is untouched) and then *replayed*, which produces that frame's results; later frames only
replay. For a new conversation that is frame ``first_output_frame + warmup``; after restoring a
conversation in the middle, the first ``warmup`` frames of this instance are the warm-up.
Every replayed frame is aligned (captured after alignment), so the graph always decodes. A frame
whose index is before alignment (e.g. after restoring an early conversation) runs eagerly without
decode; the graph stays valid because a conversation is restored by copying into the same state
tensors (identities never change).

If the capture fails (a sync or an unsupported op on some driver), the failure is logged, the
reason is kept in ``fallback_reason`` and every frame runs eagerly from then on; the state is
unchanged by the failed capture, so that frame is simply computed eagerly. On the CPU the same
code runs eagerly.

Ahead of time (``prepare``): a session calls it before its first live frame, so that neither the
warm-up (CUDA's lazy initialisation lands on the first frame run) nor the capture costs a live
frame. It saves the state, runs the warm-up and capture frames above on silence, on the
session's own buffers, then copies the saved state back into the same tensors (the graph stays
valid). Live frames then only replay.

``GraphedStep`` is that policy for any computation on static buffers (warm-up runs on a side
stream, one capture, replays; eager where no graph can run); PersonaPlex's prompt steps use it too.

Stage marks: ``compute`` calls ``mark(stage)`` when the work of "encode", "temporal" (the
temporal transformer and the text token), "depth" (the depth transformer's codebooks) and
"decode" has been issued, so an eager frame can be timed stage by stage from inside the frame
function. A replayed graph is one launch and has no stage boundaries.

Outputs are the static buffers themselves: the next call overwrites them, so callers copy what
they keep (``.cpu()``, ``int(...)``, ``.clone()``).
"""

from __future__ import annotations

import logging
from contextlib import contextmanager, nullcontext

import torch

from ..codec.mimi import Mimi
from ..lm.generate import Forcing, Mark
from ..lm.model import UNGENERATED_TOKEN
from ..state import StateTree, clone, flatten, load_into

log = logging.getLogger(__name__)

STAGES = ("encode", "temporal", "depth", "decode")  # the marks of an eager frame, in order


class FrameStep:
    """``FrameStep(mimi, generator, state, use_cuda_graph)(pcm [1, 1, 1920], step_index)``
    -> ``(text [1] long, audio [1, dep_q] long, pcm_out [1, 1, 1920])`` (static buffers).

    ``state`` is the session's tree ``{"mimi": ..., "gen": ...}``; ``step_index`` is the index of
    this generator step (prompt phases included: the caller's host counter), which decides whether
    the output is aligned (decoded) and when the graph is captured. Before alignment the outputs
    are ``UNGENERATED_TOKEN`` (-2) tokens and silence, like the generator's.
    """

    def __init__(self, mimi: Mimi, generator, state: StateTree, use_cuda_graph: bool = True, warmup: int = 2,
                 forcing: Forcing | None = None):
        """``forcing``: static buffers through which frames force streams (``Session.wait_for_user``),
        shared by the session's frame steps; None: this step's own, forcing nothing."""
        self.mimi, self.generator, self.state = mimi, generator, state
        cache = state["gen"]["tokens"]["cache"]
        if cache.shape[0] != 1:
            raise ValueError(f"FrameStep runs one conversation (batch 1), the state has batch {cache.shape[0]}")
        device = self.device = cache.device
        pcm_dtype = mimi.pcm_dtype
        dep_q = generator.config.dep_q
        # Static buffers: created once, outside inference mode, written in place every frame.
        self.pcm_in = torch.zeros(1, 1, mimi.frame_size, device=device, dtype=pcm_dtype)
        self.user_codes = torch.zeros(1, generator.user_streams, dtype=torch.long, device=device)  # encoded input
        self.text = torch.full((1,), UNGENERATED_TOKEN, dtype=torch.long, device=device)
        self.audio = torch.full((1, dep_q), UNGENERATED_TOKEN, dtype=torch.long, device=device)
        self.pcm_out = torch.zeros(1, 1, mimi.frame_size, device=device, dtype=pcm_dtype)
        # An interpreter's: True for the frame that tells it the source speech has ended, whose
        # input codes become ``generator.end_of_source_token`` (``Session.end_source``).
        self.source_ended = torch.zeros(1, dtype=torch.bool, device=device)
        # Read by every frame, so that a captured graph replays whatever they hold (all False: nothing).
        streams = generator.config.token_streams
        self.forcing = forcing or Forcing(torch.zeros(1, streams, dtype=torch.long, device=device),
                                          torch.zeros(streams, dtype=torch.bool, device=device))
        # The aligned frame (with its decode): warmed up, captured and replayed where CUDA graphs run.
        self.aligned = GraphedStep(lambda mark=None: self.compute(decode=True, mark=mark), device, use_cuda_graph,
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
        """``mark(stage)`` is called for each of ``STAGES`` of an eagerly run frame (a frame before
        alignment has no "decode"); a replayed graph calls nothing."""
        if tuple(pcm.shape) != tuple(self.pcm_in.shape) or pcm.device != self.device:
            raise ValueError(f"expected pcm {tuple(self.pcm_in.shape)} on {self.device}, got "
                             f"{tuple(pcm.shape)} on {pcm.device}")
        aligned = step_index >= self.generator.first_output_frame
        with torch.inference_mode():
            self.pcm_in.copy_(pcm)
            if aligned:
                self.aligned(mark)
            else:  # before alignment: eager, on the warm-up's side stream while a capture is to come
                with side_stream(self.device) if self.graph_pending else nullcontext():
                    self.compute(decode=False, mark=mark)
        return self.text, self.audio, self.pcm_out

    def prepare(self, step_index: int) -> None:
        """Warm up and capture now, before live frame ``step_index``, leaving the state as it was
        (see the module docstring). Nothing to do where no capture is pending (the CPU, graphs off,
        already captured)."""
        if not self.graph_pending:
            return
        self.rehearse(max(step_index, self.generator.first_output_frame), lambda: self.graph_pending)

    def rehearse(self, step_index: int, more) -> None:
        """Run frames of silence at aligned index ``step_index`` while ``more()``, then put the state
        back exactly, in place (the tensors keep their identities)."""
        saved = clone(self.state)
        silence = torch.zeros_like(self.pcm_in)
        while more():
            self(silence, step_index)
        with torch.inference_mode():
            load_into(self.state, flatten(saved))

    def compute(self, decode: bool, mark: Mark | None = None) -> None:
        """The frame as a function of the static buffers and the state (what the graph captures)."""
        mark = mark or _no_mark
        state = self.state
        codes = self.mimi.encode_step(self.pcm_in, state["mimi"])
        if self.generator.end_of_source_token is not None:
            codes = torch.where(self.source_ended, self.generator.end_of_source_token, codes)
        mark("encode")
        self.user_codes.copy_(codes[:, :, 0])
        text, audio = self.generator.step(codes[:, :, 0], state["gen"], forced=self.forcing, mark=mark)
        self.text.copy_(text)
        self.audio.copy_(audio)
        mark("depth")
        if decode:
            agent = audio[:, :self.mimi.num_codebooks, None]
            self.pcm_out.copy_(self.mimi.decode_step(agent, state["mimi"]))
            mark("decode")
        else:
            self.pcm_out.zero_()

class GraphedStep:
    """``run(*args)`` (which reads and writes only static buffers and state) through a CUDA graph
    once ``warmup`` eager runs have gone by on a side stream (lazy initialisations stay out of the
    capture); eagerly where no graph can run (the CPU, graphs turned off, a failed capture, whose
    reason ``fallback_reason`` keeps). Eager runs get ``args`` (stage marks, say); the capture
    records ``run()``. A replay runs the eager kernels in the same order: the same state, bit for bit."""

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
                # What the eager warm-up runs left cached outside the graph's own pool is never used again.
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
    """Capture ``compute()`` (which reads and writes only static buffers and state) as one CUDA
    graph: ``(graph, None)``, or ``(None, why)`` when the capture failed. A capture runs no kernels:
    the caller replays the graph (or, after a failure, computes eagerly) to get the results."""
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
    """Hand the CUDA caching allocator's unused blocks back to the driver (after a capture, after a
    prompt: what they allocated once is not needed again, and other programs may use it)."""
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
