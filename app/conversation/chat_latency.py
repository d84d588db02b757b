"""How long a conversation with the person's language model took from the end of their speech to the
voice's first sound, and where that time went (``TurnTimes.parts``), in the interface's language.
One sentence with every part named in it: a translation may reorder them, and no template is so
bare ("{a} {b}") that it would match any text the window shows."""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP

from app.chat.cascade import TurnTimes
from app.i18n import number_text, translate

# The hand-offs between the parts, under a millisecond, are in the total only.
SPLIT = QT_TRANSLATE_NOOP("ChatLatency", "{total} s (your last words {stt_flush} s, the language model "
                          "{model_first_token} s, its first clause {clause_wait} s, the voice {voice_first_frame} s)")
OVER_ANSWERS = QT_TRANSLATE_NOOP("ChatLatency", "{split}: the median of the answers so far; 95th percentile "
                                 "{percentile} s")


def first_audio_text(times: TurnTimes | None) -> str:
    """"0.84 s (your last words 0.52 s, the language model 0.12 s, ...)"; "-" for a turn without audio."""
    parts = None if times is None else times.parts()
    if parts is None:
        return "-"
    seconds = {key: number_text(ms / 1000.0, 2) for key, ms in parts.items()}
    return translate("ChatLatency", SPLIT).format(total=number_text(times.first_audio / 1000.0, 2), **seconds)


def answers_latency_text(answers: Sequence[TurnTimes]) -> str:
    """The health panel's delay in a conversation with a language model: each time's median over the
    answers that were heard, split as ``first_audio_text`` words it, and the 95th percentile of the
    whole; "-" before the first."""
    heard = [t for t in answers if t.parts() is not None]
    if not heard:
        return "-"
    median = TurnTimes(**{f.name: statistics.median(getattr(t, f.name) for t in heard)
                          for f in dataclasses.fields(TurnTimes)})
    p95 = float(np.percentile([t.first_audio for t in heard], 95))
    return translate("ChatLatency", OVER_ANSWERS).format(split=first_audio_text(median),
                                                         percentile=number_text(p95 / 1000.0, 2))
