"""The kernel plan (engine/runtime/kernel_plan.py): measured at load time, cached per machine and
model, ignored when damaged or foreign, and exact in float32 whichever candidate it picks: the demo
model's greedy tokens equal the reference package's with every exact kernel forced, and with the
measured plan. The bfloat16-weight matmul is offered only where the precision is bfloat16 and the
CPU runs it (tests that need it run where it does; a CPU without it is also simulated everywhere)."""

from __future__ import annotations

import hashlib
import json
import time

import numpy as np
import pytest
import torch

from engine import FRAME_SIZE, SamplingConfig, load_model, read_wav
from engine.kernels import packed
from engine.kernels.packed import (
    BF16_MATMUL_KERNEL,
    EXACT_MATMUL_KERNELS,
    MATMUL_KERNELS,
    TRANSPOSED_MATMUL_KERNEL,
    PackedMatmul,
    bf16_matmul_runs,
    native_bf16_matmul,
)
from engine.runtime import kernel_plan, loading, model_info, thread_cache
from engine.runtime.cpu import cpu_features, cpu_model
from engine.runtime.loading import Precision
from tests.conftest import SPEECH
from tests.rounding import assert_linear_close, assert_within, linear_rounding_bound
from tests.test_offline import reference_tokens

SECONDS = 4
# These run the bfloat16 kernel itself; what decides when it is offered runs on every CPU
# (test_the_bfloat16_kernel_is_offered_at_bfloat16_precision_only_on_any_cpu).
needs_bf16_matmul = pytest.mark.skipif(not bf16_matmul_runs(), reason="needs a CPU that runs oneDNN's bfloat16 "
                                       "matmul (AVX512-BW/VL/DQ or AVX-NE-CONVERT); this one cannot")


APP_MEASUREMENT = {"TIMED_SITES": kernel_plan.TIMED_SITES, "SWEEP_REPEATS": kernel_plan.SWEEP_REPEATS}


@pytest.fixture
def plan_dir(tmp_path, monkeypatch):
    """A private cache (so each test starts without a plan), the demo model built in the suite's.
    Its plans time one site per group in one ABBA pair of sweeps (the app: ``APP_MEASUREMENT``), an
    eighth of the work: what these tests check does not depend on how steady the times are."""
    cache = tmp_path / "cache"
    monkeypatch.setattr(kernel_plan, "cache_root", lambda: cache)
    monkeypatch.setattr(thread_cache, "cache_root", lambda: cache)  # the thread choice is kept beside the plans
    monkeypatch.setattr(kernel_plan, "TIMED_SITES", 1)
    monkeypatch.setattr(kernel_plan, "SWEEP_REPEATS", 2)
    return cache / "kernel-plans"


def test_the_plan_is_measured_once_then_read_from_the_cache(plan_dir, demo_model_dir, monkeypatch):
    for name, value in APP_MEASUREMENT.items():  # measured as the app measures: its time is the budget's
        monkeypatch.setattr(kernel_plan, name, value)
    first = load_model(str(demo_model_dir), device="cpu").kernel_plan
    assert first.source == "measured" and 0 < first.planning_s < 10.0  # the budget for the demo
    files = list(plan_dir.glob("*.json"))
    assert len(files) == 1
    stored = json.loads(files[0].read_text())
    assert stored["key"]["cpu"] == cpu_model() and stored["key"]["cpu_features"] == cpu_features()
    assert stored["key"]["torch"] == torch.__version__
    assert stored["key"]["threads"] == str(torch.get_num_threads())
    ops = {c.op for c in first.choices}
    # Every stage of a frame was recorded: Mimi's encoder and decoder, its transformers, both LMs.
    assert any(op.startswith("conv1d 1->") for op in ops) and any(op.startswith("convtr1d") for op in ops)
    assert any(op.startswith("linear 1x") for op in ops) and any(op.startswith("linear 2x") for op in ops)
    for choice in first.choices:  # the fastest measured candidate, and more than one was measured
        assert len(choice.times_us) >= 2 and choice.kernel == min(choice.times_us, key=choice.times_us.get)

    second = load_model(str(demo_model_dir), device="cpu").kernel_plan
    assert second.source == "cache" and second.planning_s == 0.0
    assert [(c.op, c.kernel) for c in second.choices] == [(c.op, c.kernel) for c in first.choices]


