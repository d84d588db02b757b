"""The Moshi / PersonaPlex language model: temporal transformer over text + audio streams and the
depth transformer ("depformer") that predicts one frame's audio codebooks one after the other.

Parameter names equal the released ``model.safetensors`` keys (stacked attention weights), so a
checkpoint loads unchanged. The model itself keeps no streaming state: ``init_state`` returns the
tree (temporal ring KV cache + depformer cache) that the step functions mutate in place.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from ..checkpoint import Shapes, checkpoint_shapes, load_strict_streaming, source_shape, stacked_sources
from ..families import GENERATORS, Family, hibiki, moshi, personaplex, recognise
from ..families.moshi import MOSHI_DELAYS
from ..kernels.quantize import load_targets
from ..state import StateTree
from ..streaming.layers import make_norm
from ..streaming.transformer import StreamingTransformer, TransformerConfig, init_normal
from .conditioning import ConditionProvider, LutSpec, parse_conditioners

ZERO_TOKEN = -1  # "no input": its embedding is exactly zero
UNGENERATED_TOKEN = -2  # a token-cache slot not generated yet (never reaches the model)

# Config keys that would change the architecture in ways not implemented here: refused when set
# to anything but the value below. Other unknown keys (file names, generation settings) are ignored.
_UNSUPPORTED = {  # key -> the only value we accept (besides absence)
    "demux_second_stream": False, "demux_second_text_stream": False,
    "depformer_low_rank_embeddings": None, "norm_emb": False, "bias_proj": False,
    "quantize": False, "lora": False, "text_card_out": None, "cross_attention": False,
}

# The sizes a config may ask for: a config.json is untrusted input, and its sizes decide what a
# session allocates (the KV cache is context x layers x dim); the released 7B models sit well inside.
_INT_BOUNDS = {
    "dim": (1, 32768), "num_heads": (1, 512), "num_layers": (1, 512), "context": (1, 32768),
    "text_card": (1, 1_000_000), "card": (1, 65536), "n_q": (1, 64), "dep_q": (0, 64),
    "existing_text_padding_id": (0, 1_000_000), "existing_text_end_padding_id": (0, 1_000_000),
    "depformer_dim": (1, 32768), "depformer_dim_feedforward": (1, 1 << 20), "depformer_num_heads": (1, 512),
    "depformer_num_layers": (1, 512), "extra_heads_num_heads": (0, 64), "extra_heads_dim": (1, 4096),
    "kv_repeat": (1, 512), "depformer_kv_repeat": (1, 512),
}
_FLOAT_BOUNDS = {"hidden_scale": (1e-3, 64.0), "max_period": (1.0, 1e9), "depformer_max_period": (1.0, 1e9),
                 "layer_scale": (0.0, 1e6), "depformer_layer_scale": (0.0, 1e6)}
_OPTIONAL = {"depformer_dim_feedforward", "layer_scale", "depformer_layer_scale", "depformer_kv_repeat"}
_NORMS = ("layer_norm", "layer_norm_f32", "rms_norm", "rms_norm_f32")
MAX_DELAY = 256


@dataclass(frozen=True)
class LMConfig:
    """Architecture of a Moshi-family LM. Defaults are the released 7B Moshi (moshiko/moshika)."""

    dim: int = 4096
    num_heads: int = 32
    num_layers: int = 32
    hidden_scale: float = 4.125
    gating: str = "silu"
    norm: str = "rms_norm_f32"
    positional_embedding: str = "rope"
    max_period: float = 10_000.0
    layer_scale: float | None = None
    context: int = 3000
    text_card: int = 32000
    card: int = 2048
    n_q: int = 16
    dep_q: int = 8
    delays: tuple[int, ...] = MOSHI_DELAYS
    existing_text_padding_id: int = 3
    existing_text_end_padding_id: int = 0
    depformer_dim: int = 1024
    depformer_dim_feedforward: int | None = 4224  # None: int(hidden_scale * depformer_dim)
    depformer_num_heads: int = 16
    depformer_num_layers: int = 6
    depformer_gating: str = "silu"
    depformer_max_period: float = 10_000.0
    depformer_pos_emb: str = "none"
    depformer_layer_scale: float | None = None
    depformer_multi_linear: bool = True
    # Linear heads on the temporal transformer's output beside the text head (the voice-activity
    # heads of kyutai's STT 1B: each a softmax over ``extra_heads_dim`` classes per frame).
    extra_heads_num_heads: int = 0
    extra_heads_dim: int = 6
    # Depth-transformer step s uses stored weights schedule[s] (its attention, FFN and input
    # projection); None: each step its own.
    depformer_weights_per_step_schedule: tuple[int, ...] | None = None
    depformer_norm: str | None = None  # a norm of each codebook's output before its logits (None: none)
    kv_repeat: int = 1  # grouped-query attention in the temporal transformer
    depformer_kv_repeat: int | None = None  # None: kv_repeat (as the reference passes it on)
    conditioners: tuple[LutSpec, ...] = ()  # summed into every step's input (``engine.lm.conditioning``)
    model_type: str = "moshi"  # the generator semantics (``engine.families.GENERATORS``), set by the family

    def __post_init__(self):
        for name, (low, high) in _INT_BOUNDS.items():
            value = getattr(self, name)
            if not (value is None and name in _OPTIONAL) and (
                    isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high):
                raise ValueError(f"config key {name!r} is {value!r}: expected an integer in [{low}, {high}]")
        for name, (low, high) in _FLOAT_BOUNDS.items():
            value = getattr(self, name)
            if not (value is None and name in _OPTIONAL) and (
                    isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high):
                raise ValueError(f"config key {name!r} is {value!r}: expected a number in [{low:g}, {high:g}]")
        if not isinstance(self.delays, tuple) or not all(
                type(d) is int and 0 <= d <= MAX_DELAY for d in self.delays):
            raise ValueError(f"config key 'delays' is {self.delays!r}: expected integers in [0, {MAX_DELAY}]")
        if self.dim % self.num_heads or self.depformer_dim % self.depformer_num_heads:
            raise ValueError(f"config: dim {self.dim} (depformer_dim {self.depformer_dim}) must be a multiple of "
                             f"num_heads {self.num_heads} (depformer_num_heads {self.depformer_num_heads})")
        if len(self.delays) != self.n_q + 1:
            raise ValueError(f"expected {self.n_q + 1} delays (text + n_q={self.n_q} audio), got {len(self.delays)}")
        if not 0 <= self.dep_q <= self.n_q:
            raise ValueError(f"dep_q must be in [0, n_q={self.n_q}], got {self.dep_q}")
        if self.model_type not in GENERATORS:
            raise ValueError(f"model_type must be one of {', '.join(GENERATORS)}, got {self.model_type!r}")
        if self.depformer_pos_emb not in ("none", "rope", "rope_concat"):
            raise ValueError("depformer_pos_emb must be 'none', 'rope' or 'rope_concat', got "
                             f"{self.depformer_pos_emb!r}")
        if self.positional_embedding not in ("none", "rope", "rope_concat"):
            raise ValueError("positional_embedding must be 'none', 'rope' or 'rope_concat', got "
                             f"{self.positional_embedding!r}")
        if self.norm not in _NORMS or self.depformer_norm not in (None, *_NORMS):
            raise ValueError(f"norm and depformer_norm must be one of {', '.join(_NORMS)}, got {self.norm!r}, "
                             f"{self.depformer_norm!r}")
        schedule = self.depformer_weights_per_step_schedule
        if schedule is not None and (
                not isinstance(schedule, tuple) or len(schedule) != self.dep_q
                or not all(type(i) is int for i in schedule)
                or sorted(set(schedule)) != list(range(max(schedule, default=-1) + 1))):
            raise ValueError(f"config key 'depformer_weights_per_step_schedule' is {schedule!r}: expected "
                             f"{self.dep_q} integers naming weights 0, 1, ... (each used)")
        if self.num_heads % self.kv_repeat or self.depformer_num_heads % (self.depformer_kv_repeat or self.kv_repeat):
            raise ValueError("config: num_heads (depformer_num_heads) must be a multiple of kv_repeat "
                             "(depformer_kv_repeat)")

    @classmethod
    def released(cls, family: Family) -> LMConfig:
        """The architecture of ``family``'s released model (a folder without config.json)."""
        return cls.from_hub_config(family.config_defaults)

    @classmethod
    def moshi_7b(cls) -> LMConfig:
        return cls.released(moshi.FAMILY)

    @classmethod
    def personaplex_7b(cls) -> LMConfig:
        """PersonaPlex: the Moshi 7B shape with a 16-step depformer (it also predicts the user stream)."""
        return cls.released(personaplex.FAMILY)

    @classmethod
    def from_hub_config(cls, config: Mapping[str, Any]) -> LMConfig:
        """Build from a hub ``config.json`` dict (key names of the reference ``loaders._lm_kwargs``).

        Missing keys take the 7B Moshi values; irrelevant keys are ignored. The family the config
        claims (``engine.families.recognise``) sets the generator semantics and the keys its own
        loader forces (PersonaPlex's always builds 16 depth-transformer steps).
        """
        if not isinstance(config, Mapping):
            raise ValueError(f"expected a config mapping, got {type(config).__name__}")
        for key, accepted in _UNSUPPORTED.items():
            if key in config and config[key] != accepted and not (key == "text_card_out"
                                                                  and config[key] == config.get("text_card")):
                raise ValueError(f"config key {key!r}={config[key]!r} is not supported (expected {accepted!r})")
        if config.get("causal", True) is not True:
            raise ValueError("config key 'causal' must be true: only causal streaming models are supported")
        if config.get("depformer_weights_per_step", True) is not True:
            raise ValueError("config key 'depformer_weights_per_step' must be true")
        fields = {f.name for f in dataclasses.fields(cls)} - {"model_type", "conditioners"}
        kwargs = {k: v for k, v in config.items() if k in fields}
        kwargs["conditioners"] = parse_conditioners(config)
        schedule = kwargs.get("depformer_weights_per_step_schedule")
        if schedule is not None:
            if not isinstance(schedule, (list, tuple)):
                raise ValueError(f"config key 'depformer_weights_per_step_schedule' is {schedule!r}: expected a list")
            kwargs["depformer_weights_per_step_schedule"] = tuple(schedule)
        if "depformer_dim" in kwargs and "depformer_dim_feedforward" not in kwargs:
            kwargs["depformer_dim_feedforward"] = None  # the reference derives it from hidden_scale
        if "delays" in kwargs:
            if not isinstance(kwargs["delays"], (list, tuple)):
                raise ValueError(f"config key 'delays' is {kwargs['delays']!r}: expected a list of integers")
            kwargs["delays"] = tuple(kwargs["delays"])
        family = _claimed_family(config)
        if family is not None:
            kwargs.update(family.forced_config, model_type=family.generator)
        return cls(**kwargs)

    @property
    def is_personaplex(self) -> bool:
        return self.model_type == "personaplex"

    @property
    def is_hibiki(self) -> bool:
        return self.model_type == "hibiki"

    @property
    def codec_codebooks(self) -> int:
        """The codebooks Mimi encodes and decodes for this model: a stream's (PersonaPlex's depth
        transformer also predicts the user's 8; the others write one stream, read another)."""
        if self.is_personaplex:
            return self.n_q // 2
        return max(self.dep_q, self.n_q - self.dep_q)

    @property
    def token_streams(self) -> int:
        """The streams a step writes (and forcing covers): the text token, then the depth
        transformer's ``dep_q`` codebooks."""
        return 1 + self.dep_q

    @property
    def has_depformer(self) -> bool:
        """False for a text-only model (speech to text: ``dep_q`` 0, every audio stream is input)."""
        return self.dep_q > 0

    @property
    def max_delay(self) -> int:
        return max(self.delays)

    @property
    def temporal(self) -> TransformerConfig:
        return TransformerConfig(
            d_model=self.dim, num_heads=self.num_heads, num_layers=self.num_layers,
            dim_feedforward=int(self.hidden_scale * self.dim), norm=self.norm, gating=self.gating,
            layer_scale=self.layer_scale, positional_embedding=self.positional_embedding,
            max_period=self.max_period, context=self.context, kv_repeat=self.kv_repeat)

    @property
    def depformer(self) -> TransformerConfig:
        ff = self.depformer_dim_feedforward or int(self.hidden_scale * self.depformer_dim)
        return TransformerConfig(
            d_model=self.depformer_dim, num_heads=self.depformer_num_heads,
            num_layers=self.depformer_num_layers, dim_feedforward=ff, norm=self.norm,
            gating=self.depformer_gating, layer_scale=self.depformer_layer_scale,
            positional_embedding=self.depformer_pos_emb, max_period=self.depformer_max_period,
            context=None, weights_per_step=self.dep_q, weights_schedule=self.depformer_weights_per_step_schedule,
            kv_repeat=self.depformer_kv_repeat or self.kv_repeat)

    def depformer_input_of(self, codebook: int) -> int:
        """The ``depformer_in`` projection codebook ``codebook`` uses."""
        if not self.depformer_multi_linear:
            return 0
        schedule = self.depformer_weights_per_step_schedule
        return codebook if schedule is None else schedule[codebook]


