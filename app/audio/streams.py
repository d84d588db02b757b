"""PortAudio streams: open, list devices, detect a lost device and recover, all off the GUI thread.

PortAudio facts this module is built around:

* it freezes the device list at initialisation, so refreshing devices means terminate +
  initialise, which must not race with open streams;
* it has no disconnect callback: when the sound server dies, callbacks simply stop and
  ``stream.active`` stays True, so a heartbeat (the callback counters) is the only signal;
* ``stop()/abort()/close()`` on a dead stream can hang for seconds.

The streams are open only while something needs them (``set_active``: a conversation runs, or a
recorder borrows them): an idle app holds no microphone (a desktop's indicator stays off) and
no speaker stream. While they are closed the chosen devices are only looked up in PortAudio's
list (``ready``), so a missing microphone is still said.

So every PortAudio call of a stream runs on one control thread (a daemon, fed by a command
queue), and calls that may hang run in a throw-away daemon thread with a timeout. The GUI only
calls ``poll()`` from a timer, which reads an immutable ``DeviceStatus`` snapshot and, when the
heartbeat stopped, asks the control thread to recover.

PortAudio itself is not thread-safe, and a process has more than one caller (a window's control
thread, abandoned teardown threads, replay, a window closed while its control thread was still
re-initialising): a ``Pa_Terminate`` racing a ``Pa_Initialize`` crashed the process. So every
call holds one process-wide lock (``portaudio_held``); a call abandoned because it hung keeps
holding it, and later callers wait a bounded time and then report the audio system busy.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from app.audio.alsa_messages import alsa_messages_to_log
from app.audio.bridge import AudioBridge
from app.audio.playback_capture import (
    PULSE_DEVICE,
    CaptureRoute,
    PlaybackSources,
    capture_route,
    list_playback_sources,
)
from app.i18n import translate
from engine import SAMPLE_RATE

log = logging.getLogger(__name__)

BLOCK_SECONDS = 0.02
FIRST_CALLBACK_GRACE_S = 4.0  # input through PulseAudio can take ~2 s to deliver its first block
# Callbacks silent this long mean a lost device. On a loaded 2-core machine callbacks were seen
# to pause for over a second with the device fine (bench_app, during a model load), and every
# false alarm costs ~2 s of input while PulseAudio restarts the capture stream.
HEARTBEAT_TIMEOUT_S = 2.5
RETRY_INTERVAL_S = 2.0
TEARDOWN_TIMEOUT_S = 1.5
PORTAUDIO_WAIT_S = 3.0  # how long a caller waits for another thread's PortAudio call to return

_PORTAUDIO = threading.Lock()


@dataclass(frozen=True)
class DeviceInfo:
    index: int
    name: str
    host_api: str
    max_input_channels: int
    max_output_channels: int
    default_samplerate: float

    @property
    def label(self) -> str:
        """What pickers show and settings store: a name alone is ambiguous on Windows (one per host API)."""
        return device_label(self.name, self.host_api)


def device_label(name: str, host_api: str) -> str:
    return f"{name} ({host_api})"


@dataclass(frozen=True)
class DeviceStatus:
    state: str = "stopped"  # stopped | ready (found, streams closed) | starting | running | lost | error
    message: str = ""
    input_name: str = ""
    output_name: str = ""
    input_rate: int = 0
    output_rate: int = 0
    recoveries: int = 0  # times a lost device was reopened without restarting the app
    devices: tuple[DeviceInfo, ...] = field(default_factory=tuple)
    playback: PlaybackSources = PlaybackSources()  # what this computer plays, as inputs


@contextmanager
def portaudio_held(timeout: float = PORTAUDIO_WAIT_S) -> Iterator[None]:
    """Hold the process's PortAudio lock around a block of PortAudio calls."""
    if not _PORTAUDIO.acquire(timeout=timeout):
        raise RuntimeError("the audio system is still busy with an earlier call that has not returned")
    try:
        yield
    finally:
        _PORTAUDIO.release()


def run_with_timeout(fn: Callable[[], object], timeout: float) -> bool:
    """Run the PortAudio calls ``fn`` in a daemon thread, holding the PortAudio lock; True if
    they ran and finished in time (a hung call is abandoned, and keeps the lock until it returns)."""
    done = threading.Event()
    finished = []

    def target():
        try:
            with portaudio_held(timeout):
                fn()
            finished.append(True)
        except Exception:
            log.debug("ignored error during audio teardown", exc_info=True)
        finally:
            done.set()

    threading.Thread(target=target, name="parley-audio-teardown", daemon=True).start()
    return done.wait(timeout) and bool(finished)


