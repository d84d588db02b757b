"""What the engine worker reports to the GUI after each 80 ms frame (immutable, sent by queued signal)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from engine import FRAME_MS, CacheStats, GraphStatus

SILENCE_DB = -120.0
DISPLAY_FLOOR_DB = -60.0  # the quietest level the meters and the turns' level strips show


def level_db(pcm: np.ndarray) -> float:
    """RMS level of ``pcm`` in dBFS (``SILENCE_DB`` for digital silence)."""
    if pcm.size == 0:
        return SILENCE_DB
    rms = float(np.sqrt(np.mean(np.square(pcm, dtype=np.float64))))
    return SILENCE_DB if rms <= 1e-6 else max(SILENCE_DB, 20.0 * math.log10(rms))


@dataclass(frozen=True)
class EchoReading:
    """Levels of the microphone before and after processing since the previous reading."""

    before_db: float
    after_db: float
    erle_db: float | None  # estimated echo return loss enhancement; None until the far end has played
    delay_ms: float  # the stream delay given to the echo canceller
    far_gaps: int = 0  # microphone chunks paired with silence so far (the far end was late or absent)
    far_dropped_ms: float = 0.0  # far end dropped so far (it came too late to precede its echo)
    echo_lag_ms: float | None = None  # the echo's lag behind its paired far end, last measured (None: not yet)
    realignments: int = 0  # times the pairing was moved because the signals put the echo out of AEC3's reach


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
