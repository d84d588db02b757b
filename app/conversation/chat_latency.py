"""How long a conversation with the person's language model took from the end of their speech to the
voice's first sound, and where that time went (``TurnTimes.parts``), in the interface's language.
One sentence with every part named in it: a translation may reorder them, and no template is so
bare ("{a} {b}") that it would match any text the window shows."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP

from app.chat.cascade import TurnTimes
from app.i18n import number_text, translate

# The hand-offs between the parts, under a millisecond, are in the total only.
SPLIT = QT_TRANSLATE_NOOP("ChatLatency", "{total} s (your last words {stt_flush} s, the language model "
                          "{model_first_token} s, its first clause {clause_wait} s, the voice {voice_first_frame} s)")


def first_audio_text(times: TurnTimes | None) -> str:
    """"0.84 s (your last words 0.52 s, the language model 0.12 s, ...)"; "-" for a turn without audio."""
    parts = None if times is None else times.parts()
    if parts is None:
        return "-"
    seconds = {key: number_text(ms / 1000.0, 2) for key, ms in parts.items()}
    return translate("ChatLatency", SPLIT).format(total=number_text(times.first_audio / 1000.0, 2), **seconds)
