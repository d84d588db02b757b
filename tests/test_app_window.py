"""The main window with the real demo model, driven through the real audio callbacks (no sound card).

A ``BridgeFeeder`` calls the bridge's PortAudio callbacks by hand, so everything from the input
ring to the output ring is the code that runs with a device; the PulseAudio tests
(test_audio_device.py) cover the device itself.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from PySide6.QtCore import QEvent, QObject, QSettings, Qt, QTimer
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QFileDialog, QLabel, QMessageBox

from app.audio import output_cushion
from app.audio.bridge import AudioBridge
from app.audio.headless import BridgeFeeder, SignalRecorder
from app.audio.levels import DISPLAY_FLOOR_DB, SILENCE_DB, SPEECH_DB
from app.audio.playback_capture import PlaybackSource, PlaybackSources
from app.audio.streams import DeviceInfo, DeviceStatus
from app.conversation.health import HOLD_FRAMES, gpu_here, too_slow_text
from app.conversation.status import Status
from app.engine_thread.messages import FrameDone
from app.engine_thread.real_time import SUSTAINED_FRAMES
from app.settings import load_settings, save_settings
from app.widgets.throttle import READOUT_INTERVAL_MS
from app.window.main_window import MainWindow
from engine import (
    FRAME_MS,
    FRAME_SIZE,
    SAMPLE_RATE,
    SamplingConfig,
    conversation_kind,
    read_conversation_info,
    record_frames,
    save_conversation,
)

TONE_DB = 20 * np.log10(0.2 / np.sqrt(2))  # RMS level of the 0.2-amplitude test tone


def conversations_dir(tmp_path):
    """The window's library folder for one test (never the user's documents)."""
    folder = tmp_path / "conversations"
    folder.mkdir(exist_ok=True)
    return folder


def tone_frames(count: int) -> np.ndarray:
    t = np.arange(FRAME_SIZE * count) / SAMPLE_RATE
    return (0.2 * np.sin(2 * np.pi * 300.0 * t)).astype(np.float32)


def settings_without_processing(path) -> QSettings:
    """The settings at ``path`` with the microphone processing off: its 10 ms chunking holds back
    the end of fed audio and noise suppression removes a steady test tone. The rest as saved."""
    store = QSettings(str(path), QSettings.IniFormat)
    save_settings(store, replace(load_settings(store), echo_cancellation=False, noise_suppression=False,
                                 high_pass_filter=False, auto_gain_control=False))
    return store


class Harness:
    """A window on the demo model with a hand-driven 24 kHz bridge; collects every FrameStats.

    Microphone processing is off: these tests follow exact tone levels through the raw path (noise
    suppression would remove a steady tone); tests/test_echo.py covers the processed path.
    """

    def __init__(self, qtbot, tmp_path, loader, journal_dir: Path | None = None, start: bool = True) -> None:
        self.qtbot = qtbot
        store = settings_without_processing(tmp_path / "settings.ini")
        self.window = MainWindow(store, model_loader=loader, audio=False, worker_seed=1,
                                 conversations_dir=conversations_dir(tmp_path), journal_dir=journal_dir)
        self.window.show()
        self.recorder = SignalRecorder()  # receives in the GUI thread, after the window's own slots
        self.window.model.frame.connect(self.recorder.record)
        self.opened = SignalRecorder()
        self.window.model.conversation_replaced.connect(self.opened.record)
        self.window.load_model("demo", "cpu", "float32")
        qtbot.waitUntil(lambda: self.window.model.models.model_info is not None and len(self.opened) == 1,
                        timeout=60_000)
        self.bridge = AudioBridge(SAMPLE_RATE, 1, SAMPLE_RATE, 1)
        self.window.model.worker.set_bridge(self.bridge)
        self.feeder = BridgeFeeder(self.bridge, lambda: self.window.model.worker.processed_position)
        if start:  # the conversation runs once the person presses Start (or Talk)
            self.window.model.start()
            qtbot.waitUntil(lambda: self.window.model.live, timeout=10_000)

    @property
    def stats(self) -> list:
        return [args[0] for args in self.recorder.calls]

    def frames(self, count: int, drain: bool = True, audio=tone_frames) -> list:
        """Feed frames of ``audio(1)`` (a tone) until ``count`` new frames came back from the worker; returns them."""
        start = len(self.stats)
        while len(self.stats) < start + count:
            seen = len(self.stats)
            self.feeder.feed(audio(1), drain=drain)
            self.qtbot.waitUntil(lambda seen=seen: len(self.stats) > seen or self.window.error_box.isVisible(),
                                 timeout=30_000)
            if self.window.error_box.isVisible():
                break
        return self.stats[start:]

    def close(self) -> None:
        self.window.model.files.unsaved_frames = 0  # no "save changes?" prompt in tests
        self.window.close()


@pytest.fixture
def harness(qtbot, tmp_path, app_demo_model):
    h = Harness(qtbot, tmp_path, lambda *args: app_demo_model)
    yield h
    h.close()


def test_the_model_line_says_nothing_about_cuda_graphs_on_a_cpu(harness):
    window = harness.window
    assert "cpu" in window.header.model_label.text() and "CUDA" not in window.header.model_label.text()
    harness.frames(2)
    harness.qtbot.waitUntil(lambda: "cpu" in window.header.model_label.toolTip(), timeout=5_000)  # the session's reason
    assert "CUDA" not in window.header.model_label.text()


def send_space(window, kind: QEvent.Type, auto_repeat: bool = False) -> None:
    QApplication.sendEvent(window, QKeyEvent(kind, Qt.Key_Space, Qt.NoModifier, " ", auto_repeat))


def test_space_push_to_talk_gates_the_microphone_and_ignores_auto_repeat(harness, qtbot):
    w = harness.window
    released = harness.frames(2)
    assert all(s.mic_db > TONE_DB - 1 for s in released)  # the microphone hears the tone...
    assert all(s.model_input_db == SILENCE_DB for s in released)  # ...the model hears silence

    qtbot.keyPress(w, Qt.Key_Space)
    assert w.model.talk.mic_open and w.model.status is Status.LISTENING
    for _ in range(5):  # holding the key: the system sends release/press pairs marked auto-repeat
        send_space(w, QEvent.KeyRelease, auto_repeat=True)
        send_space(w, QEvent.KeyPress, auto_repeat=True)
    assert w.model.talk.mic_open
    held = harness.frames(2)
    assert all(abs(s.model_input_db - TONE_DB) < 1.0 for s in held)

    qtbot.keyRelease(w, Qt.Key_Space)
    assert not w.model.talk.mic_open
    after = harness.frames(2)
    assert all(s.model_input_db == SILENCE_DB for s in after)


def test_space_is_push_to_talk_in_whichever_control_has_focus_but_types_in_the_search_field(harness, qtbot):
    w = harness.window
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow, timeout=5_000)
    combo = w.devices_panel.input_combo  # a control that takes focus: Space would open its list
    combo.setFocus()
    qtbot.waitUntil(combo.hasFocus, timeout=5_000)
    qtbot.keyPress(combo, Qt.Key_Space)
    assert w.model.talk.mic_open
    qtbot.keyRelease(combo, Qt.Key_Space)
    assert not w.model.talk.mic_open

    search = w.library_panel.search
    w.set_library_visible(True)
    search.setFocus()
    qtbot.waitUntil(search.hasFocus, timeout=5_000)
    qtbot.keyClicks(search, "a b")
    assert search.text() == "a b" and not w.model.talk.mic_open


def test_talk_button_gates_the_microphone(harness, qtbot):
    w = harness.window
    qtbot.mousePress(w.conversation_panel.talk_button, Qt.LeftButton)
    assert w.model.talk.mic_open
    held = harness.frames(2)
    assert all(abs(s.model_input_db - TONE_DB) < 1.0 for s in held)
    qtbot.mouseRelease(w.conversation_panel.talk_button, Qt.LeftButton)
    assert not w.model.talk.mic_open
    assert all(s.model_input_db == SILENCE_DB for s in harness.frames(1))


def test_pressing_while_the_assistant_speaks_silences_its_queued_audio(harness, qtbot):
    w, bridge = harness.window, harness.bridge
    # Nobody drains the output here, so the assistant's replies pile up in the output ring.
    while not any(s.output_db > SPEECH_DB for s in harness.stats[-1:]):
        harness.frames(1, drain=False)
        assert len(harness.stats) < 20, "the demo model never produced audible output"
    qtbot.waitUntil(lambda: w.model.status is Status.SPEAKING, timeout=1_000)
    queued = bridge.output.available()
    assert queued >= FRAME_SIZE

    skipped, played = bridge.output.skipped, len(harness.feeder.played)

    qtbot.keyPress(w, Qt.Key_Space)

    def played_out() -> bool:
        harness.feeder.drain()  # the output callback honours the mute on its next read
        return bridge.output.available() == 0

    qtbot.waitUntil(played_out, timeout=5_000)
    after = harness.feeder.played[played:]
    assert len(after) >= 2 and not any(block.any() for block in after)  # nothing of the old reply was heard
    # Silenced, not dropped: the queue kept its length (the backlog limit may still skip the oldest).
    assert bridge.output.muted > 0 and bridge.output.muted + bridge.output.skipped - skipped >= queued
    qtbot.keyRelease(w, Qt.Key_Space)


def test_a_queue_deeper_than_needed_shrinks_where_nobody_hears_it(harness, qtbot):
    """Audio left queued for the speaker (here: three frames nobody played, as after a stall) adds
    its length to every reply's latency. A barge-in mutes it; the worker then skips the part of it
    that the smallest recent queue says was never needed, instead of playing it as silence."""
    w, bridge = harness.window, harness.bridge
    harness.frames(3, drain=False)
    steady = harness.frames(output_cushion.WINDOW_FRAMES + 1)  # one block in, one block out per frame
    deep = min(s.timings.output_queue for s in steady[-output_cushion.WINDOW_FRAMES:])
    assert deep >= 2 * FRAME_MS, f"the test needs a deep queue, got {deep:.0f} ms"
    starved, skipped = bridge.output_starved_samples, bridge.output.skipped

    qtbot.keyPress(w, Qt.Key_Space)
    after = harness.frames(3)
    qtbot.keyRelease(w, Qt.Key_Space)
    assert bridge.output.skipped > skipped
    shallow = after[-1].timings.output_queue
    assert shallow <= output_cushion.MARGIN_S * 1000 + 1, f"{deep:.0f} -> {shallow:.0f} ms queued"
    assert bridge.output_starved_samples == starved  # shorter, not starved: no gap


def assert_readouts_show(window, stats, qtbot) -> None:
    """The latency numbers show ``stats`` once their pause is over (``READOUT_INTERVAL_MS``)."""
    panel = window.meters_panel
    expected = (f"{stats.timings.encode:.1f}", f"{stats.timings.lm:.1f}", f"{stats.end_to_end_ms:.0f} ms")
    qtbot.waitUntil(lambda: (panel.stage_labels["encode"].text(), panel.stage_labels["lm"].text(),
                             panel.e2e_label.text()) == expected, timeout=2 * READOUT_INTERVAL_MS + 1_000)


def test_meters_and_latency_readouts_follow_the_worker_stats(harness, qtbot):
    w = harness.window
    qtbot.keyPress(w, Qt.Key_Space)
    harness.frames(3)
    qtbot.keyRelease(w, Qt.Key_Space)
    last = harness.stats[-1]
    assert w.model.last_stats is last  # the window shows the newest frame
    assert abs(w.meters_panel.mic_meter.level_db - TONE_DB) < 1.0
    assert abs(w.meters_panel.heard_meter.level_db - TONE_DB) < 1.0
    assert w.meters_panel.output_meter.level_db == pytest.approx(max(-60.0, min(0.0, last.output_db)))
    assert_readouts_show(w, last, qtbot)
    assert last.end_to_end_ms > 80.0 + last.step_ms - 1e-6  # at least one frame of audio plus compute
    assert "LM:" in w.meters_panel.cache_label.text() and "Mimi" in w.meters_panel.cache_label.text()
    assert len(w.meters_panel.history.series[0]) >= 3
    assert "demo (untrained, babbles)" in w.header.model_label.text()


class PanelAfterEachFrame(QObject):
    """Records the meters panel's latency text and plot length each time a frame reaches it."""

    def __init__(self, panel) -> None:
        super().__init__()
        self.panel = panel
        self.shown: list[tuple[str, int]] = []

    def record(self, _stats) -> None:
        self.shown.append((self.panel.e2e_label.text(), len(self.panel.history.series[0])))


