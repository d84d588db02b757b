"""``PersonaPlexGenerator``: PersonaPlex's ``LMGen`` semantics (docs/architecture.md): a ``provided``
mask through which any stream can be given, and 1 + dep_q (17) output streams."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from ..state import StateTree
from .generator_base import Generator
from .step import NO_PROBE, Forcing, Probe, StepResult

# Forced prompt steps per temporal call: scores are [heads, chunk, context], so a chunk stays small.
PROMPT_CHUNK_STEPS = 64

_Prepared = tuple[torch.Tensor, torch.Tensor, torch.Tensor]  # target tokens, their provided flags, input column


class PersonaPlexGenerator(Generator):
    """``step(user_codes [B, 8], state, forcing, probe) -> StepResult`` (audio: the agent's 8 codebooks,
    then the user's 8). ``init_state`` is the state after PersonaPlex's seed call, so a frame sequence
    fed to PersonaPlex maps onto ``step`` calls by dropping its first frame."""

    kind = "personaplex"
    cache_columns_extra = 3
    _written_offset_lag = 1  # a step writes at its offset, then advances the offset

    def init_state(self, batch_size: int, seed: int = 0) -> StateTree:
        state = super().init_state(batch_size, seed)
        tokens = state["tokens"]
        provided = torch.zeros_like(tokens["cache"], dtype=torch.bool)
        tokens["cache"][:, :, 0] = self._initial  # the offset-0 seed call
        provided[:, :, 0] = True
        tokens["provided"] = provided
        tokens["offset"].fill_(1)
        return state

    def step(self, user_codes: torch.Tensor, state: StateTree, forcing: Forcing | None = None,
             probe: Probe | None = None) -> StepResult:
        self._check_codes(user_codes, self.user_streams, "user codes", state)
        self._check_forcing(forcing, state)
        with torch.inference_mode():
            x, prepared = self._input(state, user_codes, forcing)
            return self._process(state, x, prepared, forcing, probe or NO_PROBE)

    def voice_step(self, embedding: torch.Tensor) -> tuple[torch.Tensor, Forcing]:
        """One stored voice-prompt step: ``embedding`` replaces the input, the streams get PersonaPlex's
        dummy values; the caller restores the saved token cache after the last one."""
        batch = embedding.shape[0]
        dummy = self._initial[1:].expand(batch, -1)
        pad = torch.full((batch,), self.config.existing_text_padding_id, dtype=torch.long, device=self._delays.device)
        return dummy[:, self.agent_streams:], Forcing(agent=dummy[:, :self.agent_streams], text=pad,
                                                      embedding=embedding, sample=False)

    def forced_steps(self, state: StateTree, steps: Sequence[tuple[torch.Tensor, Forcing]],
                     chunk_steps: int = PROMPT_CHUNK_STEPS) -> list[StepResult]:
        """Fully given steps run without sampling, ``chunk_steps`` per temporal call (equal to step by
        step up to float32 rounding; ``chunk_steps=1`` is bit for bit)."""
        if not isinstance(chunk_steps, int) or chunk_steps < 1:
            raise ValueError(f"chunk_steps must be a positive int, got {chunk_steps!r}")
        for user, forcing in steps:
            self._check_codes(user, self.user_streams, "user codes", state)
            if forcing.agent is None or forcing.text is None or forcing.tokens is not None:
                raise ValueError("a forced step needs its agent audio and text given")
            self._check_given(forcing, state)
        outputs, pending = [], []
        with torch.inference_mode():
            for user, forcing in steps:
                x, prepared = self._input(state, user, forcing)
                outputs.append(self._process(state, None, prepared, forcing, NO_PROBE))
                pending.append(x)
                if len(pending) == chunk_steps:
                    self.lm.transformer.prefill(torch.cat(pending, dim=1), state["lm"]["temporal"])
                    pending.clear()
            if pending:
                self.lm.transformer.prefill(torch.cat(pending, dim=1), state["lm"]["temporal"])
        return outputs

    def _check_given(self, forcing: Forcing, state: StateTree) -> None:
        if forcing.text_choice is not None or forcing.audio_silent:
            raise ValueError("a personaplex model takes no text choice and no silent audio")
        if forcing.agent is not None:
            self._check_codes(forcing.agent, self.agent_streams, "forced agent audio", state)
        if forcing.text is not None:
            text = forcing.text
            self._check_codes(text.unsqueeze(-1) if isinstance(text, torch.Tensor) else text, 1,
                              "forced text tokens [batch]", state)
        if forcing.embedding is not None:
            embedding, batch = forcing.embedding, state["tokens"]["cache"].shape[0]
            if not isinstance(embedding, torch.Tensor) or tuple(embedding.shape) != (batch, 1, self.config.dim) \
                    or not embedding.is_floating_point():
                got = f"{tuple(embedding.shape)} {embedding.dtype}" if isinstance(embedding, torch.Tensor) else \
                    type(embedding).__name__
                raise ValueError(f"expected a float embedding [{batch}, 1, {self.config.dim}], got {got}")

    def _complete(self, forcing: Forcing) -> bool:
        return super()._complete(forcing) or (forcing.agent is not None and forcing.text is not None)

    def _input(self, state: StateTree, user: torch.Tensor, forcing: Forcing | None
               ) -> tuple[torch.Tensor, _Prepared]:
        """The given streams written: (temporal input x [B, 1, dim], ``_prepare``'s result)."""
        agent, text, embedding = (None, None, None) if forcing is None else \
            (forcing.agent, forcing.text, forcing.embedding)
        self._force(state, user, agent, text)
        prepared = self._prepare(state)
        if embedding is not None:
            return embedding.to(next(self.lm.parameters()).dtype), prepared
        return self.lm.embed_codes(self._input_codes(state, prepared[2])), prepared

    def _force(self, state: StateTree, user: torch.Tensor, agent: torch.Tensor | None,
               text: torch.Tensor | None) -> None:
        """Write the given streams at column ``offset + delay`` and mark them provided."""
        tokens = state["tokens"]
        cache, provided, offset = tokens["cache"], tokens["provided"], tokens["offset"]
        first_user = 1 + self.agent_streams
        parts = [(slice(first_user, None), user), (slice(1, first_user), agent),
                 (slice(0, 1), None if text is None else text.unsqueeze(1))]
        for rows, values in parts:
            if values is None:
                continue
            column = (offset + self._delays[rows]) % self.columns
            self._write_column(cache, rows, column, values)
            self._write_column(provided, rows, column, torch.ones_like(values, dtype=torch.bool))

    def _prepare(self, state: StateTree) -> _Prepared:
        """Initial-token substitution at ``offset``: (target tokens, provided flags [B, K], input column)."""
        tokens = state["tokens"]
        cache, provided, offset = tokens["cache"], tokens["provided"], tokens["offset"]
        batch, streams = cache.shape[:2]
        target_column = (offset % self.columns).view(1, 1, 1).expand(batch, streams, 1)
        early = offset <= self._delays
        target = torch.where(early, self._initial, cache.gather(2, target_column).squeeze(-1))
        is_provided = provided.gather(2, target_column).squeeze(-1) | early
        cache.scatter_(2, target_column, target.unsqueeze(-1))
        provided.scatter_(2, target_column, is_provided.unsqueeze(-1))
        return target, is_provided, (offset - 1) % self.columns

    def _input_codes(self, state: StateTree, input_column: torch.Tensor) -> torch.Tensor:
        cache = state["tokens"]["cache"]
        column = input_column.view(1, 1, 1).expand(cache.shape[0], cache.shape[1], 1)
        return cache.gather(2, column).squeeze(-1)

    def _process(self, state: StateTree, x: torch.Tensor | None, prepared: _Prepared, forcing: Forcing | None,
                 probe: Probe) -> StepResult:
        """The step on its input ``x``; None: every stream is given and the caller runs the transformer."""
        target, provided, input_column = prepared
        tokens, n = state["tokens"], self.config.token_streams
        cache, flags, offset = tokens["cache"], tokens["provided"], tokens["offset"]
        known, known_mask = target[:, :n], provided[:, :n]
        if forcing is not None and forcing.tokens is not None:
            forced_mask = forcing.mask(known.shape[0])
            known, known_mask = torch.where(forced_mask, forcing.tokens, known), known_mask | forced_mask
        if x is not None and (forcing is None or forcing.sample):
            h, text_logits = self.lm.temporal_step(x, state["lm"])
            if probe.hidden is not None:
                probe.hidden(h)
            written = self._generate(h, text_logits, state, (known, known_mask), probe)
        else:  # every stream provided or forced
            self._skip_sampling(x, state)
            written = known
        batch, streams = flags.shape[:2]
        flags.scatter_(2, input_column.view(1, 1, 1).expand(batch, streams, 1),
                       torch.zeros(batch, streams, 1, dtype=torch.bool, device=flags.device))
        self._write_column(cache, slice(0, n), (offset % self.columns).expand(n), written)
        out = self._aligned_output(cache, offset)
        offset.add_(1)
        return StepResult(*out)
