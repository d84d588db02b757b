"""Where the person's turn ends, from a speech-to-text model's voice-activity heads: kyutai's examples
read head 2, class 0 at 0.5 or above; a turn ends where it crosses up (dated in the person's audio)."""

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