def test_the_numbers_change_a_few_times_a_second_while_the_meters_follow_every_frame(harness, qtbot):
    w = harness.window
    panel = w.meters_panel
    # The readouts and the plot as each frame left them, read in the GUI thread after the panel's
    # own slot (a lambda would read them from the worker thread, racing the GUI: seen in CI).
    left = PanelAfterEachFrame(panel)
    w.model.frame.connect(left.record)
    started = time.monotonic()
    stats = harness.frames(12)
    elapsed_ms = (time.monotonic() - started) * 1000
    shown = left.shown
    rewrites = 1 + sum(a[0] != b[0] for a, b in zip(shown, shown[1:]))
    assert rewrites <= elapsed_ms / READOUT_INTERVAL_MS + 2, (rewrites, elapsed_ms)
    assert [n for _, n in shown] == list(range(shown[0][1], shown[0][1] + len(shown)))  # one point per frame
    assert_readouts_show(w, stats[-1], qtbot)  # and the last frame's numbers once the frames stop


def test_at_its_smallest_the_window_squeezes_no_text(harness, qtbot):
    # A window shrunk below what its panels need clipped the latency rows and the engine lines to a
    # few pixels each (seen at 980 x 600 with frames running).
    w = harness.window
    qtbot.keyPress(w, Qt.Key_Space)
    harness.frames(3)
    qtbot.keyRelease(w, Qt.Key_Space)
    w.resize(300, 200)
    QApplication.processEvents()
    central = w.centralWidget()
    assert central.width() >= central.minimumSizeHint().width()
    assert central.height() >= central.minimumSizeHint().height()
    squeezed = [(label.text()[:40], label.height(), label.minimumSizeHint().height())
                for label in w.findChildren(QLabel)
                if label.isVisible() and label.height() < label.minimumSizeHint().height()]
    assert squeezed == []