class AudioIO:
    """Owns the input and output streams of the app; every method is safe to call from the GUI."""

    def __init__(self, on_bridge: Callable[[AudioBridge | None], None]) -> None:
        self._on_bridge = on_bridge
        self._status = DeviceStatus()
        self._commands: queue.SimpleQueue = queue.SimpleQueue()
        self._streams: list = []
        self._bridge: AudioBridge | None = None
        self._wanted: tuple[str | None, str | None] | None = None  # (input, output) names; None = default
        self._active = False  # the streams are wanted open (set_active); else the devices are only looked up
        self._opened_at = 0.0
        self._next_retry = 0.0
        self._recovery_pending = False
        self._last_open_error = ""
        threading.Thread(target=self._control_loop, name="parley-audio-control", daemon=True).start()

    # -- GUI-side API (never blocks) ---------------------------------------------------------
    @property
    def status(self) -> DeviceStatus:
        return self._status

    @property
    def bridge(self) -> AudioBridge | None:
        return self._bridge

    def use(self, input_name: str | None = None, output_name: str | None = None) -> None:
        """The devices to use (None: the system default): reopened if the streams are open, else looked up."""
        self._wanted = (input_name, output_name)
        self._commands.put("open")

    def set_active(self, active: bool) -> None:
        """Open the streams on the devices in use (``active``), or close them and only look the devices up."""
        if active != self._active:
            self._active = active
            self._commands.put("open")

    def start(self, input_name: str | None = None, output_name: str | None = None) -> None:
        """Open the streams on these devices now."""
        self._active = True
        self.use(input_name, output_name)

    def stop(self, timeout: float = 0.0) -> bool:
        """Close the streams; waits up to ``timeout`` seconds (for quitting), True once closed."""
        self._wanted = None
        closed = threading.Event()
        self._commands.put(("close", closed))
        return closed.wait(timeout) if timeout > 0 else False

    def refresh_devices(self) -> None:
        """Re-initialise PortAudio to see devices plugged in since start (reopens the streams)."""
        self._commands.put("refresh")

    def poll(self) -> DeviceStatus:
        """Heartbeat check; call it from a GUI timer. Starts recovery when callbacks stopped."""
        status = self._status
        now = time.monotonic()
        if self._wanted is None or self._recovery_pending:
            return status
        if status.state == "running" and self._heartbeat_stopped(now):
            self._set(state="lost", message=translate(
                "AudioIO", "The audio device stopped responding; reconnecting..."))
            self._request_recovery()
        elif status.state in ("lost", "error") and now >= self._next_retry:
            self._request_recovery()
        return self._status

    def _heartbeat_stopped(self, now: float) -> bool:
        bridge = self._bridge
        if bridge is None:
            return False
        if now - self._opened_at < FIRST_CALLBACK_GRACE_S and (bridge.input_callbacks == 0
                                                                or bridge.output_callbacks == 0):
            return False
        newest = min(bridge.last_input_time or self._opened_at, bridge.last_output_time or self._opened_at)
        return now - max(newest, self._opened_at) > HEARTBEAT_TIMEOUT_S

    def _request_recovery(self) -> None:
        self._recovery_pending = True
        self._commands.put("recover")

    # -- control thread ----------------------------------------------------------------------
    def _control_loop(self) -> None:
        import sounddevice as sd

        alsa_messages_to_log()
        self._set_devices(_query_devices(sd))
        while True:
            command = self._commands.get()
            try:
                if isinstance(command, tuple):  # ("close", event set when done)
                    self._close_streams()
                    self._set(state="stopped", message="")
                    command[1].set()
                elif command == "open":
                    self._close_streams()
                    self._open(sd)
                elif command in ("recover", "refresh"):
                    self._close_streams()
                    _reinitialise(sd)
                    self._set_devices(_query_devices(sd))
                    if self._wanted is not None:
                        self._open(sd, recovering=command == "recover")
            except Exception as e:  # never let the control thread die
                log.exception("audio control command %s failed", command)
                self._set(state="error", message=translate("AudioIO", "Audio error: {problem}").format(problem=e))
            finally:
                if command == "recover":
                    self._recovery_pending = False

    def _open(self, sd, recovering: bool = False) -> None:
        """Open the streams while active; else look the devices up (``ready``) with no stream open."""
        if self._wanted is None:
            return
        input_name, output_name = self._wanted
        if self._active:
            self._set(state="starting", message=translate("AudioIO", "Opening audio devices..."))
        try:
            route = capture_route(input_name, self._status.playback, device_label(PULSE_DEVICE, "ALSA"))
            if not self._active:
                with portaudio_held():
                    names = _found_names(sd, route, output_name)
                self._last_open_error = ""
                self._set(state="ready", message="", input_name=names[0], output_name=names[1],
                          input_rate=0, output_rate=0)
                return
            bridge, streams, names = _open_streams(sd, route, output_name)
        except Exception as e:
            message = translate("AudioIO", "No audio device: {problem}").format(problem=e)
            if message != self._last_open_error:  # retries every few seconds; log each new problem once
                log.warning("opening audio devices failed: %s", e)
            self._last_open_error = message
            self._next_retry = time.monotonic() + RETRY_INTERVAL_S
            self._set(state="error", message=message)
            self._on_bridge(None)
            return
        self._streams = streams
        self._bridge = bridge
        self._last_open_error = ""
        self._opened_at = time.monotonic()
        self._on_bridge(bridge)
        self._set(
            state="running",
            message=translate("AudioIO", "Audio device reconnected.") if recovering else "",
            input_name=names[0],
            output_name=names[1],
            input_rate=bridge.input_rate,
            output_rate=bridge.output_rate,
            recoveries=self._status.recoveries + (1 if recovering else 0),
        )

    def _close_streams(self) -> None:
        streams, self._streams = self._streams, []
        if self._bridge is not None:
            self._on_bridge(None)
            self._bridge = None
        for stream in streams:
            if not run_with_timeout(lambda s=stream: (s.abort(), s.close()), TEARDOWN_TIMEOUT_S):
                log.warning("audio stream did not close within %.1f s; abandoned", TEARDOWN_TIMEOUT_S)

    def _set_devices(self, devices: tuple[DeviceInfo, ...]) -> None:
        self._set(devices=devices, playback=list_playback_sources(devices))

    def _set(self, **changes) -> None:
        self._status = replace(self._status, **changes)