def test_the_cpu_is_described_by_more_than_the_name_a_virtual_machine_shows():
    """Read as the system says it (Linux here): a plan is keyed by the name, the family, model and
    stepping, and a digest of the instruction-set flags."""
    fields = {}
    with open("/proc/cpuinfo") as f:
        for line in f:
            if not line.strip():
                break
            key, _, value = line.partition(":")
            fields[key.strip()] = value.strip()
    described = cpu_model()
    assert described.startswith(fields.get("model name", ""))
    if "cpu family" in fields:  # x86
        assert f"cpu family {fields['cpu family']}, model {fields['model']}" in described, described
    flags = fields.get("flags") or fields.get("Features")
    if flags:
        # the digest of the flags as a set: their order on the line does not matter
        assert cpu_features() == hashlib.sha256(" ".join(sorted(flags.split())).encode()).hexdigest()[:12]
        assert cpu_features() != hashlib.sha256(b"").hexdigest()[:12]


@pytest.mark.parametrize("damage", ["garbage", "foreign", "same name, other features"])
def test_a_damaged_or_foreign_plan_is_ignored_and_rewritten(plan_dir, demo_model_dir, damage):
    load_model(str(demo_model_dir), device="cpu")
    path = next(plan_dir.glob("*.json"))
    if damage == "garbage":
        path.write_bytes(b"\x00{not json")
    else:  # a plan for another machine, copied over this one's
        data = json.loads(path.read_text())
        if damage == "foreign":
            data["key"]["cpu"] = "Some Other CPU"
        else:  # a virtual machine of the same name that hides (or shows) other instructions
            data["key"]["cpu_features"] = "0" * 12
        path.write_text(json.dumps(data))
    again = load_model(str(demo_model_dir), device="cpu").kernel_plan
    assert again.source == "measured"
    assert json.loads(path.read_text())["key"] == again.key


def test_an_unknown_forced_kernel_is_a_clear_error(demo_model_dir, monkeypatch):
    monkeypatch.setenv(kernel_plan.FORCE_ENV, "fastest-please")
    with pytest.raises(ValueError, match="PARLEY_KERNELS.*aten"):
        load_model(str(demo_model_dir), device="cpu")


@pytest.fixture(scope="module")
def speech_and_reference(demo_model_dir):
    pcm = read_wav(SPEECH["story_16k.wav"])[: 24000 * SECONDS]
    text, audio, _ = reference_tokens(demo_model_dir, pcm)
    return pcm, text, audio


@pytest.mark.reference
@pytest.mark.parametrize("forced", ["", *EXACT_MATMUL_KERNELS, "rule"])
def test_every_candidate_gives_the_reference_tokens(plan_dir, demo_model_dir, speech_and_reference, forced,
                                                    monkeypatch):
    if forced:
        monkeypatch.setenv(kernel_plan.FORCE_ENV, forced)
    model = load_model(str(demo_model_dir), device="cpu", precision="float32")
    assert model.kernel_plan.source == (f"forced:{forced}" if forced else "measured")
    assert not any("bf16" in k for c in model.kernel_plan.choices for k in (c.kernel, *c.times_us))
    if forced in EXACT_MATMUL_KERNELS:
        assert all(c.kernel.endswith(forced) or c.kernel in ("matmul", "conv") for c in model.kernel_plan.choices)
    pcm, ref_text, ref_audio = speech_and_reference
    session = model.new_session(SamplingConfig.greedy(), record_audio=False)
    frames = pcm.size // FRAME_SIZE
    text, audio = [], []
    for i in range(frames):
        result = session.step(pcm[i * FRAME_SIZE : (i + 1) * FRAME_SIZE])
        if result.text_token is not None:
            text.append(int(result.text_token))
            audio.append([int(c) for c in np.asarray(result.audio_codes).reshape(-1)])
    assert len(text) == frames - 1 and len(set(text)) > 5
    same = sum(a == b and x == y for a, b, x, y in zip(text, ref_text, audio, ref_audio))
    assert same == len(text), f"{len(text) - same} of {len(text)} frames differ with kernels {forced or 'planned'}"