class _SlowSession:
    """Wraps a real session; each step first waits ``delay`` seconds (a model slower than real time)."""

    def __init__(self, session, delay: float) -> None:
        self._session, self.delay = session, delay
        self.in_step = threading.Event()

    def step(self, pcm):
        self.in_step.set()
        time.sleep(self.delay)
        return self._session.step(pcm)

    def __getattr__(self, name):
        return getattr(self._session, name)


class _WrappedModel:
    def __init__(self, model, wrap) -> None:
        self._model, self._wrap = model, wrap
        self.info = model.info
        self.sessions: list = []

    def new_session(self, **kwargs):
        session = self._wrap(self._model.new_session(**kwargs))
        self.sessions.append(session)
        return session


def test_a_slow_model_never_freezes_the_window_and_old_input_is_dropped(qtbot, tmp_path, app_demo_model):
    slow = _WrappedModel(app_demo_model, lambda s: _SlowSession(s, delay=1.0))
    h = Harness(qtbot, tmp_path, lambda *args: slow)
    try:
        session = slow.sessions[-1]
        ticks: list[float] = []
        timer = QTimer()
        timer.setInterval(10)
        timer.timeout.connect(lambda: ticks.append(time.monotonic()))
        timer.start()
        block = tone_frames(1).reshape(-1, 1)
        h.bridge.input_callback(block, FRAME_SIZE, None, None)
        assert session.in_step.wait(10)
        started = time.monotonic()
        # Real time keeps going while the model is busy: 80 ms of audio arrives every 80 ms.
        while time.monotonic() - started < 1.2:
            h.bridge.input_callback(block, FRAME_SIZE, None, None)
            t0 = time.monotonic()
            h.window.press_talk("key")
            h.window.release_talk("key")
            assert time.monotonic() - t0 < 0.05  # GUI actions never wait for the worker
            qtbot.wait(80)
        timer.stop()
        gaps = np.diff([t for t in ticks if t >= started])
        # A GUI waiting on the worker would stall for a whole step (>= 1 s) at least once.
        assert len(gaps) > 20 and gaps.max() < 0.5, f"event loop stalled: max gap {gaps.max():.3f} s"
        qtbot.waitUntil(lambda: len(h.stats) >= 2, timeout=20_000)
        assert h.stats[-1].dropped_frames > 0  # it fell behind and dropped input instead of queueing it
        assert h.stats[-1].timings.input_queue < 1000.0  # and latency stayed bounded
    finally:
        h.close()


