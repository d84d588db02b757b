"""Pocket TTS's codec: Mimi-style, continuous (no codebooks). Decoding maps one 32-dim latent
(12.5 Hz) through a 1x1 projection, a depthwise transposed convolution up to the SEANet rate
(200 Hz), a streaming transformer and the SEANet decoder to 1920 samples at 24 kHz; encoding (for
voice cloning) runs the other side once over a whole recording. Parameter names are ours (Parley's
streaming convolutions); ``checkpoint_key`` gives the released ``mimi.*`` key of each."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ..codec.conv import StreamingConv1d, StreamingConvTranspose1d, Wrapped
from ..codec.seanet import SEANetConfig as ParleySEANetConfig
from ..codec.seanet import SEANetDecoder, SEANetEncoder
from ..state import StateTree
from .config import CodecConfig
from .transformer import Transformer


def checkpoint_key(name: str) -> str:
    """The released key of our parameter ``name`` (the package's convolutions hold their layer
    directly, ours inside a wrapper)."""
    return name.replace(".conv.conv.", ".conv.", 1).replace(".convtr.convtr.", ".convtr.", 1)


class Quantizer(nn.Module):
    def __init__(self, dimension: int, output_dimension: int):
        super().__init__()
        self.output_proj = nn.Conv1d(dimension, output_dimension, 1, bias=False)


class ProjectedTransformer(nn.Module):
    def __init__(self, transformer: Transformer):
        super().__init__()
        self.transformer = transformer


class PocketCodec(nn.Module):
    def __init__(self, cfg: CodecConfig, with_encoder: bool = True):
        super().__init__()
        self.cfg = cfg
        s, t = cfg.seanet, cfg.transformer
        seanet = ParleySEANetConfig(dimension=s.dimension, n_filters=s.n_filters, ratios=s.ratios,
                                    kernel_size=s.kernel_size, last_kernel_size=s.last_kernel_size,
                                    residual_kernel_size=s.residual_kernel_size,
                                    n_residual_layers=s.n_residual_layers, dilation_base=s.dilation_base,
                                    compress=s.compress)
        stride = cfg.upsample_stride

        def transformer() -> ProjectedTransformer:
            return ProjectedTransformer(Transformer(t.d_model, t.num_heads, t.num_layers, t.dim_feedforward,
                                                    t.max_period, t.context, t.layer_scale))

        self.quantizer = Quantizer(cfg.latent_dim, cfg.outer_dim)
        self.upsample = Wrapped("convtr", StreamingConvTranspose1d(
            cfg.outer_dim, s.dimension, 2 * stride, stride, groups=s.dimension, bias=False))
        self.decoder_transformer = transformer()
        self.decoder = SEANetDecoder(seanet)
        self.with_encoder = with_encoder
        if with_encoder:
            self.encoder = SEANetEncoder(seanet)
            self.encoder_transformer = transformer()
            self.downsample = Wrapped("conv", StreamingConv1d(
                s.dimension, cfg.inner_dim, 2 * stride, stride, bias=False, pad_mode="replicate"))

    def init_state(self) -> StateTree:
        """A fresh decoder state (one per chunk of speech, as the package starts one per chunk)."""
        stride = self.cfg.upsample_stride
        return {"upsample": self.upsample.convtr.init_state(1),
                "transformer": self.decoder_transformer.transformer.init_state(
                    self.cfg.transformer.context + stride - 1),
                "decoder": self.decoder.init_state(1)}

    def decode(self, latent: torch.Tensor, state: StateTree) -> torch.Tensor:
        """One latent [1, latent_dim] (denormalised) -> its 1920 samples [1, 1, frame_size]."""
        x = self.quantizer.output_proj(latent.view(1, -1, 1))
        x = self.upsample.convtr(x, state["upsample"])
        x = self.decoder_transformer.transformer(x.transpose(1, 2), state["transformer"]).transpose(1, 2)
        return self.decoder(x, state["decoder"])

    def encode(self, audio: torch.Tensor) -> torch.Tensor:
        """A whole recording [1, 1, samples] -> its latents [1, frames, latent_dim] (right-padded
        to whole frames; every layer from a fresh state, as the package encodes)."""
        frame = self.cfg.frame_size
        audio = F.pad(audio, (0, -audio.shape[-1] % frame))
        x = self.encoder(audio, self.encoder.init_state(1))
        transformer = self.encoder_transformer.transformer
        x = transformer(x.transpose(1, 2), transformer.init_state(x.shape[-1])).transpose(1, 2)
        conv = self.downsample.conv
        return conv(x, conv.init_state(1)).transpose(1, 2)
