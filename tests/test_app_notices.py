"""Desktop notifications: a crash recovery and a model download that end while the window is hidden
say so through ``Notices`` (the tray shows them; Qt's offscreen platform has no tray, so the
notices are read where the tray gets them); while the window is shown, the window says it."""

from __future__ import annotations

from PySide6.QtCore import Qt

from app.audio.headless import SignalRecorder
from app.window.notices import RECOVERED_TEXT
from engine.files.models import PRESETS
from tests.test_app_model_manager import confirm_download, empty_hub  # noqa: F401 - a fixture
from tests.test_app_recovery import App, one_frame_journal


def test_a_recovery_that_ends_while_the_window_is_hidden_is_a_notification(qtbot, tmp_path, app_demo_model):
    crashed = tmp_path / "crashed"
    crashed.mkdir()
    one_frame_journal(app_demo_model, crashed / "old.journal")
    app = App(qtbot, tmp_path, app_demo_model, crashed)
    try:
        w = app.window
        notices = SignalRecorder()
        w.notices.notice.connect(notices.record)
        w.hide()  # closed into the tray while the rebuild runs
        w.dialogs.recovery.recover_button.click()
        qtbot.waitUntil(lambda: w.dialogs.recovery.offer.outcome is not None, timeout=60_000)
        assert w.dialogs.recovery.offer.outcome == ""
        assert notices.calls == [("Parley: conversation recovered", RECOVERED_TEXT)]
    finally:
        app.close()


def test_a_download_that_ends_while_the_window_is_hidden_is_a_notification_and_not_while_shown(
        qtbot, tmp_path, app_demo_model, empty_hub, monkeypatch):  # noqa: F811 - the fixture
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # a download that starts fails at once, never fetches
    app = App(qtbot, tmp_path, app_demo_model, None)
    try:
        w = app.window
        notices = SignalRecorder()
        w.notices.notice.connect(notices.record)
        for hidden in (False, True):
            dialog = w.dialogs.open_model_manager()
            dialog.table.selectRow(list(PRESETS).index("moshiko"))
            if hidden:
                w.hide()
            qtbot.mouseClick(dialog.download_button, Qt.LeftButton)
            confirm_download(dialog)
            qtbot.waitUntil(lambda dialog=dialog: dialog.download is None, timeout=60_000)
            dialog.close()
        assert len(notices.calls) == 1  # only the one that ended while the window was hidden
        title, text = notices.calls[0]
        assert title == "Parley: model download" and text.startswith("Download failed:") and "HF_HUB_OFFLINE" in text
    finally:
        app.close()