@pytest.mark.parametrize("runs_here", [False, True])
def test_the_bfloat16_kernel_is_offered_at_bfloat16_precision_only_on_any_cpu(runs_here, monkeypatch):
    """Whether this CPU runs the kernel or not (both cases simulated), the offer follows the rule:
    float32 weights, precision bfloat16 and a CPU that runs it; the plan's key says whether it was."""
    monkeypatch.setattr(packed, "bf16_matmul_runs", lambda: runs_here)
    weight = torch.zeros(8, 8)
    assert packed.matmul_kernels(weight, allow_bf16=False) == EXACT_MATMUL_KERNELS
    assert packed.matmul_kernels(weight, allow_bf16=True) == (MATMUL_KERNELS if runs_here else EXACT_MATMUL_KERNELS)
    assert BF16_MATMUL_KERNEL in MATMUL_KERNELS and BF16_MATMUL_KERNEL not in EXACT_MATMUL_KERNELS
    assert packed.matmul_kernels(weight.double(), allow_bf16=True) == ()  # nothing to choose from: ATen's
    assert kernel_plan.plan_key("f", torch.float32, True)["bf16_matmuls"] == "allowed"
    assert kernel_plan.plan_key("f", torch.float32, False)["bf16_matmuls"] == "no"


@needs_bf16_matmul
def test_bfloat16_weights_are_a_candidate_only_at_bfloat16_precision(plan_dir, demo_model_dir):
    exact = load_model(str(demo_model_dir), device="cpu", precision="float32")
    assert exact.kernel_plan.key["bf16_matmuls"] == "no" and not exact.kernel_plan.uses_bf16
    assert all("bf16" not in k for c in exact.kernel_plan.choices for k in c.times_us)

    mixed = load_model(str(demo_model_dir), device="cpu", precision="bfloat16")
    plan = mixed.kernel_plan
    assert plan.key["bf16_matmuls"] == "allowed" and plan.source == "measured"  # its own cache entry
    offered = [c for c in plan.choices if any(k.endswith("bf16") for k in c.times_us)]
    assert any(c.op.startswith("linear") for c in offered) and any(c.op.startswith("conv") for c in offered)
    for choice in plan.choices:
        assert choice.kernel == min(choice.times_us, key=choice.times_us.get)
    # The model says what it computes with: bfloat16 only where a matmul chose it.
    assert mixed.info.precision is (Precision.BFLOAT16 if plan.uses_bf16 else Precision.FLOAT32)
    assert mixed.dtype == torch.float32  # activations and state stay float32 on the CPU


