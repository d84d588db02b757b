"""Where the person's turn ends, read from a speech-to-text model's voice-activity heads.

Kyutai STT 1B has four extra heads on its temporal transformer, each a softmax per step
(``engine.runtime.transcriber``: ``CaptionStep.voice_activity``). kyutai's streaming examples read
one number of them as "the person has finished their turn": head 2, class 0, taken as an end of
turn at 0.5 or above. That reading is used here as it is (the heads' training is not documented
further); the demo STT has the same heads with random weights, so on it the rule runs but means
nothing.

The rule: a turn ends at the step where that probability rises to ``END_OF_TURN_AT`` or above
from below it (one end per crossing, however long it stays high). The step's time is where in
the person's audio it falls (the model's delay already taken off), so the end is dated where
the person stopped, not where the model said so.
"""

from __future__ import annotations

from collections.abc import Sequence

END_OF_TURN_HEAD = 2
END_OF_TURN_CLASS = 0
END_OF_TURN_AT = 0.5


def end_of_turn_probability(heads: Sequence[Sequence[float]]) -> float | None:
    """The probability that the person's turn has ended, from one step's heads (None where the
    model has no such head)."""
    if len(heads) <= END_OF_TURN_HEAD or len(heads[END_OF_TURN_HEAD]) <= END_OF_TURN_CLASS:
        return None
    return float(heads[END_OF_TURN_HEAD][END_OF_TURN_CLASS])


class TurnEnds:
    """The rule above over a stream of steps: ``observe`` says whether a turn ended at this step."""

    def __init__(self) -> None:
        self._ended = True  # no turn before the first step: a high start ends nothing

    def observe(self, heads: Sequence[Sequence[float]]) -> bool:
        p = end_of_turn_probability(heads)
        if p is None:
            return False
        ended = p >= END_OF_TURN_AT
        crossed = ended and not self._ended
        self._ended = ended
        return crossed
