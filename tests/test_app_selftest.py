"""`parley selftest`: the headless whole-chain check prints exactly one JSON line and returns 0."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from app.cli.selftest import STEADY_FRAMES
from app.engine_thread.real_time import WARMUP_FRAMES
from engine import FRAME_MS
from engine.runtime.threads import thread_candidates
from tests.test_kernel_plan import assert_best_thread_count

ROOT = Path(__file__).resolve().parent.parent


def test_selftest_prints_one_json_line_and_succeeds(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(tmp_path / "config")}
    done = subprocess.run([sys.executable, "-m", "app.cli.command", "selftest"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    lines = done.stdout.splitlines()
    assert len(lines) == 1, f"stdout must be one JSON line, got: {done.stdout!r}\nstderr: {done.stderr[-2000:]}"
    report = json.loads(lines[0])
    assert done.returncode == 0 and report["ok"] is True, report
    checks = report["checks"]
    assert set(checks) == {"qt_window", "model", "frames", "conversation_file", "audio_devices", "audio_processing"}
    assert checks["audio_processing"]["erle_db"] >= 10  # the echo canceller loaded and works
    assert checks["model"]["name"] == "demo"
    assert checks["frames"]["count"] >= WARMUP_FRAMES + STEADY_FRAMES and checks["frames"]["ms_per_frame"] > 0
    # How fast this machine runs the demo, reported beside "ok" (which does not depend on it).
    assert report["ms_per_frame"] == checks["frames"]["ms_per_frame"]
    assert report["real_time"] is (report["ms_per_frame"] < FRAME_MS)
    assert "Traceback" not in done.stderr
    # Nothing native is still alive at exit (the engine thread lets go of the audio it streamed:
    # soxr's bindings name each resampler left behind, on the user's terminal).
    assert "leaked" not in done.stderr, done.stderr[-2000:]
    # What this machine's measurements chose: a kernel per operation, and the thread count.
    plan = report["kernel_plan"]
    assert plan["source"] in ("measured", "cache") and plan["key"]["cpu"] and plan["choices"]
    assert all(c["kernel"] in c["times_us"] for c in plan["choices"])
    threads = report["threads"]
    if len(thread_candidates()) > 1:
        assert_best_thread_count(str(threads["chosen"]), threads["mean_ms_by_threads"],
                                 threads["p90_ms_by_threads"])
    else:  # one count leaves a core to the window and the audio (2 cores): nothing to measure
        assert (threads["chosen"], threads["mean_ms_by_threads"]) == (thread_candidates()[0], {})
