"""Mimi: reference parity at the released size, chunk invariance, state round trip, loading, bad input."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import torch
from safetensors.torch import load_file, save_file
from torch.utils._python_dispatch import TorchDispatchMode

from engine.audio import FRAME_SIZE, SAMPLE_RATE, read_wav
from engine.codec.mimi import Mimi, MimiConfig, load_mimi
from engine.codec.seanet import SEANetConfig
from engine.state import flatten, load_into
from engine.streaming.transformer import TransformerConfig
from tests.conftest import SPEECH
from tests.reference import require_moshi
from tests.rounding import assert_as_exact_as, float64_twin

TINY = MimiConfig(
    sample_rate=1200, frame_rate=100.0,  # 12-sample frames, SEANet hop 6 -> 2 steps per frame
    seanet=SEANetConfig(dimension=32, n_filters=4, ratios=(3, 2)),
    transformer=TransformerConfig(d_model=32, num_heads=4, num_layers=2, dim_feedforward=64,
                                  layer_scale=0.01, context=20, steps_per_frame=2, max_steps_per_call=8),
    quantizer_dim=16, codebook_size=64, total_codebooks=6, num_codebooks=4)


def _speech(seconds: float | None = None) -> torch.Tensor:
    """The project's speech recordings at 24 kHz, concatenated: [1, 1, N]."""
    names = ["hello_24k.wav", "story_16k.wav", "interrupt_48k_stereo.wav"]
    pcm = np.concatenate([read_wav(SPEECH[n]) for n in names])
    if seconds is not None:
        pcm = pcm[: int(seconds * SAMPLE_RATE)]
    return torch.from_numpy(pcm).view(1, 1, -1)


def _randomise(model: torch.nn.Module, seed: int) -> None:
    """Weights with unit gain (so the signal neither dies nor explodes through the layers)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith(".scale"):
                p.uniform_(0.05, 0.3, generator=g)
            elif "norm" in name:
                p.copy_((1.0 if name.endswith("weight") else 0.0) + 0.05 * torch.randn(p.shape, generator=g))
            elif "convtr" in name:  # [in, out, K]: each output sees in * K / stride inputs
                p.copy_(torch.randn(p.shape, generator=g) / math.sqrt(p.shape[0] * 2))
            else:
                p.copy_(torch.randn(p.shape, generator=g) / math.sqrt(p[0].numel()))


def _fit_codebooks(quantizer: torch.nn.Module, latent: torch.Tensor, seed: int) -> None:
    """Codebooks drawn from a Gaussian fit of what each level really receives (the projected latent
    [D, N], then the residuals), so codes are spread rather than all equal. Works on the reference
    quantizer and ours alike (same module names)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for stage in (quantizer.rvq_first, quantizer.rvq_rest):
            residual = (stage.input_proj.weight[:, :, 0] @ latent).t()
            for layer in stage.vq.layers:
                book = layer._codebook
                size, dim = book.embedding_sum.shape
                vectors = residual.mean(0) + residual.std(0) * torch.randn(size, dim, generator=g)
                book._initialized.fill_(1)
                book.cluster_usage.copy_(0.5 + 1.5 * torch.rand(size, generator=g))
                book.embedding_sum.copy_(vectors * book.cluster_usage[:, None])
                residual = residual - vectors[torch.cdist(residual, vectors).argmin(-1)]


def _our_random_mimi(cfg: MimiConfig, seed: int, calibration: torch.Tensor) -> Mimi:
    model = Mimi(cfg).eval()
    _randomise(model, seed)
    model.prepare()
    with torch.inference_mode():
        state = model.init_state(1)["encoder"]
        emb = model.encoder(calibration, state["seanet"])
        emb = model.encoder_transformer.transformer(emb.transpose(1, 2), state["transformer"]).transpose(1, 2)
        emb = model.downsample.conv(emb, state["downsample"])
    _fit_codebooks(model.quantizer, emb[0].clone(), seed + 1)
    model.prepare()
    return model


def _mismatch(a: torch.Tensor, b: torch.Tensor) -> float:
    assert a.shape == b.shape
    return (a != b).float().mean().item()


