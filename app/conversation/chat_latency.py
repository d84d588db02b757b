"""The health panel's figure for a conversation with the person's language model: how long from the
end of their speech to the voice's first sound, and where that time went (``TurnTimes.parts``)."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP

from app.chat.cascade import TurnTimes
from app.i18n import number_text, translate

# The parts as the panel names them, in the order they happen (the hand-offs between them, under a
# millisecond, are in the total only).
PART_NAMES = (
    ("stt_flush", QT_TRANSLATE_NOOP("ChatLatency", "your last words")),
    ("model_first_token", QT_TRANSLATE_NOOP("ChatLatency", "the language model")),
    ("clause_wait", QT_TRANSLATE_NOOP("ChatLatency", "its first clause")),
    ("voice_first_frame", QT_TRANSLATE_NOOP("ChatLatency", "the voice")),
)
TIP = QT_TRANSLATE_NOOP("ChatLatency", "From the end of your speech to the first sound of the answer: the speech to "
                        "text writing your last words, the language model's first word, the rest of its first "
                        "clause, and the voice's first sound.")


def seconds_text(ms: float) -> str:
    return translate("ChatLatency", "{seconds} s").format(seconds=number_text(ms / 1000.0, 2))


def first_audio_text(times: TurnTimes | None) -> str:
    """"0.84 s (your last words 0.52 s, the language model 0.12 s, ...)"; "-" for a turn without audio."""
    parts = None if times is None else times.parts()
    if parts is None:
        return "-"
    split = ", ".join(translate("ChatLatency", "{part} {duration}").format(
        part=translate("ChatLatency", name), duration=seconds_text(parts[key])) for key, name in PART_NAMES)
    return translate("ChatLatency", "{total} ({parts})").format(total=seconds_text(times.first_audio), parts=split)
