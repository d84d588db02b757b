"""What a generator's step takes and returns: ``step(user_codes, state, forcing, probe) -> StepResult``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import torch

Mark = Callable[[str], None]  # called with a stage's name once its work has been issued


@dataclass(frozen=True)
class SamplingConfig:
    """Reference defaults; a temperature of 0 means greedy (argmax) for that stream."""

    temp: float = 0.8
    temp_text: float = 0.7
    top_k: int = 250
    top_k_text: int = 25

    MAX_TEMPERATURE = 100.0  # far past any useful setting (the softmax is flat long before)
    MAX_TOP_K = 1_000_000  # more than any vocabulary: every token is a candidate

    def __post_init__(self):
        for name in ("temp", "temp_text"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not 0 <= value <= self.MAX_TEMPERATURE:  # NaN fails the comparison too
                raise ValueError(f"sampling: {name} must be a number in [0, {self.MAX_TEMPERATURE:g}], got {value!r}")
        for name in ("top_k", "top_k_text"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= self.MAX_TOP_K:
                raise ValueError(f"sampling: {name} must be an integer in [0, {self.MAX_TOP_K}], got {value!r}")

    @classmethod
    def greedy(cls) -> SamplingConfig:
        return cls(temp=0.0, temp_text=0.0)


@dataclass(frozen=True)
class Forcing:
    """What a step is given instead of sampling it: ``tokens`` [B, 1 + dep_q] written on the streams
    ``streams`` marks (None: all; tensors, so a captured graph replays whatever they hold); ``agent``
    and ``text`` given at their delays (a PersonaPlex prompt); ``embedding`` [B, 1, dim] replacing the
    input embedding. ``sample=False`` skips sampling (the RNG counter still advances by its draws).
    ``text_choice`` [B, 2]: the text token written where the model asks for a new word, and where
    it does not (Kyutai TTS's text state machine). ``audio_silent``: every audio stream writes "no
    token" and the depth transformer does not run (Kyutai TTS's audio delay, the reference's
    ``depformer_replace_tokens``); a host flag, like ``sample``."""

    tokens: torch.Tensor | None = None
    streams: torch.Tensor | None = None
    agent: torch.Tensor | None = None
    text: torch.Tensor | None = None
    embedding: torch.Tensor | None = None
    sample: bool = True
    text_choice: torch.Tensor | None = None
    audio_silent: bool = False

    def mask(self, batch: int) -> torch.Tensor:
        """[B, 1 + dep_q] bool: where ``tokens`` are forced."""
        if self.streams is None:
            return torch.ones_like(self.tokens, dtype=torch.bool)
        return self.streams.view(1, -1).expand(batch, -1)


NO_FORCING = Forcing()


@dataclass(frozen=True)
class Probe:
    """Observers of a step, each optional: stage marks, the temporal transformer's output [B, 1, dim],
    and ``sampled(text_logits, tokens)`` before forcing replaced any (eager steps only)."""

    mark: Mark | None = None
    hidden: Callable[[torch.Tensor], None] | None = None
    sampled: Callable[[torch.Tensor, torch.Tensor], None] | None = None


NO_PROBE = Probe()


class StepResult(NamedTuple):
    """One step's aligned output, ``text`` [B] and ``audio`` [B, dep_q] (``UNGENERATED_TOKEN`` before alignment)."""

    text: torch.Tensor
    audio: torch.Tensor
