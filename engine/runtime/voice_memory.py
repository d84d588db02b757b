"""The pair rule for three: Parley's voice (Kyutai TTS) and its ear (Kyutai STT) on one GPU beside a
language model that another program serves (Ollama, llama-server, vLLM). The language model's
memory comes off the free memory first (the person chose it; Parley cannot shrink it); the voice
then keeps priority as the conversation model does in ``plan_pair`` (bfloat16, else int8; never
int4), and the ear takes the heaviest precision that fits beside it. The ear is no caption here:
without it there is no conversation, so a plan without it does not fit."""

from __future__ import annotations

from dataclasses import replace

from .pair_memory import Memory, ModelShape, PairPlan, plan_pair

# Kyutai TTS's allowance beyond its tensors (the CUDA context, activations, the voice's cross-attention
# keys): unmeasured; kyutai's deployment of tts-1.6b-en_fr holds ~5.3 GB in all, its tensors ~4.2 GB.
SPEECH_RUNTIME_GB = 1.5


def room_beside(memory: Memory, beside_gb: float) -> Memory:
    """``memory`` with ``beside_gb`` (another program's model) taken off what is free."""
    if not beside_gb >= 0:
        raise ValueError(f"the memory beside must be a non-negative number of GB, got {beside_gb!r}")
    return replace(memory, free_gb=max(0.0, memory.free_gb - beside_gb))


def plan_voices(voice: ModelShape, ear: ModelShape, memory: Memory, beside_gb: float, precision: str = "auto",
                ear_precision: str = "auto") -> PairPlan:
    """The rule (module docstring): ``plan_pair`` on what the language model's ``beside_gb`` leaves,
    the voice with its own allowance. ``.fits`` False: the three do not fit together."""
    return plan_pair(voice, ear, room_beside(memory, beside_gb), precision, ear_precision,
                     allowance_gb=SPEECH_RUNTIME_GB)
