"""The tray: its state from the real view-models, its menu driving the real window, and the
close-to-tray question. Qt's offscreen platform has no tray, so the icon is not shown there; the
menu's actions exist either way and are triggered here."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox, QSystemTrayIcon

from app.audio.levels import SILENCE_DB
from app.conversation.health import HOLD_FRAMES
from app.conversation.status import Status
from app.engine_thread.messages import FrameDone
from app.engine_thread.real_time import SUSTAINED_FRAMES
from app.settings import load_settings
from app.window.main_window import MainWindow
from app.window.tray import KEEP_TEXT, QUIT_TEXT
from app.window.tray_state import CLOSE_QUITS, CLOSE_TO_TRAY, TrayState, close_hides, tray_state
from engine import FRAME_MS
from tests.test_app_window import TONE_DB, Harness, conversations_dir, settings_without_processing


@pytest.mark.parametrize(("status", "slow", "expected"), [
    (Status.IDLE, False, TrayState.IDLE),
    (Status.THINKING, False, TrayState.IDLE),
    (Status.PAUSED, False, TrayState.IDLE),
    (Status.LISTENING, False, TrayState.LISTENING),
    (Status.SPEAKING, False, TrayState.SPEAKING),
    (Status.WAITING, False, TrayState.WAITING),
    (Status.SPEAKING, True, TrayState.TOO_SLOW),
])
def test_the_tray_state_follows_the_status_and_the_too_slow_warning(status, slow, expected):
    assert tray_state(status, slow) is expected


def test_closing_hides_only_where_there_is_a_tray_and_asks_until_chosen():
    assert close_hides("", tray_available=True) is None
    assert close_hides(CLOSE_TO_TRAY, tray_available=True) is True
    assert close_hides(CLOSE_QUITS, tray_available=True) is False
    assert close_hides(CLOSE_TO_TRAY, tray_available=False) is False
    assert close_hides("", tray_available=False) is False


@pytest.fixture
def harness(qtbot, tmp_path, app_demo_model):
    h = Harness(qtbot, tmp_path, lambda *args: app_demo_model)
    yield h
    h.close()


def test_the_tray_menu_drives_the_real_window(harness, qtbot):
    w, tray = harness.window, harness.window.tray
    assert tray.icon.isVisible() == QSystemTrayIcon.isSystemTrayAvailable()
    assert [a.text() for a in tray.menu.actions() if not a.isSeparator()] == [
        "&Talk", "&Open mic (hands-free)", "&Pause", "&End conversation", "&Show window", "&Quit"]

    harness.frames(2)  # streaming: the status says more than idle
    tray.talk_action.trigger()  # Talk is a toggle: the microphone stays open
    assert w.model.talk.mic_open and w.model.status is Status.LISTENING
    assert tray.model.state is TrayState.LISTENING and tray.icon.toolTip() == "Parley: listening to you"
    assert tray.icon.icon().cacheKey() == tray.icons[TrayState.LISTENING].cacheKey()
    assert all(abs(s.model_input_db - TONE_DB) < 1.0 for s in harness.frames(2))  # the model hears the tone
    tray.talk_action.trigger()
    assert not w.model.talk.mic_open and not tray.talk_action.isChecked()
    assert all(s.model_input_db == SILENCE_DB for s in harness.frames(2))

    tray.open_mic_action.trigger()
    assert w.conversation_panel.open_mic_box.isChecked() and w.model.preferences.settings.open_mic
    w.conversation_panel.open_mic_box.setChecked(False)  # and the window's own switch shows in the tray
    assert not tray.open_mic_action.isChecked()

    tray.pause_action.trigger()
    qtbot.waitUntil(lambda: w.model.status is Status.PAUSED and tray.pause_action.isChecked(), timeout=10_000)
    assert tray.icon.toolTip() == "Parley: Paused"
    tray.pause_action.trigger()  # and on again
    qtbot.waitUntil(lambda: w.model.status is not Status.PAUSED and not tray.pause_action.isChecked(),
                    timeout=10_000)

    slow = replace(harness.frames(1)[-1], step_ms=FRAME_MS * 2)
    for _ in range(SUSTAINED_FRAMES + HOLD_FRAMES):
        w.model.worker.event.emit(FrameDone(slow))
    assert w.health.warning and tray.model.state is TrayState.TOO_SLOW
    assert tray.icon.icon().cacheKey() == tray.icons[TrayState.TOO_SLOW].cacheKey()

    w.hide()
    tray.show_action.trigger()
    assert w.isVisible()

    assert tray.end_action.isEnabled()
    w.model.files.unsaved_frames = 0  # nothing to save: End asks nothing
    tray.end_action.trigger()
    qtbot.waitUntil(lambda: not w.model.live and not w.model.transcript.turns, timeout=20_000)
    qtbot.waitUntil(lambda: not tray.end_action.isEnabled(), timeout=5_000)

    w.model.files.unsaved_frames = 0
    tray.quit_action.trigger()
    assert not w.isVisible() and not w.model.timer.isActive()  # quit: the conversation is shut down


def answer_close_question(qtbot, button_text: str, asked: list) -> None:
    """Click ``button_text`` in the close question once it is open (``asked`` gets its text)."""
    def answer():
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, answer)
            return
        asked.append(box.text())
        next(b for b in box.buttons() if b.text() == button_text).click()

    QTimer.singleShot(0, answer)


@pytest.fixture
def tray_window(qtbot, tmp_path, monkeypatch):
    """A window (no model) as on a desktop with a tray: offscreen Qt has none, so the platform's
    answer is replaced; the rest is the real window. Quit at the end, whatever the test left."""
    monkeypatch.setattr(QSystemTrayIcon, "isSystemTrayAvailable", staticmethod(lambda: True))
    store = settings_without_processing(tmp_path / "settings.ini")
    window = MainWindow(store, audio=False, conversations_dir=conversations_dir(tmp_path))
    window.show()
    yield window
    window.quit()


def test_the_first_close_asks_and_keep_running_hides_the_window_until_quit(qtbot, tray_window):
    w = tray_window
    asked: list = []
    answer_close_question(qtbot, KEEP_TEXT, asked)
    assert not w.close()
    assert len(asked) == 1 and not w.isVisible() and w.model.timer.isActive()  # still running, in the tray
    assert load_settings(w.model.preferences.store).close_to_tray == CLOSE_TO_TRAY and w.tray.keep_action.isChecked()

    w.show()
    assert not w.close()  # remembered: no second question
    assert len(asked) == 1 and not w.isVisible()

    w.tray.keep_action.trigger()  # changed in View: closing quits from now on
    assert load_settings(w.model.preferences.store).close_to_tray == CLOSE_QUITS
    w.show()
    assert w.close() and not w.model.timer.isActive()


def test_answering_quit_closes_and_is_remembered(qtbot, tray_window):
    w = tray_window
    asked: list = []
    answer_close_question(qtbot, QUIT_TEXT, asked)
    assert w.close() and len(asked) == 1 and not w.model.timer.isActive()
    assert load_settings(w.model.preferences.store).close_to_tray == CLOSE_QUITS and not w.tray.keep_action.isChecked()


def test_without_a_tray_closing_quits_without_a_question(qtbot, tmp_path):
    store = settings_without_processing(tmp_path / "settings.ini")
    w = MainWindow(store, audio=False, conversations_dir=conversations_dir(tmp_path))
    w.show()
    if w.tray.available:
        pytest.skip("this desktop has a tray (the tests above cover it)")
    assert w.close() and not w.model.timer.isActive()
    assert load_settings(store).close_to_tray == "" and not w.tray.keep_action.isEnabled()
