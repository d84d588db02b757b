"""The app as a person runs it, timed: the real window on a real model, on a real (virtual) sound card.

The main window (Qt offscreen unless ``QT_QPA_PLATFORM`` says otherwise) opens its own ``AudioIO``
on the PulseAudio test devices (``tests/audio_server.py``; started here when none runs). A speech
recording, looped, plays into the microphone feed for the whole run, and Talk is held for
``TALK_PERIOD_S`` and released for as long, in turn, by the push-to-talk key's own events (Space),
as a person talking and listening would. Everything else is as ``parley`` runs: default settings
(microphone processing on), a crash journal, torch threads as ``app.window.gui`` sets them, and a Qt event
loop (the benchmark's own timer ticks every ``TICK_MS``; it once polled events every 5 ms).

Then the same loaded model runs as many frames offline in this process (``Session.step`` on the same
speech, silent where Talk was released, same threads, nothing else running; ``--offline-frames``
caps them, for long runs), twice: one frame after another, and then paced, one frame every 80 ms as
the sound card hands them over. They run once the window's worker thread has ended: each thread that
runs torch's parallel loops keeps its own OpenMP threads, and where they outnumber the cores libgomp
stops spinning between loops; a frame then took 30-60% longer (AMD EPYC, 2 vCPU), which would
flatter the app's ratio (the app itself runs torch on its worker thread only). ``app_compute_ratio``
(in-app / offline one after another) says what real time inside the app costs the model;
``app_paced_ratio`` (in-app / paced) leaves out what pacing alone costs (the cores idle between
frames: ~5% on an Intel Xeon VM) and keeps what the app adds: the GUI, the audio callbacks, the
sound server, the microphone processing and the journal compete with the worker for the cores.

Reported (per-frame times as ``app.engine_thread.real_time`` defines them: compute after the warm-up frames):
``cpu``, ``load_average`` (the machine's, 1 minute, when the window started and when the offline
frames ended; None where the OS has none), ``threads`` (torch's: what the worker measured and ran the frames with),
``thread_mean_ms`` and ``thread_p90_ms`` (what it measured, per thread count), ``frames``,
``rtf_median``, ``rtf_p95``
(the worker's compute per frame / 80 ms), ``dropped_frames`` (input skipped because the model fell
behind, over all the streams of the run), ``output_gap_seconds`` (zeros the speaker played because
nothing was queued, after the first second of frames), ``xruns`` (since the streams opened) and
``xruns_before_start`` (of those, the ones before Start: the model's load), ``mic_to_speaker_ms_median``
and its ``_start``/``_end`` (first and last 10% of frames: the window's own estimate per frame, device
latencies + one frame + input queue + compute + output queue, as the meters show it), ``app_ms_per_frame`` and its
``_start``/``_end`` (first and last 10%), ``offline_ms_per_frame`` (over ``offline_frames``),
``app_compute_ratio`` (the two medians' ratio), ``paced_offline_ms_per_frame``, ``app_paced_ratio``,
``gui_cpu_ms_per_frame`` (CPU time of the GUI thread per 80 ms while the window streams),
``frame_costs_ms`` (median and p95 after the warm-up of each part of ``FrameCosts``, the engine
thread's time around a frame: ``step``, its ``step_cpu`` and ``step_waiting`` (not running: the GIL,
a core, OpenMP's barriers), ``model``, ``recording``, ``input_wait``, ``input``, ``output``,
``report``; and ``gui_cpu``, the GUI thread's CPU time from one frame's arrival in the window to
the next),
``rss_mb_start`` (first frame),
``rss_mb_by_minute`` (each whole minute after it) and ``rss_mb_end``, ``audio_device_lost``: how
often the app's heartbeat found the callbacks stopped for a second and reopened the streams (input
is lost while it reconnects, so ``frames`` falls short of 12.5 per second), and ``speed_warning``:
the window's too-slow warning at the end of the run, as the person reads it ("" when the model
kept up), and ``rows``: every frame (``frame_rows``: when the window received it, its step's wall and
CPU time, the wait for input, the queues, the mic-to-speaker estimate, and the dropped frames, xruns
and output callbacks so far: an output queue that grows by a frame per frame while the callbacks
stand still is a stalled output stream). ``--screenshot PATH`` saves the window as it looks then.

    .venv/bin/python -m bench.bench_app --seconds 20 --json bench/results/app.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from PySide6.QtCore import QEvent, QEventLoop, QSettings, Qt, QTimer
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication

import engine
from app.audio.bridge import AudioBridge
from app.audio.headless import SignalRecorder, wait_until
from app.conversation.thread_cpu import ThreadCpuClock
from app.engine_thread.controller import load_engine_model
from app.engine_thread.frame_stats import FrameCosts, FrameStats
from app.engine_thread.real_time import TAIL_PERCENTILE, WARMUP_FRAMES, FrameTimeSummary
from app.window.gui import share_cores_with_the_gui
from app.window.main_window import MainWindow
from bench.common import cpu_model, load_average, rss_bytes
from tests import audio_server

SPEECH = Path(__file__).resolve().parents[1] / "assets" / "hello_24k.wav"
TALK_PERIOD_S = 2.0  # Talk held this long, then released this long, in turn
OUTPUT_SETTLE_S = 1.0  # output gaps count from this long after the first frame
DRIFT_SHARE = 0.1  # latency at the start and the end: the first and last 10% of frames
START_TIMEOUT_S = 600.0  # the first run builds the demo model
TICK_MS = 100  # the benchmark's own timer: Talk presses, new bridges, RSS


def _press_space(window, kind: QEvent.Type) -> None:
    QApplication.sendEvent(window, QKeyEvent(kind, Qt.Key_Space, Qt.NoModifier, " "))


class _Run:
    """``seconds`` of the window in a Qt event loop, as ``app.exec()`` runs it (the GUI thread sleeps
    until an event comes): a timer presses and releases Talk in turn, notes each new audio bridge's
    starved samples and samples RSS every minute."""

    def __init__(self, window, seconds: float):
        self.window, self.seconds = window, seconds
        self.held = False
        self.starved_from: dict[AudioBridge, int] = {}  # a reconnected device brings a new bridge
        self.rss_by_minute: list[float] = []
        self.started = 0.0  # time.monotonic() when exec() began
        self._loop = QEventLoop()
        self._timer = QTimer()
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)

    def exec(self) -> None:
        self.started = time.monotonic()
        self._tick()
        self._timer.start()
        self._loop.exec()
        self._timer.stop()

    def _tick(self) -> None:
        elapsed = time.monotonic() - self.started
        if elapsed >= self.seconds:
            self._loop.quit()
            return
        if elapsed >= 60.0 * (len(self.rss_by_minute) + 1):
            self.rss_by_minute.append(rss_bytes() / 2**20)
        if (int(elapsed / TALK_PERIOD_S) % 2 == 0) != self.held:
            self.held = not self.held
            _press_space(self.window, QEvent.KeyPress if self.held else QEvent.KeyRelease)
        bridge = self.window.model.devices.audio.bridge
        if bridge is not None and bridge not in self.starved_from and elapsed >= OUTPUT_SETTLE_S:
            self.starved_from[bridge] = bridge.output_starved_samples


def _write_looped_speech(path: str, seconds: float) -> None:
    engine.write_wav(path, np.resize(engine.read_wav(SPEECH), int(seconds * engine.SAMPLE_RATE)))  # repeated


def run_app(seconds: float, model: str, precision: str, folder: Path, screenshot: str | None = None) -> dict:
    """The window for ``seconds`` of frames; its FrameStats, counters and the model it loaded
    (``screenshot``: save the window as it looks at the end there, a PNG)."""
    loaded: dict = {}

    def loader(name: str, device: str, precision: str, cuda_graph: bool):
        loaded["threads"] = torch.get_num_threads()  # in the worker thread, until it measures its own
        loaded["model"] = load_engine_model(name, device, precision, cuda_graph)
        return loaded["model"]

    store = QSettings(str(folder / "settings.ini"), QSettings.IniFormat)
    conversations, journals = folder / "conversations", folder / "journals"
    conversations.mkdir()
    journals.mkdir()
    window = MainWindow(store, model_loader=loader, worker_seed=1, conversations_dir=conversations,
                        journal_dir=journals)
    frames, failures, devices = SignalRecorder(), SignalRecorder(), SignalRecorder()
    window.model.frame.connect(frames.record)
    window.model.devices.devices_changed.connect(devices.record)
    window.model.error.connect(failures.record)
    gui_clock, gui_cpu_ms = ThreadCpuClock(), []  # the GUI thread's CPU per frame, laps on its own thread
    window.model.frame.connect(lambda _stats: gui_cpu_ms.append(gui_clock.lap()))
    arrivals: list[tuple[float, int, int]] = []  # per frame as the window receives it: time, xruns, output callbacks
    window.model.frame.connect(lambda _stats: arrivals.append((time.monotonic(), *_audio_counts(window))))
    window.show()
    wav = str(folder / "mic.wav")
    _write_looped_speech(wav, seconds + 30.0)  # the model load and the first frames come first
    player = None
    try:
        window.load_model(model, "auto", precision)
        if not wait_until(lambda: window.model.models.model_info is not None or failures.calls, START_TIMEOUT_S):
            raise TimeoutError("the model did not load in time")
        xruns_at_start = _audio_counts(window)[0]  # the model's load and thread measurement come before
        window.model.start()  # Start: a conversation runs no frame before it
        player = audio_server.play_into_mic(wav)
        if not wait_until(lambda: frames.calls or failures.calls, 30.0):
            raise TimeoutError("no frame came from the sound card")
        if failures.calls:
            raise RuntimeError(failures.calls[0][0])
        rss_start = rss_bytes()
        device_changes_before = len(devices)
        run = _Run(window, seconds)
        gui_cpu_started = time.thread_time()
        run.exec()
        gui_cpu_s = time.thread_time() - gui_cpu_started
        starved_from = run.starved_from
        counters = {
            "output_gap_seconds": sum((b.output_starved_samples - n) / b.output_rate for b, n in starved_from.items()),
            "xruns": sum(b.input_overflows + b.output_underflows for b in starved_from),
            "audio_device_lost": sum(status.state == "lost" for status, in devices.calls[device_changes_before:]),
            "rss_mb_start": rss_start / 2**20,
            "rss_mb_by_minute": run.rss_by_minute,
            "rss_mb_end": rss_bytes() / 2**20,
            "gui_cpu_s": gui_cpu_s,
            "xruns_before_start": xruns_at_start,
            "speed_warning": window.health.warning,
        }
        if screenshot and not window.grab().save(screenshot):
            raise OSError(f"could not save the screenshot {screenshot}")
        if run.held:
            _press_space(window, QEvent.KeyRelease)
    finally:
        if player is not None:
            player.kill()
            player.wait(10)
        window.model.files.unsaved_frames = 0  # no "save changes?" question
        window.close()
    if not window.shut_down_cleanly:  # its thread, and with it its OpenMP threads, would outlive the window
        raise RuntimeError("the window's worker thread did not end: the offline frames would not run alone")
    if failures.calls:
        raise RuntimeError(failures.calls[0][0])
    stats: list[FrameStats] = [args[0] for args in frames.calls]
    choice = loaded["model"].thread_choice  # what the worker measured and ran the frames with
    threads = choice.threads if choice is not None else loaded["threads"]
    return {"stats": stats, "model": loaded["model"], "threads": threads, "thread_choice": choice,
            "gui_cpu_ms": gui_cpu_ms, "arrivals": arrivals, **counters}


def _audio_counts(window) -> tuple[int, int]:
    """The current audio bridge's xruns (input overflows and output underflows) and output callbacks
    so far (0, 0 with none open)."""
    bridge = window.model.devices.audio.bridge
    if bridge is None:
        return 0, 0
    return bridge.input_overflows + bridge.output_underflows, bridge.output_callbacks


def offline_ms(model, stats: list[FrameStats], paced: bool = False) -> list[float]:
    """Compute per frame of ``model`` stepping the same frames offline: the speech where the app's
    model heard the microphone, silence where it did not; timed as the worker times its steps.
    ``paced``: one frame every ``FRAME_MS``, as the sound card hands them to the app (the cores idle
    between frames), instead of one after another."""
    speech = engine.to_16_bit(engine.read_wav(SPEECH))
    frames_in_speech = speech.size // engine.FRAME_SIZE
    silence = np.zeros(engine.FRAME_SIZE, np.float32)
    session = model.new_session(sampling=engine.SamplingConfig(), seed=1)
    ms = []
    due = time.monotonic()
    for i, s in enumerate(stats):
        if paced:
            time.sleep(max(0.0, due - time.monotonic()))
            due += engine.FRAME_MS / 1000.0
        j = i % frames_in_speech
        heard = speech[j * engine.FRAME_SIZE:(j + 1) * engine.FRAME_SIZE] if s.mic_open else silence
        started = time.monotonic()
        session.step(heard)
        ms.append((time.monotonic() - started) * 1000.0)
    return ms


def _thread_measurement(choice: engine.ThreadChoice | None) -> dict:
    """What the worker measured per thread count (none where it kept the count it had)."""
    def by_count(ms: dict[int, float]) -> dict[str, float]:
        return {str(n): v for n, v in ms.items()}

    return {"thread_mean_ms": by_count(choice.mean_ms) if choice else {},
            "thread_p90_ms": by_count(choice.p90_ms) if choice else {}}


def _median(values: list[float]) -> float:
    return float(np.median(values))


COSTS = ("step", "step_cpu", "step_waiting", "model", "recording", "input_wait", "input", "output", "report")


def frame_costs(stats: list[FrameStats], gui_cpu_ms: list[float | None]) -> dict[str, dict[str, float]]:
    """Median and p95 of each part of the steady-state frames' ``FrameCosts``, and the GUI thread's
    CPU per frame (``ThreadCpuClock`` laps, one per frame the window received)."""
    def summary(values: list[float]) -> dict[str, float]:
        return {"median": round(_median(values), 2), "p95": round(float(np.percentile(values, TAIL_PERCENTILE)), 2)}

    steady: list[FrameCosts] = [s.costs for s in stats[WARMUP_FRAMES:]]
    costs = {name: summary([getattr(c, name) for c in steady]) for name in COSTS}
    costs["gui_cpu"] = summary([ms for ms in gui_cpu_ms[WARMUP_FRAMES:] if ms is not None])
    return costs


def dropped_in_all(stats: list[FrameStats]) -> int:
    """The frames dropped over the whole run: each frame says how many its stream dropped so far, and
    a stream reopened mid-run (the sound server's devices changed) counts afresh from 0."""
    total = last = 0
    for s in stats:
        if s.dropped_frames < last:
            total += last
        last = s.dropped_frames
    return total + last


def frame_rows(stats: list[FrameStats], arrivals: list[tuple[float, int, int]]) -> list[dict]:
    """Every frame, for a plot or to find where the drops and xruns fell: when the window received it
    (ms after the first), its step (wall and CPU), the engine thread's wait for input, the queues,
    the mic-to-speaker estimate, and the dropped frames, xruns and output callbacks so far."""
    first = arrivals[0][0] if arrivals else 0.0
    return [{"frame": s.frame_index, "at_ms": round((t - first) * 1000.0, 1), "step_ms": round(s.step_ms, 2),
             "step_cpu_ms": round(s.costs.step_cpu, 2), "input_wait_ms": round(s.costs.input_wait, 2),
             "input_queue_ms": round(s.timings.input_queue, 1), "output_queue_ms": round(s.timings.output_queue, 1),
             "mic_to_speaker_ms": round(s.end_to_end_ms, 1), "dropped": s.dropped_frames, "xruns": xruns,
             "output_callbacks": callbacks}
            for s, (t, xruns, callbacks) in zip(stats, arrivals)]


def measure(seconds: float, model: str = "demo", precision: str = "auto", offline_frames: int | None = None,
            screenshot: str | None = None) -> dict:
    """Needs the PulseAudio test devices (``audio_server.devices_running``)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    QApplication.instance() or QApplication(sys.argv[:1])
    share_cores_with_the_gui()
    load_before = load_average()
    with tempfile.TemporaryDirectory(prefix="parley-bench-app-") as tmp:
        app = run_app(seconds, model, precision, Path(tmp), screenshot)
    stats = app["stats"]
    if len(stats) <= WARMUP_FRAMES:
        raise RuntimeError(f"only {len(stats)} frames in {seconds} s: nothing after the warm-up to measure")
    in_app = FrameTimeSummary.of([s.step_ms for s in stats])
    replayed = stats[:offline_frames]
    torch.set_num_threads(app["threads"])
    offline = FrameTimeSummary.of(offline_ms(app["model"], replayed))
    paced = FrameTimeSummary.of(offline_ms(app["model"], replayed, paced=True))
    edge = max(1, math.ceil(DRIFT_SHARE * len(stats)))
    latency = [s.end_to_end_ms for s in stats]
    compute = [s.step_ms for s in stats[WARMUP_FRAMES:]]
    return {
        "cpu": cpu_model(),
        "load_average": [load_before, load_average()],
        "threads": app["threads"],
        **_thread_measurement(app["thread_choice"]),
        "model": app["model"].info.name,
        "precision": app["model"].info.precision.value,
        "seconds": seconds,
        "frames": len(stats),
        "frames_held": sum(s.mic_open for s in stats),
        "rtf_median": round(in_app.median_ms / engine.FRAME_MS, 3),
        "rtf_p95": round(in_app.p95_ms / engine.FRAME_MS, 3),
        "dropped_frames": dropped_in_all(stats),
        "output_gap_seconds": round(app["output_gap_seconds"], 3),
        "xruns": app["xruns"],
        "xruns_before_start": app["xruns_before_start"],
        "audio_device_lost": app["audio_device_lost"],
        "mic_to_speaker_ms_median": round(_median(latency), 1),
        "mic_to_speaker_ms_start": round(_median(latency[:edge]), 1),
        "mic_to_speaker_ms_end": round(_median(latency[-edge:]), 1),
        "app_ms_per_frame": round(in_app.median_ms, 2),
        "app_ms_per_frame_start": round(_median(compute[:edge]), 2),
        "app_ms_per_frame_end": round(_median(compute[-edge:]), 2),
        "offline_frames": len(replayed),
        "offline_ms_per_frame": round(offline.median_ms, 2),
        "app_compute_ratio": round(in_app.median_ms / offline.median_ms, 3),
        "paced_offline_ms_per_frame": round(paced.median_ms, 2),
        "app_paced_ratio": round(in_app.median_ms / paced.median_ms, 3),
        "gui_cpu_ms_per_frame": round(app["gui_cpu_s"] * engine.FRAME_MS / seconds, 2),
        "frame_costs_ms": frame_costs(stats, app["gui_cpu_ms"]),
        "rss_mb_start": round(app["rss_mb_start"], 1),
        "rss_mb_by_minute": [round(rss, 1) for rss in app["rss_mb_by_minute"]],
        "rss_mb_end": round(app["rss_mb_end"], 1),
        "speed_warning": app["speed_warning"],
        "rows": frame_rows(stats, app["arrivals"]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the window streams")
    parser.add_argument("--model", default="demo", help="a preset or a model folder")
    parser.add_argument("--precision", default="auto", choices=[p.value for p in engine.Precision])
    parser.add_argument("--offline-frames", type=int, default=None,
                        help="step only this many frames offline for the comparison (default: as many as the app ran)")
    parser.add_argument("--json", help="write the result here")
    parser.add_argument("--screenshot", help="save the window as it looks at the end of the run here (PNG)")
    args = parser.parse_args(argv)
    if args.offline_frames is not None and args.offline_frames <= WARMUP_FRAMES:
        parser.error(f"--offline-frames must be more than the {WARMUP_FRAMES} warm-up frames")
    if args.seconds <= 2 * OUTPUT_SETTLE_S:
        parser.error(f"--seconds must be more than {2 * OUTPUT_SETTLE_S:g}")
    with audio_server.devices_running():
        report = measure(args.seconds, args.model, args.precision, args.offline_frames, args.screenshot)
    text = json.dumps(report, indent=2)
    print(json.dumps({k: v for k, v in report.items() if k != "rows"}, indent=2))
    if args.json:
        engine.write_atomically(args.json, (text + "\n").encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