@needs_bf16_matmul
def test_forcing_bfloat16_weights_needs_bfloat16_precision(plan_dir, demo_model_dir, monkeypatch):
    monkeypatch.setenv(kernel_plan.FORCE_ENV, "bf16")
    with pytest.raises(ValueError, match="bfloat16 weights need precision bfloat16"):
        load_model(str(demo_model_dir), device="cpu", precision="float32")
    model = load_model(str(demo_model_dir), device="cpu", precision="bfloat16")
    assert model.kernel_plan.uses_bf16 and model.info.precision is Precision.BFLOAT16
    monkeypatch.delenv(kernel_plan.FORCE_ENV)
    exact = load_model(str(demo_model_dir), device="cpu", precision="float32")
    # Mimi with every matmul in bfloat16 still encodes and decodes what float32 does, closely.
    pcm = torch.from_numpy(read_wav(SPEECH["story_16k.wav"])[: FRAME_SIZE * 25]).view(1, 1, -1)

    def stream(mimi, codes=None):
        state = mimi.init_state(1)
        with torch.inference_mode():
            own = torch.cat([mimi.encode_step(frame, state) for frame in pcm.split(FRAME_SIZE, dim=-1)], dim=-1)
            heard = own if codes is None else codes
            return own, torch.cat([mimi.decode_step(c, state) for c in heard.split(1, dim=-1)], dim=-1)

    codes32, audio32 = stream(exact.mimi)
    codes16, audio16 = stream(model.mimi, codes32)  # both decoders decode the same codes
    agree = (codes32 == codes16).float().mean().item()
    assert agree > 0.75, f"bfloat16 weights changed {1 - agree:.0%} of Mimi's codes"
    snr = 10 * torch.log10(audio32.pow(2).sum() / (audio32 - audio16).pow(2).sum()).item()
    assert snr > 30, f"bfloat16 decoding is {snr:.1f} dB from float32's"