def test_audio_that_waited_before_the_conversation_is_not_counted_as_dropped(harness):
    """A device opened before the model was ready holds seconds of input when the first frame runs:
    it is skipped down to the backlog limit, but the health line must not open with frames dropped."""
    waited = AudioBridge(SAMPLE_RATE, 1, SAMPLE_RATE, 1)
    waited.input_callback(tone_frames(25).reshape(-1, 1), 25 * FRAME_SIZE, None, None)  # 2 s captured while loading
    harness.bridge = waited
    harness.feeder = BridgeFeeder(waited, lambda: harness.window.model.worker.processed_position)
    harness.window.model.worker.set_bridge(waited)
    stats = harness.frames(4)
    assert waited.input.skipped > 20 * FRAME_SIZE  # the old audio did not reach the model
    assert stats[-1].dropped_frames == 0
    assert "0 frames dropped" in harness.window.meters_panel.drops_label.text()


def test_the_window_says_when_the_computer_is_too_slow_for_real_time_and_when_it_recovers(qtbot, tmp_path,
                                                                                          app_demo_model):
    # Each frame waits a whole frame period before computing: slower than real time on any machine.
    slow = _WrappedModel(app_demo_model, lambda s: _SlowSession(s, delay=FRAME_MS / 1000.0))
    h = Harness(qtbot, tmp_path, lambda *args: slow)
    try:
        warning = h.window.conversation_panel.speed_warning
        last = h.frames(SUSTAINED_FRAMES)[-1]
        assert warning.isHidden()  # the median needs a whole window of frames: a slow start alone says nothing
        assert h.window.health.monitor.median_ms > FRAME_MS
        for _ in range(HOLD_FRAMES - 2):  # and then it waits until that has held for HOLD_SECONDS
            h.window.model.worker.event.emit(FrameDone(last))
        assert warning.isHidden()
        h.window.model.worker.event.emit(FrameDone(last))
        assert warning.isVisible() and h.window.meters_panel.speed_label.text() == "falling behind"
        info = h.window.model.models.model_info
        assert warning.text() == too_slow_text(info.lighter_precisions, on_cpu=True, gpu_available=gpu_here())
        assert "80 ms" in warning.toolTip()

        # The computer recovers: fast frames, reported through the worker's own signal.
        fast = replace(last, step_ms=FRAME_MS / 4)
        for _ in range(HOLD_FRAMES):
            h.window.model.worker.event.emit(FrameDone(fast))
        assert warning.isVisible()  # the median turns after half a window, then it holds again
        for _ in range(SUSTAINED_FRAMES):
            h.window.model.worker.event.emit(FrameDone(fast))
        assert warning.isHidden() and h.window.health.warning == ""
        assert h.window.meters_panel.speed_label.text() == "keeping up"
    finally:
        h.close()


class _FailingOnceSession(_SlowSession):
    def __init__(self, session, fail_at: int) -> None:
        super().__init__(session, delay=0.0)
        self.calls, self.fail_at = 0, fail_at

    def step(self, pcm):
        self.calls += 1
        if self.calls == self.fail_at:  # half a frame: the generator stepped, then the device failed
            generator = self._session.generator
            generator.step(torch.zeros(1, generator.user_streams, dtype=torch.long), self._session.state["gen"])
            raise RuntimeError("simulated device failure in the LM")
        return self._session.step(pcm)


def test_a_worker_error_is_shown_and_the_conversation_is_kept(qtbot, tmp_path, app_demo_model):
    failing = _WrappedModel(app_demo_model, lambda s: _FailingOnceSession(s, fail_at=2))
    journals = tmp_path / "journals"  # the app always journals: the rollback rebuilds from the recorded frames
    journals.mkdir()
    h = Harness(qtbot, tmp_path, lambda *args: failing, journal_dir=journals)
    try:
        first = h.frames(1)
        h.feeder.feed(tone_frames(1))
        qtbot.waitUntil(h.window.error_box.isVisible, timeout=10_000)
        assert "simulated device failure" in h.window.error_box.label.text()
        assert h.window.error_box.resume_button.isVisible()
        torn = h.window.model.worker.controller.session
        qtbot.mouseClick(h.window.error_box.resume_button, Qt.LeftButton)
        after = h.frames(1)
        assert after[0].frame_index == first[-1].frame_index + 1  # same conversation, continued...
        rolled_back = h.window.model.worker.controller.session
        assert rolled_back is not torn and rolled_back.frames == after[-1].frame_index + 1  # from its last whole frame
    finally:
        h.close()


