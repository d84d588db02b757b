"""Streaming token generation: one call per 80 ms frame, with the reference's delay/alignment rules.

Three generators share the LM and the sampler; two kinds of bookkeeping:

- ``MoshiGenerator`` reproduces the reference ``moshi.models.lm.LMGen`` (kyutai Moshi): a token
  cache of ``max_delay + 2`` columns, the initial-token substitution while ``offset <= delay``,
  the user stream written at ``offset + delay``.
- ``PersonaPlexGenerator`` reproduces PersonaPlex's ``LMGen``: ``max_delay + 3`` columns, a
  ``provided`` mask through which any stream can be forced (user audio always; agent audio and
  text during the prompt phases), the model reading column ``offset - 1`` and predicting column
  ``offset``, and 1 + dep_q (17) output streams.
- ``HibikiGenerator`` is ``MoshiGenerator`` with kyutai's Hibiki additions (the reference
  ``LMGen`` with ``condition_tensors`` and ``cfg_coef``): a constant condition added to every
  step's input, and classifier-free guidance, which runs both transformers on twice the batch
  (the positive condition, then the negative) and mixes their logits before sampling.

Graph safety: ``step`` has static shapes and no host syncs; all bookkeeping (offsets, cache
columns, forcing, the RNG) is tensor state. Its outputs always have fixed shapes. The reference
returns ``None`` while the output is not aligned yet; here those frames return
``UNGENERATED_TOKEN`` (-2) everywhere, and the caller, who counts frames on the host anyway,
knows them by the rule ``frame_index < generator.first_output_frame``.

``step`` runs under ``torch.inference_mode``. Build states with ``init_state`` outside inference
mode (normal tensors), so that restoring a conversation can later copy into them in place.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from ..families import hibiki
from ..state import StateTree
from .model import UNGENERATED_TOKEN, LMModel
from .sampling import candidates, gumbel, init_rng, sample_token

Mark = Callable[[str], None]  # called with a stage name when that stage's work has been issued
# Called with the temporal transformer's normalised output h [B, 1, dim] of a sampled step (what the
# text head and any extra heads read): ``engine.runtime.transcriber`` reads the voice-activity heads.
HiddenObserver = Callable[[torch.Tensor], None]
# Called with (text logits [B, text_card], the step's sampled tokens [B, 1 + dep_q]) before forcing
# replaces any: what the model would have written. For measurements (``engine.runtime.precision_compare``),
# eager steps only.
SampledObserver = Callable[[torch.Tensor, torch.Tensor], None]


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


# Forced steps the temporal transformer takes in one call during a prompt (``forced_steps``): their
# attention scores are [heads, chunk, context] a layer, so a chunk stays small beside the context.
PROMPT_CHUNK_STEPS = 64


@dataclass(frozen=True)
class TokenFrame:
    """One forced step's streams: ``user`` [B, user streams], ``agent`` [B, agent streams] and
    ``text`` [B] long (None only where a sampled ``step`` produces them)."""

    user: torch.Tensor
    agent: torch.Tensor | None
    text: torch.Tensor | None


@dataclass(frozen=True)
class EmbeddingFrame:
    """One stored voice-prompt step: the summed input embedding [B, 1, dim]."""

    embedding: torch.Tensor


@dataclass(frozen=True)
class Forcing:
    """Tokens a ``step`` writes into its token cache in place of the ones it would sample.

    ``tokens`` [B, 1 + dep_q] long is in the layout ``written_tokens`` reads back (the text token,
    then the depth transformer's streams); ``streams`` [1 + dep_q] bool says which streams are
    forced (None: all of them). Where a stream is forced, the depth transformer is fed the forced
    token as the next codebook's input, as if it had sampled it; sampling still runs (and draws
    from the RNG) unless the step is called with ``sample=False``, which needs every stream forced.
    Journal replay forces every stream (the journaled tokens); "wait for me" forces the
    assistant's text and audio to silence. Both are tensors, so a captured graph can replay a
    forcing whose values or streams change between frames.
    """

    tokens: torch.Tensor
    streams: torch.Tensor | None = None

    def mask(self, batch: int) -> torch.Tensor:
        """[B, 1 + dep_q] bool: where the tokens are forced."""
        if self.streams is None:
            return torch.ones_like(self.tokens, dtype=torch.bool)
        return self.streams.view(1, -1).expand(batch, -1)


class _GeneratorBase:
    """What both generators share: the LM, sampling, constant index tensors, state layout, checks."""

    cache_columns_extra: int  # token cache columns = max_delay + this
    # An interpreter's: the input codes that mark the end of the source speech (every codebook),
    # and the text token that says the translation has ended. None: no such thing.
    end_of_source_token: int | None = None
    end_of_text_token: int | None = None
    _written_offset_lag: int  # how far behind the offset a step leaves the column it wrote

    def __init__(self, lm: LMModel, sampling: SamplingConfig = SamplingConfig()):
        self.lm, self.sampling = lm, sampling
        c = self.config = lm.config
        self.max_delay = c.max_delay
        self.columns = self.max_delay + self.cache_columns_extra
        device = next(lm.parameters()).device
        # Constants built once (never per frame).
        self._delays = torch.tensor(c.delays, dtype=torch.long, device=device)
        self._initial = torch.tensor([c.text_card] + [c.card] * c.n_q, dtype=torch.long, device=device)

    @property
    def first_output_frame(self) -> int:
        """Index of the first ``step`` call (0-based) whose output is aligned (not -2)."""
        return self.max_delay

    @property
    def draws_per_step(self) -> int:
        """RNG counter increments of one step (``engine.lm.sampling``: one draw for the text token
        and one for all audio codebooks, each only when its temperature is above 0 and the model
        writes audio)."""
        return int(self.sampling.temp_text > 0) + int(self.sampling.temp > 0 and self.config.has_depformer)

    @property
    def user_streams(self) -> int:
        return self.config.n_q - self.agent_streams

    @property
    def agent_streams(self) -> int:
        """Agent audio streams (the first ones after text); the rest of n_q is the user's audio."""
        return self.config.n_q // 2 if self.config.is_personaplex else self.config.dep_q

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

    def _check_forcing(self, forced: Forcing | None, sample: bool, state: StateTree) -> None:
        streams = self.config.token_streams
        if forced is None:
            if not sample:
                raise ValueError("sample=False needs every stream forced (a complete Forcing)")
            return
        self._check_codes(forced.tokens, streams, "forced tokens", state)
        if forced.streams is not None:
            s = forced.streams
            if not isinstance(s, torch.Tensor) or s.dtype != torch.bool or tuple(s.shape) != (streams,):
                raise ValueError(f"expected the forced streams as a bool tensor [{streams}]")
            if not sample:
                raise ValueError("sample=False needs every stream forced (a Forcing without streams)")

    def written_tokens(self, state: StateTree) -> torch.Tensor:
        """The tokens the last ``step`` wrote into the token cache, [B, 1 + dep_q] (text first):
        what a journal keeps, and what ``Forcing`` takes to make a step write them again."""
        tokens = state["tokens"]
        column = ((tokens["offset"] - self._written_offset_lag) % self.columns).view(1, 1, 1)
        n = self.config.token_streams
        return tokens["cache"][:, :n].gather(2, column.expand(tokens["cache"].shape[0], n, 1)).squeeze(-1)

    def _generate(self, h: torch.Tensor, text_logits: torch.Tensor, state: StateTree, forced: torch.Tensor | None,
                  forced_mask: torch.Tensor | None, mark: Mark | None, on_sampled: SampledObserver | None = None
                  ) -> torch.Tensor:
        """Sample the text token and the depth transformer's streams [B, 1 + dep_q], feeding it the
        forced tokens where ``forced_mask`` is set; returns what the step writes (forced or sampled).
        Only the assistant's streams are sampled: a PersonaPlex step always has the user's streams
        forced (``_process``), and those columns of what it returns (and of what ``on_sampled``
        sees) are the forced tokens."""
        sampled_text = self._sample_text(text_logits, state)
        text = sampled_text if forced is None else torch.where(forced_mask[:, 0], forced[:, 0], sampled_text)
        if mark is not None:
            mark("temporal")
        agent = self.agent_streams
        if agent == 0:  # a text-only model (speech to text)
            audio = sampled_text.new_empty((sampled_text.shape[0], 0))
        else:
            audio = self._depth_frame(h, text, state, None if forced is None else forced[:, 1:],
                                      None if forced is None else forced_mask[:, 1:], agent)
        # PersonaPlex's depth transformer predicts the user's codebooks after the assistant's: the
        # user's own tokens always replace them (they are given every step), so they are never computed.
        given = [] if agent == self.config.dep_q else [forced[:, 1 + agent:]]
        generated = torch.cat([sampled_text.unsqueeze(1), audio, *given], dim=1)
        if on_sampled is not None:
            on_sampled(text_logits, generated)
        return generated if forced is None else torch.where(forced_mask, forced, generated)

    def _depth_frame(self, h: torch.Tensor, text: torch.Tensor, state: StateTree, forced: torch.Tensor | None,
                     forced_mask: torch.Tensor | None, steps: int) -> torch.Tensor:
        """The depth transformer's first ``steps`` audio tokens [B, steps] (``LMModel.depformer_frame``)."""
        return self.lm.depformer_frame(h, text, state["lm"]["depformer"], self._audio_sampler(state),
                                       forced=forced, forced_mask=forced_mask, steps=steps)

    def _skip_sampling(self, x: torch.Tensor | None, state: StateTree) -> None:
        """A step whose every stream is forced: only the temporal transformer's state changes (on
        ``x``; None: the caller runs it); the RNG counter advances by the draws sampling would have made."""
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