def test_candidates_are_timed_where_the_frame_runs_them(monkeypatch):
    """Every sweep runs the timed sites once, in frame order (so each weight meets the caches as in
    a frame), each group on one candidate; every candidate of every group is timed, and all of a
    group's sites (timed or not: up to ``TIMED_SITES`` are) take the fastest."""
    monkeypatch.setattr(kernel_plan, "TIMED_SITES", 2)
    calls = []

    class Site:
        def __init__(self, name, op, slow):
            self.name, self.op, self.slow, self.kernel = name, op, slow, None

        def candidates(self):
            return ("a", "b", "c") if self.op == "three" else ("a", "b")

        def apply(self, kernel):
            self.kernel = kernel

        def runner(self):
            def run():
                calls.append((self.name, self.kernel))
                time.sleep(0.002 if self.kernel == self.slow else 0.0002)
            return run

    sites = [Site("first", "three", "a"), Site("second", "two", "b"), Site("third", "three", "a"),
             Site("fourth", "three", "a")]
    choices = {c.op: c for c in kernel_plan._measure(sites)}
    order = [name for name, _ in calls]
    assert order == ["first", "second", "third"] * (len(order) // 3)  # "fourth" is not timed
    sweeps = [calls[i:i + 3] for i in range(0, len(calls), 3)]
    assert all(s[0][1] == s[2][1] for s in sweeps)  # one candidate per group and sweep
    assert {k for s in sweeps for _, k in s[::2]} == {"a", "b", "c"} and {s[1][1] for s in sweeps} == {"a", "b"}
    assert set(choices["three"].times_us) == {"a", "b", "c"} and choices["three"].kernel != "a"
    assert choices["two"].kernel == "a" and choices["two"].sites == 1 and choices["three"].sites == 3
    best = choices["three"].kernel
    assert [site.kernel for site in sites] == [best, "a", best, best]


@pytest.mark.parametrize("kernel", EXACT_MATMUL_KERNELS)
@pytest.mark.parametrize("bias", [False, True])
def test_every_exact_matmul_is_float32_linear_for_any_leading_shape(kernel, bias):
    """The rows of a streaming step come as [rows, in] or [batch, steps, in], and a transposed
    convolution passes its weight as a transposed view: each exact kernel computes ``F.linear``
    there, on the kernel it was asked for, to float32 rounding: each kernel sums in its own order, and
    which order depends on the CPU (AVX2, AVX-512, AMX), so the bound is the arithmetic's, not a
    number measured on one machine."""
    torch.manual_seed(0)
    stored = torch.randn(256, 384)
    b = torch.randn(384) if bias else None
    for weight in (stored.t().contiguous(), stored.t()):  # [out, in]; the same as a view
        matmul = PackedMatmul(kernel)
        matmul.pack(weight)
        assert (matmul.packed is None) == (kernel == "aten")
        for x in (torch.randn(1, 256), torch.randn(2, 256), torch.randn(1, 2, 256), torch.randn(3, 2, 256)):
            got = matmul(x, weight, b)
            assert got.shape == (*x.shape[:-1], 384)
            assert_linear_close(got, x, weight, b)
    if kernel == TRANSPOSED_MATMUL_KERNEL:  # the view's transpose is the stored tensor: no copy kept
        assert matmul.packed.data_ptr() == stored.data_ptr()


@needs_bf16_matmul
@pytest.mark.parametrize("bias", [False, True])
def test_the_bfloat16_matmul_rounds_the_weight_and_input_only(bias):
    torch.manual_seed(0)
    weight, x = torch.randn(384, 256), torch.randn(2, 256)
    b = torch.randn(384) if bias else None
    matmul = PackedMatmul("bf16")
    matmul.pack(weight)
    got = matmul(x, weight, b)
    x16, weight16 = x.bfloat16().float(), weight.bfloat16().float()
    product = torch.nn.functional.linear(x16, weight16)
    rounded = product.bfloat16().float() + (0 if b is None else b)  # bias added in float32
    exact = torch.nn.functional.linear(x, weight, b)
    assert got.dtype == torch.float32 and matmul.packed is not None
    # One bfloat16 step of the product (at most 2^-7 of it) either way, as the float32 sum's order
    # (this CPU's, within the linear bound) may round it to the neighbouring bfloat16 value.
    assert_within(got, rounded, 2**-7 * product.abs() + linear_rounding_bound(x16, weight16, b), "bfloat16 matmul")
    error = ((got - exact).norm() / exact.norm()).item()
    assert 1e-4 < error < 1e-2


def test_on_a_cpu_without_a_bfloat16_matmul_precision_bfloat16_computes_in_float32(plan_dir, demo_model_dir,
                                                                                      monkeypatch):
    # What an AVX2-only CPU (an AMD EPYC here) does; simulated where the kernel runs.
    for module in (packed, kernel_plan):
        monkeypatch.setattr(module, "bf16_matmul_runs", lambda: False)
    assert not native_bf16_matmul() and Precision.AUTO.resolve(torch.device("cpu")) is Precision.FLOAT32
    model = load_model(str(demo_model_dir), device="cpu", precision="bfloat16")
    plan = model.kernel_plan
    assert plan.source == "measured" and not plan.uses_bf16
    assert all("bf16" not in k for c in plan.choices for k in c.times_us)
    assert model.info.precision is Precision.FLOAT32  # it says what it computes with
    session = model.new_session(SamplingConfig(), record_audio=False)
    for _ in range(3):
        session.step(np.zeros(FRAME_SIZE, dtype=np.float32))

    with pytest.raises(ValueError, match="this CPU cannot run oneDNN's bfloat16 matmul"):
        PackedMatmul("bf16")
    with pytest.raises(ValueError, match="this CPU cannot run oneDNN's bfloat16 matmul"):
        PackedMatmul().use("bf16")
    monkeypatch.setenv(kernel_plan.FORCE_ENV, "bf16")
    with pytest.raises(ValueError, match=f"{kernel_plan.FORCE_ENV}=bf16: this CPU cannot run"):
        load_model(str(demo_model_dir), device="cpu", precision="bfloat16")


def test_auto_is_bfloat16_only_where_the_cpu_multiplies_it_natively(monkeypatch):
    cpu = torch.device("cpu")
    assert Precision.AUTO.resolve(cpu) is (Precision.BFLOAT16 if native_bf16_matmul() else Precision.FLOAT32)
    monkeypatch.setattr(model_info, "native_bf16_matmul", lambda: False)
    assert Precision.AUTO.resolve(cpu) is Precision.FLOAT32
    monkeypatch.setattr(model_info, "native_bf16_matmul", lambda: True)
    assert Precision.AUTO.resolve(cpu) is Precision.BFLOAT16
    assert Precision.AUTO.resolve(torch.device("cuda")) is Precision.BFLOAT16
    assert Precision.BFLOAT16.activation_dtype(cpu) == torch.float32


@pytest.fixture
def spare_cores(monkeypatch):
    """A machine where the app may run its frames with one thread or two (a core left over for the
    window and the audio at both): what the measurement tests need, on any machine that runs them."""
    from engine.runtime import threads

    def two_candidates(cores=None):
        return (1, 2)

    monkeypatch.setattr(threads, "thread_candidates", two_candidates)
    monkeypatch.setattr(thread_cache, "thread_candidates", two_candidates)
    return two_candidates()


def test_the_thread_count_is_measured_once_per_model_and_kept(demo_model_dir, spare_cores):
    before = torch.get_num_threads()
    try:
        model = load_model(str(demo_model_dir), device="cpu")
        choice = model.use_best_threads()
        assert tuple(choice.mean_ms) == tuple(choice.p90_ms) == spare_cores
        assert_best_thread_count(choice.threads, choice.mean_ms, choice.p90_ms)
        assert torch.get_num_threads() == choice.threads
        assert model.kernel_plan.key["threads"] == str(choice.threads)  # planned for the count it runs with
        torch.set_num_threads(1 if choice.threads != 1 else 2)
        assert model.use_best_threads() is choice and torch.get_num_threads() == choice.threads
    finally:
        torch.set_num_threads(before)


def test_kernels_are_planned_again_for_the_thread_count_the_frames_run_with(plan_dir, demo_model_dir, monkeypatch):
    from engine.runtime.threads import ThreadChoice

    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)  # loading (and its plan) runs with what the app starts with
        model = load_model(str(demo_model_dir), device="cpu")
        assert model.kernel_plan.key["threads"] == "1"
        two_threads = ThreadChoice(2, {1: 50.0, 2: 40.0}, {1: 55.0, 2: 45.0}, 0.1)
        monkeypatch.setattr(loading, "choose_threads", lambda m: two_threads)
        model.use_best_threads()  # the measurement said two threads
        assert torch.get_num_threads() == 2
        assert model.kernel_plan.key["threads"] == "2" and model.kernel_plan.source == "measured"
        assert len(list(plan_dir.glob("*.json"))) == 2  # one plan per thread count, both kept
    finally:
        torch.set_num_threads(before)


