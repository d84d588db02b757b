"""`parley selftest`: a headless check of the whole chain, reported as exactly one JSON line on stdout.

Checks, in order: Qt opens an offscreen main window; the demo model loads; a few frames of a
test signal go through the real input callback -> worker -> encode/LM/depth/decode -> output
callback; the conversation is saved to a temporary folder and opened again; PortAudio loads and
lists devices (zero devices is fine: a CI machine has no sound card). Anything printed by the
libraries goes to stderr so that stdout carries only the JSON line.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np

SELFTEST_FRAMES = 6
MODEL_LOAD_TIMEOUT_S = 600.0  # the first run builds the demo model


def run_selftest() -> int:
    report: dict = {"ok": False, "checks": {}}
    real_stdout = sys.stdout
    with contextlib.redirect_stdout(sys.stderr):
        try:
            _run_checks(report["checks"])
            report["ok"] = all(c.get("ok") for c in report["checks"].values())
        except Exception as e:
            report["error"] = f"{type(e).__name__}: {e}"
            traceback.print_exc()
    real_stdout.write(json.dumps(report) + "\n")
    real_stdout.flush()
    return 0 if report["ok"] else 1


def _check(checks: dict, name: str, fn) -> object:
    started = time.monotonic()
    try:
        value = fn()
    except Exception as e:
        checks[name] = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        raise
    checks[name] = {"ok": True, "seconds": round(time.monotonic() - started, 3)}
    return value


def _run_checks(checks: dict) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    with tempfile.TemporaryDirectory(prefix="parley-selftest-") as tmp:
        window = _check(checks, "qt_window", lambda: _open_window(tmp))
        try:
            _check(checks, "model", lambda: _load_model(window))
            checks["model"]["name"] = window.model_info.name
            checks["model"]["device"] = window.model_info.device
            stats = _check(checks, "frames", lambda: _stream_frames(window))
            checks["frames"]["count"] = len(stats)
            checks["frames"]["ms_per_frame"] = round(float(np.median([s.step_ms for s in stats])), 1)
            _check(checks, "conversation_file", lambda: _save_and_reopen(window, Path(tmp) / "selftest.parley"))
        finally:
            window.unsaved_frames = 0
            window.close()
    devices = _check(checks, "audio_devices", _query_audio)
    checks["audio_devices"]["count"] = devices


def _open_window(tmp: str):
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from app.gui import pyside_problem
    from app.main_window import MainWindow

    problem = pyside_problem()
    if problem:
        raise RuntimeError(problem)
    QApplication.instance() or QApplication(sys.argv[:1])
    window = MainWindow(QSettings(str(Path(tmp) / "settings.ini"), QSettings.IniFormat), audio=False, worker_seed=1,
                        conversations_dir=Path(tmp))
    window.show()
    return window


def _load_model(window) -> None:
    from app.headless import SignalRecorder, wait_until

    failures = SignalRecorder()
    window.worker.model_failed.connect(failures.record)
    window.load_model("demo", "cpu", "auto")
    if not wait_until(lambda: window.model_info is not None or failures.calls, MODEL_LOAD_TIMEOUT_S):
        raise TimeoutError("the demo model did not load in time")
    if failures.calls:
        raise RuntimeError(failures.calls[0][0])


def _stream_frames(window) -> list:
    from app.audio_bridge import AudioBridge
    from app.headless import BridgeFeeder, SignalRecorder, wait_until
    from engine import FRAME_MS, SAMPLE_RATE

    frames, errors = SignalRecorder(), SignalRecorder()
    window.worker.frame_done.connect(frames.record)
    window.worker.error.connect(errors.record)
    bridge = AudioBridge(48_000, 2, SAMPLE_RATE, 1)  # exercises resampling and downmix
    window.worker.set_bridge(bridge)
    window.press_talk("key")
    t = np.arange(int(bridge.input_rate * FRAME_MS / 1000.0) * (SELFTEST_FRAMES + 2)) / bridge.input_rate
    tone = (0.2 * np.sin(2 * np.pi * 220.0 * t)).astype(np.float32)
    feeder = BridgeFeeder(bridge, lambda: window.worker.processed_position)
    feeder.feed(np.stack([tone, tone], axis=1))
    wait_until(lambda: len(frames) >= SELFTEST_FRAMES or errors.calls, 10.0)  # queued signals in flight
    window.release_talk("key")
    window.worker.set_bridge(None)
    if errors.calls:
        raise RuntimeError(errors.calls[0][0])
    stats = [args[0] for args in frames.calls]
    if len(stats) < SELFTEST_FRAMES:
        raise RuntimeError(f"only {len(stats)} of {SELFTEST_FRAMES} frames came back")
    played = np.concatenate(feeder.played)
    if not np.isfinite(played).all():
        raise RuntimeError("the model produced non-finite audio")
    return stats


def _save_and_reopen(window, path: Path) -> None:
    from app.headless import SignalRecorder, wait_until

    done, failed, opened = SignalRecorder(), SignalRecorder(), SignalRecorder()
    window.worker.file_done.connect(done.record)
    window.worker.file_failed.connect(failed.record)
    window.worker.conversation_opened.connect(opened.record)
    window.worker.save_conversation(str(path))
    if not wait_until(lambda: done.calls or failed.calls, 60.0) or failed.calls:
        raise RuntimeError(failed.calls[0][1] if failed.calls else "saving timed out")
    window.worker.open_conversation(str(path))
    if not wait_until(lambda: opened.calls or failed.calls, 60.0) or failed.calls:
        raise RuntimeError(failed.calls[0][1] if failed.calls else "opening timed out")
    if opened.calls[0][1] != str(path):
        raise RuntimeError("the reopened conversation reports another path")


def _query_audio() -> int:
    import sounddevice as sd

    return len(sd.query_devices())
