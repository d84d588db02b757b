"""The frame loop: input ring -> microphone processing -> 24 kHz frames -> ``Session.step`` -> output ring.

``FramePump.pump`` runs on the engine thread whenever the input callback has delivered audio. It
reads what the microphone (and the far end, what the speaker played) captured, runs it through
the microphone processor (echo cancellation etc.), assembles 80 ms frames at 24 kHz, steps the
conversation once per frame and writes the reply, at the device's rate, into the output ring.

Latency never grows: if the model falls behind real time, the oldest input is dropped (and
counted) instead of queued, and an output queue deeper than needed is shortened where it cannot
be heard (``app.audio.output_cushion``). Each frame's report says where the engine thread's time
went around it (``FrameCosts``: waiting for input, input processing, the step's CPU and waiting,
output, reporting). Per stream (a bridge, a processing choice, a conversation) it
keeps its resamplers, processor and scratch buffers; ``reset`` starts afresh.
"""

from __future__ import annotations

import logging
import math
import time
import traceback
from dataclasses import replace

import numpy as np

import engine
from app.audio.bridge import AudioBridge
from app.audio.echo import MicProcessor, ProcessingSettings, library_problem
from app.audio.levels import SPEECH_DB, level_db
from app.audio.output_cushion import OutputCushion
from app.audio.resample import FrameAssembler, OutputConverter
from app.engine_thread import messages as m
from app.engine_thread.caption_feed import CaptionFeed
from app.engine_thread.controller import Emit
from app.engine_thread.frame_stats import FrameCosts, FrameStats, StageTimings
from engine import FRAME_MS, FRAME_SIZE, SAMPLE_RATE

log = logging.getLogger(__name__)

MAX_INPUT_BACKLOG_S = 0.25  # device audio older than this is skipped before it reaches the model
MAX_PENDING_FRAMES = 2  # assembled frames waiting for the model; more means we are behind


