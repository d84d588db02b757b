"""On-device token sampling with a counter-based random number generator kept in the state tree.

Not ``torch.Generator``: its state lives outside the state tree and breaks dynamo and CUDA graphs.
The random stream is a pure function of ``(seed, counter, element index)``: two ``long`` tensors
are the whole RNG state, saved with the conversation and replayed by a captured graph. Sampling is
the reference's distribution (Gumbel-max, the log form of its ``argmax(probs / Exponential(1))``),
with no host sync, but not the reference's random numbers.
"""

from __future__ import annotations

import torch

_MASK32 = 0xFFFFFFFF
_GOLDEN = 0x9E3779B9  # odd: spreads consecutive element indices over the 32-bit space
MAX_SEED = 2**63 - 1
DEFAULT_SEED = 42  # a conversation's seed where none is given


def _hash32(x):
    """A 32-bit mixer (hash-prospector's "lowbias32_r2") on Python ints or int64 tensors; both
    multipliers are < 2**31, so products never overflow int64."""
    x = x ^ (x >> 16)
    x = (x * 0x21F0AAAD) & _MASK32
    x = x ^ (x >> 15)
    x = (x * 0x735A2D97) & _MASK32
    return x ^ (x >> 15)


def init_rng(seed: int, device: torch.device | str) -> dict[str, torch.Tensor]:
    """RNG state for ``seed`` (an int in [0, 2**63)): a key derived from the seed and a draw counter."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"expected a seed that is an int in [0, 2**63), got {seed!r}")
    key = _hash32((seed & _MASK32) ^ _hash32(seed >> 32))
    return {"key": torch.tensor([key], dtype=torch.long, device=device),
            "counter": torch.zeros(1, dtype=torch.long, device=device)}


def uniform(rng: dict[str, torch.Tensor], shape: tuple[int, ...]) -> torch.Tensor:
    """Float32 uniforms in (0, 1) of ``shape``; advances the counter by one. Element i of draw c is
    ``hash(hash(key ^ c) + i * golden)``."""
    n = 1
    for d in shape:
        n *= d
    base = _hash32(rng["key"] ^ (rng["counter"] & _MASK32))
    idx = torch.arange(n, device=base.device, dtype=torch.long)
    bits = _hash32((idx * _GOLDEN + base) & _MASK32)
    rng["counter"].add_(1)
    return ((bits >> 8).float() + 0.5).mul_(2.0**-24).view(shape)


def gumbel(rng: dict[str, torch.Tensor], shape: tuple[int, ...]) -> torch.Tensor:
    """Standard Gumbel noise ``-log(-log(u))`` of ``shape`` (one draw of the counter)."""
    return -torch.log(-torch.log(uniform(rng, shape)))


def sample_token(logits: torch.Tensor, temperature: float, top_k: int,
                 rng: dict[str, torch.Tensor] | None = None, noise: torch.Tensor | None = None
                 ) -> torch.Tensor:
    """logits [..., V] -> token ids [...]; ``temperature <= 0``: greedy, no draw. Otherwise
    ``argmax(logits / T + G)`` over the top-k logits (exactly ``softmax(top-k logits / T)``); top-k on
    logits avoids the ties of underflowed probabilities that make ``topk`` slow. ``noise`` [..., k]
    may be drawn in advance; otherwise it is drawn from ``rng``."""
    logits = logits.float()
    if temperature <= 0:
        return logits.argmax(dim=-1)
    indices = None
    if 0 < top_k < logits.shape[-1]:
        logits, indices = torch.topk(logits, top_k, dim=-1, sorted=False)
    if noise is None:
        noise = gumbel(rng, tuple(logits.shape))
    choice = (logits / temperature + noise).argmax(dim=-1)
    if indices is None:
        return choice
    return indices.gather(-1, choice.unsqueeze(-1)).squeeze(-1)


def candidates(vocab: int, top_k: int) -> int:
    """How many logits ``sample_token`` draws noise for: k when top-k applies, else the vocabulary."""
    return top_k if 0 < top_k < vocab else vocab
