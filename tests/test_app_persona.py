"""Personas in the app: the picker and editor (app/voices/personas_model.py, app/voices/persona.py) on real widgets,
choosing a persona in the window (a new conversation with its sampling and "wait for me", the old
one kept in the library, the window and the library saying which persona), reopening a conversation
with its persona, and the controller starting a PersonaPlex conversation with a persona's voice and
role (the small random PersonaPlex checkpoint)."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch
from PySide6.QtCore import Qt

from app.engine_thread.controller import ConversationController
from app.engine_thread.messages import ConversationFailed, ConversationOpened, LoadModel, NewConversation
from app.i18n import install_translators, remove_translators
from app.library.panel import describe
from app.voices.persona import PersonaDialog
from app.voices.personas_model import NO_PROMPTS_NOTE, PROMPTS_NOTE, STYLES, PersonasModel, style_of
from engine import Persona, PersonaLibrary, SamplingConfig, VoiceLibrary, load_model
from engine.files.personas import SHIPPED
from engine.state import flatten
from tests.test_app_window import Harness
from tests.test_session import personaplex_folder  # noqa: F401 - a fixture
from tests.test_voices import stored

PARTNER = SHIPPED[1]  # "Language partner": its own sampling, and it waits for the user


@pytest.fixture
def harness(qtbot, tmp_path, app_demo_model):
    h = Harness(qtbot, tmp_path, lambda *args: app_demo_model)
    yield h
    h.close()


def editor(qtbot, takes_prompts: bool | None = True, voices=("NATF0", "NATF2")) -> PersonaDialog:
    dialog = PersonaDialog(PersonasModel(PersonaLibrary(), list(voices), takes_prompts))
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def rows(dialog: PersonaDialog) -> list[str]:
    return [dialog.list.item(i).text() for i in range(dialog.list.count())]


def pick(dialog: PersonaDialog, name: str) -> None:
    dialog.list.setCurrentRow([dialog.list.item(i).data(Qt.UserRole) for i in range(dialog.list.count())].index(name))


def test_an_edit_of_a_shipped_persona_is_the_users_copy_until_reset(qtbot):
    dialog = editor(qtbot)
    assert rows(dialog) == ["General assistant", "Language partner", "Casual chat"]
    pick(dialog, "Language partner")
    assert dialog.role_edit.toPlainText() == PARTNER.role and dialog.wait_box.isChecked()
    assert dialog.temp.value() == PARTNER.sampling.temp and dialog.voice_combo.currentData() == "NATF2"
    assert dialog.name_edit.isReadOnly() and not dialog.save_button.isEnabled()
    assert not dialog.delete_button.isEnabled()  # shipped: nothing to delete or reset

    dialog.role_edit.setPlainText("Speak French only.")
    dialog.temp_text.setValue(0.3)
    dialog.wait_box.click()
    assert dialog.save_button.isEnabled()
    qtbot.mouseClick(dialog.save_button, Qt.LeftButton)
    saved = PersonaLibrary().get("Language partner")
    assert saved.role == "Speak French only." and saved.sampling.temp_text == 0.3 and not saved.wait_for_user
    assert rows(dialog)[1] == "Language partner  ·  edited" and dialog.delete_button.text() == "R&eset"
    qtbot.mouseClick(dialog.delete_button, Qt.LeftButton)
    assert PersonaLibrary().get("Language partner") == PARTNER and rows(dialog)[1] == "Language partner"
    assert dialog.role_edit.toPlainText() == PARTNER.role


def test_the_user_makes_renames_and_deletes_a_persona_and_a_bad_name_is_said(qtbot):
    dialog = editor(qtbot)
    pick(dialog, "Casual chat")
    qtbot.mouseClick(dialog.new_button, Qt.LeftButton)
    assert rows(dialog)[-1] == "My persona  ·  yours" and not dialog.name_edit.isReadOnly()
    assert PersonaLibrary().get("My persona").role == SHIPPED[2].role  # started from the selected one
    dialog.name_edit.selectAll()
    qtbot.keyClicks(dialog.name_edit, "../Pirate")
    qtbot.mouseClick(dialog.save_button, Qt.LeftButton)
    assert "cannot name a persona" in dialog.status.text() and "My persona  ·  yours" in rows(dialog)
    dialog.name_edit.selectAll()
    qtbot.keyClicks(dialog.name_edit, "Pirate")
    dialog.voice_combo.setCurrentIndex(dialog.voice_combo.findData("none"))
    dialog.voice_combo.activated.emit(dialog.voice_combo.currentIndex())
    qtbot.mouseClick(dialog.save_button, Qt.LeftButton)
    assert rows(dialog)[-1] == "Pirate  ·  yours" and PersonaLibrary().get("Pirate").voice == "none"
    assert PersonaLibrary().find("My persona") is None  # renamed, not copied
    qtbot.mouseClick(dialog.delete_button, Qt.LeftButton)
    assert rows(dialog) == ["General assistant", "Language partner", "Casual chat"]


def test_a_moshi_model_shows_what_applies_instead_of_disabled_voice_and_role(qtbot):
    moshi = editor(qtbot, takes_prompts=False)
    assert not moshi.voice_combo.isVisible() and not moshi.role_edit.isVisible()
    assert all(w.isVisible() and w.isEnabled() for w in (moshi.style_combo, moshi.wait_box))
    assert moshi.note.text() == NO_PROMPTS_NOTE
    personaplex = editor(qtbot, takes_prompts=True)
    assert personaplex.voice_combo.isVisible() and personaplex.role_edit.isVisible()
    assert personaplex.note.text() == PROMPTS_NOTE


def test_how_varied_the_assistant_is_is_a_named_style_with_the_numbers_on_request(qtbot):
    demo = editor(qtbot, takes_prompts=False)  # the demo is a Moshi model: no voice or role
    numbers = (demo.temp, demo.temp_text, demo.top_k, demo.top_k_text)
    styles = [demo.style_combo.itemText(i) for i in range(demo.style_combo.count())]
    assert styles == [style.name for style in STYLES] and demo.style_combo.currentText() == "Balanced"
    assert not any(box.isVisible() for box in numbers)  # no spin boxes unless asked for
    assert {style_of(persona.sampling).name for persona in SHIPPED} <= set(styles)  # every shipped one has a name
    pick(demo, "Language partner")
    assert demo.style_combo.currentText() == "Calm"
    demo.style_combo.setCurrentIndex(styles.index("Lively"))
    demo.style_combo.activated.emit(styles.index("Lively"))
    assert demo.personas.draft.sampling == STYLES[styles.index("Lively")].sampling
    qtbot.mouseClick(demo.numbers_button, Qt.LeftButton)
    assert all(box.isVisible() for box in numbers) and demo.temp.value() == 1.0
    demo.top_k.setValue(7)  # a number no style has
    assert demo.style_combo.currentText() == "Custom" and demo.style_combo.count() == len(STYLES) + 1
    personaplex = editor(qtbot, takes_prompts=True)  # the same choice on PersonaPlex, with voice and role
    assert personaplex.style_combo.isVisible() and personaplex.voice_combo.isVisible()


def test_a_damaged_persona_file_is_a_row_that_says_so_and_cannot_start(qtbot, own_personas):
    (own_personas / "Broken.json").write_bytes(b'{"format": "parley.persona", "version": 1, "name": 3}')
    dialog = editor(qtbot)
    assert rows(dialog)[-1] == "Broken  ·  damaged"
    pick(dialog, "Broken")
    assert "cannot be used" in dialog.status.text() and "'name'" in dialog.status.text()
    assert not dialog.start_button.isEnabled() and not dialog.role_edit.isEnabled()
    qtbot.mouseClick(dialog.delete_button, Qt.LeftButton)  # it can still be deleted
    assert not (own_personas / "Broken.json").exists()


def test_choosing_a_persona_starts_a_conversation_with_it_and_keeps_the_old_one_in_the_library(harness, qtbot):
    w = harness.window
    assert w.model.models.persona == SHIPPED[0] and "Persona: General assistant" in w.header.persona_label.text()
    w.press_talk("key")  # what the person said is kept
    harness.frames(3)
    w.release_talk("key")
    dialog = w.dialogs.open_persona_dialog()
    pick(dialog, "Language partner")
    qtbot.mouseClick(dialog.start_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: len(harness.opened) == 2, timeout=30_000)
    session = w.model.worker.controller.session
    assert session.persona == PARTNER and session.sampling == PARTNER.sampling and session.waiting_for_user
    assert session.prompts == {"voice": None, "text": None}  # the demo model takes no voice or role
    assert w.model.preferences.settings.persona == "Language partner"
    persona = w.header.persona_label.text()
    assert "Persona: Language partner" in persona and "no voice or role" in persona
    assert w.menus.wait_action.isChecked()
    qtbot.waitUntil(lambda: len(w.library.entries) == 1, timeout=20_000)  # the old one, kept
    (kept,) = w.library.entries
    assert kept.info.persona == "General assistant" and "General assistant" in describe(kept)
    assert kept.info.seconds == pytest.approx(0.24)


def test_reopening_a_conversation_continues_with_its_persona(harness, qtbot, tmp_path):
    w = harness.window
    w.model.start_with_persona(PARTNER)
    qtbot.waitUntil(lambda: len(harness.opened) == 2, timeout=30_000)
    w.model.press_talk("key")  # releases "wait for me"
    harness.frames(2)
    w.model.release_talk("key")
    path = str(tmp_path / "partner.parley")
    w.model.files.save(path)
    qtbot.waitUntil(lambda: w.model.files.conversation_path == path, timeout=20_000)
    w.model.start_with_persona(SHIPPED[2])
    qtbot.waitUntil(lambda: len(harness.opened) == 3, timeout=30_000)
    assert w.model.models.persona == SHIPPED[2]

    w.open_conversation(path)
    qtbot.waitUntil(lambda: len(harness.opened) == 4, timeout=30_000)
    assert w.model.models.conversation_persona.name == "Language partner" and w.model.models.persona == PARTNER
    assert w.model.worker.controller.session.sampling == PARTNER.sampling
    assert "Persona: Language partner" in w.header.persona_label.text()
    w.menus.new_action.trigger()  # File > New goes on with the reopened conversation's persona
    qtbot.waitUntil(lambda: len(harness.opened) == 5, timeout=30_000)
    assert w.model.worker.controller.session.persona == PARTNER


def test_a_persona_on_personaplex_starts_with_its_voice_role_sampling_and_wait(
        personaplex_folder, monkeypatch, tmp_path):  # noqa: F811 - the fixture
    monkeypatch.setenv("PARLEY_KERNELS", "aten")  # an exact kernel, not measured: this is about prompts
    monkeypatch.setenv("PARLEY_VOICES_DIR", str(tmp_path / "voices"))
    stored(VoiceLibrary(), "June", seed=9)
    model = load_model(str(personaplex_folder), device="cpu")
    cook = Persona("Cook", voice="June", role="You are a ship's cook.", wait_for_user=True,
                   sampling=SamplingConfig(temp=0.6, temp_text=0.5, top_k=50, top_k_text=5))
    events = []
    controller = ConversationController(events.append, lambda command: None, lambda *args: model, seed=7)
    controller.execute(LoadModel("personaplex", "cpu", "float32", cook))
    session = controller.session
    assert session.prompts == {"voice": "June", "text": "You are a ship's cook."} and session.persona == cook
    assert session.sampling == cook.sampling and session.waiting_for_user
    by_hand = model.new_session(cook.sampling, seed=7, voice_prompt="June", text_prompt=cook.role)
    a, b = flatten(session.state["gen"]), flatten(by_hand.state["gen"])
    assert all(torch.equal(a[k], b[k]) for k in a)
    (opened,) = [e for e in events if isinstance(e, ConversationOpened)]
    assert opened.persona == cook and opened.voice == "June" and opened.role == cook.role

    controller.execute(NewConversation(replace(cook, voice="Nobody's voice")))  # a voice it cannot find
    (failed,) = [e for e in events if isinstance(e, ConversationFailed)]
    assert "'Cook'" in failed.message and "current conversation is kept" in failed.message
    assert controller.session is session


def test_in_french_a_shipped_persona_s_name_field_shows_its_french_name(qtbot, qapp):
    translators = install_translators(qapp, "fr")
    try:
        dialog = editor(qtbot)
        pick(dialog, "Language partner")
        assert dialog.name_edit.text() == "Partenaire de langue" and dialog.name_edit.isReadOnly()
        dialog.role_edit.setPlainText("Parle seulement français.")  # an edit keeps the stored English name
        qtbot.mouseClick(dialog.save_button, Qt.LeftButton)
        assert PersonaLibrary().get("Language partner").role == "Parle seulement français."
        assert dialog.name_edit.text() == "Partenaire de langue"
    finally:
        remove_translators(qapp, translators)
