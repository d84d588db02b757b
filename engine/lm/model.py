"""The Moshi-family language model: a temporal transformer over text + audio streams and the depth
transformer ("depformer") predicting a frame's codebooks one after the other. Parameter names are the
released checkpoint's keys; streaming state lives in the tree ``init_state`` returns."""

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
from ..families import GENERATORS, Family, StepRules, moshi, personaplex, recognise, rules_of
from ..families.moshi import MOSHI_DELAYS
from ..kernels.quantize import load_targets
from ..state import StateTree
from ..streaming.layers import make_norm
from ..streaming.transformer import StreamingTransformer, TransformerConfig
from .conditioning import ConditionProvider, CrossFusion, LutSpec, TensorSpec, parse_conditioners
from .token_embedding import TokenEmbedding, make_embedding

ZERO_TOKEN = -1  # "no input": its embedding is exactly zero
UNGENERATED_TOKEN = -2  # a token-cache slot not generated yet (never reaches the model)

# Config keys changing the architecture in ways not implemented here: refused unless absent or this value.
_UNSUPPORTED = {
    "norm_emb": False, "bias_proj": False, "quantize": False, "lora": False, "text_card_out": None,
}

# The sizes a config may ask for: a config.json is untrusted input, and its sizes decide what is allocated.
_INT_BOUNDS = {
    "dim": (1, 32768), "num_heads": (1, 512), "num_layers": (1, 512), "context": (1, 32768),
    "text_card": (1, 1_000_000), "card": (1, 65536), "n_q": (1, 64), "dep_q": (0, 64),
    "existing_text_padding_id": (0, 1_000_000), "existing_text_end_padding_id": (0, 1_000_000),
    "depformer_dim": (1, 32768), "depformer_dim_feedforward": (1, 1 << 20), "depformer_num_heads": (1, 512),
    "depformer_num_layers": (1, 512), "extra_heads_num_heads": (0, 64), "extra_heads_dim": (1, 4096),
    "kv_repeat": (1, 512), "depformer_kv_repeat": (1, 512), "depformer_low_rank_embeddings": (1, 32768),
}
_FLOAT_BOUNDS = {"hidden_scale": (1e-3, 64.0), "max_period": (1.0, 1e9), "depformer_max_period": (1.0, 1e9),
                 "layer_scale": (0.0, 1e6), "depformer_layer_scale": (0.0, 1e6)}
_OPTIONAL = {"depformer_dim_feedforward", "layer_scale", "depformer_layer_scale", "depformer_kv_repeat",
             "depformer_low_rank_embeddings"}
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
    extra_heads_num_heads: int = 0  # heads beside the text head (STT 1B's voice activity)
    extra_heads_dim: int = 6
    depformer_weights_per_step_schedule: tuple[int, ...] | None = None  # step s uses weights [s]; None: its own
    depformer_norm: str | None = None  # a norm of each codebook's output before its logits (None: none)
    kv_repeat: int = 1  # grouped-query attention in the temporal transformer
    depformer_kv_repeat: int | None = None  # None: kv_repeat (as the reference passes it on)
    conditioners: tuple[LutSpec | TensorSpec, ...] = ()  # ``engine.lm.conditioning``: summed, then cross
    cross: CrossFusion | None = None  # the conditions the temporal transformer cross-attends to
    cross_attention: bool = False
    demux_second_stream: bool = False  # two text streams multiplexed in one token (Kyutai TTS's lookahead)
    depformer_low_rank_embeddings: int | None = None  # the depth transformer's tables' rank (None: full)
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
        for name in ("cross_attention", "demux_second_stream", "depformer_multi_linear"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"config key {name!r} is {getattr(self, name)!r}: expected true or false")
        if self.cross_attention != (self.cross is not None):
            raise ValueError("config: cross_attention needs a condition to cross-attend to (fuser 'cross'), "
                             "and such a condition needs cross_attention")
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
        """Build from a hub ``config.json`` dict (the reference's ``_lm_kwargs`` keys; missing ones are
        the 7B Moshi's). The family the config claims sets the generator and its forced keys."""
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
        fields = {f.name for f in dataclasses.fields(cls)} - {"model_type", "conditioners", "cross"}
        kwargs = {k: v for k, v in config.items() if k in fields}
        kwargs["conditioners"], kwargs["cross"] = parse_conditioners(config)
        if "demux_second_text_stream" in config:  # the reference's newer name
            kwargs["demux_second_stream"] = config["demux_second_text_stream"]
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
    def rules(self) -> StepRules:
        return rules_of(self.model_type)

    @property
    def agent_streams(self) -> int:
        return self.rules.agent_streams(self.n_q, self.dep_q)

    @property
    def codec_codebooks(self) -> int:
        """The codebooks Mimi encodes and decodes for this model: the larger of the two sides'."""
        return max(self.agent_streams, self.n_q - self.agent_streams)

    @property
    def token_streams(self) -> int:
        """The streams a step writes: the text token, then ``dep_q`` codebooks."""
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
            max_period=self.max_period, context=self.context, kv_repeat=self.kv_repeat,
            cross_attention=self.cross_attention)

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
    """The family ``config`` names, or None where it names none Parley runs."""
    from ..errors import ModelError

    try:
        return recognise(config, hint="moshi")
    except ModelError:
        return None


Sampler = Callable[[torch.Tensor, int], torch.Tensor]  # (logits [B, card], codebook) -> tokens [B]