def _reinitialise(sd) -> None:
    ok = run_with_timeout(lambda: (sd._terminate(), sd._initialize()), TEARDOWN_TIMEOUT_S * 2)
    if not ok:
        raise RuntimeError("PortAudio did not re-initialise in time")


def _query_devices(sd) -> tuple[DeviceInfo, ...]:
    try:
        with portaudio_held():
            devices = sd.query_devices()
            apis = sd.query_hostapis()
    except Exception:
        log.warning("could not list audio devices", exc_info=True)
        return ()
    return tuple(
        DeviceInfo(
            index=i,
            name=d["name"],
            host_api=apis[d["hostapi"]]["name"],
            max_input_channels=d["max_input_channels"],
            max_output_channels=d["max_output_channels"],
            default_samplerate=d["default_samplerate"],
        )
        for i, d in enumerate(devices)
    )


def find_device(sd, label: str | None, kind: str) -> int:
    """Index of the device with this ``DeviceInfo.label`` and ``kind`` ('input'/'output'); default if None."""
    channels_key = f"max_{kind}_channels"
    if label:
        apis = sd.query_hostapis()
        for i, d in enumerate(sd.query_devices()):
            if device_label(d["name"], apis[d["hostapi"]]["name"]) == label and d[channels_key] > 0:
                return i
        missing = (translate("AudioIO", "the microphone {name} is not available") if kind == "input"
                   else translate("AudioIO", "the speaker {name} is not available"))
        raise RuntimeError(missing.format(name=label))
    index = sd.default.device[0 if kind == "input" else 1]
    if index is None or index < 0:
        raise RuntimeError(translate("AudioIO", "there is no default microphone") if kind == "input"
                           else translate("AudioIO", "there is no default speaker"))
    return index


def pick_rate(sd, device: int, kind: str) -> int:
    """24 kHz when the device takes it (no resampling), else its default rate."""
    check = sd.check_input_settings if kind == "input" else sd.check_output_settings
    try:
        check(device=device, samplerate=SAMPLE_RATE)
        return SAMPLE_RATE
    except Exception:
        return int(sd.query_devices(device)["default_samplerate"])


def _devices(sd, route: CaptureRoute, output_name: str | None):
    """(input index, output index, input info, output info) of the devices wanted; raises when one is missing."""
    in_dev = find_device(sd, route.input_label, "input")
    out_dev = find_device(sd, output_name, "output")
    return in_dev, out_dev, sd.query_devices(in_dev), sd.query_devices(out_dev)


def _found_names(sd, route: CaptureRoute, output_name: str | None) -> tuple[str, str]:
    """The names of the devices wanted, found in PortAudio's list; no stream is opened."""
    _, _, in_info, out_info = _devices(sd, route, output_name)
    return route.shown or in_info["name"], out_info["name"]


def _open_streams(sd, route: CaptureRoute, output_name: str | None):
    streams = []
    try:
        with portaudio_held():
            in_dev, out_dev, in_info, out_info = _devices(sd, route, output_name)
            in_rate, out_rate = pick_rate(sd, in_dev, "input"), pick_rate(sd, out_dev, "output")
            in_channels = min(2, in_info["max_input_channels"])
            out_channels = min(2, out_info["max_output_channels"])
            bridge = AudioBridge(in_rate, in_channels, out_rate, out_channels)
            output = sd.OutputStream(device=out_dev, samplerate=out_rate, channels=out_channels, dtype="float32",
                                     blocksize=int(out_rate * BLOCK_SECONDS), callback=bridge.output_callback)
            streams.append(output)
            with route.opened():
                inp = sd.InputStream(device=in_dev, samplerate=in_rate, channels=in_channels, dtype="float32",
                                     blocksize=int(in_rate * BLOCK_SECONDS), callback=bridge.input_callback)
                streams.append(inp)
                bridge.input_device_latency = float(inp.latency)
                bridge.output_device_latency = float(output.latency)
                output.start()
                inp.start()
    except Exception:
        for s in streams:  # after the lock is released: the closing thread takes it
            run_with_timeout(s.close, TEARDOWN_TIMEOUT_S)
        raise
    return bridge, streams, (route.shown or in_info["name"], out_info["name"])
