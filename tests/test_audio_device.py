"""The running app on real audio devices: PortAudio -> ALSA -> a PulseAudio null sink (clocked).

The suite starts the sound server itself (fixture ``pulse_audio`` in conftest.py). A wav is
played into the microphone feed sink; the app hears it through its default input; what it says
is recorded from its default output's monitor.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QSettings

from app.audio.headless import SignalRecorder
from app.window.main_window import MainWindow
from tests import audio_server
from tests.conftest import SPEECH
from tests.test_app_window import conversations_dir

pytestmark = pytest.mark.audio

SPEECH_WAV = SPEECH["interrupt_48k_stereo.wav"]  # 48 kHz stereo: resampled + downmixed


class LiveApp:
    def __init__(self, qtbot, tmp_path, model) -> None:
        self.window = MainWindow(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat),
                                 model_loader=lambda *args: model, audio=True, worker_seed=1,
                                 conversations_dir=conversations_dir(tmp_path))
        self.frames = SignalRecorder()
        self.window.model.frame.connect(self.frames.record)
        self.window.load_model("demo", "cpu", "float32")
        self.window.show()
        qtbot.waitUntil(lambda: self.window.model.models.model_info is not None, timeout=60_000)
        self.window.model.start()  # Start: the conversation runs
        qtbot.waitUntil(lambda: self.window.model.devices.audio.status.state == "running" and len(self.frames) > 3,
                        timeout=30_000)

    @property
    def stats(self) -> list:
        return [args[0] for args in self.frames.calls]

    def close(self) -> None:
        self.window.model.files.unsaved_frames = 0
        self.window.close()


@pytest.fixture
def live_app(pulse_audio, qtbot, tmp_path, app_demo_model):
    app = LiveApp(qtbot, tmp_path, app_demo_model)
    yield app
    app.close()


def test_a_wav_streams_through_real_devices_into_the_model_and_the_reply_reaches_the_speaker(
        live_app, qtbot, tmp_path):
    w = live_app.window
    status = w.model.devices.audio.status
    assert status.input_rate > 0 and status.output_rate > 0
    start = len(live_app.frames)
    speaker = audio_server.SinkRecorder(str(tmp_path / "speaker.f32"))
    w.press_talk("key")
    player = audio_server.play_into_mic(SPEECH_WAV)
    try:
        # The model hears the speech (through PortAudio, resampling, the open push-to-talk gate).
        qtbot.waitUntil(lambda: sum(s.model_input_db > -45 for s in live_app.stats[start:]) >= 10, timeout=20_000)
    finally:
        player.kill()
        player.wait(10)
        w.release_talk("key")
    heard_end = len(live_app.frames)
    qtbot.waitUntil(lambda: len(live_app.frames) >= heard_end + 10, timeout=20_000)
    recorded = np.frombuffer(speaker.stop(), dtype="<f4")

    stats = live_app.stats[start:]
    assert max(s.mic_db for s in stats) > -40
    assert all(s.model_input_db == -120.0 for s in live_app.stats[heard_end + 2:])  # released: silence again
    assistant_frames = [s for s in stats if s.output_db > -60]
    assert assistant_frames, "the model produced no audible output"
    rms_db = 20 * np.log10(np.sqrt(np.mean(np.square(recorded[-24_000:]))) + 1e-12)
    assert recorded.size > 24_000 and rms_db > -60, f"nothing reached the speaker sink ({rms_db:.1f} dBFS)"

    bridge = w.model.devices.audio.bridge
    device_ms = 1000 * (bridge.input_device_latency + bridge.output_device_latency)
    app_added = [s.timings.input_queue + s.timings.output_queue + device_ms for s in stats]
    compute = [s.step_ms for s in stats]
    end_to_end = [s.end_to_end_ms for s in stats]
    print(f"\napp-added latency over {len(stats)} frames: median {np.median(app_added):.0f} ms, "
          f"p90 {np.percentile(app_added, 90):.0f} ms (input queue median "
          f"{np.median([s.timings.input_queue for s in stats]):.0f} ms, output queue median "
          f"{np.median([s.timings.output_queue for s in stats]):.0f} ms, device buffers {device_ms:.0f} ms); "
          f"compute median {np.median(compute):.0f} ms; mic-to-speaker estimate median {np.median(end_to_end):.0f} ms; "
          f"dropped frames {stats[-1].dropped_frames}; "
          f"xruns in {bridge.input_overflows} out {bridge.output_underflows}")
    # Loose bound: queues are capped (input backlog 250 ms, output backlog 400 ms) whatever the model's speed.
    assert np.median(app_added) < 600


def test_the_app_survives_the_sound_server_dying_and_coming_back(live_app, pulse_audio, qtbot):
    if not pulse_audio.started:
        pytest.skip("the sound server was already running before the tests; not killing someone else's server")
    w = live_app.window
    pulse_audio.restart_server()
    audio = w.model.devices.audio
    qtbot.waitUntil(lambda: audio.status.recoveries >= 1 and audio.status.state == "running", timeout=30_000)
    qtbot.waitUntil(lambda: "reconnected" in w.devices_panel.device_label.text(), timeout=2_000)  # the window says so
    resumed_from = len(live_app.frames)
    qtbot.waitUntil(lambda: len(live_app.frames) >= resumed_from + 5, timeout=20_000)  # frames flow again
    assert w.isVisible() and not w.error_box.isVisible()


def test_device_pickers_switch_devices_and_refresh_reinitialises(live_app, qtbot, tmp_path):
    w = live_app.window
    qtbot.waitUntil(lambda: w.devices_panel.input_combo.findText("pulse (ALSA)") > 0, timeout=5_000)
    for combo in (w.devices_panel.input_combo, w.devices_panel.output_combo):
        combo.setCurrentIndex(combo.findText("pulse (ALSA)"))
        combo.activated.emit(combo.currentIndex())
    audio = w.model.devices.audio
    qtbot.waitUntil(lambda: audio.status.state == "running" and audio.status.input_name == "pulse"
                    and audio.status.output_name == "pulse", timeout=15_000)
    assert w.model.preferences.settings.input_device == "pulse (ALSA)"
    stored = QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)
    assert stored.value("output_device") == "pulse (ALSA)"
    bridge = w.model.devices.audio.bridge
    w.model.devices.refresh()  # terminate + initialise PortAudio, then reopen the chosen devices
    qtbot.waitUntil(lambda: w.model.devices.audio.bridge is not None and w.model.devices.audio.bridge is not bridge
                    and w.model.devices.audio.status.state == "running", timeout=15_000)
    assert w.model.devices.audio.status.input_name == "pulse"
    count = len(live_app.frames)
    qtbot.waitUntil(lambda: len(live_app.frames) > count + 3, timeout=20_000)


def test_a_remembered_microphone_that_is_not_there_is_said_and_the_system_default_heard_until_it_is_back(
        pulse_audio, qtbot, tmp_path, app_demo_model):
    """The real device layer: the remembered microphone is gone (unplugged), the system's default is
    there. The window says so once and uses the default (``app.audio.device_follow``): Talk stays on
    and no banner blocks it; the choice itself is kept for when the device is back."""
    gone = "USB headset that was unplugged (ALSA)"
    store = QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)
    store.setValue("input_device", gone)
    window = MainWindow(store, model_loader=lambda *args: app_demo_model, audio=True, worker_seed=1,
                        conversations_dir=conversations_dir(tmp_path))
    said: list[str] = []
    window.model.message.connect(said.append)
    try:
        window.show()
        window.load_model("demo", "cpu", "float32")
        banner, panel = window.microphone_banner, window.conversation_panel
        qtbot.waitUntil(lambda: window.model.models.model_info is not None
                        and window.model.devices.status.state == "ready"
                        and window.model.devices.status.input_name == "default", timeout=60_000)
        assert [text for text in said if gone in text] == [
            f"The microphone {gone} is not connected; using the system default until it is back."]
        assert not banner.isVisible() and panel.talk_button.isEnabled() and panel.start_button.isEnabled()
        assert window.model.preferences.settings.input_device == gone
        window.press_talk("key")  # Talk is heard through the default
        controller = window.model.worker.controller
        qtbot.waitUntil(lambda: controller.session is not None and controller.session.frames > 3, timeout=30_000)
        window.release_talk("key")
    finally:
        window.model.files.unsaved_frames = 0
        window.close()
