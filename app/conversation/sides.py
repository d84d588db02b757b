"""The two sides of a conversation by name: the one place that says what each side is called.

In a conversation they are the person ("You") and the model ("Assistant"). In the Interpreter mode
(``app.conversation.interpreter_mode``) the person's side is the speech it hears (a call, a video),
the original, and the model's side is its English translation, the interpreter. The window shows
the names translated (``side_name``); files other programs read (``transcript_formats``) carry
them as written here (``file_side_name``), as they carry every other word in English.

A saved conversation knows the model it was made with by name (``ConversationInfo.model``): a
preset's name says its family, so its sides are named as when it ran (``saved_by_interpreter``).
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP

from app.conversation.transcript import ASSISTANT, YOU
from app.i18n import translate
from engine import PRESETS, family_named

NAMES = {  # interpreting -> speaker -> name
    False: {YOU: QT_TRANSLATE_NOOP("Sides", "You"), ASSISTANT: QT_TRANSLATE_NOOP("Sides", "Assistant")},
    True: {YOU: QT_TRANSLATE_NOOP("Sides", "Original"), ASSISTANT: QT_TRANSLATE_NOOP("Sides", "Interpreter")},
}


def file_side_name(speaker: str, interpreting: bool) -> str:
    """The side's name as files carry it (untranslated)."""
    return NAMES[interpreting][speaker]


def side_name(speaker: str, interpreting: bool) -> str:
    """The side's name as the window shows it (translated)."""
    return translate("Sides", file_side_name(speaker, interpreting))


def saved_by_interpreter(model_name: str) -> bool:
    """Whether the model a conversation file names (a preset) interprets."""
    preset = PRESETS.get(model_name)
    return preset is not None and family_named(preset.family).interprets