def test_the_thread_choice_is_kept_for_the_next_start_and_measured_again_for_another_torch_build(
        plan_dir, demo_model_dir, monkeypatch, caplog):
    from engine.runtime.threads import ThreadChoice

    measured = []

    def measure(model):
        measured.append(model)
        return ThreadChoice(1, {1: 30.0, 2: 40.0}, {1: 35.0, 2: 45.0}, 0.1)

    monkeypatch.setattr(loading, "choose_threads", measure)
    before = torch.get_num_threads()
    try:
        load_model(str(demo_model_dir), device="cpu").use_best_threads()
        choice = load_model(str(demo_model_dir), device="cpu").use_best_threads()  # the next start
        assert len(measured) == 1 and choice.threads == 1 and torch.get_num_threads() == 1
        assert choice.mean_ms == {1: 30.0, 2: 40.0} and choice.p90_ms == {1: 35.0, 2: 45.0}
        (kept,) = (plan_dir.parent / "thread-choices").glob("*.json")
        kept.write_text("{damaged")
        load_model(str(demo_model_dir), device="cpu").use_best_threads()
        assert len(measured) == 2  # a damaged file is measured again (and replaced)
        data = json.loads(kept.read_text())
        kept.write_text(json.dumps({**data, "threads": 4096}))
        caplog.clear()
        load_model(str(demo_model_dir), device="cpu").use_best_threads()
        assert len(measured) == 3 and torch.get_num_threads() == 1  # never a count this machine would not choose
        # and not called damage (the commands' stderr carries warnings): another machine's count, or an older rule's
        assert "damaged" not in caplog.text
        monkeypatch.setattr(torch, "__version__", torch.__version__ + "+other")
        load_model(str(demo_model_dir), device="cpu").use_best_threads()
        assert len(measured) == 4  # another torch build: its own measurement
    finally:
        torch.set_num_threads(before)


