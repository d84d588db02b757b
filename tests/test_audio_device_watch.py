"""Devices that follow the person: the sound server's events reach the app (no polling), a new
default is followed without restarting the conversation, a missing device falls back to the
default and is said once. Real PulseAudio null sinks (tests/audio_server.py)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest
from PySide6.QtCore import QSettings

from app.audio.device_follow import defaults_moved, missing_devices, wanted_devices
from app.audio.device_watch import DeviceWatch, ServerDevices, defaults_in_info, names_in_short_list
from app.audio.headless import SignalRecorder
from app.window.main_window import MainWindow
from tests import audio_server
from tests.test_app_crash import ROOT
from tests.test_app_window import conversations_dir
from tests.test_audio_device import LiveApp

EXTRA_SINK = "parley_extra"
LIST_UPDATE_S = 1.0  # the bound: the device list follows within a second


def test_the_follow_rules():
    chosen = {"input": "", "output": "Headset (ALSA)"}
    assert missing_devices(chosen, {"pulse (ALSA)"}) == {"output": "Headset (ALSA)"}
    assert missing_devices(chosen, {"Headset (ALSA)"}) == {}
    assert wanted_devices(chosen, {"output": "Headset (ALSA)"}) == (None, None)
    assert wanted_devices(chosen, {}) == (None, "Headset (ALSA)")
    before = ServerDevices(("a", "b"), ("m",), "a", "m")
    assert defaults_moved(before, ServerDevices(("a", "b"), ("m",), "b", "m")) == {"output": "b"}
    assert defaults_moved(before, before) == {}


def test_the_server_lists_are_read_from_pactl_output():
    assert names_in_short_list("2\tparley_mic_feed\tmodule-null-sink.c\ts16le 1ch 24000Hz\tIDLE\n"
                               "1\tparley_speaker\tmodule-null-sink.c\ts16le 2ch 48000Hz\tSUSPENDED\n") == (
        "parley_mic_feed", "parley_speaker")
    assert defaults_in_info("Server Name: pulseaudio\nDefault Sink: parley_speaker\nDefault Source: parley_mic\n") == (
        "parley_speaker", "parley_mic")


@contextlib.contextmanager
def extra_sink():
    """A second null sink, unloaded (and the default given back) whatever happens."""
    default = defaults_in_info(audio_server._run("pactl", "info").stdout)[0]
    module = audio_server._run("pactl", "load-module", "module-null-sink", f"sink_name={EXTRA_SINK}").stdout.strip()
    loaded_at = time.monotonic()
    try:
        yield loaded_at
    finally:
        audio_server._run("pactl", "set-default-sink", default, check=False)
        audio_server._run("pactl", "unload-module", module, check=False)


def wait_for(qtbot, condition, within_s: float) -> float:
    """Seconds until ``condition`` held (fails after ``within_s``)."""
    start = time.monotonic()
    qtbot.waitUntil(condition, timeout=int(within_s * 1000))
    return time.monotonic() - start


def test_the_watch_sees_a_sink_plugged_in_and_out_within_a_second(pulse_audio, qtbot):
    watch = DeviceWatch()
    assert watch.unavailable == ""
    changes = SignalRecorder()
    watch.changed.connect(changes.record)
    watch.start()
    try:
        qtbot.waitUntil(lambda: watch.devices is not None, timeout=5_000)
        assert audio_server.SPEAKER_SINK in watch.devices.sinks and EXTRA_SINK not in watch.devices.sinks
        with extra_sink() as loaded_at:
            qtbot.waitUntil(lambda: EXTRA_SINK in watch.devices.sinks, timeout=int(LIST_UPDATE_S * 1000))
            print(f"sink added: listed after {time.monotonic() - loaded_at:.3f} s")
        unloaded_at = time.monotonic()
        qtbot.waitUntil(lambda: EXTRA_SINK not in watch.devices.sinks, timeout=int(LIST_UPDATE_S * 1000))
        print(f"sink removed: gone from the list after {time.monotonic() - unloaded_at:.3f} s")
        before, after = changes.calls[-1]
        assert EXTRA_SINK in before.sinks and EXTRA_SINK not in after.sinks
    finally:
        watch.stop()


def sink_playing_for(pid: int) -> str:
    """The name of the sink this process's output stream plays into ("" when it has none now)."""
    env = {**os.environ, "LC_ALL": "C"}
    names = {line.split("\t")[0]: line.split("\t")[1] for line in subprocess.run(
        ["pactl", "list", "short", "sinks"], capture_output=True, text=True, env=env, timeout=10).stdout.splitlines()}
    inputs = subprocess.run(["pactl", "list", "sink-inputs"], capture_output=True, text=True, env=env,
                            timeout=10).stdout.split("Sink Input #")
    for block in inputs:
        fields = dict(line.strip().split(": ", 1) for line in block.splitlines() if ": " in line)
        if f'application.process.id = "{pid}"' in block and "Sink" in fields:
            return names.get(fields["Sink"], "")
    return ""


@pytest.fixture
def live_app(pulse_audio, qtbot, tmp_path, app_demo_model):
    app = LiveApp(qtbot, tmp_path, app_demo_model)
    yield app
    app.close()


