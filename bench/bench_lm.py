"""One LM generator step (temporal transformer + depformer + sampling), ours vs the reference
``moshi.models.lm.LMGen``, float32 on the CPU, with 1 and 2 threads.

Both run the same random weights in the same process; timings alternate between the two in
blocks so machine noise hits both alike. Reports the median (and p90) over the timed steps and
the ratio reference / ours (> 1: ours is faster). Optionally also our step with int8
weight-only quantisation (``engine.kernels.quantize``, the app's "int8" precision) and its greedy
agreement with float32.

    .venv/bin/python -m bench.bench_lm [--steps 40] [--warmup 8] [--threads 1 2] [--configs demo mid]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("NO_TORCH_COMPILE", "1")
os.environ.setdefault("NO_CUDA_GRAPH", "1")

import torch  # noqa: E402

from bench.common import cpu_model, summary  # noqa: E402
from engine.checkpoint import load_strict, stack_split_attention  # noqa: E402
from engine.kernels.packed import pack_linears  # noqa: E402
from engine.kernels.quantize import quantize_lm_int8  # noqa: E402
from engine.lm.generate import MoshiGenerator, SamplingConfig  # noqa: E402
from engine.lm.model import LMConfig, LMModel  # noqa: E402

CONFIGS = {
    # The built-in demo model's LM (assets/demo_model.json).
    "demo": LMConfig(dim=384, num_heads=6, num_layers=4, text_card=1000, depformer_dim=256,
                     depformer_dim_feedforward=1056, depformer_num_heads=4, depformer_num_layers=2),
    "mid": LMConfig(dim=1024, num_heads=16, num_layers=8, text_card=32000, depformer_dim=512,
                    depformer_dim_feedforward=int(4.125 * 512), depformer_num_heads=8, depformer_num_layers=4),
}


RESULTS = Path(__file__).resolve().parent / "results" / "lm.json"

def reference_kwargs(c: LMConfig) -> dict:
    return dict(dim=c.dim, num_heads=c.num_heads, num_layers=c.num_layers, hidden_scale=c.hidden_scale,
                gating=c.gating, norm=c.norm, positional_embedding=c.positional_embedding,
                max_period=c.max_period, layer_scale=None, context=c.context, causal=True,
                text_card=c.text_card, card=c.card, n_q=c.n_q, dep_q=c.dep_q, delays=list(c.delays),
                existing_text_padding_id=c.existing_text_padding_id, depformer_dim=c.depformer_dim,
                depformer_dim_feedforward=c.depformer_dim_feedforward,
                depformer_num_heads=c.depformer_num_heads, depformer_num_layers=c.depformer_num_layers,
                depformer_multi_linear=True, depformer_context=8, depformer_max_period=c.depformer_max_period,
                depformer_gating=c.depformer_gating, depformer_pos_emb=c.depformer_pos_emb,
                depformer_weights_per_step=True, depformer_layer_scale=None)


def build(config: LMConfig):
    from moshi.models.lm import LMModel as Reference

    torch.manual_seed(0)
    ref = Reference(**reference_kwargs(config)).eval()
    with torch.no_grad():
        for name, p in ref.named_parameters():
            if "emb" in name:
                p.normal_()
            elif "alpha" not in name:
                p.normal_(std=p.shape[-1] ** -0.5)
    ours = LMModel(config).eval().requires_grad_(False)
    load_strict(ours, stack_split_attention(ref.state_dict()), "reference weights")
    return ref, ours


def timed(fn, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def stats(ms: list[float]) -> str:
    s = summary(ms)
    return f"median {s['median_ms']:7.2f} ms  p95 {s['p95_ms']:7.2f} ms"


def greedy_agreement(ours: LMModel, quantized: LMModel, frames: int = 40) -> float:
    """Teacher-forced top-1 agreement of int8 with float32: both models get the same input columns
    and the float32 model's tokens as depformer inputs; counts equal argmaxes (text + codebooks)."""
    g = torch.Generator().manual_seed(1)
    c = ours.config
    columns = torch.randint(0, c.card, (frames, 1, c.n_q + 1), generator=g)
    columns[:, :, 0] %= c.text_card
    states = ours.init_state(1), quantized.init_state(1)
    agree = total = 0
    for column in columns:
        h, logits = ours.temporal_step(ours.embed_codes(column), states[0])
        hq, logits_q = quantized.temporal_step(quantized.embed_codes(column), states[1])
        text = logits.argmax(-1)
        tokens = ours.depformer_frame(h, text, states[0]["depformer"], lambda lg, cb: lg.argmax(-1))
        picked = []

        def follow(lg, cb, picked=picked, tokens=tokens):
            picked.append(lg.argmax(-1))
            return tokens[:, cb]

        quantized.depformer_frame(hq, text, states[1]["depformer"], follow)
        agree += int((logits_q.argmax(-1) == text).sum()) + int((torch.stack(picked, 1) == tokens).sum())
        total += c.token_streams
    return agree / total


