"""PortAudio from several threads at once: the process's audio calls never race each other.

PortAudio is not thread-safe, and the app has several callers: each window's control thread,
throw-away teardown threads that a hung call leaves behind, and replay. Unserialised, a
re-initialisation on one thread while another lists devices crashes the process in seconds
(CI saw it as a segmentation fault inside ``Pa_Initialize``). The check runs in a child process
so that a crash fails this test instead of killing the suite.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time

import pytest

from app.audio.streams import portaudio_held, run_with_timeout
from tests.test_app_crash import ROOT

STRESS_SECONDS = 6.0

CHILD = textwrap.dedent(f"""
    import threading, time
    import sounddevice as sd
    from app.audio.streams import AudioIO, _query_devices, _reinitialise

    ios = [AudioIO(on_bridge=lambda bridge: None) for _ in range(2)]
    for io in ios:
        io.start()
    end = time.monotonic() + {STRESS_SECONDS}
    counts = {{"reinit": 0, "query": 0}}

    def reinitialise():  # what a recovery or a Refresh does, from a thread of its own
        while time.monotonic() < end:
            try:
                _reinitialise(sd)
                counts["reinit"] += 1
            except RuntimeError:
                pass

    def list_devices():  # what a window's control thread does when it starts
        while time.monotonic() < end:
            _query_devices(sd)
            counts["query"] += 1

    threads = [threading.Thread(target=f) for f in (reinitialise, reinitialise, list_devices)]
    for t in threads:
        t.start()
    while time.monotonic() < end:
        for io in ios:
            io.refresh_devices()
        time.sleep(0.5)
    for t in threads:
        t.join()
    settled = time.monotonic() + 30.0  # then each window's audio comes back and closes cleanly
    while time.monotonic() < settled and any(io.status.state != "running" for io in ios):
        time.sleep(0.1)
    states = ",".join(io.status.state for io in ios)
    print("survived", counts["reinit"], counts["query"], states, all(io.stop(timeout=10.0) for io in ios), flush=True)
""")


def test_reinitialising_and_listing_devices_on_many_threads_does_not_crash(pulse_audio):
    done = subprocess.run([sys.executable, "-X", "faulthandler", "-c", CHILD], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"rc {done.returncode}\n{done.stderr[-3000:]}"
    word, reinits, queries, states, stopped = done.stdout.split()
    assert word == "survived" and int(reinits) > 10 and int(queries) > 10, done.stdout
    assert states == "running,running" and stopped == "True", done.stdout


def test_a_call_that_hangs_keeps_the_lock_until_it_returns():
    release = threading.Event()
    assert not run_with_timeout(release.wait, timeout=0.2)  # abandoned, still inside the call
    started = time.monotonic()
    with pytest.raises(RuntimeError, match="still busy"), portaudio_held(timeout=0.3):
        pass
    assert time.monotonic() - started >= 0.3
    release.set()
    with portaudio_held(timeout=2.0):  # the abandoned call returned and let go
        pass
    assert run_with_timeout(lambda: None, timeout=2.0)