def _claimed_family(config: Mapping[str, Any]):
    """The family ``config`` names, or None where it names none Parley runs (an architecture is
    still built from its keys; ``engine.files.models`` refuses such a folder before this)."""
    from ..errors import ModelError

    try:
        return recognise(config, hint="moshi")
    except ModelError:
        return None


class TokenEmbedding(nn.Embedding):
    """Embedding where token ``-1`` (``ZERO_TOKEN``, "no input") reads an exact zero vector, in one
    kernel: the table is held with one more row, zero, after the stored ones, and ``table()[tokens]``
    reads row -1 by indexing's negative wrap (``F.embedding`` refuses -1; the reference's clamp,
    compare and ``where`` cost three kernels more a lookup, and a frame has 25 lookups).

    ``weight`` is the stored rows, a view of that table: checkpoints load into it in place and save
    it with the released keys and shapes, and the zero row costs one row of memory. What gives the
    weight new storage keeps the row: moves, casts and ``to_empty`` act on the whole table
    (``_apply``), and a copy of the module is held again (``__setstate__``); a weight assigned
    another way has no row after it, and reading it raises (``as_strided`` checks its storage).
    Tokens below -1 are not inputs (``UNGENERATED_TOKEN`` never reaches the model).
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, device=None, dtype=None):
        table = torch.empty(num_embeddings + 1, embedding_dim, device=device, dtype=dtype)
        super().__init__(num_embeddings, embedding_dim, _weight=table[:-1])
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """``nn.Embedding``'s N(0, 1) init, skipped on the meta device (``init_normal``)."""
        init_normal(self.weight, std=1.0)
        with torch.no_grad():
            self.table()[-1].zero_()

    def table(self) -> torch.Tensor:
        """The stored rows and the zero row after them, [num_embeddings + 1, dim]: a view of
        ``weight``'s storage (no copy, no kernel)."""
        rows, dim = self.weight.shape
        return self.weight.as_strided((rows + 1, dim), (dim, 1))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.table()[tokens]

    def _apply(self, fn, recurse=True):
        table = self.table().detach()
        moved = fn(table)
        if moved is not table:  # (``to`` returns its input where nothing changes)
            self._hold(moved)
        return self

    def __setstate__(self, state) -> None:
        """A copy (``copy.deepcopy``) copies the stored rows only: hold them with a zero row again."""
        super().__setstate__(state)
        weight = self.weight.detach()
        with torch.no_grad():
            table = torch.empty(weight.shape[0] + 1, weight.shape[1], device=weight.device, dtype=weight.dtype)
            table[:-1].copy_(weight)
        self._hold(table)

    def _hold(self, table: torch.Tensor) -> None:
        """Make ``table``'s first rows the weight and its last row zero (unset after ``to_empty``)."""
        with torch.no_grad():
            table[-1].zero_()
        rows = table[:-1]
        if torch._has_compatible_shallow_copy_type(self.weight, rows):
            self.weight.data = rows
        else:  # another device type (meta to a real one), as ``nn.Module._apply`` does it
            self.weight = nn.Parameter(rows, requires_grad=self.weight.requires_grad)