def test_save_and_open_through_the_file_menu_round_trip(harness, qtbot, tmp_path, monkeypatch):
    w = harness.window
    qtbot.keyPress(w, Qt.Key_Space)
    harness.frames(2)
    qtbot.keyRelease(w, Qt.Key_Space)
    before = harness.frames(2)
    pieces_before = list(w.model.transcript.pieces)
    assert pieces_before, "the demo model said nothing in 4 frames"
    assert w.windowTitle().startswith("Untitled conversation *")

    path = tmp_path / "chat.parley"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(path), ""))
    w.menus.save_action.trigger()
    qtbot.waitUntil(lambda: w.model.files.unsaved_frames == 0 and w.model.files.conversation_path == str(path),
                    timeout=20_000)
    assert path.is_file() and w.windowTitle().startswith("chat.parley —")
    assert w.model.preferences.settings.recent_files[0] == str(path)
    assert QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat).value("recent_files") in (
        [str(path)], str(path))

    w.menus.new_action.trigger()
    qtbot.waitUntil(lambda: w.model.files.conversation_path is None and not w.model.transcript.pieces, timeout=10_000)
    qtbot.waitUntil(lambda: not w.model.live, timeout=10_000)  # a new conversation waits for the person
    assert w.conversation_panel.start_button.text() == "Start" and w.model.status is Status.READY
    qtbot.mouseClick(w.conversation_panel.start_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: w.model.live, timeout=10_000)
    assert harness.frames(1)[0].frame_index == 0

    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.Discard)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    w.menus.open_action.trigger()
    qtbot.waitUntil(lambda: w.model.files.conversation_path == str(path), timeout=20_000)
    assert [t for _, t in w.model.transcript.pieces] == [t for _, t in pieces_before]
    assert [s for s, _ in w.model.transcript.pieces] == pytest.approx([s for s, _ in pieces_before])
    assert pieces_before[-1][1].strip() in w.conversation_panel.view.as_text()
    # Shown, not resumed: nothing runs until Continue, and opening it is no unsaved work.
    assert not w.model.live and w.model.status is Status.PAUSED and "*" not in w.windowTitle()
    seen = len(harness.stats)
    harness.bridge.input_callback(tone_frames(1).reshape(-1, 1), FRAME_SIZE, None, None)  # audio comes...
    qtbot.wait(300)  # ...and no frame runs
    assert len(harness.stats) == seen
    assert w.conversation_panel.start_button.text() == "Continue"
    qtbot.mouseClick(w.conversation_panel.start_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: w.model.live, timeout=10_000)
    assert harness.frames(1)[0].frame_index == before[-1].frame_index + 1  # resumes where it stopped


def shown_turns(window) -> list[tuple]:
    return [(t.speaker, round(t.start, 3), round(t.duration, 3), t.text) for t in window.model.transcript.turns]


def test_a_reopened_conversation_shows_the_turns_shown_live(harness, qtbot, tmp_path, monkeypatch):
    """Talk held over a quiet start, then speech, then the assistant alone: saved, a new
    conversation, and opened again, the turns are the ones shown live, in the same order."""
    w = harness.window
    qtbot.keyPress(w, Qt.Key_Space)
    harness.frames(4, audio=lambda n: np.zeros(FRAME_SIZE * n, np.float32))  # held, not speaking yet
    harness.frames(6)
    qtbot.keyRelease(w, Qt.Key_Space)
    harness.frames(30)
    live = shown_turns(w)
    assert any(speaker == "you" for speaker, *_ in live), live

    path = tmp_path / "shown.parley"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(path), ""))
    w.menus.save_action.trigger()
    qtbot.waitUntil(lambda: w.model.files.unsaved_frames == 0 and path.is_file(), timeout=20_000)
    w.menus.new_action.trigger()
    qtbot.waitUntil(lambda: not w.model.transcript.turns, timeout=10_000)
    w.open_conversation(str(path))
    qtbot.waitUntil(lambda: w.model.files.conversation_path == str(path), timeout=20_000)
    assert shown_turns(w) == live


def test_a_source_chosen_to_listen_to_is_kept_by_a_name_no_language_changes(harness, qtbot):
    """What a device plays is shown translated ("Ce que X joue"); the settings keep its monitor's
    name, so that the same choice is found after the language changed."""
    w = harness.window
    mic = DeviceInfo(0, "USB mic", "ALSA", 1, 0, 48000.0)

    def listed(shown: str) -> DeviceStatus:
        feed = PlaybackSource(shown, "Null Output", pulse_source="nu_micfeed.monitor", pulse_sink="nu_micfeed")
        return DeviceStatus(devices=(mic,), playback=PlaybackSources((feed,)))

    combo = w.devices_panel.input_combo
    w.devices_panel.render(listed("What Null Output plays"))
    combo.setCurrentIndex(combo.findText("What Null Output plays"))
    combo.activated.emit(combo.currentIndex())
    kept = w.model.preferences.settings.input_device
    assert "plays" not in kept and "nu_micfeed.monitor" in kept
    w.devices_panel.render(listed("Ce que Null Output joue"))  # the same source, in French
    assert combo.currentText() == "Ce que Null Output joue"


def test_a_broken_conversation_file_is_refused_and_nothing_is_lost(harness, qtbot, tmp_path, monkeypatch):
    w = harness.window
    w.press_talk("key")
    harness.frames(1)
    w.release_talk("key")
    broken = tmp_path / "broken.parley"
    broken.write_bytes(b"this is not a conversation file")
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.Discard)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(broken), ""))
    w.menus.open_action.trigger()
    qtbot.waitUntil(w.error_box.isVisible, timeout=10_000)
    assert "broken.parley" in w.error_box.label.text()
    assert broken.read_bytes() == b"this is not a conversation file"
    # the live conversation is untouched
    assert w.model.files.conversation_path is None and w.model.files.unsaved_frames >= 1
    qtbot.mouseClick(w.error_box.dismiss_button, Qt.LeftButton)
    assert not w.error_box.isVisible()
    assert harness.frames(1)[0].frame_index >= 1


def test_quitting_with_unsaved_changes_asks_first(harness, qtbot, monkeypatch):
    w = harness.window
    w.press_talk("key")  # what the person said is unsaved
    harness.frames(1)
    w.release_talk("key")
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.Cancel)
    assert not w.close()
    assert w.isVisible()
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.Discard)
    assert w.close()