def _stream_encode(model, pcm, frames_per_call):
    state = model.init_state(pcm.shape[0])
    step = frames_per_call * model.frame_size
    return torch.cat([model.encode_step(c, state) for c in pcm.split(step, dim=-1)], dim=-1)


def _stream_decode(model, codes, frames_per_call):
    state = model.init_state(codes.shape[0])
    return torch.cat([model.decode_step(c, state) for c in codes.split(frames_per_call, dim=-1)], dim=-1)


# ---- small configuration: the machinery -------------------------------------------------------------

@pytest.fixture(scope="module")
def tiny():
    noise = torch.randn(1, 1, 300 * TINY.frame_size, generator=torch.Generator().manual_seed(9)) * 0.3
    return _our_random_mimi(TINY, seed=1, calibration=noise)


def test_tiny_chunk_invariance(tiny):
    frames = 150  # 300 transformer steps through a 20-step window
    pcm = torch.randn(2, 1, frames * TINY.frame_size, generator=torch.Generator().manual_seed(0)) * 0.3
    offline = tiny.encode(pcm)
    assert offline.shape == (2, 4, frames) and offline.dtype == torch.int64
    assert len(offline[0, 1].unique()) > 10  # codes are spread
    decoded, exact = tiny.decode(offline), float64_twin(tiny).decode(offline)
    assert decoded.shape == pcm.shape
    for n in (1, 2, 3, 5):
        assert _mismatch(_stream_encode(tiny, pcm, n), offline) <= 1e-3
        assert_as_exact_as(_stream_decode(tiny, offline, n), decoded, exact, f"decoded {n} frames a call")


def test_offline_encode_pads_to_a_whole_frame(tiny):
    pcm = torch.randn(1, 1, 5 * TINY.frame_size + 3)
    padded = torch.nn.functional.pad(pcm, (0, TINY.frame_size - 3))
    assert torch.equal(tiny.encode(pcm), tiny.encode(padded))
    assert tiny.encode(pcm).shape[-1] == 6


def test_state_round_trip_through_safetensors(tiny, tmp_path):
    pcm = torch.randn(1, 1, 40 * TINY.frame_size, generator=torch.Generator().manual_seed(3)) * 0.3
    first, rest = pcm[..., : 25 * TINY.frame_size], pcm[..., 25 * TINY.frame_size:]
    state = tiny.init_state(1)
    codes = tiny.encode_step(first, state)
    tiny.decode_step(codes, state)
    path = tmp_path / "state.safetensors"
    save_file({k: v.contiguous() for k, v in flatten(state).items()}, path)

    resumed = tiny.init_state(1)
    load_into(resumed, load_file(path))
    for s in (state, resumed):
        c = tiny.encode_step(rest, s)
        out = tiny.decode_step(c, s)
        if s is state:
            expect_codes, expect_pcm = c, out
    assert torch.equal(c, expect_codes)
    assert torch.equal(out, expect_pcm)


def test_streaming_updates_the_state_in_place(tiny):
    state = tiny.init_state(1)
    ids = {k: id(v) for k, v in flatten(state).items()}
    before = {k: v.clone() for k, v in flatten(state).items()}
    pcm = torch.randn(1, 1, 6 * TINY.frame_size)
    tiny.decode_step(tiny.encode_step(pcm, state), state)
    assert {k: id(v) for k, v in flatten(state).items()} == ids
    assert any(not torch.equal(v, before[k]) for k, v in flatten(state).items())  # the state did advance


class _OpSpy(TorchDispatchMode):
    """Records every aten op that runs (to prove the per-frame path has no host syncs)."""

    def __init__(self):
        super().__init__()
        self.ops: set[str] = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.add(func.overloadpacket.__name__)
        return func(*args, **(kwargs or {}))


