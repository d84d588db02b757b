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

    @property
    def real_time_factor(self) -> float:
        """Compute time over audio time; below 1.0 keeps up with real time."""
        return self.step_ms / FRAME_MS