Sampler = Callable[[torch.Tensor, int], torch.Tensor]  # (logits [B, card], codebook) -> tokens [B]


class LMModel(nn.Module):
    def __init__(self, config: LMConfig, device=None, dtype=None):
        super().__init__()
        self.config = c = config
        kw = {"device": device, "dtype": dtype}
        self.text_emb = TokenEmbedding(c.text_card + 1, c.dim, **kw)
        self.emb = nn.ModuleList(TokenEmbedding(c.card + 1, c.dim, **kw) for _ in range(c.n_q))
        self.transformer = StreamingTransformer(c.temporal, **kw)
        self.out_norm = make_norm(c.norm, c.dim, **kw)
        self.text_linear = nn.Linear(c.dim, c.text_card, bias=False, **kw)
        self.extra_heads = nn.ModuleList(nn.Linear(c.dim, c.extra_heads_dim, bias=False, **kw)
                                         for _ in range(c.extra_heads_num_heads))
        if not c.has_depformer:  # text only: no depth transformer (``depformer_in`` in its file is unused)
            return
        n_in = c.depformer.stored_steps if c.depformer_multi_linear else 1
        self.depformer_in = nn.ModuleList(nn.Linear(c.dim, c.depformer_dim, bias=False, **kw)
                                          for _ in range(n_in))
        self.depformer_text_emb = TokenEmbedding(c.text_card + 1, c.depformer_dim, **kw)
        self.depformer_emb = nn.ModuleList(TokenEmbedding(c.card + 1, c.depformer_dim, **kw)
                                           for _ in range(c.dep_q - 1))
        self.depformer = StreamingTransformer(c.depformer, **kw)
        self.linears = nn.ModuleList(nn.Linear(c.depformer_dim, c.card, bias=False, **kw)
                                     for _ in range(c.dep_q))
        if c.depformer_norm is not None:
            self.depformer_norms = nn.ModuleList(make_norm(c.depformer_norm, c.depformer_dim, **kw)
                                                 for _ in range(c.dep_q))
        if c.conditioners:
            self.condition_provider = ConditionProvider(c.conditioners, c.dim, device=device)

    def init_state(self, batch_size: int, device=None, dtype=None) -> StateTree:
        state = {"temporal": self.transformer.init_state(batch_size, device, dtype)}
        if self.config.has_depformer:
            state["depformer"] = self.depformer.init_state(batch_size, device, dtype)
        return state

    def extra_head_probabilities(self, h: torch.Tensor) -> torch.Tensor:
        """The extra heads' softmax on the temporal output ``h`` [B, 1, dim]: [B, heads, extra_heads_dim]
        (the reference's ``LMGen.step_with_extra_heads``, stacked)."""
        return torch.stack([F.softmax(head(h[:, 0]), dim=-1) for head in self.extra_heads], dim=1)

    def embed_codes(self, codes: torch.Tensor) -> torch.Tensor:
        """codes [B, 1 + n_q] (text, then audio streams) -> summed input embedding [B, 1, dim].

        Summation order (audio 0..n_q-1, then text) follows the reference bit for bit; the zero
        token reads each table's zero row (``TokenEmbedding``): two kernels a stream.
        """
        codes = codes.unsqueeze(1)
        x = self.emb[0](codes[:, :, 1])
        for k in range(1, self.config.n_q):
            x = x + self.emb[k](codes[:, :, 1 + k])
        return x + self.text_emb(codes[:, :, 0])

    def temporal_step(self, x: torch.Tensor, state: StateTree) -> tuple[torch.Tensor, torch.Tensor]:
        """One temporal step from input embeddings x [B, 1, dim]: (h [B, 1, dim], text logits [B, text_card]).

        ``h`` is the normalised output that conditions the depformer.
        """
        h = self.out_norm(self.transformer(x, state["temporal"]))
        return h, self.text_linear(h)[:, 0]

    def depformer_frame(self, h: torch.Tensor, text_token: torch.Tensor, state: StateTree, sample: Sampler,
                        forced: torch.Tensor | None = None, forced_mask: torch.Tensor | None = None,
                        steps: int | None = None) -> torch.Tensor:
        """Sample the frame's first ``steps`` (default ``dep_q``) audio tokens [B, steps], one
        codebook after the other.

        Each codebook's input is ``depformer_in[cb](h)`` plus the embedding of the previous token
        (the text token for cb 0); codebook ``cb`` attends to the frame's codebooks up to itself
        (``StreamingTransformer.fixed_slot_step``: its context is one frame). Where
        ``forced_mask[:, cb]`` is set, ``forced[:, cb]`` replaces the sampled token *as the next
        input* (PersonaPlex teacher forcing); the returned tokens are always the sampled ones.
        Codebooks from ``steps`` on are not computed (they influence none before them). The
        codebook index is a Python int of an unrolled loop, which is graph-safe.
        """
        c = self.config
        steps = c.dep_q if steps is None else steps
        prev = text_token
        tokens = []
        for cb in range(steps):
            x = self.depformer_in[c.depformer_input_of(cb)](h)
            emb = self.depformer_text_emb(prev) if cb == 0 else self.depformer_emb[cb - 1](prev)
            y = self.depformer.fixed_slot_step(x + emb.unsqueeze(1), state, cb)
            if c.depformer_norm is not None:
                y = self.depformer_norms[cb](y)
            token = sample(self.linears[cb](y)[:, 0], cb)
            tokens.append(token)
            if cb + 1 < steps:  # the next codebook's input
                prev = token if forced is None else torch.where(forced_mask[:, cb], forced[:, cb], token)
        self.depformer.fill_fixed_slots(state, steps)
        return torch.stack(tokens, dim=1)


