"""ATen ops per LM frame: how many kernels the 7B frame launches, counted on the CPU.

A 7B frame on a GPU is launch-bound, so the op count is the figure that matters there. The
count depends on the layer counts and the dtype, not on the widths, so it is taken on a model
with the 7B layer counts (32 temporal, 6 depth-transformer layers, 8 or 16 depformer steps) and
tiny widths, in bfloat16 as on a GPU, with sampling on (the live default). It covers one
generator step (temporal transformer, text sampling, the depth transformer and its sampling), not
Mimi. For PersonaPlex it also counts a prompt-phase step (every stream forced, so no text head,
sampling or depth transformer: ``sample=False``). Two counts: ``dispatched``, the ops Python's
dispatcher sees (a ``TorchDispatchMode``; ops with their own kernel count once), and
``profiled``, every ATen op the profiler records, nested ones included (e.g. the ``where`` that
attention runs inside to turn a boolean mask into a float one). ``kernels`` estimates what a GPU
would launch: the profiled ops that run no other op (leaves), without views and allocations,
which launch nothing.

    .venv/bin/python -m bench.op_count [--json bench/results/op_count.json]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from bench.common import cpu_model
from engine.lm.generate import SamplingConfig, make_generator
from engine.lm.model import LMConfig, LMModel

TINY_WIDTHS = dict(dim=64, num_heads=2, hidden_scale=4.125, text_card=64, card=64, depformer_dim=32,
                   depformer_num_heads=2, depformer_dim_feedforward=132, context=50)


NO_KERNEL = {"aten::" + n for n in (
    "as_strided", "view", "_unsafe_view", "reshape", "transpose", "t", "permute", "expand", "select", "slice",
    "unsqueeze", "squeeze", "unflatten", "flatten", "alias", "detach", "unbind", "split", "split_with_sizes",
    "empty", "empty_strided", "empty_like", "lift_fresh", "resolve_conj", "resolve_neg", "result_type")}


class OpCounter(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops: Counter[str] = Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops[func._schema.name] += 1
        return func(*args, **(kwargs or {}))


def live_step(gen, state, user) -> None:
    gen.step(user, state)


def prompt_step(gen, state, user) -> None:
    """A PersonaPlex prompt-phase step: the agent's audio and the text forced, nothing sampled."""
    agent = torch.zeros(1, 8, dtype=torch.long)
    gen.step(user, state, agent_audio=agent, text=torch.zeros(1, dtype=torch.long), sample=False)


def count_frame(config: LMConfig, dtype: torch.dtype = torch.bfloat16, warm_frames: int = 3, step=live_step
                ) -> tuple[Counter[str], Counter[str], Counter[str]]:
    """(dispatched, profiled, kernels) ATen ops of one generator ``step``, after ``warm_frames`` live
    steps (so that nothing lazy is counted)."""
    from torch.profiler import ProfilerActivity, profile

    torch.manual_seed(0)
    lm = LMModel(config, dtype=dtype).eval().requires_grad_(False)
    gen = make_generator(lm, SamplingConfig())
    state = gen.init_state(1, seed=0)
    user = torch.zeros(1, config.n_q - config.dep_q if not config.is_personaplex else 8, dtype=torch.long)
    for _ in range(warm_frames):
        gen.step(user, state)
    counter = OpCounter()
    with counter:
        step(gen, state, user)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        step(gen, state, user)
    events = [e for e in prof.events() if e.name.startswith("aten::")]
    profiled = Counter(e.name for e in events)
    kernels = Counter(e.name for e in events if not e.cpu_children and e.name not in NO_KERNEL)
    return counter.ops, profiled, kernels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the counts here")
    args = parser.parse_args()
    results = {"cpu": cpu_model(), "torch": torch.__version__, "dtype": "bfloat16", "frames": {}}
    personaplex = LMConfig(**TINY_WIDTHS, dep_q=16, model_type="personaplex")
    for name, config, step in [("moshi", LMConfig(**TINY_WIDTHS), live_step),
                               ("personaplex", personaplex, live_step),
                               ("personaplex_prompt_step", personaplex, prompt_step)]:
        counts = dict(zip(("dispatched", "profiled", "kernels"), count_frame(config, step=step)))
        results["frames"][name] = {**{k: sum(c.values()) for k, c in counts.items()},
                                   **{f"top_{k}": dict(c.most_common(12)) for k, c in counts.items()}}
        print(f"{name}: " + ", ".join(f"{sum(c.values())} {k}" for k, c in counts.items())
              + f" ATen ops per frame; most common kernels: {counts['kernels'].most_common(6)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
