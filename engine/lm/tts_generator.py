"""Kyutai TTS's generator: ``MoshiGenerator`` with the voice as conditions (summed "control" and
"cfg", cross-attended speaker embeddings), the text stream written by the host's ``TextMachine``
through ``Forcing.text_choice``, and the audio read as "no token" until the audio delay has passed
(the reference ``TTSModel.generate``'s hooks). No user streams: every audio stream is generated."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import torch

from ..families.kyutai_tts import (
    CONTROL,
    DEFAULT_CFG,
    FINAL_PADDING,
    MAX_SPEAKERS,
    NEW_WORD_TOKEN,
    PAD_TOKEN,
    TTS_1_6B_CONFIG,
    SpeechTiming,
)
from ..state import StateTree
from .model import LMModel
from .moshi_generator import MoshiGenerator
from .step import Forcing, Probe, SamplingConfig, StepResult
from .tts_machine import ZERO, TextMachine

FRAME_RATE = 12.5
MAX_PADDING_BONUS = 100.0
RELEASED_DELAY_STEPS = SpeechTiming.of(TTS_1_6B_CONFIG).delay_steps(FRAME_RATE)


def speaker_condition(embeddings: Sequence[torch.Tensor], max_speakers: int = MAX_SPEAKERS
                      ) -> tuple[torch.Tensor, torch.Tensor]:
    """Voices' released embeddings (``speaker_wavs`` [1, dim, T] each) in their slots, as the
    reference lays them out: (tensor [1, max_speakers * T, dim], mask [1, max_speakers * T])."""
    if not 1 <= len(embeddings) <= max_speakers:
        raise ValueError(f"expected 1 to {max_speakers} voices, got {len(embeddings)}")
    first = embeddings[0]
    if first.dim() != 3 or first.shape[0] != 1:
        raise ValueError(f"a voice's embeddings are [1, dim, time], got {tuple(first.shape)}")
    _, dim, frames = first.shape
    tensor = torch.zeros(1, max_speakers, frames, dim)
    mask = torch.zeros(1, max_speakers, frames, dtype=torch.bool)
    for i, emb in enumerate(embeddings):
        if tuple(emb.shape) != tuple(first.shape):
            raise ValueError(f"voices' embeddings differ in shape: {tuple(emb.shape)} and {tuple(first.shape)}")
        tensor[:, i] = emb.transpose(1, 2)
        mask[:, i] = True
    return tensor.view(1, -1, dim), mask.view(1, -1)


class SpeechGenerator(MoshiGenerator):
    """``step(user_codes [B, 0], state, Forcing(text_choice=...))``; ``condition`` gives the voice first.
    ``codebooks`` below the model's writes only the first ones (faster, coarser: the reference's
    ``n_q``); the others are "no token". ``padding_bonus`` is added to the pad's text logit (slower speech)."""

    kind = "tts"

    def __init__(self, lm: LMModel, sampling: SamplingConfig = SamplingConfig(),
                 delay_steps: int = RELEASED_DELAY_STEPS, codebooks: int | None = None, padding_bonus: float = 0.0):
        dep_q = lm.config.dep_q
        self.codebooks = dep_q if codebooks is None else codebooks
        if isinstance(self.codebooks, bool) or not isinstance(self.codebooks, int) or not 1 <= self.codebooks <= dep_q:
            raise ValueError(f"codebooks must be an int in [1, {dep_q}], got {codebooks!r}")
        super().__init__(lm, sampling)
        provider = getattr(lm, "condition_provider", None)
        if provider is None or provider.cross is None or len(provider.cross.names) != 1:
            raise ValueError("a Kyutai TTS model cross-attends to one voice condition; this one does not")
        if isinstance(delay_steps, bool) or not isinstance(delay_steps, int) or delay_steps < 0:
            raise ValueError(f"delay_steps must be a non-negative int, got {delay_steps!r}")
        if isinstance(padding_bonus, bool) or not isinstance(padding_bonus, (int, float)) \
                or not abs(padding_bonus) <= MAX_PADDING_BONUS:
            raise ValueError(f"padding_bonus must be a number in [-{MAX_PADDING_BONUS:g}, {MAX_PADDING_BONUS:g}], "
                             f"got {padding_bonus!r}")
        self.delay_steps, self.padding_bonus = delay_steps, float(padding_bonus)
        self._audio_from = self._delays[1:1 + self.config.dep_q] + delay_steps  # first step each writes
        self._choosing = self._audio_silent = False
        unwritten = torch.arange(1 + dep_q, device=self._delays.device) > self.codebooks
        self._unwritten = Forcing(torch.full((1, 1 + dep_q), ZERO, dtype=torch.long, device=self._delays.device),
                                  unwritten)

    @property
    def agent_streams(self) -> int:
        return self.codebooks

    @property
    def user_streams(self) -> int:
        return self.config.n_q - self.config.dep_q

    def init_state(self, batch_size: int, seed: int = 0) -> StateTree:
        state = super().init_state(batch_size, seed)
        device = self._delays.device
        state["condition"] = {"sum": torch.zeros(batch_size, 1, self.config.dim, device=device,
                                                 dtype=self.lm.text_emb.weight.dtype)}
        state["text_machine"] = {"choice": torch.zeros(batch_size, 2, dtype=torch.long, device=device),
                                 "asked_word": torch.zeros(batch_size, dtype=torch.bool, device=device)}
        return state

    def condition(self, state: StateTree, speakers: tuple[torch.Tensor, torch.Tensor],
                  cfg: float | None = DEFAULT_CFG) -> None:
        """The voice: ``speakers`` (tensor [1 or B, T, dim], mask) from ``speaker_condition``, and the
        distilled guidance ``cfg`` (one of the model's values; None: unguided)."""
        provider, batch = self.lm.condition_provider, state["tokens"]["cache"].shape[0]
        tensor, mask = speakers
        tensor, mask = tensor.expand(batch, -1, -1), mask.expand(batch, -1)
        values = {**CONTROL, "cfg": None if cfg is None else format(cfg, ".1f")}
        dtype = state["condition"]["sum"].dtype
        with torch.no_grad():
            state["condition"]["sum"].copy_(provider.summed([values] * batch).to(dtype))
            source = provider.cross_source({provider.cross.names[0]: (tensor, mask)}).to(dtype)
            self.lm.transformer.set_cross_source(state["lm"]["temporal"], source)

    def step(self, user_codes: torch.Tensor, state: StateTree, forcing: Forcing | None = None,
             probe: Probe | None = None) -> StepResult:
        if "cross_k" not in state["lm"]["temporal"]["layers"]["0"]:
            raise ValueError("give the voice first (SpeechGenerator.condition)")
        return super().step(user_codes, state, forcing, probe)

    def _check_given(self, forcing: Forcing, state: StateTree) -> None:
        choice = forcing.text_choice
        super()._check_given(Forcing(agent=forcing.agent, text=forcing.text, embedding=forcing.embedding), state)
        if choice is not None:
            self._check_codes(choice, 2, "the text choice", state)

    def _step(self, user_codes: torch.Tensor, state: StateTree, forcing: Forcing | None, probe: Probe
              ) -> StepResult:
        self._choosing = forcing is not None and forcing.text_choice is not None
        self._audio_silent = forcing is not None and forcing.audio_silent
        if self._choosing:
            state["text_machine"]["choice"].copy_(forcing.text_choice)
        if self.codebooks < self.config.dep_q:
            forcing = self._with_unwritten(forcing, user_codes.shape[0])
        return super()._step(user_codes, state, forcing, probe)

    def _with_unwritten(self, forcing: Forcing | None, batch: int) -> Forcing:
        """``forcing`` plus "no token" on the codebooks not written."""
        unwritten = self._unwritten.tokens.expand(batch, -1)
        if forcing is None or forcing.tokens is None:
            return Forcing(unwritten, self._unwritten.streams, sample=True if forcing is None else forcing.sample)
        mask = forcing.mask(batch)
        streams = self._unwritten.streams.view(1, -1)
        return Forcing(torch.where(streams & ~mask, unwritten, forcing.tokens),
                       None if forcing.streams is None else forcing.streams | self._unwritten.streams,
                       sample=forcing.sample)

    def _temporal_input(self, x: torch.Tensor, state: StateTree) -> torch.Tensor:
        return x + state["condition"]["sum"]

    def _sample_text(self, logits: torch.Tensor, state: StateTree) -> torch.Tensor:
        if self.padding_bonus:
            logits = logits.clone()
            logits[:, PAD_TOKEN] += self.padding_bonus
        sampled = super()._sample_text(logits, state)
        asked = sampled == NEW_WORD_TOKEN
        state["text_machine"]["asked_word"].copy_(asked)
        if not self._choosing:
            return sampled
        choice = state["text_machine"]["choice"]
        return torch.where(asked, choice[:, 0], choice[:, 1])

    def _depth_frame(self, h: torch.Tensor, text: torch.Tensor, state: StateTree, forced: torch.Tensor | None,
                     forced_mask: torch.Tensor | None, steps: int) -> torch.Tensor:
        if self._audio_silent:
            if self.sampling.temp > 0:
                state["rng"]["counter"].add_(1)  # the draw of the skipped frame: later noise is unchanged
            return torch.full((text.shape[0], steps), ZERO, dtype=torch.long, device=text.device)
        audio = super()._depth_frame(h, text, state, forced, forced_mask, steps)
        return torch.where(state["tokens"]["offset"] < self._audio_from[:steps], ZERO, audio)