def test_a_model_that_fails_to_load_is_reported_and_the_running_one_is_kept(qtbot, tmp_path, app_demo_model):
    def loader(name, device, precision, cuda_graph):
        if name == "demo":
            return app_demo_model
        from engine import load_model

        return load_model(name, device=device, precision=precision, cuda_graph=cuda_graph)

    h = Harness(qtbot, tmp_path, loader)
    try:
        h.frames(1)
        h.window.load_model(str(tmp_path / "no-such-model-folder"), "cpu", "auto")
        qtbot.waitUntil(h.window.error_box.isVisible, timeout=20_000)
        assert "no-such-model-folder" in h.window.error_box.label.text()
        assert "demo (untrained, babbles)" in h.window.header.model_label.text()
        # the failed choice is not remembered for the next start
        assert h.window.model.preferences.settings.model == "demo"
        qtbot.mouseClick(h.window.error_box.dismiss_button, Qt.LeftButton)
        assert h.frames(1)[0].frame_index == 1  # the demo conversation carries on
    finally:
        h.close()


def test_open_mic_lets_the_model_hear_without_push_to_talk_and_warns_about_echo(harness, qtbot, tmp_path):
    w = harness.window
    assert not w.conversation_panel.headphones_note.isVisible()
    w.conversation_panel.open_mic_box.setChecked(True)
    note = w.conversation_panel.headphones_note
    assert note.isVisible() and "headphones" in note.text()
    assert all(abs(s.model_input_db - TONE_DB) < 1.0 for s in harness.frames(2))
    assert QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat).value("open_mic") in (True, "true")
    w.conversation_panel.open_mic_box.setChecked(False)
    assert all(s.model_input_db == SILENCE_DB for s in harness.frames(1))


def test_transcript_and_audio_export_from_the_file_menu(harness, qtbot, tmp_path, monkeypatch):
    import json
    import wave

    import srt

    w = harness.window
    qtbot.keyPress(w, Qt.Key_Space)
    count = len(harness.frames(3))
    qtbot.keyRelease(w, Qt.Key_Space)
    count += len(harness.frames(2))
    actions = {a.text(): a for a in w.menuBar().actions()[0].menu().actions()}

    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "talk"), "JSON (*.json)"))
    actions["Export &transcript..."].trigger()
    exported = json.loads((tmp_path / "talk.json").read_text(encoding="utf-8"))
    assert [p["text"] for p in exported["pieces"]] == [t for _, t in w.model.transcript.pieces]
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(tmp_path / "talk"), "SubRip subtitles (*.srt)"))
    actions["Export &transcript..."].trigger()
    cues = list(srt.parse((tmp_path / "talk.srt").read_text(encoding="utf-8")))
    assert [c.content.split(":")[0] for c in cues] == [
        {"you": "You", "assistant": "Assistant"}[t.speaker] for t in w.model.transcript.turns]
    assert "You" in [c.content.split(":")[0] for c in cues]  # the tone the user spoke is a turn

    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "talk.wav"), ""))
    actions["Export a&udio..."].trigger()
    qtbot.waitUntil(lambda: (tmp_path / "talk.wav").exists(), timeout=10_000)
    with wave.open(str(tmp_path / "talk.wav")) as f:
        assert f.getnchannels() == 2 and f.getframerate() == SAMPLE_RATE
        assert f.getnframes() >= count * FRAME_SIZE  # every frame so far, user left, assistant right
        pcm = np.frombuffer(f.readframes(f.getnframes()), "<i2").reshape(-1, 2)
    assert np.abs(pcm[:, 0]).max() > 5000  # the tone the user spoke
    assert np.abs(pcm[:, 1]).max() > 0  # the assistant's babble


def test_a_save_or_export_that_cannot_be_written_says_so_and_the_conversation_stays_unsaved(harness, qtbot, tmp_path):
    """Both are written by the worker's file-writer thread; its failures reach the window."""
    w, errors = harness.window, SignalRecorder()
    w.model.error.connect(errors.record)
    w.press_talk("key")  # what the person said is unsaved work
    harness.frames(3)
    w.release_talk("key")
    missing = tmp_path / "no such folder"
    w.model.files.save(str(missing / "talk.parley"))
    qtbot.waitUntil(lambda: len(errors.calls) == 1, timeout=10_000)
    said = errors.calls[0][0]  # the file asked for and what to do, never the temp file the write went through
    assert said == (f"Could not save talk.parley: {missing / 'talk.parley'} could not be written: its folder does "
                    "not exist. Choose another folder")
    assert w.model.files.unsaved_frames == 3 and w.model.files.conversation_path is None
    w.model.files.export_audio(str(missing / "talk.wav"))
    qtbot.waitUntil(lambda: len(errors.calls) == 2, timeout=10_000)
    assert errors.calls[1][0] == (f"Could not export audio talk.wav: {missing / 'talk.wav'} could not be written: "
                                  "its folder does not exist. Choose another folder")
    w.model.files.save(str(tmp_path / "talk.parley"))  # the writer goes on after a failure
    qtbot.waitUntil(lambda: w.model.files.conversation_path == str(tmp_path / "talk.parley"), timeout=10_000)
    assert w.model.files.unsaved_frames == 0 and (tmp_path / "talk.parley").exists()