def test_a_warm_up_too_slow_to_measure_keeps_the_count_for_this_run_only(plan_dir, demo_model_dir, monkeypatch,
                                                                        spare_cores):
    """One contended warm-up on a busy machine once stood for good: the next starts kept its count
    (and such a choice kept by the older rule is measured again)."""
    from engine.runtime import threads

    before = torch.get_num_threads()
    try:
        model = load_model(str(demo_model_dir), device="cpu")
        older = {k: v for k, v in model._thread_choice_key().items() if k != "choice_version"}
        thread_cache.write_choice(older, threads.ThreadChoice(2, {2: 683.04}, {2: 683.04}, 1.85))  # such a one
        kept = plan_dir.parent / "thread-choices"
        monkeypatch.setattr(threads, "MEASURE_BELOW_MS", 0.0)  # every warm-up is too slow to measure
        skipped = load_model(str(demo_model_dir), device="cpu").use_best_threads()  # the older file is not read
        assert not skipped.measured and tuple(skipped.mean_ms) == (torch.get_num_threads(),)
        assert len(list(kept.glob("*.json"))) == 1  # nothing kept for the next start but the older file
        monkeypatch.setattr(threads, "MEASURE_BELOW_MS", 1e9)  # the next start: a machine with room
        measured = load_model(str(demo_model_dir), device="cpu").use_best_threads()
        assert measured.measured and tuple(measured.mean_ms) == spare_cores
        assert len(list(kept.glob("*.json"))) == 2
    finally:
        torch.set_num_threads(before)


def test_the_sweep_times_the_frame_s_matmuls_and_leaves_the_plan_as_it_was(plan_dir, demo_model_dir, monkeypatch):
    """bench_frame's split of a frame: the matmuls and convolutions alone, planned or as ATen computes."""
    monkeypatch.setenv(kernel_plan.FORCE_ENV, "onednn")  # a plan with no ATen kernel, whatever this machine measures
    model = load_model(str(demo_model_dir), device="cpu")
    modules = [model.mimi, model.lm]
    silent = kernel_plan.silent_frame_runner(lambda: model.new_session(record_audio=False))
    planned = [(site.op, kernel_plan._current(site)) for site in kernel_plan._record_sites(modules, silent, False)]
    ours, aten = kernel_plan.sweep_ms(modules, silent), kernel_plan.sweep_ms(modules, silent, reference_kernels=True)
    assert 0 < ours < 1000 and 0 < aten < 1000
    after = [(site.op, kernel_plan._current(site)) for site in kernel_plan._record_sites(modules, silent, False)]
    assert after == planned and not [kernel for _, kernel in planned if kernel in ("aten", "conv", "convtr")]


def test_the_bfloat16_matmul_runs_wherever_the_cpu_multiplies_bfloat16_natively():
    # Keeps the tests above from skipping where they should run.
    cpu = torch.cpu
    hardware = any(getattr(cpu, check, lambda: False)() for check in ("_is_amx_tile_supported",
                                                                      "_is_avx512_bf16_supported"))
    assert bf16_matmul_runs() or not hardware


