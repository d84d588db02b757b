"""MOSS-Audio-Tokenizer's streaming decoder against a trace stored from the reference.

The reference (github.com/OpenMOSS/MOSS-Audio-Tokenizer, transformers remote code) has no package
on a registry, so it cannot run here: tests/data/moss_codec holds a random-weight checkpoint it
wrote in the released layout (a small config with a 0.4 s window, so every ring wraps), random
16-codebook codes and the PCM the reference decoded from them 3 frames a call inside
``streaming()``, as MOSS-TTS-Realtime does; ``make_trace.py`` there regenerates it
(docs/moss-tts-realtime.md). Our decode of the same calls equals it within float32 rounding
(``tests.rounding``, against our float64 run).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file

from engine.errors import ModelError
from engine.moss_tts.codec import call_sizes
from engine.moss_tts.codec_config import CodecConfig, PatchStage, TransformerStage, UnsupportedConfig
from engine.moss_tts.codec_loading import load_codec_decoder
from engine.state import clone
from tests.rounding import assert_as_exact_as, float64_twin

DATA = Path(__file__).parent / "data" / "moss_codec"
FRAME = 1920


def _trace() -> tuple[torch.Tensor, torch.Tensor, dict]:
    with safe_open(str(DATA / "trace.safetensors"), framework="pt") as f:
        meta = f.metadata()
        return f.get_tensor("codes")[None], f.get_tensor("pcm").reshape(1, -1), meta


@pytest.fixture(scope="module")
def decoder():
    return load_codec_decoder(DATA)


@torch.no_grad()
def test_streaming_decode_equals_the_reference_trace(decoder):
    codes, pcm, meta = _trace()
    chunk = int(meta["chunk_frames"])
    assert chunk == 3 and codes.shape == (1, 16, 20) and len(meta["reference_commit"]) == 40
    got = decoder.decode_stream(codes, decoder.init_state(), chunk)
    twin = float64_twin(decoder)
    exact = twin.decode_stream(codes, twin.init_state(), chunk)
    assert_as_exact_as(got, pcm, exact, "MOSS codec, 3 frames a call")


@torch.no_grad()
def test_a_ramp_of_calls_equals_the_reference_trace(decoder):
    """fast_api.py's chunking: 1, 2, ... frames a call up to the chunk size."""
    codes, _, meta = _trace()
    with safe_open(str(DATA / "trace.safetensors"), framework="pt") as f:
        pcm = f.get_tensor("pcm_ramp").reshape(1, -1)
    assert call_sizes(20, 4, 1) == json.loads(meta["ramp"])
    got = decoder.decode_stream(codes, decoder.init_state(), 4, initial_chunk_frames=1)
    twin = float64_twin(decoder)
    exact = twin.decode_stream(codes, twin.init_state(), 4, initial_chunk_frames=1)
    assert_as_exact_as(got, pcm, exact, "MOSS codec, calls of 1, 2, 3, 4, 4, ... frames")
    three = decoder.decode_stream(codes, decoder.init_state(), 3)
    assert float((three - pcm).abs().max()) > 1e-3 * float(pcm.abs().max())  # another chunking


def test_call_sizes_follow_the_reference_stream_decoder():
    assert call_sizes(20, 3) == [3] * 6 + [2]
    assert call_sizes(6, 3) == [3, 3]
    assert call_sizes(2, 3) == [2]
    assert call_sizes(30, 6, 1) == [1, 2, 3, 4, 5, 6, 6, 3]
    assert call_sizes(0, 3) == []


@torch.no_grad()
def test_the_windows_wrap_and_the_chunking_matters_past_them(decoder):
    """One frame a call equals the reference's 3 a call until a call's first query has lost a key
    the other still sees (frame 3 at a 5-frame window), and differs after: the caches wrap."""
    codes, pcm, _ = _trace()
    assert [s.context for s in decoder.cfg.decoder if isinstance(s, TransformerStage)] == [5, 10, 20, 40]
    single = decoder.decode_stream(codes, decoder.init_state(), 1)
    per_frame = (single - pcm).abs().view(-1, FRAME).amax(dim=1)
    scale = float(pcm.abs().max())
    assert bool((per_frame[:3] < 1e-5 * scale).all()), per_frame[:3]
    assert bool((per_frame[3:] > 1e-3 * scale).any()), per_frame[3:]


@torch.no_grad()
def test_reset_restarts_the_stream_and_state_is_the_whole_memory(decoder):
    codes, _, _ = _trace()
    state = decoder.init_state()
    first = decoder.decode_stream(codes, state, 3)
    decoder.reset_state(state)
    again = decoder.decode_stream(codes, state, 3)
    assert torch.equal(first, again)
    # a copy of the state continues as the original does
    state = decoder.init_state()
    decoder.decode_stream(codes[..., :9], state, 3)
    copy = clone(state)
    assert torch.equal(decoder.decode(codes[..., 9:12], state), decoder.decode(codes[..., 9:12], copy))


def test_calls_that_overflow_a_ring_or_misstate_codes_are_refused(decoder):
    codes, _, _ = _trace()
    assert decoder.cfg.max_frames_per_call() == 5
    with pytest.raises(ValueError, match="1 to 5 frames"):
        decoder.decode(codes[..., :6], decoder.init_state())
    with pytest.raises(ValueError, match="codebooks"):
        decoder.decode(torch.zeros(1, 33, 2, dtype=torch.long), decoder.init_state())


