"""One GPU check (about 7 minutes on an H100 or H200, ``--budget-s``): CUDA graph vs eager parity,
per-frame times in each precision (bfloat16, int8 with each kernel candidate, fp8, int4), the reference
on the same GPU, the memory-bandwidth floor, bfloat16 and int8 under the memory of a 12, 16 and
24 GB card, and where a frame's time goes (``--profile``).

For the demo model (built locally, no download) and for random-weight models with the full 7B
Moshi and PersonaPlex configurations in the released layout (built on the device as a load
builds them: ``random_lm``):

- eager ``FrameStep`` vs graph ``FrameStep`` from the same seed over ``--frames`` frames (sampled):
  the tokens must be identical (``parity``);
- per-frame time with CUDA events (median, p95, p99): eager, graph, and per quantised precision
  (``precisions``): the graph with int8 weights through each kernel candidate that agrees with its
  dequantised reference (``engine.kernels.int8``; which one the engine chose by timing), with fp8
  weights (the kernel the engine chose, ``engine.kernels.fp8``) and with int4 weights; each with the
  ratio of its median to bfloat16's, the time to build and quantise (``load_s``), the tokens
  identical to bfloat16's, and whether it really replayed a graph
  (``graph_active``) or why not (``fallback_reason``);
- ``kernels``: each int8 and fp8 candidate's time at the 7B matmul shapes, and the int4 ones (the plain
  dequantising path and torch's ``_weight_int4pack_mm`` on its tiled layout), each against its
  reference;
- ``memory_caps`` (``--caps``, ``--cap-precisions``): per precision and card size, the process
  limited with ``torch.cuda.set_per_process_memory_fraction`` to what such a card leaves beside
  this CUDA context: the model built, quantised and run for a few frames (the KV cache is
  allocated for the full context from the start), whether it fit, the memory in use, and the
  estimate (``engine.runtime.gpu_memory.needed_gb``) that must not be below it (``estimate_ok``;
  ``bench/gpu_memory_caps.py``);
- ``profile`` (``--profile``; 7B models): torch.profiler with CUDA activity over one eager frame and
  20 graph replays: kernels per frame, the top 30 kernels by time, attention µs per call, the
  matrix-vector products' GB/s per shape (``bench/gpu_profile.py``);
- the reference ``moshi`` LMGen + Mimi (its own CUDA graphs) on the same GPU, without its
  torch.compile (``reference``) and, on CUDA, with it (``reference_compiled``: as its users run it);
- demo only (both load its files): ours and the reference greedy in float32 on the same GPU, the
  frames whose tokens are identical (exactness on the device, not only on the CPU);
- the GPU memory each run needed (peak allocated; in use on the device with the CUDA context);
- the bandwidth floor: bytes touched per frame (LM weights without embeddings, the temporal KV
  ring read by attention, Mimi's weights) / measured device-to-device copy bandwidth.

Each stage (the copy bandwidth, the kernel timings, and per model build, eager, graph, int8,
reference, ...) is written to the JSON as soon as it ends; a stage that fails is recorded with its
error and the others still run (exit status 1). ``--budget-s`` (default 420 on CUDA: one short
call) skips a stage whose estimate (``STAGE_S``) would not finish in the time left beside what the
next models' stages need; ``--estimate`` prints the plan and its total without running anything.
Nothing here needs soxr, platformdirs or the app's packages (the device image has none of them);
the reference needs ``moshi`` (see bench/README.md).

Graph frames run under ``torch.cuda.set_sync_debug_mode("error")`` (a host sync raises) and the
capture uses ``capture_error_mode="global"`` (inside ``FrameStep``).

    python -m bench.gpu_check                 # CUDA: writes bench/results/gpu_check.json
    python -m bench.gpu_check --estimate      # the stages a run would take, and their seconds
    python -m bench.gpu_check --smoke         # CPU: tiny LMs and the demo, 5 frames (CI keeps it working);
                                              # writes SMOKE_OUT unless --out says where

One module per stage of the check: ``plan`` (each model's stages and their seconds), ``models``
(building ours and the reference's), ``frames`` (frames run and timed, parity, the floor),
``kernels`` (the quantised matmul kernels), ``stages`` (one model's stages, each recorded as it
ends) and ``cli`` (the options, the budget, the report and its table).
"""