class MoshiGenerator(_GeneratorBase):
    """Streaming generation with the reference (kyutai) ``LMGen`` semantics.

    ``step(user_codes [B, n_q - dep_q] long, state) -> (text [B], audio [B, dep_q])``. The input
    column at offset t holds the user's semantic token of frame t and acoustic tokens of frame
    t - 1 (delays); the returned frame pairs the text/semantic tokens sampled at t - 1 with the
    acoustic tokens sampled at t. Call 0 returns -2 tokens (see ``first_output_frame``).
    """

    cache_columns_extra = 2
    _written_offset_lag = 0  # a step writes at its offset + 1, then advances the offset

    def __init__(self, lm: LMModel, sampling: SamplingConfig = SamplingConfig()):
        if lm.config.is_personaplex:
            raise ValueError("this is a PersonaPlex model: use PersonaPlexGenerator")
        super().__init__(lm, sampling)

    def step(self, user_codes: torch.Tensor, state: StateTree, forced: Forcing | None = None,
             mark: Mark | None = None, sample: bool = True, on_sampled: SampledObserver | None = None,
             on_hidden: HiddenObserver | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """One frame; ``forced`` makes it write those tokens instead of sampled ones (``Forcing``);
        ``sample=False`` (every stream forced) runs only the temporal transformer."""
        self._check_codes(user_codes, self.user_streams, "user codes", state)
        self._check_forcing(forced, sample, state)
        with torch.inference_mode():
            return self._step(user_codes, state, forced, mark, sample, on_sampled, on_hidden)

    def _step(self, user_codes: torch.Tensor, state: StateTree, forced: Forcing | None, mark: Mark | None,
              sample: bool, on_sampled: SampledObserver | None, on_hidden: HiddenObserver | None = None
              ) -> tuple[torch.Tensor, torch.Tensor]:
        c, tokens = self.config, state["tokens"]
        cache, offset = tokens["cache"], tokens["offset"]
        first_user = c.token_streams
        self._write_column(cache, slice(first_user, None), (offset + self._delays[first_user:]) % self.columns,
                           user_codes)
        column = (offset % self.columns).view(1, 1, 1).expand(cache.shape[0], cache.shape[1], 1)
        codes = cache.gather(2, column).squeeze(-1)
        codes = torch.where(offset <= self._delays, self._initial, codes)
        x = self._temporal_input(self.lm.embed_codes(codes))
        if sample:
            h, text_logits = self._temporal_step(x, state)
            if on_hidden is not None:
                on_hidden(h)
            written = self._generate(h, text_logits, state, None if forced is None else forced.tokens,
                                     None if forced is None else forced.mask(cache.shape[0]), mark, on_sampled)
        else:
            self._skip_sampling(x, state)
            written = forced.tokens
        offset.add_(1)
        self._write_column(cache, slice(0, first_user), (offset % self.columns).expand(first_user), written)
        return self._aligned_output(cache, offset)

    def _temporal_input(self, x: torch.Tensor) -> torch.Tensor:
        """The temporal transformer's input from the step's embedded tokens x [B, 1, dim]."""
        return x

    def _temporal_step(self, x: torch.Tensor, state: StateTree) -> tuple[torch.Tensor, torch.Tensor]:
        """(h, text logits [B, text_card]) of the temporal transformer on ``_temporal_input``."""
        return self.lm.temporal_step(x, state["lm"])


class HibikiGenerator(MoshiGenerator):
    """``MoshiGenerator`` for kyutai's Hibiki interpreters (``engine.families.hibiki``): the input
    stream is the source speech, what it writes the translation.

    A model with conditioners (Hibiki 2B/1B) has the condition of the description "very_good"
    added to every step's input. ``cfg_coef`` other than 1 turns classifier-free guidance on (such
    a model only): the LM's state holds twice the batch, the second half conditioned on
    "very_bad", and the text logits and each codebook's logits are ``null + (cond - null) *
    cfg_coef``; the token sampled from them is fed to both halves. The token cache, the RNG and
    what a step returns keep the conversation's batch.
    """

    MAX_CFG_COEF = 100.0

    def __init__(self, lm: LMModel, sampling: SamplingConfig = SamplingConfig(),
                 cfg_coef: float = hibiki.DEFAULT_CFG_COEF):
        if not lm.config.is_hibiki:
            raise ValueError("this is not a Hibiki model: use make_generator")
        if isinstance(cfg_coef, bool) or not isinstance(cfg_coef, (int, float)) \
                or not 0 < cfg_coef <= self.MAX_CFG_COEF:
            raise ValueError(f"cfg_coef must be a number in (0, {self.MAX_CFG_COEF:g}], got {cfg_coef!r}")
        super().__init__(lm, sampling)
        self.end_of_source_token = self.config.card  # the codec's initial token, as the reference marks it
        self.end_of_text_token = hibiki.TEXT_END_TOKEN
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

    def _temporal_input(self, x: torch.Tensor) -> torch.Tensor:
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


class PersonaPlexGenerator(_GeneratorBase):
    """Streaming generation with PersonaPlex's ``LMGen`` semantics (docs/architecture.md, "The token
    streams and their delays").

    ``step(user_codes [B, 8], state, agent_audio=None, text=None) -> (text [B], audio [B, dep_q])``
    (dep_q = 16: the agent's 8 codebooks, then the user's 8 as the depformer predicts them; decode
    ``audio[:, :8]``). ``agent_audio`` [B, 8] and ``text`` [B] force those streams (prompt phases).
    With every stream forced, ``sample=False`` skips what would only be overridden: the text head,
    sampling and the depth transformer (the RNG counter still advances by the draws they make).
    The state then equals a sampled step's except the depth transformer's cache, which every step
    resets; a sequence of forced steps ends with a sampled one to leave that cache as it would be.

    PersonaPlex's very first call (offset 0) only seeds the cache with the initial tokens, discards
    its inputs and runs no model. ``init_state`` returns that seeded state (offset 1), so every
    ``step`` runs the model; a frame sequence fed to PersonaPlex maps onto ``step`` calls by dropping
    its first frame (``personaplex.run_prompt_phases`` does this). The first aligned output is at
    step index ``first_output_frame`` (= max_delay), i.e. PersonaPlex's call max_delay + 1; a user
    frame first influences the output one step after it is given (one frame later than Moshi).
    """

    cache_columns_extra = 3
    _written_offset_lag = 1  # a step writes at its offset, then advances the offset

    def __init__(self, lm: LMModel, sampling: SamplingConfig = SamplingConfig()):
        if not lm.config.is_personaplex:
            raise ValueError("this is not a PersonaPlex model: use MoshiGenerator")
        super().__init__(lm, sampling)

    def init_state(self, batch_size: int, seed: int = 0) -> StateTree:
        state = super().init_state(batch_size, seed)
        tokens = state["tokens"]
        provided = torch.zeros_like(tokens["cache"], dtype=torch.bool)
        tokens["cache"][:, :, 0] = self._initial  # the offset-0 seed call
        provided[:, :, 0] = True
        tokens["provided"] = provided
        tokens["offset"].fill_(1)
        return state

    def step(self, user_codes: torch.Tensor, state: StateTree, agent_audio: torch.Tensor | None = None,
             text: torch.Tensor | None = None, forced: Forcing | None = None, mark: Mark | None = None,
             sample: bool = True, on_sampled: SampledObserver | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """``agent_audio`` / ``text`` provide those streams of this frame (PersonaPlex's own forcing,
        written at each stream's delay); ``forced`` makes the step write those tokens (``Forcing``).
        ``sample=False`` needs every stream forced, by either means."""
        self._check_token_frame(TokenFrame(user_codes, agent_audio, text), state)
        self._check_forcing(forced, sample or (agent_audio is not None and text is not None), state)
        with torch.inference_mode():
            x, prepared = self._token_frame_input(state, user_codes, agent_audio, text)
            return self._process(state, x, *prepared, forced, mark, sample, on_sampled)

    def step_embeddings(self, embedding: torch.Tensor, state: StateTree, sample: bool = True
                        ) -> tuple[torch.Tensor, torch.Tensor]:
        """Replay one stored voice-prompt step: ``embedding`` [B, 1, dim] replaces the summed input
        embedding; the streams are forced to dummy values (initial audio tokens, PAD text), as
        PersonaPlex does. The caller restores the saved token cache after the last one."""
        self._check_embedding(embedding, state)
        with torch.inference_mode():
            x, prepared = self._embedding_input(state, embedding)
            return self._process(state, x, *prepared, sample=sample)

    def forced_steps(self, state: StateTree, frames: Sequence[TokenFrame | EmbeddingFrame],
                     chunk_steps: int = PROMPT_CHUNK_STEPS) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """Steps whose every stream is given (a prompt), each returning what ``step`` (a
        ``TokenFrame``, agent audio and text given) or ``step_embeddings`` (an ``EmbeddingFrame``)
        with ``sample=False`` returns, and leaving the token cache and RNG counter as they do. The
        temporal transformer takes up to ``chunk_steps`` of them in one call
        (``StreamingTransformer.prefill``) instead of one call each: a step's token bookkeeping and
        input never depend on the transformer, whose state after a chunk equals the step-by-step one
        up to float32 rounding (the same attention; matmuls over several rows sum in another order).
        At 7B this reads the weights once a chunk instead of once a step. ``chunk_steps=1`` is the
        step-by-step computation, bit for bit."""
        if not isinstance(chunk_steps, int) or chunk_steps < 1:
            raise ValueError(f"chunk_steps must be a positive int, got {chunk_steps!r}")
        for frame in frames:
            if isinstance(frame, EmbeddingFrame):
                self._check_embedding(frame.embedding, state)
            elif frame.agent is None or frame.text is None:
                raise ValueError("a forced step needs its agent audio and text given")
            else:
                self._check_token_frame(frame, state)
        outputs, pending = [], []
        with torch.inference_mode():
            for frame in frames:
                if isinstance(frame, EmbeddingFrame):
                    x, prepared = self._embedding_input(state, frame.embedding)
                else:
                    x, prepared = self._token_frame_input(state, frame.user, frame.agent, frame.text)
                outputs.append(self._process(state, x, *prepared, sample=False, run_temporal=False))
                pending.append(x)
                if len(pending) == chunk_steps:
                    self.lm.transformer.prefill(torch.cat(pending, dim=1), state["lm"]["temporal"])
                    pending.clear()
            if pending:
                self.lm.transformer.prefill(torch.cat(pending, dim=1), state["lm"]["temporal"])
        return outputs

    def _check_token_frame(self, frame: TokenFrame, state: StateTree) -> None:
        self._check_codes(frame.user, self.user_streams, "user codes", state)
        if frame.agent is not None:
            self._check_codes(frame.agent, self.agent_streams, "forced agent audio", state)
        if frame.text is not None:
            self._check_codes(frame.text.unsqueeze(-1) if isinstance(frame.text, torch.Tensor) else frame.text, 1,
                              "forced text tokens [batch]", state)

    def _check_embedding(self, embedding: torch.Tensor, state: StateTree) -> None:
        batch = state["tokens"]["cache"].shape[0]
        if not isinstance(embedding, torch.Tensor) or tuple(embedding.shape) != (batch, 1, self.config.dim) \
                or not embedding.is_floating_point():
            got = f"{tuple(embedding.shape)} {embedding.dtype}" if isinstance(embedding, torch.Tensor) else \
                type(embedding).__name__
            raise ValueError(f"expected a float embedding [{batch}, 1, {self.config.dim}], got {got}")

    def _token_frame_input(self, state: StateTree, user: torch.Tensor, agent: torch.Tensor | None,
                           text: torch.Tensor | None) -> tuple[torch.Tensor, tuple]:
        """The given streams written, the target column prepared: (the temporal input x [B, 1, dim],
        ``_prepare``'s (target, provided, input column))."""
        self._force(state, user, agent, text)
        prepared = self._prepare(state)
        return self.lm.embed_codes(self._input_codes(state, prepared[2])), prepared

    def _embedding_input(self, state: StateTree, embedding: torch.Tensor) -> tuple[torch.Tensor, tuple]:
        """``_token_frame_input`` for a stored embedding, the streams forced to dummy values."""
        batch = state["tokens"]["cache"].shape[0]
        dummy = self._initial[1:].expand(batch, -1)
        pad = torch.full((batch,), self.config.existing_text_padding_id, dtype=torch.long, device=self._delays.device)
        self._force(state, dummy[:, self.agent_streams:], dummy[:, :self.agent_streams], pad)
        return embedding.to(next(self.lm.parameters()).dtype), self._prepare(state)

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

    def _prepare(self, state: StateTree) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Initial-token substitution at ``offset`` for streams with ``offset <= delay``; returns the
        target column's tokens and provided flags [B, K] and the input column index."""
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

    def _process(self, state: StateTree, x: torch.Tensor, target: torch.Tensor, provided: torch.Tensor,
                 input_column: torch.Tensor, forced: Forcing | None = None, mark: Mark | None = None,
                 sample: bool = True, on_sampled: SampledObserver | None = None, run_temporal: bool = True
                 ) -> tuple[torch.Tensor, torch.Tensor]:
        """The step on its input ``x``; ``run_temporal=False`` (a step whose every stream is given)
        leaves the temporal transformer to the caller, who runs it on ``x`` (``forced_steps``)."""
        tokens, n = state["tokens"], self.config.token_streams
        cache, flags, offset = tokens["cache"], tokens["provided"], tokens["offset"]
        known, known_mask = target[:, :n], provided[:, :n]
        if forced is not None:
            forced_mask = forced.mask(known.shape[0])
            known, known_mask = torch.where(forced_mask, forced.tokens, known), known_mask | forced_mask
        if sample:
            h, text_logits = self.lm.temporal_step(x, state["lm"])
            written = self._generate(h, text_logits, state, known, known_mask, mark, on_sampled)
        else:  # every stream provided or forced
            self._skip_sampling(x if run_temporal else None, state)
            written = known
        batch, streams = flags.shape[:2]
        flags.scatter_(2, input_column.view(1, 1, 1).expand(batch, streams, 1),
                       torch.zeros(batch, streams, 1, dtype=torch.bool, device=flags.device))
        self._write_column(cache, slice(0, n), (offset % self.columns).expand(n), written)
        out = self._aligned_output(cache, offset)
        offset.add_(1)
        return out


def make_generator(lm: LMModel, sampling: SamplingConfig = SamplingConfig()) -> MoshiGenerator | PersonaPlexGenerator:
    """The generator matching the model's family (a Hibiki model's without guidance, as the
    reference runs it by default)."""
    if lm.config.is_hibiki:
        return HibikiGenerator(lm, sampling)
    cls = PersonaPlexGenerator if lm.config.is_personaplex else MoshiGenerator
    return cls(lm, sampling)
