"""Token embeddings whose token ``-1`` (``ZERO_TOKEN``, "no input") reads an exact zero vector."""

from __future__ import annotations

import torch
from torch import nn

from ..streaming.transformer import init_normal


class TokenEmbedding(nn.Embedding):
    """Embedding where token ``-1`` reads an exact zero vector in one kernel: a zero row after the
    stored ones, read by negative wrap. ``weight`` is a view of the stored rows (released keys and
    shapes); moves, casts and copies keep the zero row."""

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
        """The stored rows and the zero row, [num_embeddings + 1, dim]: a view of ``weight``'s storage."""
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



class LowRankEmbedding(TokenEmbedding):
    """A table of ``rank`` columns mapped to ``dim`` by ``low_rank`` (the reference's low-rank
    ``ScaledEmbedding``); token -1 reads zero."""

    def __init__(self, num_embeddings: int, dim: int, rank: int, device=None, dtype=None):
        super().__init__(num_embeddings, rank, device=device, dtype=dtype)
        self.low_rank = nn.Linear(rank, dim, bias=False, device=device, dtype=dtype)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.low_rank(super().forward(tokens))

    def _apply(self, fn, recurse=True):
        return _apply_with_children(self, fn, recurse)


class DemuxEmbedding(TokenEmbedding):
    """Two text streams multiplexed in one token, ``(second + 1) * rows + first`` (second -1: none),
    both read in this table, each through its own map (``out1``, ``out2``); token -1 reads zero.
    A low-rank file also stores ``low_rank``, which the reference never applies here."""

    def __init__(self, num_embeddings: int, dim: int, rank: int | None = None, device=None, dtype=None):
        width = rank or dim
        super().__init__(num_embeddings, width, device=device, dtype=dtype)
        kw = {"device": device, "dtype": dtype}
        self.out1 = nn.Linear(width, dim, bias=False, **kw)
        self.out2 = nn.Linear(width, dim, bias=False, **kw)
        if rank is not None:
            self.low_rank = nn.Linear(rank, dim, bias=False, **kw)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        rows = self.num_embeddings
        is_zero = (tokens == -1).unsqueeze(-1)
        tokens = tokens.clamp(min=0)
        second = tokens // rows - 1
        y = self.out1(super().forward(tokens % rows))
        zero = torch.zeros((), dtype=y.dtype, device=y.device)
        y = y + torch.where((second < 0).unsqueeze(-1), zero, self.out2(super().forward(second.clamp(min=0))))
        return torch.where(is_zero, zero, y)

    def _apply(self, fn, recurse=True):
        return _apply_with_children(self, fn, recurse)


def _apply_with_children(module: TokenEmbedding, fn, recurse: bool) -> TokenEmbedding:
    """``TokenEmbedding._apply`` (its table), then the maps after it."""
    TokenEmbedding._apply(module, fn, recurse)
    for child in module.children():
        child._apply(fn, recurse)
    return module


def make_embedding(rows: int, dim: int, demux: bool = False, rank: int | None = None, device=None,
                   dtype=None) -> TokenEmbedding:
    """The reference's embedding for these options (``demux``: two multiplexed text streams)."""
    kw = {"device": device, "dtype": dtype}
    if demux:
        return DemuxEmbedding(rows, dim, rank, **kw)
    return TokenEmbedding(rows, dim, **kw) if rank is None else LowRankEmbedding(rows, dim, rank, **kw)