def test_streaming_step_is_graph_safe(tiny):
    """No host syncs or data-dependent shapes in encode_step/decode_step (what breaks CUDA graphs)."""
    state = tiny.init_state(1)
    pcm = torch.randn(1, 1, 2 * TINY.frame_size)
    with _OpSpy() as spy:
        tiny.decode_step(tiny.encode_step(pcm, state), state)
    forbidden = {"item", "_local_scalar_dense", "nonzero", "multinomial", "lift_fresh", "unique", "_unique2"}
    assert spy.ops and not spy.ops & forbidden, sorted(spy.ops & forbidden)


def test_non_finite_input_is_sanitised(tiny):
    pcm = torch.randn(1, 1, 4 * TINY.frame_size) * 0.3
    bad = pcm.clone()
    bad[0, 0, ::7] = float("nan")
    bad[0, 0, 3] = float("inf")
    bad[0, 0, 5] = -float("inf")
    clean = torch.where(torch.isfinite(bad), bad, torch.zeros(()))
    s_bad, s_clean = tiny.init_state(1), tiny.init_state(1)
    assert torch.equal(tiny.encode_step(bad, s_bad), tiny.encode_step(clean, s_clean))
    assert all(torch.isfinite(v).all() for v in flatten(s_bad).values() if v.is_floating_point())
    more = torch.randn(1, 1, 4 * TINY.frame_size) * 0.3
    assert torch.equal(tiny.encode_step(more, s_bad), tiny.encode_step(more, s_clean))


def test_num_codebooks_prefix(tiny, tmp_path):
    """Fewer codebooks = a prefix of the codes (every stored codebook loads whatever is used)."""
    path = tmp_path / "tiny.safetensors"
    save_file({k: v.contiguous() for k, v in tiny.state_dict().items()}, path)
    pcm = torch.randn(1, 1, 10 * TINY.frame_size)
    codes = {}
    for k in (2, 4, 6):
        m = Mimi(replace(TINY, num_codebooks=k)).eval()
        m.load_weights(load_file(path))
        codes[k] = m.encode(pcm)
    assert torch.equal(codes[6][:, :2], codes[2]) and torch.equal(codes[6][:, :4], codes[4])


# ---- the released configuration ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def full():
    return _our_random_mimi(MimiConfig(), seed=7, calibration=_speech(4.0))


def test_released_constants():
    cfg = MimiConfig()
    assert (FRAME_SIZE, SAMPLE_RATE) == (1920, 24000) == (cfg.frame_size, cfg.sample_rate)
    assert cfg.steps_per_frame == 2 and cfg.seanet.hop_length == 960
    assert cfg.transformer.context == 250 and cfg.transformer.steps_per_frame == 2


@pytest.mark.slow
def test_full_size_chunk_invariance(full):
    pcm = _speech(131 * FRAME_SIZE / SAMPLE_RATE)  # 131 frames = 262 steps: the 250-step window wraps
    offline = full.encode(pcm)
    decoded, exact = full.decode(offline), float64_twin(full).decode(offline)
    for n in (1, 2, 3, 5):
        assert _mismatch(_stream_encode(full, pcm, n), offline) <= 1e-3
        assert_as_exact_as(_stream_decode(full, offline, n), decoded, exact, f"decoded {n} frames a call")


def test_bad_input(full):
    state = full.init_state(1)
    with pytest.raises(ValueError, match="1920"):
        full.encode_step(torch.zeros(1, 1, 1000), state)
    with pytest.raises(ValueError, match="1920"):
        full.encode_step(torch.zeros(1, 1, 0), state)
    with pytest.raises(ValueError, match=r"\[batch, 1, n \* 1920\]"):
        full.encode_step(torch.zeros(1, 2, 1920), state)
    with pytest.raises(ValueError, match="dtype"):
        full.encode_step(torch.zeros(1, 1, 1920, dtype=torch.float64), state)
    with pytest.raises(ValueError, match="device"):
        full.encode_step(torch.zeros(1, 1, 1920, device="meta"), state)
    with pytest.raises(ValueError, match="batch size 1"):
        full.encode_step(torch.zeros(2, 1, 1920), state)
    with pytest.raises(ValueError, match=r"\[batch, 8, frames"):
        full.decode_step(torch.zeros(1, 7, 1, dtype=torch.long), state)
    with pytest.raises(ValueError, match="integer"):
        full.decode_step(torch.zeros(1, 8, 1), state)
    with pytest.raises(ValueError, match="2048"):
        full.decode(torch.full((1, 8, 2), 2048))
    with pytest.raises(ValueError, match="num_codebooks"):
        MimiConfig(num_codebooks=33)
    # nothing above touched the state
    assert torch.equal(state["encoder"]["transformer"]["offset"], torch.zeros(1, dtype=torch.long))