def released_personaplex_shapes(config: LMConfig) -> Shapes:
    """The tensor shapes of PersonaPlex's released checkpoint for ``config``: the layout of its first
    ``RELEASED_STORED_STEPS`` depth steps and one more input table, ``depformer_emb.7`` (what an
    estimate made before the file exists holds, as ``share_stored_steps`` would)."""
    stored = dataclasses.replace(config, dep_q=personaplex.RELEASED_STORED_STEPS)
    shapes = {k: tuple(v.shape) for k, v in LMModel(stored, device="meta").state_dict().items()}
    last = personaplex.RELEASED_STORED_STEPS - 1
    return {**shapes, f"depformer_emb.{last}.weight": shapes["depformer_emb.0.weight"]}


_PP_COPIED = re.compile(r"(?:.*\.)?(?:gating|linears|depformer_in|depformer_emb)\.(\d+)")


def share_stored_steps(model: LMModel, file_shapes: Shapes) -> None:
    """PersonaPlex's rule for a file with half the model's depformer steps (8 of 16), applied by
    holding each stored weight once (call it on the meta device, before the weights are allocated).

    (a) a depformer attention weight stored for half the steps keeps the file's rows: the stacked
    matmuls serve step s with stored step ``s % stored`` (steps 8..15 = steps 0..7); (b) a
    ``gating|linears|depformer_in|depformer_emb`` entry i in 8..15 that the file lacks becomes the
    same module as entry i - 8 (its weights are aliases, not copies). Files that already hold 16
    steps are left as they are. The rule never produces ``depformer_emb.7`` (an 8-step file has
    tables 0..6 and the rule shares 0..6 with 8..14): a file without it cannot be loaded
    (PersonaPlex itself would leave that table on the meta device), so the strict load reports it.
    """
    half = model.config.dep_q // 2
    shapes = {k: source_shape(s, file_shapes, k) for k, s in stacked_sources(file_shapes).items()}
    for key, param in list(model.named_parameters()):
        stored = shapes.get(key)
        if key.startswith("depformer.") and ".self_attn." in key and stored and 2 * stored[0] == param.shape[0]:
            owner, _, name = key.rpartition(".")
            setattr(model.get_submodule(owner), name,
                    nn.Parameter(torch.empty(stored, dtype=param.dtype, device=param.device), requires_grad=False))
    for name, _ in list(model.named_modules()):
        m = _PP_COPIED.fullmatch(name)
        if m is None or not half <= int(m[1]) < 2 * half or any(k.startswith(name + ".") for k in shapes):
            continue
        entries = model.get_submodule(name[:m.start(1) - 1])
        entries[int(m[1])] = entries[int(m[1]) - half]


