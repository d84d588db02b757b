"""An idle app holds no audio stream: the microphone and the speaker are opened when the conversation
runs and closed when it pauses, on real devices (PortAudio -> ALSA -> PulseAudio null sinks).

What the sound server lists for this process (``pactl list source-outputs``) is what a desktop's
microphone indicator shows."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from PySide6.QtCore import QSettings

from app.audio.headless import SignalRecorder
from app.window.main_window import MainWindow
from tests import audio_server
from tests.test_app_crash import ROOT
from tests.test_app_window import conversations_dir

pytestmark = pytest.mark.audio


def test_the_streams_are_open_only_while_the_conversation_runs(pulse_audio, qtbot, tmp_path, app_demo_model, capfd):
    window = MainWindow(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat),
                        model_loader=lambda *args: app_demo_model, audio=True, worker_seed=1,
                        conversations_dir=conversations_dir(tmp_path))
    frames = SignalRecorder()
    window.model.frame.connect(frames.record)
    model, pid = window.model, os.getpid()
    try:
        window.show()
        window.load_model("demo", "cpu", "float32")
        qtbot.waitUntil(lambda: model.models.model_info is not None and model.devices.status.state == "ready",
                        timeout=60_000)
        qtbot.wait(1500)  # idle: nothing opens by itself
        assert audio_server.streams_of(pid) == (0, 0)
        assert model.devices.status.state == "ready" and model.devices.status.input_name == "default"
        assert model.talk_available()[0] and not window.microphone_banner.isVisible()
        assert "opened while a conversation runs" in window.devices_panel.device_label.text()

        window.press_talk("key")  # Talk opens them, and the frames run
        qtbot.waitUntil(lambda: audio_server.streams_of(pid) == (1, 1) and len(frames) > 3, timeout=20_000)
        window.release_talk("key")
        model.pause()
        qtbot.waitUntil(lambda: audio_server.streams_of(pid) == (0, 0), timeout=10_000)
        qtbot.waitUntil(lambda: model.devices.status.state == "ready", timeout=5_000)
        assert model.talk_available()[0]

        model.start()
        qtbot.waitUntil(lambda: audio_server.streams_of(pid) == (1, 1), timeout=20_000)
        model.end_conversation()  # End: the new conversation waits, closed
        qtbot.waitUntil(lambda: audio_server.streams_of(pid) == (0, 0), timeout=10_000)
    finally:
        model.files.unsaved_frames = 0
        window.close()
    assert "ALSA lib" not in capfd.readouterr().err


ALSA_CHILD = textwrap.dedent("""
    import ctypes, ctypes.util, logging, sys
    logging.basicConfig(level=logging.DEBUG, stream=sys.stdout, format="%(name)s %(message)s")
    if sys.argv[1] == "routed":
        from app.audio.alsa_messages import alsa_messages_to_log
        assert alsa_messages_to_log()
    asound = ctypes.CDLL(ctypes.util.find_library("asound"))
    pcm = ctypes.c_void_p()
    assert asound.snd_pcm_open(ctypes.byref(pcm), b"parley_no_such_pcm", 0, 0) < 0
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ALSA is Linux's")
def test_alsa_messages_go_to_the_log_not_the_terminal():
    def run(mode: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", ALSA_CHILD, mode], cwd=ROOT, capture_output=True, text=True,
                              timeout=60, check=True)

    plain = run("plain")
    assert "ALSA lib" in plain.stderr and "parley_no_such_pcm" in plain.stderr  # what libasound does alone
    routed = run("routed")
    assert "ALSA lib" not in routed.stderr
    assert "app.audio.alsa_messages ALSA" in routed.stdout and "Unknown PCM" in routed.stdout
