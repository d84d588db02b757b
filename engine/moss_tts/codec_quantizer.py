"""The decoding half of MOSS-Audio-Tokenizer's residual quantizer: codes -> summed latents.

Each codebook's row goes through its own weight-normalised 1x1 projection (``out_proj``) to
``rvq_dim``; the sum over the codebooks given, in codebook order from zeros, goes through the
shared ``output_proj``. Parameter names are the released file's (torch's weight-norm
parametrisation: ``original0`` the norms g, ``original1`` the directions v). Decoding reads no
``in_proj``: the loader leaves the encoder's keys in the file.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.parametrizations import weight_norm

from .codec_config import QuantizerConfig


def _projection(channels_in: int, channels_out: int) -> nn.Module:
    return weight_norm(nn.Conv1d(channels_in, channels_out, kernel_size=1))


class Codebook(nn.Module):
    def __init__(self, cfg: QuantizerConfig):
        super().__init__()
        self.codebook = nn.Embedding(cfg.codebook_size, cfg.codebook_dim)
        self.out_proj = _projection(cfg.codebook_dim, cfg.rvq_dim) if cfg.codebook_dim != cfg.rvq_dim \
            else nn.Identity()

    def forward(self, codes: torch.Tensor) -> torch.Tensor:
        """codes [B, T] -> [B, rvq_dim, T]."""
        return self.out_proj(self.codebook(codes).transpose(1, 2))


class QuantizerDecoder(nn.Module):
    def __init__(self, cfg: QuantizerConfig):
        super().__init__()
        self.cfg = cfg
        self.quantizers = nn.ModuleList(Codebook(cfg) for _ in range(cfg.num_quantizers))
        self.output_proj = _projection(cfg.rvq_dim, cfg.output_dim) if cfg.rvq_dim != cfg.output_dim \
            else nn.Identity()

    def forward(self, codes: torch.Tensor) -> torch.Tensor:
        """codes [B, n, T] (the first n codebooks, n <= num_quantizers) -> latents [B, output_dim, T]."""
        batch, count, steps = codes.shape
        weight = self.output_proj.weight if isinstance(self.output_proj, nn.Conv1d) else None
        dtype = weight.dtype if weight is not None else self.quantizers[0].codebook.weight.dtype
        total = torch.zeros(batch, self.cfg.rvq_dim, steps, dtype=dtype, device=codes.device)
        for i in range(count):
            total = total + self.quantizers[i](codes[:, i])
        return self.output_proj(total)