@torch.no_grad()
def test_a_sharded_snapshot_loads_the_same_weights(decoder, tmp_path):
    tensors = load_file(str(DATA / "model.safetensors"))
    keys = sorted(tensors)
    halves = {"model-00001-of-00002.safetensors": keys[: len(keys) // 2],
              "model-00002-of-00002.safetensors": keys[len(keys) // 2:]}
    for name, part in halves.items():
        save_file({k: tensors[k] for k in part}, str(tmp_path / name))
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps(
        {"weight_map": {k: name for name, part in halves.items() for k in part}}))
    shutil.copy(DATA / "config.json", tmp_path / "config.json")
    sharded = load_codec_decoder(tmp_path)
    for (name, a), (_, b) in zip(decoder.state_dict().items(), sharded.state_dict().items()):
        assert torch.equal(a, b), name


@torch.no_grad()
def test_weight_norm_tensors_under_the_older_names_load_the_same(decoder, tmp_path):
    renamed = {k.replace(".parametrizations.weight.original0", ".weight_g")
               .replace(".parametrizations.weight.original1", ".weight_v"): v
               for k, v in load_file(str(DATA / "model.safetensors")).items()}
    assert any(k.endswith(".weight_g") for k in renamed)
    save_file(renamed, str(tmp_path / "model.safetensors"))
    shutil.copy(DATA / "config.json", tmp_path / "config.json")
    for (name, a), (_, b) in zip(decoder.state_dict().items(), load_codec_decoder(tmp_path).state_dict().items()):
        assert torch.equal(a, b), name
    both = dict(renamed, **{"quantizer.output_proj.parametrizations.weight.original0": renamed[
        "quantizer.output_proj.weight_g"].clone()})
    save_file(both, str(tmp_path / "model.safetensors"))
    with pytest.raises(ModelError, match="twice"):
        load_codec_decoder(tmp_path)


def test_a_file_of_another_architecture_is_refused_with_its_keys(tmp_path):
    tensors = load_file(str(DATA / "model.safetensors"))
    del tensors["decoder.2.transformer.layers.0.linear1.weight"]
    save_file(tensors, str(tmp_path / "model.safetensors"))
    shutil.copy(DATA / "config.json", tmp_path / "config.json")
    with pytest.raises(ModelError, match="decoder.2.transformer.layers.0.linear1.weight"):
        load_codec_decoder(tmp_path)
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {"a": "../x.safetensors"}}))
    with pytest.raises(ModelError, match="outside its folder"):
        load_codec_decoder(tmp_path)


def _released_like() -> dict:
    """The released config.json's decoder-relevant fields (OpenMOSS-Team/MOSS-Audio-Tokenizer)."""
    def tr(i, o, d, heads, layers):
        return {"module_type": "Transformer", "input_dimension": i, "output_dimension": o, "d_model": d,
                "num_heads": heads, "num_layers": layers, "dim_feedforward": 4 * d, "causal": True,
                "norm": "layer_norm", "positional_embedding": "rope", "max_period": 10000, "gating": "none",
                "layer_scale": 0.01, "conv_layout": True}

    def patch(n):
        return {"module_type": "PatchedPretransform", "patch_size": n}

    return {"sampling_rate": 24000, "downsample_rate": 1920, "causal_transformer_context_duration": 10,
            "encoder_kwargs": [patch(240), tr(240, 384, 768, 12, 12), patch(2), tr(768, 384, 768, 12, 12), patch(2),
                               tr(768, 640, 768, 12, 12), patch(2), tr(1280, 768, 1280, 20, 32)],
            "quantizer_kwargs": {"input_dim": 768, "rvq_dim": 512, "output_dim": 768, "num_quantizers": 32,
                                 "codebook_size": 1024, "codebook_dim": 8, "quantizer_type": "rlfq"},
            "decoder_kwargs": [tr(768, 1280, 1280, 20, 32), patch(2), tr(640, 768, 768, 12, 12), patch(2),
                               tr(384, 768, 768, 12, 12), patch(2), tr(384, 240, 768, 12, 12), patch(240)]}


def test_the_released_config_gives_10_second_windows_at_each_rate():
    cfg = CodecConfig.from_json(_released_like())
    stages = [s for s in cfg.decoder if isinstance(s, TransformerStage)]
    assert [s.context for s in stages] == [125, 250, 500, 1000]
    assert [s.num_layers for s in stages] == [32, 12, 12, 12]
    assert cfg.frame_rate == 12.5 and cfg.max_frames_per_call() == 125
    assert cfg.steps_per_frame() == (1, 1, 2, 2, 4, 4, 8, 8)
    assert isinstance(cfg.decoder[-1], PatchStage) and cfg.decoder[-1].patch_size == 240


@pytest.mark.parametrize("change, message", [
    (lambda c: c["decoder_kwargs"][0].update(norm="rms_norm"), "norm"),
    (lambda c: c["decoder_kwargs"][0].update(positional_embedding="sin"), "positional_embedding"),
    (lambda c: c["decoder_kwargs"][2].update(input_dimension=600), "takes 600 channels"),
    (lambda c: c["quantizer_kwargs"].update(quantizer_type="fsq"), "quantizer type"),
    (lambda c: c.update(causal_transformer_context_duration=0.01), "no step of context"),
    (lambda c: c.pop("decoder_kwargs"), "lacks"),
    (lambda c: c.update(downsample_rate=960), "1920 samples a frame"),
])
def test_configs_this_code_does_not_compute_are_refused(change, message):
    cfg = _released_like()
    change(cfg)
    with pytest.raises(UnsupportedConfig, match=message):
        CodecConfig.from_json(cfg)
