"""How a generator kind steps and loads: several families share a kind, so the rules are the kind's."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StepRules:
    kind: str
    writes_user_codebooks: bool = False  # the depth transformer also predicts the user's codebooks (PersonaPlex)
    stored_depth_steps: int | None = None  # steps s and s + stored share weights; None: all stored
    text_read_as: tuple[int, int] | None = None  # input token a is read as b (an early end reads as a pause)
    ends_source: bool = False  # a frame of the codec's initial token on every codebook ends the source
    end_of_text_token: int | None = None
    # before a source, max_delay frames of silence encoded on their own; the source then has a fresh codec
    leads_with_silence: bool = False

    def agent_streams(self, n_q: int, dep_q: int) -> int:
        """The audio streams the assistant writes (the first after text); the rest of n_q is the user's."""
        return n_q // 2 if self.writes_user_codebooks else dep_q
