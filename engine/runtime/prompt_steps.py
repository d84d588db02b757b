"""PersonaPlex's prompt steps, replayed from CUDA graphs.

A PersonaPlex session starts with tens of generator steps that force every stream (the voice
prompt, the silences and the role prompt: ``engine.lm.personaplex.run_prompt_phases``). Each kind
of step, token frames (``forced``) and stored voice embeddings (``embedded``), is the same
computation every time on other inputs, so on CUDA each kind runs eagerly ``warmup`` times on a
side stream (lazy initialisations stay out of the capture), is then captured once on static input
and output buffers, and is replayed for the rest of the prompt, as ``FrameStep`` does for live
frames. A replay runs the kernels the eager step runs, in the same order, so the state it leaves
is the eager one bit for bit (``engine.runtime.frame_step.GraphedStep``). Where no graph can run
(the CPU, graphs turned off, a failed capture) the steps run eagerly on the same buffers.

The graphs live as long as the ``PromptSteps``: a session drops it when its prompt has run.
"""

from __future__ import annotations

import torch

from ..lm.generate import PersonaPlexGenerator
from ..lm.model import UNGENERATED_TOKEN
from ..state import StateTree
from .frame_step import GraphedStep


class PromptSteps:
    """The forced steps of ``run_prompt_phases`` (its ``steps`` argument) for one state:
    ``forced(user, agent, text)`` and ``embedded(embedding)`` -> ``(text [B], audio [B, dep_q])``,
    the generator's ``step``/``step_embeddings`` with ``sample=False``; the outputs are copies."""

    def __init__(self, generator: PersonaPlexGenerator, state: StateTree, use_cuda_graph: bool = True,
                 warmup: int = 2) -> None:
        self.generator, self.state = generator, state
        cache = state["tokens"]["cache"]
        batch, device = cache.shape[0], cache.device
        config = generator.config
        # Static buffers: every step copies its inputs in and its outputs out of these.
        self.user = torch.zeros(batch, generator.user_streams, dtype=torch.long, device=device)
        self.agent = torch.zeros(batch, config.n_q - generator.user_streams, dtype=torch.long, device=device)
        self.text = torch.zeros(batch, dtype=torch.long, device=device)
        self.embedding = torch.zeros(batch, 1, config.dim, dtype=next(generator.lm.parameters()).dtype,
                                     device=device)
        self.out_text = torch.full((batch,), UNGENERATED_TOKEN, dtype=torch.long, device=device)
        self.out_audio = torch.full((batch, config.dep_q), UNGENERATED_TOKEN, dtype=torch.long, device=device)
        self.forced_step = GraphedStep(self._run_forced, device, use_cuda_graph, warmup, "prompt steps")
        self.embedded_step = GraphedStep(self._run_embedded, device, use_cuda_graph, warmup, "prompt steps")

    @property
    def graphs_active(self) -> int:
        """How many of the two kinds of step replay a graph."""
        return (self.forced_step.graph is not None) + (self.embedded_step.graph is not None)

    def forced(self, user: torch.Tensor, agent: torch.Tensor, text: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        self.user.copy_(user)
        self.agent.copy_(agent)
        self.text.copy_(text)
        self.forced_step()
        return self.out_text.clone(), self.out_audio.clone()

    def embedded(self, embedding: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        self.embedding.copy_(embedding)
        self.embedded_step()
        return self.out_text.clone(), self.out_audio.clone()

    def _run_forced(self) -> None:
        self._keep(self.generator.step(self.user, self.state, agent_audio=self.agent, text=self.text, sample=False))

    def _run_embedded(self) -> None:
        self._keep(self.generator.step_embeddings(self.embedding, self.state, sample=False))

    def _keep(self, outputs: tuple[torch.Tensor, torch.Tensor]) -> None:
        self.out_text.copy_(outputs[0])
        self.out_audio.copy_(outputs[1])
