"""What every generator shares: the LM, sampling, the token cache, the checks of a step's inputs.
A step has static shapes and no host syncs, so a CUDA graph can capture it; before the streams are
aligned it returns ``UNGENERATED_TOKEN`` where the reference returns None. Build states outside
inference mode, so that a restored conversation can be copied into them in place."""

from __future__ import annotations

import torch

from ..state import StateTree
from .model import UNGENERATED_TOKEN, LMModel
from .sampling import candidates, gumbel, init_rng, sample_token
from .step import Forcing, Probe, SamplingConfig


class Generator:
    """The LM, sampling, constant index tensors, the state layout and the checks; subclasses step."""

    cache_columns_extra: int  # token cache columns = max_delay + this
    _written_offset_lag: int  # how far behind the offset a step leaves the column it wrote

    kind: str  # the generator kind this class runs (``engine.families.StepRules.kind``)

    def __init__(self, lm: LMModel, sampling: SamplingConfig = SamplingConfig()):
        if lm.config.rules.kind != self.kind:
            raise ValueError(f"a {lm.config.rules.kind} model does not step as {self.kind}: use make_generator")
        self.lm, self.sampling = lm, sampling
        c = self.config = lm.config
        self.end_of_source_token = c.card if c.rules.ends_source else None  # the codec's initial token
        self.end_of_text_token = c.rules.end_of_text_token
        self.max_delay = c.max_delay
        self.columns = self.max_delay + self.cache_columns_extra
        device = next(lm.parameters()).device
        self._delays = torch.tensor(c.delays, dtype=torch.long, device=device)
        self._initial = torch.tensor([c.text_card] + [c.card] * c.n_q, dtype=torch.long, device=device)

    @property
    def first_output_frame(self) -> int:
        """Index of the first ``step`` call (0-based) whose output is aligned (not -2)."""
        return self.max_delay

    @property
    def draws_per_step(self) -> int:
        """RNG counter increments of one step: one for text, one for all codebooks, where sampled."""
        return int(self.sampling.temp_text > 0) + int(self.sampling.temp > 0 and self.config.has_depformer)

    @property
    def user_streams(self) -> int:
        return self.config.n_q - self.agent_streams

    @property
    def agent_streams(self) -> int:
        """Agent audio streams (the first after text); the rest of n_q is the user's."""
        return self.config.agent_streams

    def init_state(self, batch_size: int, seed: int = 0) -> StateTree:
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"expected a positive int batch size, got {batch_size!r}")
        device = self._delays.device
        return {
            "lm": self.lm.init_state(batch_size),
            "tokens": {
                "cache": torch.full((batch_size, self.config.n_q + 1, self.columns), UNGENERATED_TOKEN,
                                    dtype=torch.long, device=device),
                "offset": torch.zeros(1, dtype=torch.long, device=device),
            },
            "rng": init_rng(seed, device),
        }

    def _check_codes(self, codes: torch.Tensor, streams: int, what: str, state: StateTree) -> None:
        batch = state["tokens"]["cache"].shape[0]
        if not isinstance(codes, torch.Tensor) or codes.dtype != torch.long or tuple(codes.shape) != (batch, streams):
            got = f"{tuple(codes.shape)} {codes.dtype}" if isinstance(codes, torch.Tensor) else type(codes).__name__
            raise ValueError(f"expected {what} as a long tensor [batch={batch}, {streams}], got {got}")
        if codes.device != self._delays.device:
            raise ValueError(f"expected {what} on {self._delays.device}, got {codes.device}")

    def _check_forcing(self, forcing: Forcing | None, state: StateTree) -> None:
        if forcing is None:
            return
        if not isinstance(forcing, Forcing):
            raise ValueError(f"expected a Forcing, got {type(forcing).__name__}")
        streams = self.config.token_streams
        if forcing.tokens is not None:
            self._check_codes(forcing.tokens, streams, "forced tokens", state)
            s = forcing.streams
            if s is not None and (not isinstance(s, torch.Tensor) or s.dtype != torch.bool
                                  or tuple(s.shape) != (streams,)):
                raise ValueError(f"expected the forced streams as a bool tensor [{streams}]")
        elif forcing.streams is not None:
            raise ValueError("forced streams need their forced tokens")
        self._check_given(forcing, state)
        if not forcing.sample and not self._complete(forcing):
            raise ValueError("sample=False needs every stream forced (a Forcing of tokens without streams)")

    def _check_given(self, forcing: Forcing, state: StateTree) -> None:
        """Streams given at their delays (a prompt's): none for this generator."""
        if forcing.agent is not None or forcing.text is not None or forcing.embedding is not None \
                or forcing.text_choice is not None or forcing.audio_silent:
            raise ValueError(f"a {self.kind} model takes no prompt: force what a step writes with Forcing.tokens")

    def _complete(self, forcing: Forcing) -> bool:
        """Whether ``forcing`` gives every stream this step writes."""
        return forcing.tokens is not None and forcing.streams is None

    def written_tokens(self, state: StateTree) -> torch.Tensor:
        """The tokens the last ``step`` wrote, [B, 1 + dep_q]: what a journal keeps and ``Forcing`` takes."""
        tokens = state["tokens"]
        column = ((tokens["offset"] - self._written_offset_lag) % self.columns).view(1, 1, 1)
        n = self.config.token_streams
        return tokens["cache"][:, :n].gather(2, column.expand(tokens["cache"].shape[0], n, 1)).squeeze(-1)

    def _generate(self, h: torch.Tensor, text_logits: torch.Tensor, state: StateTree,
                  forced: tuple[torch.Tensor, torch.Tensor] | None, probe: Probe) -> torch.Tensor:
        """Sample the text token and the assistant's streams, fed the forced tokens where ``forced``
        says so; returns what the step writes [B, 1 + dep_q] (the user's streams are the forced ones)."""
        tokens, mask = forced if forced is not None else (None, None)
        sampled_text = self._sample_text(text_logits, state)
        text = sampled_text if tokens is None else torch.where(mask[:, 0], tokens[:, 0], sampled_text)
        if probe.mark is not None:
            probe.mark("temporal")
        agent = self.agent_streams
        if agent == 0:  # a text-only model (speech to text)
            audio = sampled_text.new_empty((sampled_text.shape[0], 0))
        else:
            audio = self._depth_frame(h, text, state, None if tokens is None else tokens[:, 1:],
                                      None if tokens is None else mask[:, 1:], agent)
        # PersonaPlex's predictions of the user's codebooks are always replaced: never computed.
        given = [] if agent == self.config.dep_q else [tokens[:, 1 + agent:]]
        generated = torch.cat([sampled_text.unsqueeze(1), audio, *given], dim=1)
        if probe.sampled is not None:
            probe.sampled(text_logits, generated)
        return generated if tokens is None else torch.where(mask, tokens, generated)

    def _depth_frame(self, h: torch.Tensor, text: torch.Tensor, state: StateTree, forced: torch.Tensor | None,
                     forced_mask: torch.Tensor | None, steps: int) -> torch.Tensor:
        """The depth transformer's first ``steps`` audio tokens [B, steps] (``LMModel.depformer_frame``)."""
        return self.lm.depformer_frame(h, text, state["lm"]["depformer"], self._audio_sampler(state),
                                       forced=forced, forced_mask=forced_mask, steps=steps)

    def _skip_sampling(self, x: torch.Tensor | None, state: StateTree) -> None:
        """A fully forced step: the temporal state changes and the RNG advances as sampling would."""
        if x is not None:
            self.lm.transformer(x, state["lm"]["temporal"])
        state["rng"]["counter"].add_(self.draws_per_step)

    def _sample_text(self, logits: torch.Tensor, state: StateTree) -> torch.Tensor:
        s = self.sampling
        return sample_token(logits, s.temp_text, s.top_k_text, state["rng"])

    def _audio_sampler(self, state: StateTree):
        """Per-codebook sampler for one frame; the noise of all codebooks is drawn at once."""
        s, c = self.sampling, self.config
        if s.temp <= 0:
            return lambda logits, cb: sample_token(logits, 0.0, 0)
        batch = state["tokens"]["cache"].shape[0]
        noise = gumbel(state["rng"], (c.dep_q, batch, candidates(c.card, s.top_k)))
        return lambda logits, cb: sample_token(logits, s.temp, s.top_k, noise=noise[cb])

    def _write_column(self, cache: torch.Tensor, rows: slice, column: torch.Tensor, values: torch.Tensor) -> None:
        """cache[:, rows, column[r]] = values[:, r] with per-row columns ``column`` [R] (a tensor)."""
        view = cache[:, rows]
        view.scatter_(2, column.view(1, -1, 1).expand(view.shape[0], -1, 1), values.unsqueeze(-1))

    def _aligned_output(self, cache: torch.Tensor, offset: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Tokens of one aligned frame: stream k read at column ``offset - max_delay + delay_k``."""
        n = self.config.token_streams
        column = (offset - self.max_delay + self._delays[:n]) % self.columns
        out = cache[:, :n].gather(2, column.view(1, -1, 1).expand(cache.shape[0], -1, 1)).squeeze(-1)
        out = torch.where(offset <= self.max_delay, UNGENERATED_TOKEN, out)
        return out[:, 0], out[:, 1:]
