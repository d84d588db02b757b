"""A real, clocked audio device for tests: a PulseAudio server with two null sinks.

``parley_speaker`` is the default sink (the app's speaker; tests record its monitor) and
``parley_mic`` the default source, a remap of ``parley_mic_feed.monitor`` (tests play wavs into
``parley_mic_feed`` and the app hears them). Keeping the two apart means the app never hears
its own voice, unless a test loads an ``EchoPath``: the speaker's monitor looped into the
microphone feed, delayed and attenuated, as a room couples a loudspeaker to a microphone. The
helpers start the server only when none runs and tear down only what they started (the modules
they loaded, the server if they started it).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field

SPEAKER_SINK = "parley_speaker"
MIC_FEED_SINK = "parley_mic_feed"
MIC_SOURCE = "parley_mic"


def _run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=15, check=check)


def tools_available() -> bool:
    return all(shutil.which(t) for t in ("pulseaudio", "pactl", "paplay", "parec"))


def server_running() -> bool:
    return subprocess.run(["pactl", "info"], capture_output=True, timeout=10).returncode == 0


def start_server() -> None:
    """Start a PulseAudio daemon (exits never on idle) and wait until it answers."""
    _run("pulseaudio", "-D", "--exit-idle-time=-1", "--log-target=stderr")
    deadline = time.monotonic() + 10
    while not server_running():
        if time.monotonic() > deadline:
            raise RuntimeError("PulseAudio did not come up within 10 s")
        time.sleep(0.1)


def kill_server() -> None:
    _run("pulseaudio", "-k", check=False)
    deadline = time.monotonic() + 10
    while server_running():
        if time.monotonic() > deadline:
            raise RuntimeError("PulseAudio did not stop within 10 s")
        time.sleep(0.1)


@dataclass
class TestDevices:
    """The modules this process loaded into the server (unloaded on teardown)."""

    module_ids: list[str] = field(default_factory=list)

    def load(self) -> None:
        for args in (
            ("module-null-sink", f"sink_name={SPEAKER_SINK}", "rate=48000", "channels=2"),
            ("module-null-sink", f"sink_name={MIC_FEED_SINK}", "rate=24000", "channels=1"),
            ("module-remap-source", f"master={MIC_FEED_SINK}.monitor", f"source_name={MIC_SOURCE}"),
        ):
            self.module_ids.append(_run("pactl", "load-module", *args).stdout.strip())
        _run("pactl", "set-default-sink", SPEAKER_SINK)
        _run("pactl", "set-default-source", MIC_SOURCE)

    def unload(self) -> None:
        for module_id in reversed(self.module_ids):
            _run("pactl", "unload-module", module_id, check=False)
        self.module_ids.clear()


def devices_loaded() -> bool:
    sinks = _run("pactl", "list", "short", "sinks").stdout.split()
    return SPEAKER_SINK in sinks and MIC_FEED_SINK in sinks


@contextlib.contextmanager
def devices_running():
    """The test devices on a running server, for a script run on its own or from the suite: the
    server is started here when none runs, the devices loaded when they are not there already (the
    suite's ``pulse_audio`` fixture loads them), and only what was started here is torn down."""
    if not tools_available():
        raise RuntimeError("PulseAudio is missing: run tests/setup_system.sh (installs pulseaudio, pulseaudio-utils)")
    started = not server_running()
    if started:
        start_server()
    devices = TestDevices()
    try:
        if not devices_loaded():
            devices.load()
        yield
    finally:
        devices.unload()
        if started:
            kill_server()


@dataclass
class EchoPath:
    """``module-loopback`` from the speaker sink's monitor into the microphone feed (the echo)."""

    latency_ms: int = 60
    gain_db: float = -10.0  # the echo's level relative to what the app plays
    module_id: str = ""

    def load(self) -> None:
        self.module_id = _run(
            "pactl", "load-module", "module-loopback", f"source={SPEAKER_SINK}.monitor", f"sink={MIC_FEED_SINK}",
            f"latency_msec={self.latency_ms}", "source_dont_move=true", "sink_dont_move=true",
        ).stdout.strip()
        inputs = json.loads(_run("pactl", "--format=json", "list", "sink-inputs").stdout)
        ours = [i["index"] for i in inputs if str(i.get("owner_module")) == self.module_id]
        if not ours:
            self.unload()
            raise RuntimeError("module-loopback created no sink input")
        # pactl's "dB" argument is a relative change, so set PulseAudio's raw volume: the cube root
        # of the linear gain, scaled to 65536 (its software volume curve).
        raw = round(65536 * (10.0 ** (self.gain_db / 20.0)) ** (1.0 / 3.0))
        _run("pactl", "set-sink-input-volume", str(ours[0]), str(raw))

    def unload(self) -> None:
        if self.module_id:
            _run("pactl", "unload-module", self.module_id, check=False)
            self.module_id = ""


@contextlib.contextmanager
def echo_path(latency_ms: int = 60, gain_db: float = -10.0):
    """The test devices with the echo path, on a running server (as ``devices_running`` gives them)."""
    with devices_running():
        path = EchoPath(latency_ms, gain_db)
        path.load()
        try:
            yield path
        finally:
            path.unload()


class SinkRecorder:
    """Records a sink's monitor as raw float32 mono at 24 kHz through ``parec``.

    Returns once the recording is live (the monitor's first samples, silence where nothing plays,
    have reached the file): the first recording after the server's devices were loaded delivered
    nothing for ~2 s here, so a test that started playing 0.3 s after starting ``parec`` recorded
    most of what it played as missing."""

    def __init__(self, path: str, sink: str = SPEAKER_SINK, live_timeout_s: float = 15.0) -> None:
        self.path = path
        self._file = open(path, "wb")  # noqa: SIM115 - closed in stop()
        self._proc = subprocess.Popen(
            ["parec", f"--device={sink}.monitor", "--format=float32le", "--rate=24000", "--channels=1",
             "--latency-msec=20"],
            stdout=self._file,
        )
        deadline = time.monotonic() + live_timeout_s
        while os.path.getsize(path) == 0:
            if time.monotonic() > deadline or self._proc.poll() is not None:
                self.stop()
                raise RuntimeError(f"parec recorded nothing from {sink}.monitor within {live_timeout_s:.0f} s")
            time.sleep(0.01)

    def stop(self) -> bytes:
        self._proc.terminate()
        self._proc.wait(timeout=10)
        self._file.close()
        with open(self.path, "rb") as f:
            return f.read()


def play_into_mic(wav_path: str) -> subprocess.Popen:
    """Play a wav into the microphone feed (the app hears it on its default input)."""
    return subprocess.Popen(["paplay", f"--device={MIC_FEED_SINK}", os.fspath(wav_path)])


def espeak_wav(path: str, text: str, voice: str = "en-us", words_per_minute: int = 175) -> str:
    """A synthetic voice recorded with espeak-ng (22.05 kHz mono wav); ``path`` is returned."""
    if not shutil.which("espeak-ng"):
        raise RuntimeError("espeak-ng is missing: run tests/setup_system.sh (installs espeak-ng)")
    _run("espeak-ng", "-v", voice, "-s", str(words_per_minute), "-w", os.fspath(path), text)
    return os.fspath(path)


@dataclass
class PulseHandle:
    started: bool  # this test run started the server, so it may kill and restart it
    devices: TestDevices

    def restart_server(self) -> None:
        """Kill the server and bring it back with the same test devices (a lost-device scenario)."""
        kill_server()
        self.devices.module_ids.clear()
        start_server()
        self.devices.load()


def streams_of(pid: int) -> tuple[int, int]:
    """(playback streams, recording streams) the process ``pid`` has open on the server now: what a
    desktop's speaker and microphone indicators show."""
    env = {**os.environ, "LC_ALL": "C"}

    def count(kind: str) -> int:
        text = subprocess.run(["pactl", "list", kind], capture_output=True, text=True, env=env, timeout=10).stdout
        return text.count(f'application.process.id = "{pid}"')

    return count("sink-inputs"), count("source-outputs")