def test_a_conversation_follows_a_new_default_speaker_without_a_restart(live_app, qtbot):
    w = live_app.window
    replaced = SignalRecorder()
    w.model.conversation_replaced.connect(replaced.record)
    watch = w.device_follower.watch
    messages = SignalRecorder()
    w.model.message.connect(messages.record)
    qtbot.waitUntil(lambda: sink_playing_for(os.getpid()) == audio_server.SPEAKER_SINK, timeout=10_000)
    bridge = w.model.devices.audio.bridge
    controller = w.model.worker.controller
    session, session_frames = controller.session, controller.session.frames
    with extra_sink() as loaded_at:
        qtbot.waitUntil(lambda: EXTRA_SINK in watch.devices.sinks, timeout=int(LIST_UPDATE_S * 1000))
        print(f"listed {time.monotonic() - loaded_at:.3f} s after the sink was loaded")
        # PortAudio is initialised again (its list current) and the streams reopen: a new bridge
        qtbot.waitUntil(lambda: w.model.devices.audio.bridge not in (None, bridge)
                        and w.model.devices.audio.status.state == "running", timeout=15_000)
        print(f"PortAudio listed again and the streams running {time.monotonic() - loaded_at:.2f} s after")
        assert ("Audio devices changed: parley_extra, parley_extra.monitor added",) in messages.calls
        audio_server._run("pactl", "set-default-sink", EXTRA_SINK)
        moved = wait_for(qtbot, lambda: sink_playing_for(os.getpid()) == EXTRA_SINK, within_s=15)
        print(f"the speaker stream plays into the new default after {moved:.2f} s")
        qtbot.waitUntil(lambda: ("Now using the system's default speaker: parley_extra",) in messages.calls,
                        timeout=int(LIST_UPDATE_S * 1000))
        frames = len(live_app.frames)
        qtbot.waitUntil(lambda: w.model.devices.audio.status.state == "running" and len(live_app.frames) > frames + 5,
                        timeout=20_000)
        # the same conversation goes on: the same engine session, further on
        assert controller.session is session and session.frames > session_frames and len(replaced) == 0
    qtbot.waitUntil(lambda: EXTRA_SINK not in watch.devices.sinks, timeout=int(LIST_UPDATE_S * 1000))
    qtbot.waitUntil(lambda: sink_playing_for(os.getpid()) == audio_server.SPEAKER_SINK, timeout=15_000)
    frames = len(live_app.frames)
    qtbot.waitUntil(lambda: len(live_app.frames) > frames + 5, timeout=20_000)
    assert len(replaced) == 0


def test_a_missing_chosen_device_is_said_once_and_the_default_is_used(pulse_audio, qtbot, tmp_path):
    store = QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)
    store.setValue("output_device", "Unplugged headset (ALSA)")  # chosen once, not here now
    w = MainWindow(store, audio=True, conversations_dir=conversations_dir(tmp_path))
    messages = SignalRecorder()
    w.model.message.connect(messages.record)
    try:
        qtbot.waitUntil(lambda: w.model.devices.audio.status.state == "ready", timeout=20_000)  # idle: closed
        said = [text for (text,) in messages.calls if "Unplugged headset" in text]
        assert said == ["The speaker Unplugged headset (ALSA) is not connected; using the system default "
                        "until it is back."]
        # still the choice, for when it is back
        assert w.model.preferences.settings.output_device == "Unplugged headset (ALSA)"
        listed = w.model.devices.audio.status.devices
        w.model.devices.refresh()  # listed again, still missing: not said again
        qtbot.waitUntil(lambda: w.model.devices.audio.status.devices is not listed
                        and w.model.devices.audio.status.state == "ready", timeout=15_000)
        assert w.model.devices.audio.bridge is None  # looked up, not opened
        assert len([text for (text,) in messages.calls if "Unplugged headset" in text]) == 1
    finally:
        w.close()


WATCHING_CHILD = """
import os, sys
from PySide6.QtCore import QCoreApplication, QTimer
from app.audio.device_watch import DeviceWatch
app = QCoreApplication([])
watch = DeviceWatch()
watch.start()
QTimer.singleShot(0, lambda: print("watching", flush=True))
app.exec()
"""


def subscribers_under(pid: int) -> list[int]:
    """The ``pactl subscribe`` processes among ``pid``'s descendants."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], list(children.get(pid, []))
    while todo:
        child = todo.pop()
        todo.extend(children.get(child, []))
        if alive_with(child, "subscribe"):
            found.append(child)
    return found


def alive_with(pid: int, argument: str) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            words = f.read().split(b"\0")
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return argument.encode() in words and any(w.endswith(b"pactl") for w in words) and state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_killing_the_app_ends_its_pactl_subscribe(pulse_audio):
    child = subprocess.Popen([sys.executable, "-c", WATCHING_CHILD], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    subscribers: list[int] = []
    try:
        assert child.stdout.readline().strip() == "watching"
        deadline = time.monotonic() + 10
        while not (subscribers := subscribers_under(child.pid)):
            assert time.monotonic() < deadline, "no pactl subscribe started"
            time.sleep(0.05)
        child.kill()  # as a crash or kill -9 ends it: no clean-up of its own runs
        child.wait(10)
        deadline = time.monotonic() + 5
        while any(alive_with(pid, "subscribe") for pid in subscribers):
            assert time.monotonic() < deadline, "pactl subscribe outlived the app"
            time.sleep(0.05)
    finally:
        child.kill()
        child.wait(10)
        for pid in subscribers:  # one left behind (the test failed) is not left running
            if alive_with(pid, "subscribe"):
                os.kill(pid, signal.SIGKILL)