def assert_best_thread_count(chosen, mean_ms: dict, p90_ms: dict) -> None:
    """The rule checked candidate by candidate (not with the function that chose): where any count's
    mean keeps up, ``chosen`` keeps up and no count that keeps up has a shorter p90 tail; where none
    does, no count has a shorter mean."""
    from engine.runtime.threads import KEEPS_UP_MS

    keeping_up = [n for n in mean_ms if mean_ms[n] < KEEPS_UP_MS]
    assert chosen in mean_ms, (chosen, mean_ms)
    if keeping_up:
        assert chosen in keeping_up and all(p90_ms[chosen] <= p90_ms[n] for n in keeping_up), (mean_ms, p90_ms)
    else:
        assert all(mean_ms[chosen] <= mean_ms[n] for n in mean_ms), mean_ms


def test_the_thread_count_keeps_up_first_and_then_has_the_least_jitter():
    from engine.runtime.threads import KEEPS_UP_MS, best_thread_count

    slow, fast = KEEPS_UP_MS + 20.0, KEEPS_UP_MS - 20.0
    # Neither keeps up: the faster mean wins, though its tail is longer (the 2-core AMD EPYC case).
    assert best_thread_count({1: slow + 10, 2: slow}, {1: slow + 15, 2: slow + 30}) == 2
    # Both keep up: the shorter tail wins, though its mean is longer (it needs less queued audio).
    assert best_thread_count({1: fast, 2: fast - 15}, {1: fast + 5, 2: fast + 25}) == 1
    # Only one keeps up: it wins, whatever the other's tail.
    assert best_thread_count({1: slow, 2: fast}, {1: slow + 1, 2: slow + 10}) == 2


def test_the_frames_leave_a_core_to_the_window_and_the_audio_but_a_replay_may_use_every_one():
    """Two threads on the engine thread of a 2-core AMD EPYC took frames of 0.4-1.3 s in the app
    (libgomp's threads, with the process's first thread, outnumbered the cores); a replay runs alone,
    and with the count its frames ran with where this machine has the cores, bit for bit."""
    from engine.runtime.threads import MAX_THREADS, replay_threads, runnable_threads, thread_candidates

    assert [thread_candidates(cores) for cores in (1, 2, 3, 4, 16)] == [
        (1,), (1,), (1, 2), (1, 2, 3), tuple(range(1, MAX_THREADS + 1))]
    assert [runnable_threads(cores) for cores in (1, 2, 16)] == [1, 2, MAX_THREADS]
    assert replay_threads(2, cores=2) == 2 and replay_threads(8, cores=2) == 2 and replay_threads(0, cores=2) == 0


def test_with_one_candidate_nothing_is_measured_or_kept(plan_dir, demo_model_dir, monkeypatch):
    from engine.runtime import threads

    def one_candidate(cores=None):
        return (1,)

    monkeypatch.setattr(threads, "thread_candidates", one_candidate)
    monkeypatch.setattr(threads, "MEASURE_BELOW_MS", 0.0)  # a warm-up frame would say "too slow": none runs
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        model = load_model(str(demo_model_dir), device="cpu")
        choice = model.use_best_threads()
        assert (choice.threads, choice.mean_ms, choice.measured) == (1, {}, False)  # a warm-up would be in mean_ms
        assert torch.get_num_threads() == 1 and model.kernel_plan.key["threads"] == "1"
        assert not list((plan_dir.parent / "thread-choices").glob("*.json"))  # measured at every start: nothing
    finally:
        torch.set_num_threads(before)


def test_the_app_starts_with_a_thread_per_two_cores_and_the_count_is_put_back():
    from engine.runtime.threads import running_with, starting_threads

    assert [starting_threads(cores) for cores in (1, 2, 3, 4, 8, 16)] == [1, 1, 1, 2, 4, 4]
    before = torch.get_num_threads()
    other = 1 if before != 1 else 2
    with running_with(other):
        assert torch.get_num_threads() == other
        with running_with(0):  # 0: as it is
            assert torch.get_num_threads() == other
    assert torch.get_num_threads() == before
