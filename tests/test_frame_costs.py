"""Where the engine thread's time goes around each frame (``FrameCosts``), measured in the real
window on the demo model (hand-driven bridge, as tests/test_app_window.py), and the GUI thread's
CPU per frame (``ThreadCpuClock``). Bounds are wide: the sleeps below are the mechanism, not the
machine's speed."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt

from app.conversation.thread_cpu import ThreadCpuClock
from app.widgets.throttle import READOUT_INTERVAL_MS
from tests.test_app_window import Harness, _SlowSession, _WrappedModel

SLEEP_S = 0.2  # the engine thread is kept from running this long (in a step, or waiting for input)


@pytest.fixture
def harness(qtbot, tmp_path, app_demo_model):
    h = Harness(qtbot, tmp_path, lambda *args: app_demo_model)
    yield h
    h.close()


def test_a_step_that_sleeps_counts_as_waiting_not_as_the_engine_threads_cpu(qtbot, tmp_path, app_demo_model):
    slow = _WrappedModel(app_demo_model, lambda s: _SlowSession(s, delay=SLEEP_S))
    h = Harness(qtbot, tmp_path, lambda *args: slow)
    try:
        for stats in h.frames(3):
            c = stats.costs
            assert c.step == stats.step_ms
            assert c.step_waiting >= 0.9 * SLEEP_S * 1000.0, c
            assert 0.0 < c.step_cpu <= c.step - 0.9 * SLEEP_S * 1000.0, c
            assert 0.0 < c.model < c.step and c.recording == pytest.approx(c.step - c.model)
    finally:
        h.close()


def test_the_wait_for_input_goes_with_the_frame_after_it_and_every_part_is_measured(harness):
    harness.frames(2)
    time.sleep(SLEEP_S)  # no audio: the engine thread sleeps until the microphone delivers
    after_pause = harness.frames(1)[0].costs
    assert after_pause.input_wait >= 0.9 * SLEEP_S * 1000.0, after_pause
    steady = harness.frames(3)
    for stats in steady:
        c = stats.costs
        assert c.input_wait < SLEEP_S * 1000.0  # fed at once after the last frame: no pause here
        assert c.input > 0.0 and c.output > 0.0 and c.report > 0.0, c  # the previous frame was reported
        assert c.step_cpu > 0.0 and 0.0 < c.model <= c.step, c


def test_the_advanced_meters_show_the_engine_threads_costs_and_the_gui_threads_cpu(harness, qtbot):
    w = harness.window
    w.meters_panel.advanced_box.setChecked(True)
    qtbot.keyPress(w, Qt.Key_Space)
    harness.frames(3)
    qtbot.keyRelease(w, Qt.Key_Space)
    c = harness.stats[-1].costs
    panel = w.meters_panel
    expected = f"CPU {c.step_cpu:.1f} · waiting {c.step_waiting:.1f} · journal {c.recording:.1f}"
    qtbot.waitUntil(lambda: panel.costs_label.text().startswith(expected), timeout=2 * READOUT_INTERVAL_MS + 1_000)
    assert panel.gui_cpu_label.text().startswith("CPU ")  # a lap from the frame before


def test_the_thread_cpu_clock_counts_this_threads_work_and_not_its_sleep():
    clock = ThreadCpuClock()
    assert clock.lap() is None  # the first lap has nothing to measure from
    busy_until = time.thread_time() + 0.05
    while time.thread_time() < busy_until:
        pass
    assert clock.lap() >= 45.0
    time.sleep(SLEEP_S)
    assert clock.lap() < 0.25 * SLEEP_S * 1000.0
    clock.reset()
    assert clock.lap() is None