def load_lm(path: str | Path, config: LMConfig, device: torch.device | str = "cpu",
            dtype: torch.dtype = torch.bfloat16, quantize: Callable[[nn.Module], object] | None = None) -> LMModel:
    """Load a released ``model.safetensors`` (stacked or split attention keys) strictly, cast to ``dtype``.

    For PersonaPlex configurations an 8-step depformer file is loaded with PersonaPlex's rule, each
    stored weight held once (``share_stored_steps``). ``quantize`` (e.g. ``quantize_lm_int8``)
    replaces the matmul weights of the model while it is still on the meta device: each file tensor
    is then quantised as it streams in, so no float copy of the LM ever exists. Raises ValueError
    naming missing / unexpected keys or wrong shapes. Both kinds of file stream into the model one
    tensor at a time: host memory peaks at about one tensor, not the file.
    """
    from safetensors import SafetensorError

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"LM checkpoint {path} does not exist (expected a model.safetensors file)")
    try:
        file_shapes = checkpoint_shapes(path)
        with torch.device("meta"):
            model = LMModel(config, dtype=dtype)
        if config.is_personaplex:
            share_stored_steps(model, file_shapes)
        if quantize is not None:
            quantize(model)
        model = model.to_empty(device=device)
        # The reference builds a depth-transformer input projection even for a model without a
        # depth transformer (speech to text) and never uses it: such a file's copy is not read.
        unused = () if config.has_depformer else ("depformer_in.",)
        load_strict_streaming(model, path, f"LM checkpoint {path.name}", load_targets(model), ignore=unused)
    except (SafetensorError, OSError) as e:
        raise ValueError(f"{path} is not a readable safetensors file: {e}") from e
    if config.is_hibiki:
        _read_end_of_text_as_padding(model)
    return model.eval().requires_grad_(False)


def _read_end_of_text_as_padding(model: LMModel) -> None:
    """Hibiki's rule (the reference loader's): the temporal transformer reads its text end token
    as padding (its input embedding row becomes padding's), so that an end of text sampled before
    the source speech has ended is read back as a pause and the translation goes on."""
    with torch.no_grad():
        model.text_emb.weight[hibiki.TEXT_END_TOKEN] = model.text_emb.weight[hibiki.TEXT_PAD_TOKEN]

