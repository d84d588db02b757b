"""Ring key/value caches with an absolute position per slot (-1 = empty), which alone drives the mask.

Reference parity: the reference streams Mimi two steps per frame with capacity == context, so a
frame's first query sees ``context - 1`` past keys. We make that a rule: keys are visible when no
older than ``context`` steps before the *end of the query's frame*; extra slots for the largest
call make any chunking into whole frames equal frame-by-frame streaming.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class RingSpec:
    capacity: int
    context: int | None  # None: unbounded (must fit in capacity)
    steps_per_frame: int = 1

    def init_state(self, device: torch.device | str) -> dict[str, torch.Tensor]:
        return {
            "offset": torch.zeros(1, dtype=torch.long, device=device),
            "positions": torch.full((self.capacity,), -1, dtype=torch.long, device=device),
        }

    def advance(self, state: dict[str, torch.Tensor], steps: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Claim and record ``steps`` slots: (slots [T], query positions [T]); then write K/V and ``finish``."""
        pos_q = state["offset"] + torch.arange(steps, device=state["offset"].device)
        slots = pos_q % self.capacity
        state["positions"].index_copy_(0, slots, pos_q)
        return slots, pos_q

    def mask(self, state: dict[str, torch.Tensor], pos_q: torch.Tensor) -> torch.Tensor:
        """Boolean attention mask [T, capacity]: True where the query may attend the slot."""
        pos_k = state["positions"].view(1, -1)
        q = pos_q.view(-1, 1)
        allowed = (pos_k >= 0) & (pos_k <= q)
        if self.context is not None:
            frame_end = q - q % self.steps_per_frame + (self.steps_per_frame - 1)
            allowed &= pos_k > frame_end - self.context
        return allowed

    @staticmethod
    def finish(state: dict[str, torch.Tensor], steps: int) -> None:
        state["offset"].add_(steps)

    @staticmethod
    def reset(state: dict[str, torch.Tensor]) -> None:
        state["offset"].zero_()
        state["positions"].fill_(-1)


def init_layer_cache(batch_size: int, num_heads: int, capacity: int, head_dim: int,
                     device: torch.device | str, dtype: torch.dtype) -> dict[str, torch.Tensor]:
    shape = (batch_size, num_heads, capacity, head_dim)
    return {"k": torch.zeros(shape, device=device, dtype=dtype),
            "v": torch.zeros(shape, device=device, dtype=dtype)}
