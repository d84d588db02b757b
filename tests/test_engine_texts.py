"""The engine's texts that the window shows are in the interface's language: the demo model's note,
the shipped personas' names, why no microphone can be heard, and what the model manager says of each
model (the engine gives facts; the window words them)."""

from __future__ import annotations

import re

import pytest
from PySide6.QtWidgets import QApplication

from app.audio.streams import find_device
from app.engine_texts import SHIPPED_PERSONAS, UNTRAINED, model_label, persona_name
from app.i18n import install_translators, remove_translators
from app.models.manager import COLUMNS, ModelManagerDialog
from app.models.model_texts import ABOUT, pocket_row, summary
from app.settings import AppSettings
from engine import CAPTION_PRESETS, PRESETS, SPEECH_PRESETS
from engine.families import family
from engine.files.personas import SHIPPED

ENGLISH_WORDS = re.compile(r"\b[a-z]{3,}\b")  # lower-case words: sentences, not names ("NVIDIA Open Model License")


class NoDevices:
    """sounddevice as it answers on a computer with no device at all."""

    default = type("Default", (), {"device": (-1, -1)})()

    @staticmethod
    def query_hostapis():
        return []

    @staticmethod
    def query_devices():
        return []


def test_the_tables_name_what_the_engine_writes():
    assert UNTRAINED == family.UNTRAINED
    assert tuple(persona.name for persona in SHIPPED) == SHIPPED_PERSONAS


@pytest.fixture
def french(qapp):
    translators = install_translators(qapp, "fr")
    yield
    remove_translators(qapp, translators)


def test_in_french_the_window_says_the_engine_s_texts_in_french(french):
    assert model_label(f"demo {UNTRAINED}") == "demo (non entraîné, babille)"
    assert [persona_name(p.name) for p in SHIPPED] == ["Assistant général", "Partenaire de langue",
                                                        "Discussion détendue"]
    assert persona_name("My own") == "My own"
    with pytest.raises(RuntimeError, match="^le micro USB mic \\(ALSA\\) n'est pas disponible$"):
        find_device(NoDevices, "USB mic (ALSA)", "input")
    with pytest.raises(RuntimeError, match="^il n'y a pas de micro par défaut$"):
        find_device(NoDevices, None, "input")


def test_the_window_has_words_for_every_model_the_manager_lists():
    assert set(ABOUT) == set(PRESETS) | set(CAPTION_PRESETS) | {"kyutai-tts"}
    voices = [summary(p) for p in SPEECH_PRESETS.values()]  # Pocket TTS: a row per language and variant
    assert len(set(voices)) == len(voices) and all(not text.startswith(("pocket", "kyutai-tts")) for text in voices)
    from engine.pocket_tts.hub import preset_row

    for name in SPEECH_PRESETS:  # the window reads a Pocket TTS row's name as the engine does
        if name.startswith("pocket"):
            row = preset_row(name)
            assert pocket_row(name) == (row.removesuffix("_24l"), 24 if row.endswith("_24l") else 6)


def manager_texts(qtbot) -> dict[str, list[str]]:
    """Per model of the manager: its cells but its name and folder, its details (split where a
    sentence or a list ends), and the question asked before its download."""
    dialog = ModelManagerDialog(AppSettings(model="demo", device="cpu"), in_use="demo")
    qtbot.addWidget(dialog)
    dialog.show()
    texts = {}
    for row, name in enumerate(dialog.presets):
        dialog.table.selectRow(row)
        QApplication.processEvents()
        cells = [dialog.table.item(row, c).text() for c, column in enumerate(COLUMNS)
                 if column not in ("Model", "On this machine")]
        details = re.split(r"<br>| ?; |\. ", dialog.description.text())
        dialog.confirm_download(name, lambda: None)
        texts[name] = cells + details + re.split(r"\n+|\. ", dialog.confirmation.text())
    dialog.close()
    return texts


def test_in_french_the_model_manager_says_nothing_in_english(qtbot, qapp, tmp_path, monkeypatch):
    """What the English manager says of each model in sentences (three lower-case words or more) is
    not in the French one: the descriptions, where each model runs, its memory, licence notes and
    the reason no GPU can be used here are all translated."""
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # no model downloaded
    english = manager_texts(qtbot)
    translators = install_translators(qapp, "fr")
    try:
        french = manager_texts(qtbot)
    finally:
        remove_translators(qapp, translators)
    assert french["moshiko"][0] == "Moshi avec une voix d'homme (kyutai), poids bf16"
    left = {name: [t for t in texts if len(ENGLISH_WORDS.findall(t)) >= 3 and any(t in f for f in french[name])]
            for name, texts in english.items()}
    assert {name: texts for name, texts in left.items() if texts} == {}
