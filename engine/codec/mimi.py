"""Mimi, the streaming neural audio codec of the Moshi family (24 kHz mono <-> 12.5 Hz codes).

Parameter names equal the released ``tokenizer-e351c8d8-checkpoint125.safetensors`` keys, so the
file loads unchanged (all 32 codebooks, whatever ``num_codebooks`` is used).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file
from torch import nn

from ..audio import SAMPLE_RATE
from ..checkpoint import load_strict, stack_split_attention
from ..kernels.packed import pack_linears
from ..state import StateTree
from ..streaming.transformer import StreamingTransformer, TransformerConfig
from .conv import StreamingConv1d, StreamingConvTranspose1d, Wrapped
from .quantizer import SplitRVQ
from .seanet import SEANetConfig, SEANetDecoder, SEANetEncoder

# Offline encode/decode stream pieces of this many frames (bounded memory, fast kernel sizes).
OFFLINE_CHUNK_FRAMES = 16

# Samples are clipped to +-PCM_LIMIT (full scale is +-1) so that no input can overflow into the state.
PCM_LIMIT = 16.0


def _released_transformer() -> TransformerConfig:
    return TransformerConfig(d_model=512, num_heads=8, num_layers=8, dim_feedforward=2048,
                             norm="layer_norm", gating="none", layer_scale=0.01, positional_embedding="rope",
                             max_period=10_000.0, context=250, steps_per_frame=2,
                             # offline calls are split into 16-frame pieces (10% more attention slots)
                             max_steps_per_call=32)


@dataclass(frozen=True)
class MimiConfig:
    """Defaults are the released model's values; smaller variants serve tests."""

    sample_rate: int = SAMPLE_RATE
    frame_rate: float = 12.5
    seanet: SEANetConfig = SEANetConfig()
    transformer: TransformerConfig = field(default_factory=_released_transformer)
    quantizer_dim: int = 256
    codebook_size: int = 2048
    total_codebooks: int = 32
    semantic_codebooks: int = 1
    num_codebooks: int = 8

    def __post_init__(self):
        size = self.sample_rate / self.frame_rate
        if size != int(size) or int(size) % self.seanet.hop_length:
            raise ValueError(f"frame size {size} must be a whole multiple of the SEANet hop "
                             f"{self.seanet.hop_length}")
        if self.steps_per_frame < 2:
            raise ValueError("the encoder must run at least 2 steps per frame (learnt downsampling)")
        if self.transformer.steps_per_frame != self.steps_per_frame:
            raise ValueError(f"transformer.steps_per_frame must be {self.steps_per_frame}")
        if self.transformer.d_model != self.seanet.dimension:
            raise ValueError("transformer.d_model must equal seanet.dimension")
        if not self.semantic_codebooks < self.num_codebooks <= self.total_codebooks:
            raise ValueError(f"num_codebooks must be in [{self.semantic_codebooks + 1}, "
                             f"{self.total_codebooks}], got {self.num_codebooks}")

    @property
    def frame_size(self) -> int:
        return int(self.sample_rate / self.frame_rate)

    @property
    def steps_per_frame(self) -> int:
        return self.frame_size // self.seanet.hop_length


