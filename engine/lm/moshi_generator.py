"""kyutai's generators: ``MoshiGenerator`` reproduces the reference ``LMGen``; ``HibikiGenerator`` adds
Hibiki's constant condition and classifier-free guidance (``condition_tensors``, ``cfg_coef``)."""

from __future__ import annotations

import torch

from ..families import hibiki
from ..state import StateTree
from .generator_base import Generator
from .model import LMModel
from .step import NO_PROBE, Forcing, Probe, SamplingConfig, StepResult


class MoshiGenerator(Generator):
    """Streaming generation with the reference ``LMGen`` semantics:
    ``step(user_codes [B, n_q - dep_q], state) -> StepResult(text [B], audio [B, dep_q])``."""

    kind = "moshi"
    cache_columns_extra = 2
    _written_offset_lag = 0  # a step writes at its offset + 1, then advances the offset

    def step(self, user_codes: torch.Tensor, state: StateTree, forcing: Forcing | None = None,
             probe: Probe | None = None) -> StepResult:
        """One frame of the user's codes [B, n_q - dep_q]; ``forcing``: what is given, not sampled."""
        self._check_codes(user_codes, self.user_streams, "user codes", state)
        self._check_forcing(forcing, state)
        with torch.inference_mode():
            return self._step(user_codes, state, forcing, probe or NO_PROBE)

    def _step(self, user_codes: torch.Tensor, state: StateTree, forcing: Forcing | None, probe: Probe
              ) -> StepResult:
        c, tokens = self.config, state["tokens"]
        cache, offset = tokens["cache"], tokens["offset"]
        first_user = c.token_streams
        self._write_column(cache, slice(first_user, None), (offset + self._delays[first_user:]) % self.columns,
                           user_codes)
        column = (offset % self.columns).view(1, 1, 1).expand(cache.shape[0], cache.shape[1], 1)
        codes = cache.gather(2, column).squeeze(-1)
        codes = torch.where(offset <= self._delays, self._initial, codes)
        x = self._temporal_input(self.lm.embed_codes(codes), state)
        if forcing is None or forcing.sample:
            h, text_logits = self._temporal_step(x, state)
            if probe.hidden is not None:
                probe.hidden(h)
            forced = None if forcing is None or forcing.tokens is None else \
                (forcing.tokens, forcing.mask(cache.shape[0]))
            written = self._generate(h, text_logits, state, forced, probe)
        else:
            self._skip_sampling(x, state)
            written = forcing.tokens
        offset.add_(1)
        self._write_column(cache, slice(0, first_user), (offset % self.columns).expand(first_user), written)
        return StepResult(*self._aligned_output(cache, offset))

    def _temporal_input(self, x: torch.Tensor, state: StateTree) -> torch.Tensor:
        """The temporal transformer's input from the step's embedded tokens x [B, 1, dim]."""
        return x

    def _temporal_step(self, x: torch.Tensor, state: StateTree) -> tuple[torch.Tensor, torch.Tensor]:
        """(h, text logits [B, text_card]) of the temporal transformer on ``_temporal_input``."""
        return self.lm.temporal_step(x, state["lm"])


class HibikiGenerator(MoshiGenerator):
    """``MoshiGenerator`` for Hibiki: source speech in, translation out. A conditioned model gets
    "very_good" on every step; ``cfg_coef`` other than 1 doubles the LM's batch (the second half
    "very_bad") and samples from ``null + (cond - null) * cfg_coef``, feeding the token to both."""

    kind = "hibiki"
    MAX_CFG_COEF = 100.0

    def __init__(self, lm: LMModel, sampling: SamplingConfig = SamplingConfig(),
                 cfg_coef: float = hibiki.DEFAULT_CFG_COEF):
        if isinstance(cfg_coef, bool) or not isinstance(cfg_coef, (int, float)) \
                or not 0 < cfg_coef <= self.MAX_CFG_COEF:
            raise ValueError(f"cfg_coef must be a number in (0, {self.MAX_CFG_COEF:g}], got {cfg_coef!r}")
        super().__init__(lm, sampling)
        self.cfg_coef = float(cfg_coef)
        self.guided = self.cfg_coef != 1.0
        provider = getattr(lm, "condition_provider", None)
        if provider is None and self.guided:
            raise ValueError("classifier-free guidance needs a model conditioned on a description (Hibiki "
                             "2B or 1B); this one has no conditioner")
        self._condition = None
        if provider is not None:
            items = [hibiki.POSITIVE_DESCRIPTION] + ([hibiki.NEGATIVE_DESCRIPTION] if self.guided else [])
            with torch.no_grad():
                self._condition = provider.summed(items).to(lm.text_emb.weight.dtype)  # [1 or 2, 1, dim]

    def init_state(self, batch_size: int, seed: int = 0) -> StateTree:
        state = super().init_state(batch_size, seed)
        if self.guided:
            state["lm"] = self.lm.init_state(2 * batch_size)
        return state

    def _temporal_input(self, x: torch.Tensor, state: StateTree) -> torch.Tensor:
        if self._condition is None:
            return x
        if not self.guided:
            return x + self._condition
        return torch.cat([x + self._condition[:1], x + self._condition[1:]])

    def _temporal_step(self, x: torch.Tensor, state: StateTree) -> tuple[torch.Tensor, torch.Tensor]:
        h, text_logits = self.lm.temporal_step(x, state["lm"])
        return h, self._guide(text_logits)

    def _guide(self, logits: torch.Tensor) -> torch.Tensor:
        """Logits of the conversation's batch from those of the doubled one (unchanged unguided)."""
        if not self.guided:
            return logits
        cond, null = logits.chunk(2)
        return null + (cond - null) * self.cfg_coef

    def _depth_frame(self, h: torch.Tensor, text: torch.Tensor, state: StateTree, forced: torch.Tensor | None,
                     forced_mask: torch.Tensor | None, steps: int) -> torch.Tensor:
        if not self.guided:
            return super()._depth_frame(h, text, state, forced, forced_mask, steps)
        sample = self._audio_sampler(state)

        def guided(logits: torch.Tensor, cb: int) -> torch.Tensor:
            return sample(self._guide(logits), cb).repeat(2)

        def doubled(t: torch.Tensor | None) -> torch.Tensor | None:
            return None if t is None else t.repeat(2, 1)

        audio = self.lm.depformer_frame(h, text.repeat(2), state["lm"]["depformer"], guided,
                                        forced=doubled(forced), forced_mask=doubled(forced_mask), steps=steps)
        return audio[:text.shape[0]]