def test_frames_go_on_while_a_save_is_written_and_the_frames_since_stay_unsaved(harness, qtbot, tmp_path):
    w = harness.window
    w.press_talk("key")  # the person speaks all along: every frame is unsaved work until saved
    harness.frames(3)
    writer_free = threading.Event()
    w.model.worker.controller._file_writer.submit(writer_free.wait, 30)  # the writer is busy with an earlier file
    w.model.files.save(str(tmp_path / "talk.parley"))
    assert len(harness.frames(4)) == 4  # the worker took its snapshot and went on: it does not wait for the file
    assert not (tmp_path / "talk.parley").exists() and w.model.files.conversation_path is None
    writer_free.set()
    qtbot.waitUntil(lambda: w.model.files.conversation_path == str(tmp_path / "talk.parley"), timeout=10_000)
    in_file = read_conversation_info(tmp_path / "talk.parley").frames  # the conversation when Save was pressed
    assert in_file >= 3 and w.model.files.unsaved_frames >= 3  # (a frame may have been under way when it was)
    assert in_file + w.model.files.unsaved_frames == len(harness.stats)  # the frames since are not in the file...
    assert "*" in w.windowTitle()  # ...and the title says so


def test_the_demo_opens_idle_runs_no_frame_until_talk_and_pause_stops_the_frames(qtbot, tmp_path, app_demo_model):
    h = Harness(qtbot, tmp_path, lambda *args: app_demo_model, start=False)
    try:
        w, session = h.window, h.window.model.worker.controller.session
        assert "*" not in w.windowTitle() and w.model.status is Status.READY
        assert w.conversation_panel.start_button.text() == "Start" and w.conversation_panel.talk_button.isEnabled()

        def audio_arrives_and_nothing_runs() -> None:
            seen, frames = len(h.stats), session.frames
            for _ in range(5):
                h.bridge.input_callback(tone_frames(1).reshape(-1, 1), FRAME_SIZE, None, None)
                qtbot.wait(100)
            assert len(h.stats) == seen and session.frames == frames  # no frame ran: no CPU spent

        audio_arrives_and_nothing_runs()
        w.press_talk("key")  # Talk starts the conversation
        # >= 2: the last MAX_INPUT_BACKLOG_S captured before Talk may run too, in the same wake-up
        assert len(h.frames(2)) >= 2 and w.model.live
        w.release_talk("key")
        assert "*" in w.windowTitle()  # the person spoke: that is unsaved work
        meters = (w.meters_panel.mic_meter, w.meters_panel.heard_meter, w.meters_panel.output_meter)
        assert meters[0].level_db > DISPLAY_FLOOR_DB  # the tone

        qtbot.mouseClick(w.conversation_panel.start_button, Qt.LeftButton)  # now "Pause"
        qtbot.waitUntil(lambda: not w.model.live, timeout=10_000)
        assert w.model.status is Status.PAUSED and w.conversation_panel.start_button.text() == "Continue"
        assert all(m.level_db == m.peak_db == DISPLAY_FLOOR_DB for m in meters)  # paused: nothing is heard
        session = w.model.worker.controller.session
        audio_arrives_and_nothing_runs()

        path = tmp_path / "talk.parley"
        w.model.files.save(str(path))
        qtbot.waitUntil(lambda: w.model.files.conversation_path == str(path), timeout=20_000)
        qtbot.mouseClick(w.conversation_panel.start_button, Qt.LeftButton)  # Continue, without a word
        qtbot.waitUntil(lambda: w.model.live, timeout=10_000)
        h.frames(4)
        assert "*" not in w.windowTitle()  # the assistant alone after a save is no unsaved work
    finally:
        h.close()


def test_opening_a_compact_file_shows_its_rebuild_and_cancel_keeps_the_conversation(harness, qtbot, tmp_path,
                                                                                     app_demo_model):
    """A compact file is rebuilt frame by frame when it is opened: the window shows how far (a
    progress dialog with Cancel, after a few seconds), and Cancel stops the rebuild and keeps the
    conversation that was running."""
    w = harness.window
    session = app_demo_model.new_session(SamplingConfig(), seed=3)  # the window's conversation is idle meanwhile
    record_frames(session)
    for _ in range(12):
        session.step(tone_frames(1).reshape(-1))
    path = tmp_path / "compact.parley"
    save_conversation(session, path, compact=True)
    assert conversation_kind(str(path)) == "compact"
    reports, messages, errors, replaced = [], [], [], []
    w.model.files.opening.connect(lambda n, total: reports.append((n, total)))
    w.model.message.connect(messages.append)
    w.model.error.connect(lambda message, resumable: errors.append(message))
    w.model.conversation_replaced.connect(lambda: replaced.append(True))

    w.model.files.open_conversation(str(path))
    w.model.files.cancel_open()  # before the engine thread takes it: the rebuild stops at its first frame
    cancelled = "Opening compact.parley was cancelled; the current conversation goes on."
    qtbot.waitUntil(lambda: cancelled in messages, timeout=20_000)
    assert replaced == [] and errors == [] and w.dialogs.opening_dialog is None
    assert w.model.files.opening_progress is None

    w.model.files.open_conversation(str(path))
    qtbot.waitUntil(lambda: bool(replaced), timeout=30_000)
    total = reports[-2][1]
    assert total == 12 and reports[-2] == (total, total) and reports[-1] == (0, 0)  # every frame, then done
    assert w.dialogs.opening_dialog is None and w.model.files.opening_progress is None and errors == []


