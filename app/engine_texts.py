"""The engine's texts that the window shows, in the interface's language. The engine writes English
and never imports Qt; the few of its texts a person reads in the window (the shipped personas'
names, the demo model's note) are marked for translation here and translated where shown."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP

from app.i18n import translate

UNTRAINED = QT_TRANSLATE_NOOP("EngineTexts", "(untrained, babbles)")  # engine.families.family.UNTRAINED
SHIPPED_PERSONAS = (QT_TRANSLATE_NOOP("EngineTexts", "General assistant"),  # engine.files.personas.SHIPPED
                    QT_TRANSLATE_NOOP("EngineTexts", "Language partner"),
                    QT_TRANSLATE_NOOP("EngineTexts", "Casual chat"))


def model_label(label: str) -> str:
    """A model's label (``ModelInfo.label``) as the window shows it."""
    return label.replace(UNTRAINED, translate("EngineTexts", UNTRAINED))


def persona_name(name: str) -> str:
    """A persona's name as the window shows it: a shipped one's in the interface's language."""
    return translate("EngineTexts", name) if name in SHIPPED_PERSONAS else name
