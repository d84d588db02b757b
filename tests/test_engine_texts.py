"""The engine's texts that the window shows are in the interface's language: the demo model's note,
the shipped personas' names, and why no microphone can be heard."""

from __future__ import annotations

import pytest

from app.audio.streams import find_device
from app.engine_texts import SHIPPED_PERSONAS, UNTRAINED, model_label, persona_name
from app.i18n import install_translators, remove_translators
from engine.families import family
from engine.files.personas import SHIPPED


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
