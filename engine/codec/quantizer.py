"""Mimi's split residual vector quantizer (inference only); names equal the checkpoint keys.

A semantic stage (``rvq_first``) and an acoustic stage (``rvq_rest``) both quantize the *same*
latent; decoding adds their outputs. ``rebuild_tables`` derives per-frame tables: codebook vectors
with squared norms (``argmin |x - e|^2 = argmin |e|^2 - 2 x.e``) and codebooks pre-multiplied by
the output projections (decoding is one gather and a sum).
"""

from __future__ import annotations

import torch
from torch import nn

_EPSILON = 1e-5


class Codebook(nn.Module):
    """The checkpoint buffers of one Euclidean codebook (training statistics included)."""

    def __init__(self, size: int, dim: int):
        super().__init__()
        self.register_buffer("_initialized", torch.zeros(1))
        self.register_buffer("cluster_usage", torch.ones(size))
        self.register_buffer("embedding_sum", torch.zeros(size, dim))

    def vectors(self) -> torch.Tensor:
        return self.embedding_sum / self.cluster_usage.clamp(min=_EPSILON)[:, None]


class _Levels(nn.Module):
    def __init__(self, num: int, size: int, dim: int):
        super().__init__()
        self.layers = nn.ModuleList(nn.Module() for _ in range(num))
        for layer in self.layers:
            layer._codebook = Codebook(size, dim)


class RVQStage(nn.Module):
    """1x1-conv projections around ``num`` codebooks (``input_proj``/``output_proj``, no bias)."""

    def __init__(self, num: int, size: int, dim: int, io_dim: int):
        super().__init__()
        self.input_proj = nn.Conv1d(io_dim, dim, 1, bias=False)
        self.output_proj = nn.Conv1d(dim, io_dim, 1, bias=False)
        self.vq = _Levels(num, size, dim)

    def codebooks(self, count: int) -> list[torch.Tensor]:
        return [self.vq.layers[i]._codebook.vectors() for i in range(count)]


class SplitRVQ(nn.Module):
    def __init__(self, io_dim: int, dim: int, size: int, total: int, semantic: int, used: int):
        super().__init__()
        if not semantic < used <= total:
            raise ValueError(f"num_codebooks must be in ({semantic}, {total}], got {used}")
        self.size, self.used, self.semantic = size, used, semantic
        self.rvq_first = RVQStage(semantic, size, dim, io_dim)
        self.rvq_rest = RVQStage(total - semantic, size, dim, io_dim)
        for name, shape in [("_vectors", (used, size, dim)), ("_sq_norms", (used, size)),
                            ("_decode_table", (used * size, io_dim))]:
            self.register_buffer(name, torch.zeros(shape), persistent=False)
        self.register_buffer("_offsets", torch.zeros(used, dtype=torch.long), persistent=False)

    @torch.no_grad()
    def rebuild_tables(self) -> None:
        """Derive the per-frame tables from the loaded weights; call after every weight change."""
        acoustic = self.used - self.semantic
        vectors = torch.stack(self.rvq_first.codebooks(self.semantic) + self.rvq_rest.codebooks(acoustic))
        self._vectors.copy_(vectors)
        self._sq_norms.copy_(vectors.pow(2).sum(-1))
        out_first = self.rvq_first.output_proj.weight[:, :, 0]  # [io_dim, dim]
        out_rest = self.rvq_rest.output_proj.weight[:, :, 0]
        table = torch.cat([vectors[:self.semantic] @ out_first.t(), vectors[self.semantic:] @ out_rest.t()])
        self._decode_table.copy_(table.flatten(0, 1))
        self._offsets.copy_(torch.arange(self.used) * self.size)

    def encode(self, x: torch.Tensor) -> torch.Tensor:
        """Latent [B, io_dim, T] -> codes [B, used, T] (int64; index 0..semantic-1 = semantic)."""
        B, _, T = x.shape
        flat = x.transpose(1, 2).reshape(B * T, -1)
        stages = ((self.rvq_first, 0, self.semantic), (self.rvq_rest, self.semantic, self.used))
        codes = []
        for stage, start, stop in stages:
            residual = flat @ stage.input_proj.weight[:, :, 0].t()
            for level in range(start, stop):
                scores = torch.addmm(self._sq_norms[level], residual, self._vectors[level].t(), alpha=-2)
                index = scores.argmin(dim=-1)
                codes.append(index)
                if level + 1 < stop:
                    residual = residual - self._vectors[level].index_select(0, index)
        return torch.stack(codes, dim=1).view(B, T, self.used).transpose(1, 2).contiguous()

    def decode(self, codes: torch.Tensor) -> torch.Tensor:
        """Codes [B, used, T] -> latent [B, io_dim, T]; not range-checked (a host sync), ``Mimi.decode`` checks."""
        rows = codes + self._offsets.view(1, -1, 1)
        return self._decode_table[rows].sum(dim=1).transpose(1, 2)