def test_load_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_mimi(tmp_path / "missing.safetensors")
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{garbage")
    with pytest.raises(ValueError, match="not a readable safetensors file"):
        load_mimi(bad)
    partial = tmp_path / "partial.safetensors"
    save_file({"encoder.model.0.conv.conv.weight": torch.zeros(64, 1, 7)}, partial)
    with pytest.raises(ValueError, match="missing keys"):
        load_mimi(partial)


# ---- parity with the reference package ----------------------------------------------------------------

def _released_layout(state_dict: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The reference module's split attention names -> the released file's stacked names."""
    out = {}
    for k, v in state_dict.items():
        k = k.replace("self_attn.in_projs.0.weight", "self_attn.in_proj_weight")
        k = k.replace("self_attn.out_projs.0.weight", "self_attn.out_proj.weight")
        out[k] = v.contiguous()
    return out


@pytest.fixture(scope="module")
def released_file(tmp_path_factory):
    """A random Mimi in the released checkpoint layout, built with the reference package."""
    require_moshi()
    from moshi.models.loaders import get_mimi

    torch.manual_seed(0)
    ref = get_mimi(None, device="cpu")
    _randomise(ref, seed=11)
    with torch.no_grad():
        emb = ref._encode_to_unquantized_latent(_speech(4.0))
    _fit_codebooks(ref.quantizer, emb[0], seed=12)
    path = tmp_path_factory.mktemp("mimi") / "tokenizer-e351c8d8-checkpoint125.safetensors"
    save_file(_released_layout(ref.state_dict()), path)
    return path


@pytest.mark.reference
def test_checkpoint_keys_match_reference(released_file):
    require_moshi()
    stored = load_file(released_file)
    with torch.device("meta"):
        ours = Mimi()
    assert {k: tuple(v.shape) for k, v in ours.state_dict().items()} == {k: tuple(v.shape) for k, v in stored.items()}
    assert sum(k.endswith("embedding_sum") for k in stored) == 32


@pytest.mark.reference
@pytest.mark.slow
def test_streaming_parity_with_reference(released_file):
    require_moshi()
    from moshi.models.loaders import get_mimi

    ref = get_mimi(released_file, device="cpu")
    ours = load_mimi(released_file)
    frames = 132  # 10.56 s of speech
    pcm = _speech(frames * FRAME_SIZE / SAMPLE_RATE)
    state = ours.init_state(1)
    ref_codes, our_codes, ref_pcm, our_pcm = [], [], [], []
    with torch.no_grad(), ref.streaming(1):
        for frame in pcm[..., : frames * FRAME_SIZE].split(FRAME_SIZE, dim=-1):
            rc = ref.encode(frame)
            ref_codes.append(rc)
            ref_pcm.append(ref.decode(rc))
            our_codes.append(ours.encode_step(frame, state))
            our_pcm.append(ours.decode_step(rc, state))  # decode the same codes
    ref_codes, our_codes = torch.cat(ref_codes, -1), torch.cat(our_codes, -1)
    assert ref_codes.shape == our_codes.shape == (1, 8, frames)
    assert len(ref_codes[0, 0].unique()) > 10 and len(ref_codes[0, 7].unique()) > 30  # not degenerate
    assert _mismatch(our_codes, ref_codes) <= 1e-3
    ref_pcm, our_pcm = torch.cat(ref_pcm, -1), torch.cat(our_pcm, -1)
    assert ref_pcm.abs().max() > 1e-3
    snr = 10 * torch.log10(ref_pcm.pow(2).sum() / (ref_pcm - our_pcm).pow(2).sum())
    assert snr > 50.0
