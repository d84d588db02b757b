"""PersonaPlex persona controls: voice list, the dialog, settings, and the worker passing prompts on.

No PersonaPlex model runs here, so the prompts go to the real demo model, whose engine refuses them
("not a PersonaPlex model"): that error must show in the window and the conversation must carry on.
"""

from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox

from app.engine_thread.messages import NewConversation
from app.voices.persona import (
    DEFAULT_VOICE_ITEM,
    FROM_RECORDING,
    NO_VOICE_ITEM,
    NO_VOICE_NOTE,
    PERSONAPLEX_ONLY,
    PersonaDialog,
)
from engine import shipped_voices
from engine.lm.prompts import DEFAULT_ROLE
from tests.test_app_window import Harness


@pytest.fixture
def voices_dir(tmp_path):
    folder = tmp_path / "voices"
    folder.mkdir()
    for name in ("NATM1.pt", "NATF2.pt", "VARF0.safetensors", "NATF2.safetensors", "notes.txt"):
        (folder / name).write_bytes(b"")
    (folder / "folder.pt").mkdir()  # not a file: not a voice
    return folder


class _ModelWithVoices:
    """The real demo model, seen with a voices folder (what a PersonaPlex model folder has) and, if
    asked, labelled PersonaPlex for the app; its sessions are the real engine's, which refuses prompts."""

    def __init__(self, model, voices_dir, family: str = "moshi") -> None:
        self._model = model
        self.info = dataclasses.replace(model.info, family=family)
        self.files = dataclasses.replace(model.files, voices_dir=voices_dir)

    def new_session(self, **kwargs):
        return self._model.new_session(**kwargs)


@pytest.fixture
def harness(qtbot, tmp_path, app_demo_model):
    h = Harness(qtbot, tmp_path, lambda *args: app_demo_model)
    yield h
    h.close()


def combo_items(dialog: PersonaDialog) -> list[str]:
    return [dialog.voice_combo.itemText(i) for i in range(dialog.voice_combo.count())]


def test_the_voice_list_is_the_sorted_stems_of_the_voice_files(voices_dir, tmp_path):
    assert shipped_voices(voices_dir) == ["NATF2", "NATM1", "VARF0"]
    assert shipped_voices(None) == []
    assert shipped_voices(tmp_path / "missing") == []


def test_the_dialog_lists_the_voices_prefills_the_default_role_and_takes_a_recording(
        qtbot, voices_dir, tmp_path, monkeypatch):
    dialog = PersonaDialog(shipped_voices(voices_dir), "NATM1", "")
    qtbot.addWidget(dialog)
    assert combo_items(dialog) == [DEFAULT_VOICE_ITEM, "NATF2", "NATM1", "VARF0", NO_VOICE_ITEM, FROM_RECORDING]
    assert dialog.voice() == "NATM1"
    assert dialog.role_edit.toPlainText() == DEFAULT_ROLE
    none_index = combo_items(dialog).index(NO_VOICE_ITEM)
    assert dialog.voice_combo.itemData(none_index, Qt.ToolTipRole) == NO_VOICE_NOTE
    dialog.voice_combo.setCurrentIndex(none_index)
    assert dialog.voice() == "none"  # the advanced choice, said explicitly
    fresh = PersonaDialog(["NATF0", "NATF2"], "", "")  # no saved choice: the default voice, listed once
    qtbot.addWidget(fresh)
    assert fresh.voice() == "" and combo_items(fresh)[:2] == [DEFAULT_VOICE_ITEM, "NATF2"]
    dialog.voice_combo.setCurrentIndex(combo_items(dialog).index("NATM1"))

    recording = tmp_path / "me.wav"
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: ("", ""))  # cancelled: nothing changes
    dialog.voice_combo.setCurrentIndex(combo_items(dialog).index(FROM_RECORDING))
    dialog.voice_combo.activated.emit(dialog.voice_combo.currentIndex())
    assert dialog.voice() == "NATM1"
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(recording), ""))
    dialog.voice_combo.setCurrentIndex(combo_items(dialog).index(FROM_RECORDING))
    dialog.voice_combo.activated.emit(dialog.voice_combo.currentIndex())
    assert dialog.voice() == str(recording)
    assert dialog.voice_combo.currentText() == "me.wav"
    assert combo_items(dialog)[-1] == FROM_RECORDING

    dialog.role_edit.setPlainText("  You are a ship's cook.  ")
    with qtbot.waitSignal(dialog.applied) as applied:
        qtbot.mouseClick(dialog.apply_button, Qt.LeftButton)
    assert applied.args == [str(recording), "You are a ship's cook."]

    again = PersonaDialog(["NATF2"], str(recording), "You are a ship's cook.")  # a saved file choice
    qtbot.addWidget(again)
    assert again.voice() == str(recording) and again.voice_combo.currentText() == "me.wav"
    assert again.role_edit.toPlainText() == "You are a ship's cook."
    qtbot.mouseClick(again.reset_button, Qt.LeftButton)
    assert again.role_edit.toPlainText() == DEFAULT_ROLE


def test_with_the_demo_model_the_persona_controls_are_disabled_and_say_why(harness):
    w = harness.window
    assert w.model.model_info.family == "moshi"
    assert not w.persona_button.isEnabled() and not w.menus.persona_action.isEnabled()
    assert PERSONAPLEX_ONLY in w.persona_button.toolTip() and PERSONAPLEX_ONLY in w.menus.persona_action.toolTip()
    assert not w.persona_label.isVisible()
    assert w.menus.persona_action.shortcut().toString() == "Ctrl+P"
    assert w.menus.persona_action in w.menuBar().actions()[1].menu().actions()  # Model menu
    assert w.open_persona_dialog() is None
    assert w.persona_prompts() == (None, None)  # File > New sends no prompts to a Moshi model


