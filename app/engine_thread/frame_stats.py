"""What the engine worker reports to the GUI after each 80 ms frame (immutable, sent by queued signal)."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.audio.echo import EchoReading
from engine import FRAME_MS, CacheStats, GraphStatus


@dataclass(frozen=True)
class StageTimings:
    """Milliseconds spent per stage of one frame, queues included."""

    input_queue: float = 0.0
    encode: float = 0.0
    lm: float = 0.0
    depth: float = 0.0
    decode: float = 0.0
    output_queue: float = 0.0


@dataclass(frozen=True)
class FrameCosts:
    """Where the engine thread's time went around one frame, in ms of wall time unless named CPU.

    ``step`` is ``session.step`` (the worker's ``step_ms``); ``step_cpu`` the engine thread's own CPU
    time in it (``time.thread_time``). The rest of ``step``, ``step_waiting``, is time the thread was
    not running: waiting for the GIL (the GUI thread's Python, the journal writer), for a core (other
    programs), or at torch's OpenMP barriers for its other threads. ``model`` is what the model's own
    clock measured (encode to decode); ``recording`` the rest of the step after it (the crash
    journal's recorder, the transcript, the audio kept). ``input_wait`` is the engine thread's time
    between pumps (sleeping until the microphone delivers, commands run), ``input`` reading and
    processing the microphone (echo cancellation, resampling), both on the first frame of a pump
    (0.0 on the others); ``output`` resampling and queueing the reply; ``report`` building and
    sending the previous frame's ``FrameStats`` to the window."""

    step: float = 0.0
    step_cpu: float = 0.0
    model: float = 0.0
    input_wait: float = 0.0
    input: float = 0.0
    output: float = 0.0
    report: float = 0.0

    @property
    def step_waiting(self) -> float:
        return max(0.0, self.step - self.step_cpu)

    @property
    def recording(self) -> float:
        return max(0.0, self.step - self.model)


@dataclass(frozen=True)
class FrameStats:
    frame_index: int
    seconds: float  # conversation time at the start of this frame
    text: str
    mic_db: float  # what the microphone picked up (before echo cancellation etc.)
    model_input_db: float  # what the model heard (silence while push-to-talk is released)
    mic_open: bool  # the model heard the microphone in this frame (push-to-talk held or open mic)
    output_db: float  # what the assistant said in this frame
    timings: StageTimings
    step_ms: float  # wall time of session.step (compute, as the worker measured it)
    end_to_end_ms: float  # estimated mic-to-speaker delay of this frame
    dropped_frames: int  # input frames skipped so far because the model fell behind
    caches: tuple[CacheStats, ...] = field(default_factory=tuple)
    graph: GraphStatus | None = None  # whether the frame replayed a CUDA graph, and why not
    echo: EchoReading | None = None  # microphone processing levels; None when it is off
    costs: FrameCosts = field(default_factory=FrameCosts)  # the engine thread's time around this frame

    @property
    def real_time_factor(self) -> float:
        """Compute time over audio time; below 1.0 keeps up with real time."""
        return self.step_ms / FRAME_MS