class Mimi(nn.Module):
    def __init__(self, cfg: MimiConfig = MimiConfig()):
        super().__init__()
        self.cfg = cfg
        dim, stride = cfg.seanet.dimension, cfg.steps_per_frame
        self.encoder = SEANetEncoder(cfg.seanet)
        self.decoder = SEANetDecoder(cfg.seanet)
        self.encoder_transformer = Wrapped("transformer", StreamingTransformer(cfg.transformer))
        self.decoder_transformer = Wrapped("transformer", StreamingTransformer(cfg.transformer))
        self.downsample = Wrapped("conv", StreamingConv1d(dim, dim, 2 * stride, stride, bias=False,
                                                          pad_mode="replicate"))
        self.upsample = Wrapped("convtr", StreamingConvTranspose1d(dim, dim, 2 * stride, stride,
                                                                   groups=dim, bias=False))
        self.quantizer = SplitRVQ(dim, cfg.quantizer_dim, cfg.codebook_size, cfg.total_codebooks,
                                  cfg.semantic_codebooks, cfg.num_codebooks)

    @property
    def frame_size(self) -> int:
        return self.cfg.frame_size

    @property
    def num_codebooks(self) -> int:
        return self.cfg.num_codebooks

    @property
    def pcm_dtype(self) -> torch.dtype:
        """The dtype of the samples it encodes and decodes (its weights')."""
        return self.downsample.conv.layer.weight.dtype

    def load_weights(self, state_dict: dict[str, torch.Tensor], what: str = "Mimi checkpoint") -> None:
        """Strictly load a checkpoint (every key used, none missing), then ``prepare()``."""
        load_strict(self, stack_split_attention(state_dict), what)
        self.prepare()

    def prepare(self) -> None:
        """Derive RVQ tables and packed weights; call again after moving or changing weights."""
        self.quantizer.rebuild_tables()
        pack_linears(self)  # convolutions, transformer projections and feed-forward layers

    # ---- state -------------------------------------------------------------------------------

    def init_state(self, batch_size: int, device=None) -> StateTree:
        """Fresh streaming state: ``{"encoder": ..., "decoder": ...}`` (independently resettable)."""
        p = self.downsample.conv.layer.weight
        device = p.device if device is None else torch.device(device)
        kw = {"device": device, "dtype": p.dtype}
        return {
            "encoder": {"seanet": self.encoder.init_state(batch_size, **kw),
                        "transformer": self.encoder_transformer.transformer.init_state(batch_size, **kw),
                        "downsample": self.downsample.conv.init_state(batch_size, **kw)},
            "decoder": {"upsample": self.upsample.convtr.init_state(batch_size, **kw),
                        "transformer": self.decoder_transformer.transformer.init_state(batch_size, **kw),
                        "seanet": self.decoder.init_state(batch_size, **kw)},
        }

    # ---- replaying from the middle of a stream -----------------------------------------------

    def exact_after_frames(self) -> int:
        """Frames after which a fresh, ``seek``-ed state matches the uninterrupted stream bit for bit.

        Transformer layers reach back ``layers * context`` steps plus the ring's extra slots; the
        convolutions their histories (``reach``); one more frame covers frame alignment."""
        t, hop, fs = self.cfg.transformer, self.cfg.seanet.hop_length, self.frame_size
        steps = (t.num_layers - 1) * t.context + t.ring.capacity
        encoder = self.encoder.reach(1) + (steps + self.downsample.conv.history) * hop
        decoder = fs + steps * hop + self.decoder.reach(hop)  # the upsample's tail holds one frame
        return -(-int(max(encoder, decoder)) // fs) + 1

    def seek(self, state: StateTree, encoded_frames: int, decoded_frames: int) -> None:
        """Place a fresh state at a stream's position (transformer rotary phases and ring slots)."""
        s = self.cfg.steps_per_frame
        state["encoder"]["transformer"]["offset"].fill_(encoded_frames * s)
        state["decoder"]["transformer"]["offset"].fill_(decoded_frames * s)

    # ---- streaming ---------------------------------------------------------------------------

    @torch.inference_mode()
    def encode_step(self, pcm: torch.Tensor, state: StateTree) -> torch.Tensor:
        """pcm [B, 1, n * frame_size] -> codes [B, num_codebooks, n] (int64), advancing ``state``.
        Non-finite samples become 0 and all are clipped to +-PCM_LIMIT: bad input never corrupts the state."""
        enc = state["encoder"]
        self._check_pcm(pcm, enc["transformer"]["offset"].device, self._batch(enc))
        x = torch.nan_to_num(pcm, nan=0.0, posinf=0.0, neginf=0.0).clamp_(-PCM_LIMIT, PCM_LIMIT)
        emb = self.encoder(x, enc["seanet"])
        emb = self.encoder_transformer.transformer(emb.transpose(1, 2), enc["transformer"]).transpose(1, 2)
        emb = self.downsample.conv(emb, enc["downsample"])
        return self.quantizer.encode(emb)

    @torch.inference_mode()
    def decode_step(self, codes: torch.Tensor, state: StateTree) -> torch.Tensor:
        """codes [B, num_codebooks, n] -> pcm [B, 1, n * frame_size], advancing ``state``.
        Codes are not range-checked (a host sync); ``decode`` checks them."""
        dec = state["decoder"]
        self._check_codes(codes, dec["transformer"]["offset"].device, self._batch(dec))
        emb = self.quantizer.decode(codes)
        emb = self.upsample.convtr(emb, dec["upsample"])
        emb = self.decoder_transformer.transformer(emb.transpose(1, 2), dec["transformer"]).transpose(1, 2)
        return self.decoder(emb, dec["seanet"])

    # ---- offline -----------------------------------------------------------------------------

    def encode(self, pcm: torch.Tensor) -> torch.Tensor:
        """pcm [B, 1, N] -> codes [B, K, ceil(N / frame_size)]; the end is zero-padded to a frame.
        Streams the padded signal from a fresh state (so it equals any streaming of it)."""
        if not isinstance(pcm, torch.Tensor) or pcm.dim() != 3 or pcm.shape[-1] == 0:
            shape = tuple(pcm.shape) if isinstance(pcm, torch.Tensor) else type(pcm).__name__
            raise ValueError(f"expected pcm [batch, 1, samples] with samples > 0, got {shape}")
        pcm = torch.nn.functional.pad(pcm, (0, -pcm.shape[-1] % self.frame_size))
        state = self.init_state(pcm.shape[0], pcm.device)
        pieces = pcm.split(OFFLINE_CHUNK_FRAMES * self.frame_size, dim=-1)
        return torch.cat([self.encode_step(piece, state) for piece in pieces], dim=-1)

    def decode(self, codes: torch.Tensor) -> torch.Tensor:
        """codes [B, K, T] -> pcm [B, 1, T * frame_size], streamed from a fresh state."""
        if isinstance(codes, torch.Tensor) and codes.numel() and codes.dtype in (torch.int64, torch.int32):
            low, high = int(codes.min()), int(codes.max())
            if low < 0 or high >= self.cfg.codebook_size:
                raise ValueError(f"codes must be in [0, {self.cfg.codebook_size}), got values in [{low}, {high}]")
        if not isinstance(codes, torch.Tensor) or codes.dim() != 3:
            raise ValueError(f"expected codes [batch, {self.num_codebooks}, frames]")
        state = self.init_state(codes.shape[0], codes.device)
        pieces = codes.split(OFFLINE_CHUNK_FRAMES, dim=-1)
        return torch.cat([self.decode_step(piece, state) for piece in pieces], dim=-1)

    # ---- input checks (static shapes only: no host syncs) -------------------------------------

    @staticmethod
    def _batch(part: StateTree) -> int:
        return part["transformer"]["layers"]["0"]["k"].shape[0]

    def _check_pcm(self, pcm: torch.Tensor, device: torch.device, batch: int) -> None:
        fs = self.frame_size
        if not isinstance(pcm, torch.Tensor) or pcm.dim() != 3 or pcm.shape[1] != 1:
            shape = tuple(pcm.shape) if isinstance(pcm, torch.Tensor) else type(pcm).__name__
            raise ValueError(f"expected pcm of shape [batch, 1, n * {fs}], got {shape}")
        if pcm.shape[-1] == 0 or pcm.shape[-1] % fs:
            raise ValueError(f"pcm length must be a positive whole number of frames of {fs} samples, "
                             f"got {pcm.shape[-1]}")
        dtype = self.pcm_dtype
        if pcm.dtype != dtype:
            raise ValueError(f"expected pcm of dtype {dtype}, got {pcm.dtype}")
        self._check_common(pcm, device, batch, "pcm")

    def _check_codes(self, codes: torch.Tensor, device: torch.device, batch: int) -> None:
        K = self.num_codebooks
        if not isinstance(codes, torch.Tensor) or codes.dim() != 3 or codes.shape[1] != K or codes.shape[2] == 0:
            shape = tuple(codes.shape) if isinstance(codes, torch.Tensor) else type(codes).__name__
            raise ValueError(f"expected codes of shape [batch, {K}, frames > 0], got {shape}")
        if codes.dtype not in (torch.int64, torch.int32):
            raise ValueError(f"expected integer codes (torch.int64), got {codes.dtype}")
        self._check_common(codes, device, batch, "codes")

    @staticmethod
    def _check_common(x: torch.Tensor, device: torch.device, batch: int, what: str) -> None:
        if x.device != device:
            raise ValueError(f"expected {what} on {device} (the state's device), got {x.device}")
        if x.shape[0] != batch:
            raise ValueError(f"expected {what} with batch size {batch} (the state's), got {x.shape[0]}")


def load_mimi(path: str | os.PathLike, num_codebooks: int = 8, device="cpu") -> Mimi:
    """Load the released Mimi safetensors file (fp32) without any conversion step."""
    cfg = replace(MimiConfig(), num_codebooks=num_codebooks)
    try:
        weights = load_file(os.fspath(path), device="cpu")
    except FileNotFoundError:
        raise
    except (SafetensorError, OSError) as e:
        raise ValueError(f"{path} is not a readable safetensors file: {e}") from e
    with torch.device("meta"):  # no random init of 79 M parameters that are overwritten anyway
        model = Mimi(cfg)
    model.to_empty(device=device)
    model.load_weights(weights, what=f"Mimi checkpoint {path}")
    return model.eval()