def test_new_open_and_a_model_switch_offer_save_discard_or_cancel_with_a_dated_name(harness, qtbot, tmp_path,
                                                                                  monkeypatch):
    w = harness.window
    w.press_talk("key")
    harness.frames(2)
    w.release_talk("key")
    asked = []

    def answer(*args, **kwargs):
        asked.append(args[3])  # the buttons offered
        return QMessageBox.Cancel

    monkeypatch.setattr(QMessageBox, "question", answer)
    w.menus.new_action.trigger()
    assert asked == [QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel]
    assert w.model.files.conversation_path is None and w.model.transcript.turns  # Cancel: kept as it was

    proposed = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.Save)

    def save_where_proposed(_window, _title, start, _filter):
        proposed.append(start)
        return start, ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", save_where_proposed)
    w.menus.new_action.trigger()  # Save: written first, then the new conversation
    name = Path(proposed[0]).name
    assert name.startswith("Conversation 20") and name.endswith(".parley")  # "Conversation 2026-12-06 14.05.parley"
    assert Path(proposed[0]).parent == w.library.folder
    qtbot.waitUntil(lambda: Path(proposed[0]).is_file() and not w.model.transcript.turns, timeout=20_000)
    assert read_conversation_info(proposed[0]).frames >= 2
    assert "*" not in w.windowTitle()


@pytest.mark.audio
def test_replaying_a_saved_conversation_pauses_the_live_one(pulse_audio, harness, qtbot):
    w = harness.window
    w.press_talk("key")
    harness.frames(3)
    w.release_talk("key")
    w.model.files.save(str(w.library.folder / "talk.parley"))
    qtbot.waitUntil(lambda: len(w.library.entries) == 1, timeout=20_000)
    assert w.model.live
    w.files.replay_entry(w.library.entries[0])  # its reply would play over the replay
    qtbot.waitUntil(lambda: not w.model.live, timeout=10_000)
    assert w.model.status is Status.PAUSED and w.conversation_panel.start_button.text() == "Continue"
    w.conversation_panel.close_replay()


def test_a_fresh_window_says_loading_keeps_talk_off_until_ready_and_names_its_persona(qtbot, tmp_path,
                                                                                   app_demo_model):
    loading = threading.Event()

    def slow_loader(*args):
        loading.wait(30)  # a model that is still loading
        return app_demo_model

    w = MainWindow(settings_without_processing(tmp_path / "settings.ini"), model_loader=slow_loader, audio=False,
                   worker_seed=1, conversations_dir=conversations_dir(tmp_path))
    try:
        w.show()
        talk = w.conversation_panel.talk_button
        assert w.header.persona_label.text().startswith("Persona: General assistant")  # not "none (...)"
        assert not talk.isEnabled() and "No model" in talk.toolTip()
        w.load_model("demo", "cpu", "float32")
        assert w.header.status_label.text() == "Loading…" and not talk.isEnabled() and "Loading" in talk.toolTip()
        w.press_talk("key")  # nothing to talk to yet: no conversation starts
        w.release_talk("key")
        loading.set()
        qtbot.waitUntil(lambda: w.model.status is Status.READY, timeout=60_000)
        assert w.header.status_label.text() == "Ready" and talk.isEnabled() and not w.model.live
    finally:
        loading.set()
        w.close()


def test_end_stops_the_frames_offers_to_save_what_was_said_and_leaves_a_new_conversation_waiting(harness, qtbot,
                                                                                               monkeypatch):
    w, end = harness.window, harness.window.conversation_panel.end_button
    w.press_talk("key")
    harness.frames(2)
    w.release_talk("key")
    asked = []

    def answer(result):
        def question(*args, **kwargs):
            asked.append(args[3])  # the buttons offered
            return result
        return question

    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.Cancel))
    assert w.menus.end_action.isEnabled()
    w.menus.end_action.trigger()  # File > End conversation (Ctrl+E) asks as the button does
    assert asked == [QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel]
    qtbot.waitUntil(lambda: w.model.live, timeout=10_000)
    asked.clear()
    qtbot.mouseClick(end, Qt.LeftButton)
    assert asked == [QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel]
    qtbot.waitUntil(lambda: w.model.live, timeout=10_000)  # Cancel: it goes on as it was
    assert w.model.transcript.turns and "*" in w.windowTitle()
    assert w.health.memory != "-"

    w.set_open_mic(True)  # even hands-free, the new conversation waits after End
    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.Discard))
    qtbot.mouseClick(end, Qt.LeftButton)
    qtbot.waitUntil(lambda: not w.model.transcript.turns and w.model.status is Status.READY, timeout=20_000)
    qtbot.wait(300)
    assert not w.model.live and "*" not in w.windowTitle()
    assert (w.health.speed, w.health.delay, w.health.memory) == ("-", "-", "-")  # nothing of the one before
    assert w.conversation_panel.start_button.text() == "Start" and not end.isEnabled()
    assert not w.menus.end_action.isEnabled()
    seen = len(harness.stats)
    for _ in range(3):
        harness.bridge.input_callback(tone_frames(1).reshape(-1, 1), FRAME_SIZE, None, None)
        qtbot.wait(100)
    assert len(harness.stats) == seen  # no frame runs until the person starts the next one


def test_the_empty_conversation_says_what_to_do_as_things_stand(qtbot, tmp_path, app_demo_model):
    h = Harness(qtbot, tmp_path, lambda *args: app_demo_model, start=False)
    try:
        w, placeholder = h.window, h.window.conversation_panel.placeholder
        assert placeholder.isVisible() and "press Start" in placeholder.text()
        w.model.start()
        qtbot.waitUntil(lambda: w.model.live, timeout=10_000)
        assert "press Start" not in placeholder.text() and placeholder.text().startswith("The conversation runs")
        w.model.set_wait_for_user(True)
        qtbot.waitUntil(lambda: placeholder.text().startswith("The assistant waits for you"), timeout=10_000)
        w.model.pause()
        qtbot.waitUntil(lambda: "press Start" in placeholder.text(), timeout=10_000)
    finally:
        h.close()