def speak(generator: SpeechGenerator, state: StateTree, machine: TextMachine, max_steps: int,
          final_padding: int = FINAL_PADDING, on_step: Callable[[int, StepResult], None] | None = None,
          before_step: Callable[[int], None] | None = None) -> list[StepResult]:
    """Run batch-1 steps until the text has ended and the audio delay and ``final_padding`` have
    passed (or ``max_steps``), as the reference's ``TTSModel.generate``; returns the aligned frames.
    ``before_step(step)`` may give the machine more words (text streamed in)."""
    frames = []
    for step, result in speak_steps(generator, state, machine, max_steps, final_padding, before_step):
        if on_step is not None:
            on_step(step, result)
        if step >= generator.first_output_frame:
            frames.append(result)
    return frames


def speak_steps(generator: SpeechGenerator, state: StateTree, machine: TextMachine, max_steps: int,
                final_padding: int = FINAL_PADDING, before_step: Callable[[int], None] | None = None
                ) -> Iterator[tuple[int, StepResult]]:
    """``speak``'s steps one at a time, (step, result), every step (aligned from
    ``generator.first_output_frame``). Each step's answer is read on the host after it (one sync a
    frame, outside the step)."""
    device = state["tokens"]["cache"].device
    user = torch.empty(1, generator.user_streams, dtype=torch.long, device=device)
    for step in range(max_steps):
        end = machine.end_step
        if end is not None and step >= end + generator.delay_steps + final_padding:
            return
        if before_step is not None:
            before_step(step)
        choice = torch.tensor([machine.choices(step)], dtype=torch.long, device=device)
        result = generator.step(user, state, Forcing(text_choice=choice, audio_silent=step < generator.delay_steps))
        machine.advance(step, bool(state["text_machine"]["asked_word"][0]))
        yield step, result
