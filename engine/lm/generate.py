"""Streaming token generation: one ``step`` per 80 ms frame, with the reference's delay and alignment
rules, by the generator a model's family names (``make_generator``)."""

from __future__ import annotations

from .generator_base import Generator
from .model import LMModel
from .moshi_generator import HibikiGenerator, MoshiGenerator
from .personaplex_generator import PROMPT_CHUNK_STEPS, PersonaPlexGenerator
from .step import NO_FORCING, NO_PROBE, Forcing, Mark, Probe, SamplingConfig, StepResult
from .tts_generator import SpeechGenerator

_GENERATORS = {cls.kind: cls for cls in (MoshiGenerator, PersonaPlexGenerator, HibikiGenerator, SpeechGenerator)}


def make_generator(lm: LMModel, sampling: SamplingConfig = SamplingConfig()) -> Generator:
    """The generator of the kind the model's family names (Hibiki's without guidance, as the reference)."""
    return _GENERATORS[lm.config.rules.kind](lm, sampling)


__all__ = ["NO_FORCING", "NO_PROBE", "PROMPT_CHUNK_STEPS", "Forcing", "Generator", "HibikiGenerator", "Mark",
           "MoshiGenerator", "PersonaPlexGenerator", "Probe", "SamplingConfig", "SpeechGenerator", "StepResult",
           "make_generator"]
