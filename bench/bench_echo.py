"""Echo cancellation on a real echo path: the app's audio I/O and microphone processing, PulseAudio.

The app's own parts run as in the app: ``AudioIO`` opens the default PortAudio devices, the
``EngineWorker`` pumps the microphone through ``app.audio.echo`` and steps a session per 80 ms frame,
and queues the session's reply for the output callback. Only the model is replaced: a playback
model whose "assistant" says FAR (looped) and which keeps every frame it heard.

The room is PulseAudio (``tests/audio_server.py``): the app plays to a null sink whose monitor is
looped (``module-loopback``, 60 ms, attenuated) into the microphone feed; NEAR is played into the
same feed by a second stream (``paplay``) after the far end has played alone for a while.

Reported (all at the model's 24 kHz):

* ``erle_db``: the microphone level before processing against after, while only the far end plays,
  over the window before NEAR starts, once the canceller was left alone (``measured_from_s``);
* ``model_hears_db``: the level the model hears over that window (open mic, far end only);
* ``echo_lag_ms``: how far behind its paired far end the echo lay over that window, as the
  processor measured it from the signals, and ``realignments``, how often it moved the pairing;
* ``near_end_corr``: the correlation of what the model hears with the clean NEAR during double
  talk (NEAR located by cross-correlation);
* the same without processing (``baseline``), unless ``--no-baseline``.

    .venv/bin/python -m bench.bench_echo --far FAR.wav --near NEAR.wav --json PATH
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field, replace

import numpy as np
from PySide6.QtCore import QCoreApplication, QThread

from app.audio.echo import ECHO_LAG_AGREEMENT_S, LIBRARY, MicProcessor, ProcessingSettings, processing_rate
from app.audio.headless import EventRecorder, wait_until
from app.audio.levels import level_db
from app.audio.streams import AudioIO
from app.engine_thread.messages import (
    FrameDone,
    LoadModel,
    ProcessingUnavailable,
    SetLive,
    SetMicOpen,
    SetProcessing,
)
from app.engine_thread.worker import EngineWorker
from bench.common import cpu_model
from engine import (
    FRAME_MS,
    FRAME_SIZE,
    SAMPLE_RATE,
    FrameResult,
    FrameTimings,
    ModelInfo,
    Precision,
    SamplingConfig,
    read_wav,
    write_atomically,
    write_wav,
)
from engine.files.conversation import SessionProgress
from tests import audio_server

TARGETS = {"erle_db": (">=", 25.0), "near_end_corr": (">=", 0.8), "model_hears_db": ("<=", -50.0)}
FRAMES_PER_SECOND = 1000.0 / FRAME_MS
MAX_NEAR_LAG_S = 1.0  # the near voice reaches the model at most this long after paplay starts
START_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class EchoRun:
    # The far end plays alone this long before the measured window. Through PulseAudio the capture
    # stream's times settle only ~2 s after it opens (see app/audio/echo.py: until then the pairing
    # follows them and AEC3 keeps re-converging); 4 s gives the canceller 2 s after they settle.
    # With 2 s the measured window began while it was still converging: ERLE 15-66 dB run to run
    # on the same machine, against 64-67 dB with 4 s (idle and with two CPU burners beside it).
    converge_s: float = 4.0
    far_only_s: float = 3.0  # the measured far-end-only window
    # The far end plays alone up to this much longer, until the canceller's input was left alone for
    # ``reconverge_s`` and the whole window: no microphone chunk paired with silence, no far end
    # dropped, no pairing moved, no xrun (after which what was handed to the device is not what
    # played), no move of the echo itself. A fresh PulseAudio server's capture clock has been seen
    # running ahead for longer than 4 s: the pairing kept re-anchoring until just before the window
    # (179 and 173 chunks paired with silence, ERLE 19.7 and 15 dB, in two CI runs); an output
    # underflow inside the window cost one run here 45 dB (ERLE 22.5 dB).
    # (10 s: a realignment needs ~3 s of echo to be found, then the canceller's 2 s and the window.)
    settle_s: float = 10.0
    reconverge_s: float = 2.0
    tail_s: float = 0.6  # played after the near voice ends
    latency_ms: int = 60  # of the loopback (the acoustic path)
    gain_db: float = -10.0  # of the loopback: the echo's level relative to what the app plays
    settings: ProcessingSettings = field(default_factory=ProcessingSettings)


class PlaybackSession:
    """A session whose assistant says ``far`` (looped) and which records what it hears."""

    graph = None
    prompts: dict = {}
    record_audio = False
    waiting_for_user = False

    def __init__(self, far: np.ndarray) -> None:
        self.far = far
        self.heard: list[np.ndarray] = []

    @property
    def frames(self) -> int:
        """Frames stepped, as a session counts them (the caption feed dates turn ends by it)."""
        return len(self.heard)

    def progress(self) -> SessionProgress:
        frames = self.frames
        return SessionProgress(sampling=SamplingConfig(), seed=0, frames=frames, generator_steps=frames,
                               decoded_frames=frames, prompts={}, transcript=())

    def step(self, heard: np.ndarray) -> FrameResult:
        index = len(self.heard)
        self.heard.append(heard.copy())
        pcm = np.take(self.far, np.arange(index * FRAME_SIZE, (index + 1) * FRAME_SIZE), mode="wrap")
        return FrameResult(pcm=pcm.astype(np.float32), text="", text_token=None, audio_codes=None, frame_index=index,
                           timings=FrameTimings(0.0, 0.0, 0.0, 0.0, 0.0), caches=())


class PlaybackModel:
    info = ModelInfo(name="playback", family="demo", device="cpu", precision=Precision.FLOAT32,
                     dtype="float32", cuda_graph_allowed=False, fingerprint="playback")

    def __init__(self, far: np.ndarray) -> None:
        self.far = far
        self.sessions: list[PlaybackSession] = []

    def new_session(self, **_prompts_and_sampling) -> PlaybackSession:
        self.sessions.append(PlaybackSession(self.far))
        return self.sessions[-1]


def _wait(predicate, timeout_s: float, what: str) -> None:
    if not wait_until(predicate, timeout_s):
        raise TimeoutError(f"timed out waiting for {what}")


def _mean_db(levels_db: list[float]) -> float:
    power = float(np.mean([10.0 ** (db / 10.0) for db in levels_db]))
    return 10.0 * math.log10(max(power, 1e-12))


def _median_or_none(values: list[float]) -> float | None:
    return round(float(np.median(values)), 1) if values else None


def near_end_correlation(heard: np.ndarray, near: np.ndarray, start: int) -> tuple[float, int]:
    """Pearson correlation of ``heard`` with ``near`` where it best lines up after ``start``; and the lag."""
    span = heard[start : start + len(near) + int(MAX_NEAR_LAG_S * SAMPLE_RATE)]
    n = 1 << math.ceil(math.log2(len(span) + len(near)))
    xc = np.fft.irfft(np.fft.rfft(span, n) * np.conj(np.fft.rfft(near, n)), n)[: len(span) - len(near) + 1]
    lag = int(np.argmax(np.abs(xc)))
    segment = span[lag : lag + len(near)]
    return float(np.corrcoef(segment, near[: len(segment)])[0, 1]), lag


def run_path(far: np.ndarray, near: np.ndarray, run: EchoRun, processing: bool) -> dict:
    """Play ``far`` as the assistant and ``near`` into the room; what the model heard, measured."""
    model = PlaybackModel(far)
    QCoreApplication.instance() or QCoreApplication(sys.argv[:1])
    worker = EngineWorker(model_loader=lambda *_: model, seed=0, cuda_graph=False)
    worker.submit(SetProcessing(run.settings if processing else ProcessingSettings(False, False, False, False)))
    worker.submit(SetMicOpen(True))
    events = EventRecorder(worker)  # the engine thread's queued events, as the window gets them

    def frames() -> list:
        return [e.stats for e in events.of(FrameDone)]
    thread = QThread()
    worker.moveToThread(thread)
    thread.started.connect(worker.run)
    thread.start()
    earliest_near = round((run.converge_s + run.far_only_s) * FRAMES_PER_SECOND)
    latest_near = earliest_near + round(run.settle_s * FRAMES_PER_SECOND)
    window = round(run.far_only_s * FRAMES_PER_SECOND)
    near_frames = math.ceil((len(near) / SAMPLE_RATE + run.tail_s + MAX_NEAR_LAG_S) * FRAMES_PER_SECOND)

    undisturbed = window + round(run.reconverge_s * FRAMES_PER_SECOND)
    # What disturbs the canceller, as last seen: counts, and the echo's lag (the loopback itself moves
    # the echo by ~15 ms at times); and the frame where it last changed.
    seen = {"counts": None, "lag_ms": None, "changed_at": 0}

    def far_only_done() -> bool:
        """The earliest start has passed and the canceller was left alone long enough, or the
        latest start has come."""
        done = len(frames())
        echo, bridge = (frames()[-1].echo if done else None), audio.bridge
        if echo is not None and bridge is not None:
            counts = (echo.far_gaps, echo.far_dropped_ms, echo.realignments, bridge.input_overflows,
                      bridge.output_underflows)
            lag_moved = (echo.echo_lag_ms is not None and seen["lag_ms"] is not None
                         and abs(echo.echo_lag_ms - seen["lag_ms"]) > 1000 * ECHO_LAG_AGREEMENT_S)
            if counts != seen["counts"] or lag_moved:
                seen["changed_at"] = done
            seen["counts"] = counts
            seen["lag_ms"] = echo.echo_lag_ms if echo.echo_lag_ms is not None else seen["lag_ms"]
        return done >= latest_near or (done >= earliest_near and done - seen["changed_at"] >= undisturbed)
    audio = AudioIO(worker.set_bridge)
    player = None
    with tempfile.TemporaryDirectory(prefix="parley-bench-echo-") as tmp:
        near_wav = os.path.join(tmp, "near.wav")
        write_wav(near_wav, near)
        try:
            worker.submit(LoadModel("playback", "cpu", "float32"))
            worker.submit(SetLive(True))  # as Talk or Start does: its first conversation runs
            audio.start()
            _wait(lambda: model.sessions and len(model.sessions[-1].heard) > 0, START_TIMEOUT_S, "the first frame")
            session = model.sessions[-1]
            _wait(far_only_done, latest_near / FRAMES_PER_SECOND * 3 + 10, "the far-end window")
            near_at = len(frames())
            player = audio_server.play_into_mic(near_wav)
            end_at = near_at + near_frames
            _wait(lambda: len(session.heard) >= end_at, near_frames / FRAMES_PER_SECOND * 3 + 10,
                  "the double-talk window")
            bridge = audio.bridge
            rates = {"input_rate": bridge.input_rate, "output_rate": bridge.output_rate,
                     "device_latency_ms": round(1000 * (bridge.input_device_latency + bridge.output_device_latency), 1),
                     # Xruns make "handed to the device" differ from "played": the far end is then wrong.
                     "input_overflows": bridge.input_overflows, "output_underflows": bridge.output_underflows}
        finally:
            if player is not None:
                player.kill()
                player.wait(10)
            audio.stop(timeout=5.0)
            worker.stop()
            thread.quit()
            thread.wait(10_000)
    wait_until(lambda: len(frames()) >= len(session.heard), 5.0)  # the last queued signals
    if events.of(ProcessingUnavailable):
        raise RuntimeError(events.of(ProcessingUnavailable)[0].message)
    heard = np.concatenate(session.heard)
    start, stop = near_at - window, near_at
    corr, lag = near_end_correlation(heard, near, near_at * FRAME_SIZE)
    result = {**rates, "model_hears_db": round(level_db(heard[start * FRAME_SIZE : stop * FRAME_SIZE]), 1),
              "near_end_corr": round(corr, 3), "near_lag_ms": round(1000 * lag / SAMPLE_RATE),
              "frames": len(session.heard), "measured_from_s": round(start / FRAMES_PER_SECOND, 2)}
    readings = [stats.echo for stats in frames()[start:stop] if stats.echo is not None]
    if processing and readings:
        mic_db = _mean_db([r.before_db for r in readings])
        after_db = _mean_db([r.after_db for r in readings])
        estimates = [r.erle_db for r in readings if r.erle_db is not None]
        result.update(mic_echo_db=round(mic_db, 1), erle_db=round(mic_db - after_db, 1),
                      erle_estimate_db=_median_or_none(estimates),
                      stream_delay_ms=round(float(np.median([r.delay_ms for r in readings])), 1),
                      echo_lag_ms=_median_or_none([r.echo_lag_ms for r in readings if r.echo_lag_ms is not None]),
                      realignments=frames()[-1].echo.realignments,
                      far_gaps=frames()[-1].echo.far_gaps,
                      far_dropped_ms=round(frames()[-1].echo.far_dropped_ms, 1),
                      processing_rate=processing_rate(rates["input_rate"]))
    return result


def processing_cost_ms(settings: ProcessingSettings, seconds: float = 10.0) -> float:
    """CPU milliseconds per 10 ms chunk of microphone processing at 48 kHz (speech-like noise)."""
    rate = 48_000
    rng = np.random.default_rng(0)
    far = (0.1 * rng.standard_normal(int(seconds * rate))).astype(np.float32)
    mic = (0.3 * np.roll(far, rate // 20) + 0.01 * rng.standard_normal(far.size)).astype(np.float32)
    processor = MicProcessor(settings, rate, rate)
    started = time.process_time()
    block = rate // 50
    for i in range(0, far.size - block + 1, block):
        processor.process(mic[i : i + block].reshape(-1, 1), far[i : i + block])
    return 1000.0 * (time.process_time() - started) / (seconds * 100)


def check_targets(result: dict) -> dict[str, bool]:
    ok = {}
    for key, (op, bound) in TARGETS.items():
        value = result.get(key)
        ok[key] = value is not None and (value >= bound if op == ">=" else value <= bound)
    return ok


def measure(far_wav: str, near_wav: str, run: EchoRun = EchoRun(), baseline: bool = True) -> dict:
    far, near = read_wav(far_wav), read_wav(near_wav)
    with audio_server.echo_path(run.latency_ms, run.gain_db):
        result = run_path(far, near, run, processing=True)
        if baseline:
            result["baseline"] = run_path(far, near, run, processing=False)
    result["targets_met"] = check_targets(result)
    return {
        "cpu": cpu_model(),
        "library": LIBRARY,
        "far": os.path.basename(far_wav),
        "near": os.path.basename(near_wav),
        "settings": asdict(run.settings),
        "echo_path": {"latency_ms": run.latency_ms, "gain_db": run.gain_db, "converge_s": run.converge_s,
                      "far_only_s": run.far_only_s, "settle_s": run.settle_s, "reconverge_s": run.reconverge_s},
        "processing_cpu_ms_per_10ms": round(processing_cost_ms(run.settings), 3),
        **result,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--far", required=True, help="what the assistant says (wav, looped as needed)")
    parser.add_argument("--near", required=True, help="the user's voice played into the room (wav)")
    parser.add_argument("--json", help="write the result here")
    parser.add_argument("--converge", type=float, default=EchoRun.converge_s, help="seconds before measuring")
    parser.add_argument("--far-only", type=float, default=EchoRun.far_only_s, help="seconds of far end alone measured")
    parser.add_argument("--latency-ms", type=int, default=EchoRun.latency_ms)
    parser.add_argument("--gain-db", type=float, default=EchoRun.gain_db)
    parser.add_argument("--no-baseline", action="store_true", help="skip the run without processing")
    for stage in ("noise_suppression", "high_pass_filter", "auto_gain_control"):
        flag = stage.replace("_", "-")
        parser.add_argument(f"--{flag}", action=argparse.BooleanOptionalAction,
                            default=getattr(ProcessingSettings(), stage))
    args = parser.parse_args(argv)
    settings = ProcessingSettings(True, args.noise_suppression, args.high_pass_filter, args.auto_gain_control)
    run = replace(EchoRun(), converge_s=args.converge, far_only_s=args.far_only, latency_ms=args.latency_ms,
                  gain_db=args.gain_db, settings=settings)
    report = measure(args.far, args.near, run, baseline=not args.no_baseline)
    # File names only: where the recordings lie on this machine is nobody else's business.
    args_given = argv if argv is not None else sys.argv[1:]
    report["command"] = " ".join(["python -m bench.bench_echo",
                                  *(os.path.basename(a) if a.endswith((".wav", ".json")) else a for a in args_given)])
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        write_atomically(args.json, (text + "\n").encode())
    return 0 if all(report["targets_met"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
