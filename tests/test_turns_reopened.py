"""The person's turns come back as they were shown: a caption the model dated before their voice
rose above the speech level joins their first turn instead of a turn of its own at the end."""

from __future__ import annotations

import numpy as np

from app.conversation.transcript import YOU, Transcript
from engine import FRAME_SECONDS, FRAME_SIZE


def test_a_caption_dated_before_the_persons_first_turn_joins_it():
    quiet, voice = np.zeros(FRAME_SIZE * 8, np.float32), np.full(FRAME_SIZE * 10, 0.2, np.float32)
    t = Transcript()
    t.load([], np.concatenate([quiet, voice]), None, captions=[(0.0, " Hello"), (0.9, " there")])
    assert [(turn.speaker, round(turn.start, 2), turn.text) for turn in t.turns] == [
        (YOU, round(8 * FRAME_SECONDS, 2), "Hello there")]