class LMModel(nn.Module):
    def __init__(self, config: LMConfig, device=None, dtype=None):
        super().__init__()
        self.config = c = config
        kw = {"device": device, "dtype": dtype}
        self.text_emb = make_embedding(c.text_card + 1, c.dim, c.demux_second_stream, **kw)
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
        rank = c.depformer_low_rank_embeddings
        self.depformer_text_emb = make_embedding(c.text_card + 1, c.depformer_dim, c.demux_second_stream, rank, **kw)
        self.depformer_emb = nn.ModuleList(make_embedding(c.card + 1, c.depformer_dim, rank=rank, **kw)
                                           for _ in range(c.dep_q - 1))
        self.depformer = StreamingTransformer(c.depformer, **kw)
        self.linears = nn.ModuleList(nn.Linear(c.depformer_dim, c.card, bias=False, **kw)
                                     for _ in range(c.dep_q))
        if c.depformer_norm is not None:
            self.depformer_norms = nn.ModuleList(make_norm(c.depformer_norm, c.depformer_dim, **kw)
                                                 for _ in range(c.dep_q))
        if c.conditioners:
            self.condition_provider = ConditionProvider(c.conditioners, c.dim, c.cross, device=device)

    def init_state(self, batch_size: int, device=None, dtype=None) -> StateTree:
        state = {"temporal": self.transformer.init_state(batch_size, device, dtype)}
        if self.config.has_depformer:
            state["depformer"] = self.depformer.init_state(batch_size, device, dtype)
        return state

    def extra_head_probabilities(self, h: torch.Tensor) -> torch.Tensor:
        """The extra heads' softmax on ``h`` [B, 1, dim]: [B, heads, extra_heads_dim]."""
        return torch.stack([F.softmax(head(h[:, 0]), dim=-1) for head in self.extra_heads], dim=1)

    def embed_codes(self, codes: torch.Tensor) -> torch.Tensor:
        """codes [B, 1 + n_q] -> summed input embedding [B, 1, dim], summed in the reference's order
        (audio 0..n_q-1, then text) for bit-exact parity."""
        codes = codes.unsqueeze(1)
        x = self.emb[0](codes[:, :, 1])
        for k in range(1, self.config.n_q):
            x = x + self.emb[k](codes[:, :, 1 + k])
        return x + self.text_emb(codes[:, :, 0])

    def temporal_step(self, x: torch.Tensor, state: StateTree) -> tuple[torch.Tensor, torch.Tensor]:
        """One temporal step: x [B, 1, dim] -> (normalised h [B, 1, dim], text logits [B, text_card])."""
        h = self.out_norm(self.transformer(x, state["temporal"]))
        return h, self.text_linear(h)[:, 0]

    def depformer_frame(self, h: torch.Tensor, text_token: torch.Tensor, state: StateTree, sample: Sampler,
                        forced: torch.Tensor | None = None, forced_mask: torch.Tensor | None = None,
                        steps: int | None = None) -> torch.Tensor:
        """Sample the frame's first ``steps`` (default ``dep_q``) audio tokens [B, steps], one codebook
        after the other. Where ``forced_mask[:, cb]`` is set, ``forced[:, cb]`` replaces the sampled
        token as the next input only (teacher forcing); the sampled tokens are returned."""
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
    """The tensor shapes of a released checkpoint storing ``stored_depth_steps`` depth steps and one
    input table more (PersonaPlex's), for estimates before the file exists."""
    stored_steps = config.rules.stored_depth_steps
    stored = dataclasses.replace(config, dep_q=stored_steps)
    shapes = {k: tuple(v.shape) for k, v in LMModel(stored, device="meta").state_dict().items()}
    return {**shapes, f"depformer_emb.{stored_steps - 1}.weight": shapes["depformer_emb.0.weight"]}


_PP_COPIED = re.compile(r"(?:.*\.)?(?:gating|linears|depformer_in|depformer_emb)\.(\d+)")


def share_stored_steps(model: LMModel, file_shapes: Shapes) -> None:
    """PersonaPlex's rule for a file with half the depformer steps: step s + 8 shares stored step s's
    weights (aliases, not copies). Call it on the meta device. As in PersonaPlex, ``depformer_emb.7``
    is never shared, so a file without it fails the strict load."""
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
    """Load a released ``model.safetensors`` strictly, one tensor at a time, cast to ``dtype``.
    ``quantize`` replaces the matmul weights on the meta device, so tensors are quantised as they
    stream in and no float copy of the LM exists."""
    from safetensors import SafetensorError

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"LM checkpoint {path} does not exist (expected a model.safetensors file)")
    try:
        file_shapes = checkpoint_shapes(path)
        with torch.device("meta"):
            model = LMModel(config, dtype=dtype)
        if config.rules.stored_depth_steps:
            share_stored_steps(model, file_shapes)
        if quantize is not None:
            quantize(model)
        model = model.to_empty(device=device)
        # A text-only model's file holds an unused ``depformer_in`` (the reference builds it anyway).
        unused = () if config.has_depformer else ("depformer_in.",)
        load_strict_streaming(model, path, f"LM checkpoint {path.name}", load_targets(model), ignore=unused)
    except (SafetensorError, OSError) as e:
        raise ValueError(f"{path} is not a readable safetensors file: {e}") from e
    if config.rules.text_read_as is not None:
        _read_text_as(model, *config.rules.text_read_as)
    return model.eval().requires_grad_(False)


def _read_text_as(model: LMModel, token: int, as_token: int) -> None:
    """The input embedding of ``token`` becomes ``as_token``'s (Hibiki's end of text read as padding)."""
    with torch.no_grad():
        model.text_emb.weight[token] = model.text_emb.weight[as_token]