class FramePump:
    def __init__(self, emit: Emit, captions: CaptionFeed | None = None) -> None:
        """``captions``: hears every frame after the session's step (captions of what the person says)."""
        self.emit = emit
        self.captions = captions
        self.mic_open = False  # set by SetMicOpen: the model hears the microphone, else silence
        self.talk_held = False  # Talk is held (push-to-talk): ends a "wait for me"
        self.processing = ProcessingSettings()  # microphone processing wanted (SetProcessing)
        self._problem = ""  # set once processing failed here; it stays off from then on
        self._attached: AudioBridge | None = None
        self._processing_in_use: ProcessingSettings | None = None
        self._processor: MicProcessor | None = None
        # (bridge, settings, processor) kept over a new stream on the same devices: see reset
        self._kept: tuple[AudioBridge, ProcessingSettings, MicProcessor] | None = None
        self._assembler: FrameAssembler | None = None
        self._converter: OutputConverter | None = None
        self._cushion = OutputCushion()
        self._scratch = np.zeros((0, 1), dtype=np.float32)
        self._far_scratch = np.zeros((0, 1), dtype=np.float32)
        self._silence = np.zeros(FRAME_SIZE, dtype=np.float32)
        self._dropped_samples = 0.0  # at 24 kHz
        # Input position (in the attached bridge's input ring) up to which every frame is processed;
        # lets a driver without a sound card pace itself by the model (see app.audio.headless). Written
        # here, read by that driver's thread: a plain int, atomic under the GIL.
        self.processed_position = 0
        # Per-frame costs (FrameCosts): since when the thread waits for the next frame (perf_counter;
        # None right after a reset), input processing since the last frame, the last report's cost.
        self._waiting_since: float | None = None
        self._input_ms = 0.0
        self._report_ms = 0.0

    def reset(self, same_devices: bool = False) -> None:
        """A new stream (conversation or device), or none: the bridge and what was made for it
        (processor, resamplers) are let go, and made anew on the next pump. With ``same_devices``
        (a conversation started or continued on the devices already open) the microphone processor
        is kept for what its echo canceller learned of the room, and only given the new stream."""
        kept = self._processor if same_devices else None
        self._kept = (self._attached, self._processing_in_use, kept) if kept is not None else None
        self._attached = None
        self._processor = self._assembler = self._converter = None
        self._dropped_samples = 0.0
        self._waiting_since = None
        self._input_ms = self._report_ms = 0.0

    def pump(self, bridge: AudioBridge, session) -> bool:
        """Step ``session`` over every whole frame the bridge has delivered (call it when its
        ``data_ready`` was set); False when a frame failed (reported; the frames after it wait)."""
        if bridge is not self._attached or self.processing != self._processing_in_use:
            self._attach(bridge)
        began = time.perf_counter()
        arrival = bridge.last_input_time
        mic = self._read_microphone(bridge)
        if mic is None:
            return True
        assembler = self._assembler
        assembler.push(mic)
        ready = time.perf_counter()
        self._input_ms += (ready - began) * 1000.0
        behind = assembler.pending_frames() - MAX_PENDING_FRAMES
        if behind > 0:
            assembler.drop_frames(behind)
            self._dropped_samples += behind * FRAME_SIZE
        ok = True
        if assembler.pending_frames():
            waited = (ready - self._waiting_since) * 1000.0 - self._input_ms if self._waiting_since is not None else 0.0
            costs = FrameCosts(input_wait=max(0.0, waited), input=self._input_ms)
            self._input_ms = 0.0
            while ok and assembler.pending_frames():
                ok = self._step(bridge, session, assembler.pop_frame(), arrival, costs)
                costs = FrameCosts()  # the pump's input costs go with its first frame
            self._waiting_since = time.perf_counter()
        self.processed_position = bridge.input.read
        return ok

    def _read_microphone(self, bridge: AudioBridge) -> np.ndarray | None:
        """What the microphone captured since the last pump, processed (echo cancellation etc.)
        when that is on; None when there is nothing (or processing just failed)."""
        skipped_before = bridge.input.skipped
        far_count = bridge.far.read_into(self._far_scratch, max_backlog=int(MAX_INPUT_BACKLOG_S * bridge.output_rate))
        count = bridge.input.read_into(self._scratch, max_backlog=int(MAX_INPUT_BACKLOG_S * bridge.input_rate))
        self._dropped_samples += (bridge.input.skipped - skipped_before) * SAMPLE_RATE / bridge.input_rate
        if count == 0:
            return None
        mic = self._scratch[:count]
        if self._processor is None:
            return mic
        try:
            mic_time, far_time = bridge.capture_and_play_times(bridge.input.read - count, bridge.far.read - far_count)
            return self._processor.process(mic, self._far_scratch[:far_count], mic_time, far_time)
        except Exception as e:
            log.exception("microphone processing failed")
            self._processing_failed(f"processing failed ({type(e).__name__}: {e})")
            self._attached = None  # the next pump assembles the raw microphone at the device rate
            return None

    def _step(self, bridge: AudioBridge, session, mic: np.ndarray, arrival: float, costs: FrameCosts) -> bool:
        heard = engine.to_16_bit(mic) if self.mic_open else self._silence  # 16-bit: replayable exactly
        if session.waiting_for_user and (self.talk_held or level_db(heard) > SPEECH_DB):
            session.wait_for_user(False)  # the user spoke first: the assistant may answer from this frame
        waiting = session.waiting_for_user
        started = time.monotonic()
        step_began, step_cpu_began = time.perf_counter(), time.thread_time()
        try:
            result = session.step(heard)
        except Exception as e:
            log.error("frame step failed:\n%s", traceback.format_exc())
            self.emit(m.EngineError(f"The model failed on a frame: {type(e).__name__}: {e}", resumable=True))
            return False
        stepped, step_cpu_ms = time.perf_counter(), (time.thread_time() - step_cpu_began) * 1000.0
        step_ms = (stepped - step_began) * 1000.0
        if waiting:  # held silent: digital silence, not what the codec makes of silence tokens (noise on the demo)
            result = replace(result, pcm=np.zeros_like(result.pcm))
        queued_s = bridge.output_queue_seconds()
        bridge.output.write(self._trim_cushion(bridge, self._converter.convert(result.pcm), queued_s))
        written = time.perf_counter()
        costs = replace(costs, step=step_ms, step_cpu=step_cpu_ms, model=result.timings.total_ms,
                        output=(written - stepped) * 1000.0, report=self._report_ms)
        if self.captions is not None:  # Talk pressed or released: the person's turn ends before this frame
            self.captions.report(session, self.talk_held)
        self.emit(m.FrameDone(self._frame_stats(bridge, result, mic, heard, step_ms, started - arrival, queued_s,
                                                session.graph, costs), waiting))
        self._report_ms = (time.perf_counter() - written) * 1000.0
        if self.captions is not None:  # after the reply is on its way: captions never delay it
            self.captions.hear(session, heard, self.talk_held)
        return True

    # ---- per stream ----------------------------------------------------------------------------

    def _attach(self, bridge: AudioBridge) -> None:
        """Per bridge (and per processing choice): processor, resamplers and scratch buffers."""
        self._attached = bridge
        self._processing_in_use = self.processing
        kept_bridge, kept_settings, kept = self._kept or (None, None, None)
        self._kept = None
        if kept is not None and kept_bridge is bridge and kept_settings == self.processing:
            kept.new_stream()
            self._processor = kept
        else:
            self._processor = self._make_processor(bridge, self.processing)
        processor = self._processor
        self._assembler = FrameAssembler(processor.rate if processor is not None else bridge.input_rate)
        self._converter = OutputConverter(bridge.output_rate)
        self._cushion = OutputCushion()
        self._scratch = np.zeros((bridge.input.capacity, bridge.input.channels), dtype=np.float32)
        self._far_scratch = np.zeros((bridge.far.capacity, 1), dtype=np.float32)
        bridge.far.read_into(self._far_scratch[:0], max_backlog=0)  # what played before now is not an echo of now
        # What the microphone captured before this conversation or device (while a model loaded, say)
        # is skipped down to the frames the model may have pending, not counted as dropped: it was
        # never the model's to hear.
        waited = int(MAX_PENDING_FRAMES * FRAME_SIZE * bridge.input_rate / SAMPLE_RATE)
        bridge.input.read_into(self._scratch[:0], max_backlog=waited)
        self.processed_position = bridge.input.read

    def _make_processor(self, bridge: AudioBridge, settings: ProcessingSettings) -> MicProcessor | None:
        if not settings.any_enabled or self._problem:
            return None
        problem = library_problem()
        if not problem:
            try:
                return MicProcessor(settings, bridge.input_rate, bridge.output_rate)
            except Exception as e:
                log.exception("the microphone processor could not start")
                problem = f"the microphone processor could not start ({type(e).__name__}: {e})"
        self._processing_failed(problem)
        return None

    def _processing_failed(self, problem: str) -> None:
        """Turn processing off for good and say so once; the raw microphone goes on to the model."""
        self._problem = problem
        self._processor = None
        self.emit(m.ProcessingUnavailable(f"Echo cancellation, noise suppression and gain control are off: "
                                          f"{problem}."))

    def _trim_cushion(self, bridge: AudioBridge, pcm: np.ndarray, queued_s: float) -> np.ndarray:
        """Shrink an output queue deeper than needed where it is inaudible: skip audio a barge-in
        muted, or shorten this frame when it is quiet (``app.audio.output_cushion``)."""
        cushion = self._cushion
        cushion.observe(queued_s)
        excess = int(cushion.excess_s * bridge.output_rate)
        if excess <= 0:
            return pcm
        if bridge.output.muted_ahead() > 0:
            bridge.output.request_skip_muted(excess)
        elif level_db(pcm) < SPEECH_DB:  # not speech: shortening it is not heard
            pcm = pcm[excess:]
        else:
            return pcm
        cushion.trimmed()
        return pcm

    def _frame_stats(self, bridge, result, mic, heard, step_ms, input_wait_s, output_queue_s, graph,
                     costs: FrameCosts) -> FrameStats:
        t = result.timings
        input_queue_ms = max(0.0, input_wait_s * 1000.0)
        output_queue_ms = output_queue_s * 1000.0
        end_to_end = (1000.0 * (bridge.input_device_latency + bridge.output_device_latency) + FRAME_MS
                      + input_queue_ms + step_ms + output_queue_ms)
        echo = self._processor.reading() if self._processor is not None else None
        return FrameStats(
            frame_index=result.frame_index,
            seconds=result.frame_index * FRAME_MS / 1000.0,
            text=result.text,
            mic_db=echo.before_db if echo is not None else level_db(mic),
            model_input_db=level_db(heard),
            mic_open=heard is not self._silence,
            output_db=level_db(result.pcm),
            timings=StageTimings(input_queue=input_queue_ms, encode=t.encode_ms, lm=t.lm_ms, depth=t.depth_ms,
                                 decode=t.decode_ms, output_queue=output_queue_ms),
            step_ms=step_ms,
            end_to_end_ms=end_to_end,
            dropped_frames=math.floor(self._dropped_samples / FRAME_SIZE),
            caches=result.caches,
            graph=graph,
            echo=echo,
            costs=costs,
        )
