"""On-device token sampling with a counter-based random number generator kept in the state tree.

Why not ``torch.Generator``: its state lives outside the state tree (so it would need separate
saving), dynamo graph-breaks on it, and CUDA graphs need extra registration for non-default
generators. Instead the random stream is a pure function of ``(seed, counter, element index)``
computed with integer tensor ops: two ``long`` tensors in the state tree are the whole RNG state,
a conversation file restores it by copying them, and a captured graph replays it (the counter is
advanced in place on the device).

Sampling follows the reference: ``softmax(logits / temperature)``, optional top-k, then one draw
as ``argmax(probs / E)`` with ``E ~ Exponential(1)``, which is exactly a categorical draw and needs
no host sync (unlike ``torch.multinomial``). Temperature 0 means greedy (argmax of the logits).
Logits are cast to float32 first. Results are reproducible for a given seed on a given device
type, but are not the reference's random numbers.
"""

from __future__ import annotations

import torch

_MASK32 = 0xFFFFFFFF
MAX_SEED = 2**63 - 1


def init_rng(seed: int, device: torch.device | str) -> dict[str, torch.Tensor]:
    """RNG state for ``seed`` (an int in [0, 2**63)); ``counter`` counts draws."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"expected a seed that is an int in [0, 2**63), got {seed!r}")
    return {"seed": torch.tensor([seed], dtype=torch.long, device=device),
            "counter": torch.zeros(1, dtype=torch.long, device=device)}


def _mul32(x: torch.Tensor, c: int) -> torch.Tensor:
    """(x * c) mod 2**32 for 0 <= x < 2**32 without int64 overflow (c split in 16-bit halves)."""
    lo, hi = c & 0xFFFF, c >> 16
    return (x * lo + (((x * hi) & 0xFFFF) << 16)) & _MASK32


def _hash32(x: torch.Tensor) -> torch.Tensor:
    """A bijective 32-bit integer mixer ("lowbias32", C. Wellons) on values in [0, 2**32)."""
    x = x ^ (x >> 16)
    x = _mul32(x, 0x7FEB352D)
    x = x ^ (x >> 15)
    x = _mul32(x, 0x846CA68B)
    return x ^ (x >> 16)


def uniform(rng: dict[str, torch.Tensor], shape: tuple[int, ...]) -> torch.Tensor:
    """Float32 uniforms in the open interval (0, 1) of ``shape``; advances the counter by one."""
    seed, counter = rng["seed"], rng["counter"]
    s = _hash32((seed & _MASK32) ^ _hash32((seed >> 32) & _MASK32))
    key = _hash32(s ^ (counter & _MASK32))
    key2 = _hash32((key + 0x9E3779B9) & _MASK32)
    n = 1
    for d in shape:
        n *= d
    idx = torch.arange(n, device=seed.device, dtype=torch.long)
    bits = _hash32(_hash32(idx ^ key) ^ key2)
    counter.add_(1)
    return ((bits >> 8).float() + 0.5).mul_(2.0**-24).view(shape)


def sample_token(logits: torch.Tensor, temperature: float, top_k: int,
                 rng: dict[str, torch.Tensor]) -> torch.Tensor:
    """logits [..., V] -> token ids [...] (long). ``temperature <= 0``: greedy, the RNG is untouched."""
    logits = logits.float()
    if temperature <= 0:
        return logits.argmax(dim=-1)
    probs = torch.softmax(logits / temperature, dim=-1)
    indices = None
    if 0 < top_k < probs.shape[-1]:
        probs, indices = torch.topk(probs, top_k, dim=-1)
    noise = -torch.log(uniform(rng, tuple(probs.shape)))
    choice = (probs / noise).argmax(dim=-1)
    if indices is None:
        return choice
    return indices.gather(-1, choice.unsqueeze(-1)).squeeze(-1)