def test_asking_the_demo_model_for_a_persona_shows_the_engine_error_and_keeps_the_conversation(
        harness, qtbot, monkeypatch):
    w = harness.window
    before = harness.frames(2)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.Discard)
    w.apply_persona("NATF2", "You are a pirate.")
    qtbot.waitUntil(w.error_box.isVisible, timeout=20_000)
    assert "not a PersonaPlex model" in w.error_label.text()
    assert "current conversation is kept" in w.error_label.text()
    assert not w.resume_button.isVisible()
    assert len(harness.opened) == 1  # no new conversation was opened
    assert w.model.unsaved_frames == 2 and w.model.conversation_path is None
    qtbot.mouseClick(w.dismiss_button, Qt.LeftButton)
    assert harness.frames(1)[0].frame_index == before[-1].frame_index + 1  # the old one carries on

    w.model.worker.submit(NewConversation(text_prompt="You are a pirate."))  # a role alone is refused the same way
    qtbot.waitUntil(w.error_box.isVisible, timeout=20_000)
    assert "not a PersonaPlex model" in w.error_label.text()
    qtbot.mouseClick(w.dismiss_button, Qt.LeftButton)
    assert harness.frames(1)[0].frame_index == before[-1].frame_index + 2


def test_the_persona_persists_across_windows_and_a_moshi_model_ignores_it(qtbot, tmp_path, app_demo_model,
                                                                        monkeypatch):
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.Discard)
    first = Harness(qtbot, tmp_path, lambda *args: app_demo_model)
    try:
        first.window.apply_persona("NATM1", "You are a pirate.\nSpeak briefly.")
        qtbot.waitUntil(first.window.error_box.isVisible, timeout=20_000)
        first.window.apply_persona("VARF0", DEFAULT_ROLE)  # the default role is stored as "the default"
        assert first.window.model.settings.persona_role == ""
        first.window.apply_persona("NATM1", "You are a pirate.\nSpeak briefly.")
    finally:
        first.close()
    store = QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)
    assert store.value("persona_voice") == "NATM1"

    second = Harness(qtbot, tmp_path, lambda *args: app_demo_model)  # loads the demo with the saved persona
    try:
        w = second.window
        assert w.model.settings.persona_voice == "NATM1"
        assert w.model.settings.persona_role == "You are a pirate.\nSpeak briefly."
        assert not w.error_box.isVisible()  # the saved prompts are not sent to a Moshi model
        assert second.frames(1)[0].frame_index == 0
    finally:
        second.close()


def test_a_personaplex_window_offers_the_worker_listed_voices_and_the_saved_choice(
        qtbot, tmp_path, app_demo_model, voices_dir, monkeypatch):
    store = QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)
    store.setValue("persona_voice", "NATF2")
    store.setValue("persona_role", "You are a pirate.")
    store.sync()
    # No PersonaPlex model can run here: the demo model labelled "personaplex" drives the app's side.
    h = Harness(qtbot, tmp_path, lambda *args: _ModelWithVoices(app_demo_model, voices_dir, "personaplex"))
    try:
        w = h.window
        assert w.model.voices == ["NATF2", "NATM1", "VARF0"]  # listed by the worker from the model's folder
        # The saved persona went with the load; the engine refused it, so the first conversation
        # started without prompts and the error says so.
        assert w.error_box.isVisible() and "not a PersonaPlex model" in w.error_label.text()
        assert "default voice and role instead" in w.error_label.text()
        qtbot.mouseClick(w.dismiss_button, Qt.LeftButton)
        assert w.persona_button.isEnabled() and w.menus.persona_action.isEnabled()
        assert w.persona_label.isVisible() and f"voice {DEFAULT_VOICE_ITEM}" in w.persona_label.text()
        assert w.persona_prompts() == ("NATF2", "You are a pirate.")

        w.activateWindow()
        qtbot.waitUntil(w.isActiveWindow, timeout=5_000)
        qtbot.keyClick(w, Qt.Key_P, Qt.ControlModifier)
        qtbot.waitUntil(lambda: w.findChild(PersonaDialog) is not None, timeout=5_000)
        dialog = w.findChild(PersonaDialog)
        assert combo_items(dialog)[1:4] == ["NATF2", "NATM1", "VARF0"]
        assert dialog.voice() == "NATF2" and dialog.role_edit.toPlainText() == "You are a pirate."

        h.frames(1)
        monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.Discard)
        dialog.voice_combo.setCurrentIndex(combo_items(dialog).index("VARF0"))
        qtbot.mouseClick(dialog.apply_button, Qt.LeftButton)
        assert w.model.settings.persona_voice == "VARF0"
        qtbot.waitUntil(w.error_box.isVisible, timeout=20_000)
        assert "not a PersonaPlex model" in w.error_label.text()  # the real engine got the prompts
        qtbot.mouseClick(w.dismiss_button, Qt.LeftButton)
        assert h.frames(1)[0].frame_index == 1

        w.menus.new_action.trigger()  # File > New on a PersonaPlex model uses the saved persona too
        qtbot.waitUntil(w.error_box.isVisible, timeout=20_000)
        assert "not a PersonaPlex model" in w.error_label.text()
        qtbot.mouseClick(w.dismiss_button, Qt.LeftButton)
        assert h.frames(1)[0].frame_index == 2
    finally:
        h.close()