def bench(name: str, threads: int, steps: int, warmup: int, int8: bool) -> dict:
    from moshi.models.lm import LMGen

    torch.set_num_threads(threads)
    ref, ours = build(CONFIGS[name])
    g = torch.Generator().manual_seed(0)
    codes = torch.randint(0, 2048, (warmup + steps + 1, 1, 8), generator=g)
    ref_gen = LMGen(ref)  # reference defaults: sampling, temp 0.8/0.7, top-k 250/25
    gen = MoshiGenerator(ours, SamplingConfig())
    state = gen.init_state(1, seed=0)
    runners = {"ours": (lambda i: gen.step(codes[i, :, :], state))}
    packed = copy.deepcopy(ours)
    pack_linears(packed)  # what engine.runtime.session does on CPU in float32
    pgen = MoshiGenerator(packed, SamplingConfig())
    pstate = pgen.init_state(1, seed=0)
    runners["ours-packed"] = lambda i: pgen.step(codes[i], pstate)
    if int8:
        q = quantize_lm_int8(copy.deepcopy(ours))
        qgen = MoshiGenerator(q, SamplingConfig())
        qstate = qgen.init_state(1, seed=0)
        runners["ours-int8"] = lambda i: qgen.step(codes[i], qstate)
    times = {k: [] for k in ["reference", *runners]}
    with torch.inference_mode(), ref_gen.streaming(1):
        runners["reference"] = lambda i: ref_gen.step(codes[i][:, :, None])
        for i in range(warmup):
            for run in runners.values():
                run(i)
        block = 5
        for start in range(warmup, warmup + steps, block):
            for key, run in runners.items():
                idx = iter(range(start, min(start + block, warmup + steps)))
                times[key] += timed(lambda run=run, idx=idx: run(next(idx)), min(block, warmup + steps - start))
    result = {k: statistics.median(v) for k, v in times.items()}
    print(f"[{name}, {threads} thread{'s' if threads > 1 else ''}]")
    for key, v in times.items():
        print(f"  {key:10s} {stats(v)}")
    print(f"  ratio reference/ours: {result['reference'] / result['ours']:.2f}x")
    print(f"  ratio reference/ours-packed: {result['reference'] / result['ours-packed']:.2f}x")
    if int8:
        print(f"  ratio reference/ours-int8: {result['reference'] / result['ours-int8']:.2f}x")
        with torch.inference_mode():
            agreement = greedy_agreement(ours, q)
        print(f"  int8 vs float32 top-1 agreement (teacher-forced, random weights): {agreement:.0%} of tokens")
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--warmup", type=int, default=8)
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    p.add_argument("--no-int8", action="store_true", help="skip the int8 weight-only variant")
    args = p.parse_args()
    print(f"torch {torch.__version__}, float32, CPU; {args.steps} timed steps after {args.warmup} warm-up")
    runs = []
    for name in args.configs:
        for threads in args.threads:
            medians = bench(name, threads, args.steps, args.warmup, not args.no_int8)
            runs.append({"config": name, "threads": threads, "median_ms": {k: round(v, 2) for k, v in medians.items()}})
    report = {"torch": torch.__version__, "cpu": cpu_model(), "cores": os.cpu_count(), "steps": args.steps,
              "command": "python -m bench.bench_lm " + " ".join(sys.argv[1:]), "runs": runs}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
