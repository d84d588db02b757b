"""Kyutai STT (speech to text): a checkpoint built here in the released layout (config.json with
``model_type: "stt"`` and ``stt_config``, the reference's own LM state dict in the released stacked
keys, Mimi's released file) transcribed by the reference ``moshi`` 0.2.13 STT path
(``moshi.run_inference.InferenceState``, greedy) and by Parley's transcriber: the same text tokens
in float32, the same voice-activity heads; and the demo-size STT model streams on the CPU."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from engine.audio import FRAME_SECONDS, FRAME_SIZE, SAMPLE_RATE, read_audio
from engine.checkpoint import stack_split_attention
from engine.errors import ModelError
from engine.families import CAPTION_PRESETS, PRESETS, demo_stt, recognise
from engine.families.stt import SpeechToTextTiming
from engine.files.demo import ensure_demo_model
from engine.files.hub_layout import MIMI_NAME
from engine.files.models import read_model_dir, resolve_model
from engine.lm.model import LMConfig
from engine.runtime.loading import load_model
from engine.runtime.model_info import Precision
from engine.runtime.transcriber import FLUSH_EXTRA_SECONDS, SpeechToText, load_speech_to_text, words
from tests import test_models
from tests.conftest import SPEECH
from tests.reference import require_moshi
from tests.test_models import add_to_cache

hub = test_models.hub  # the fixture: an empty, offline Hugging Face cache

STT_MIMI = "mimi-pytorch-e351c8d8@125.safetensors"  # the STT repositories' name for Mimi's file
STT_TOKENIZER = "tokenizer_en_fr_audio_8000.model"


def stt_config(prefix: float, delay: float) -> dict:
    """A config.json in the shape kyutai publishes for its STT models, at a tiny size (the ring
    KV cache's context of 20 wraps within the test's audio)."""
    return {
        "mimi_name": STT_MIMI, "tokenizer_name": STT_TOKENIZER, "model_type": "stt",
        "stt_config": {"audio_silence_prefix_seconds": prefix, "audio_delay_seconds": delay},
        "lm_gen_config": {"temp": 0.0, "temp_text": 0.0, "top_k": 250, "top_k_text": 50},
        "card": 2048, "n_q": 32, "dep_q": 0, "delays": [0] * 33, "dim": 64, "text_card": 1000,
        "existing_text_padding_id": 3, "num_heads": 4, "num_layers": 2, "hidden_scale": 4.125, "causal": True,
        "context": 20, "max_period": 100000, "gating": "silu", "norm": "rms_norm_f32",
        "positional_embedding": "rope", "extra_heads_num_heads": 4, "extra_heads_dim": 6,
    }


def build_stt_folder(folder: Path, prefix: float, delay: float, seed: int = 0) -> Path:
    """The released layout: config.json, the reference LM's random weights (scaled so that the
    text varies) saved in stacked attention keys, the demo's Mimi and tokenizer under the STT names."""
    require_moshi()
    from moshi.models import loaders
    from safetensors.torch import load_file, save_file

    demo = ensure_demo_model()
    folder.mkdir(parents=True, exist_ok=True)
    # The demo's Mimi with small random biases: with none, digital silence encodes to an exact zero
    # latent, equally far from each of its equal-norm codes, and which code wins that tie is
    # rounding; a released Mimi's biases keep its latent off such ties.
    g = torch.Generator().manual_seed(seed)
    mimi = {k: v + 0.01 * torch.randn(v.shape, generator=g) if k.endswith(".bias") else v
            for k, v in load_file(str(demo / MIMI_NAME)).items()}
    save_file(mimi, str(folder / STT_MIMI))
    shutil.copy(demo / json.loads((demo / "config.json").read_text())["tokenizer_name"], folder / STT_TOKENIZER)
    config = stt_config(prefix, delay)
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    info = loaders.CheckpointInfo.from_hf_repo("local", moshi_weights=folder / "model.safetensors",
                                               mimi_weights=folder / STT_MIMI, tokenizer=folder / STT_TOKENIZER,
                                               config_path=folder / "config.json")
    torch.manual_seed(seed)
    ref = info.get_moshi(device="cpu", dtype=torch.float32, load_weight=False)
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in ref.named_parameters():
            noise = torch.randn(p.shape, generator=g)
            p.copy_(1.0 + 0.2 * noise if "alpha" in name else noise if "emb" in name else noise * p.shape[-1] ** -0.5)
    save_file({k: v.contiguous() for k, v in stack_split_attention(ref.state_dict()).items()},
              str(folder / "model.safetensors"))
    return folder


def reference_transcription(folder: Path, pcm: np.ndarray) -> tuple[list[int], list[torch.Tensor]]:
    """moshi 0.2.13's STT path, greedy: its text tokens (one a frame; the first frame's first
    step, which the reference discards, left out) and its extra heads' softmax per frame."""
    require_moshi()
    from moshi.models import loaders
    from moshi.run_inference import InferenceState

    info = loaders.CheckpointInfo.from_hf_repo("local", moshi_weights=folder / "model.safetensors",
                                               mimi_weights=folder / STT_MIMI, tokenizer=folder / STT_TOKENIZER,
                                               config_path=folder / "config.json")
    assert info.model_type == "stt"
    mimi = info.get_mimi(device="cpu")
    lm = info.get_moshi(device="cpu", dtype=torch.float32)
    tokens: list[int] = []
    heads: list[torch.Tensor] = []
    state = InferenceState(info, mimi, info.get_text_tokenizer(), lm, 1, 1.0, "cpu", use_sampling=False,
                           on_text_hook=lambda t: tokens.append(int(t[0])))
    with_heads = state.lm_gen.step_with_extra_heads

    def step(codes, depformer_replace_tokens=None):
        out = with_heads(codes)
        heads.append(torch.stack([h[0, 0] for h in out[1]]))
        return out[0]

    state.lm_gen.step = step  # the same step, also reading the extra heads
    with torch.no_grad():
        state.run(torch.from_numpy(pcm)[None, None])
    return tokens[1:], heads[1:]


SPEECH_SECONDS = 1.2  # the reference's Mimi is slow on a small CPU


def speech() -> np.ndarray:
    return read_audio(SPEECH["story_16k.wav"])[: int(SAMPLE_RATE * SPEECH_SECONDS)]


@pytest.mark.reference
@pytest.mark.parametrize(("prefix", "delay"), [(0.1, 0.5), (0.0, 0.25)])
def test_text_tokens_equal_the_reference_stt_path(tmp_path, prefix, delay):
    """The silence prefix (0.1 s: the audio starts inside a frame; none: the first real frame is
    given twice), the delay's trailing flush and the ring cache's wrap, as the reference does them."""
    folder = build_stt_folder(tmp_path / "stt", prefix, delay)
    pcm = speech()
    ref_tokens, ref_heads = reference_transcription(folder, pcm)
    files = read_model_dir(folder)
    assert files.family == "stt"
    model = SpeechToText(files, torch.device("cpu"), Precision.FLOAT32)
    steps = model.transcribe(pcm)
    ours = [s.token for s in steps]
    padded = int(prefix * SAMPLE_RATE) + len(pcm) + int((delay + FLUSH_EXTRA_SECONDS) * SAMPLE_RATE)
    assert len(ours) == padded // FRAME_SIZE == len(ref_tokens)
    assert ours == ref_tokens
    assert len(set(ours)) > 5 and any(s.text for s in steps)  # the weights write varied text
    assert model.has_voice_activity
    for step, ref in zip(steps, ref_heads, strict=True):
        got = torch.tensor(step.voice_activity)
        assert got.shape == (4, 6)
        torch.testing.assert_close(got, ref.float(), rtol=1e-5, atol=1e-6)


@pytest.mark.reference
def test_streaming_in_any_pieces_gives_the_same_steps(tmp_path):
    folder = build_stt_folder(tmp_path / "stt", 0.1, 0.5, seed=1)
    model = SpeechToText(read_model_dir(folder), torch.device("cpu"), Precision.FLOAT32)
    pcm = speech()
    whole = model.transcribe(pcm)
    stream = model.new_stream()
    pieces, start = [], 0
    for size in (1, 700, 1920, 5000, 333):  # pieces that split frames everywhere
        pieces += stream.feed(pcm[start:start + size])
        start += size
    pieces += stream.feed(pcm[start:])
    pieces += stream.finish()
    assert pieces == whole
    with pytest.raises(RuntimeError, match="finished"):
        stream.feed(pcm[:10])


def test_timing_is_read_as_the_reference_reads_it():
    assert SpeechToTextTiming.of({}) == SpeechToTextTiming(0.0, 0.0)
    assert SpeechToTextTiming.of({"stt_config": {"audio_delay_seconds": 2.5}}) == SpeechToTextTiming(2.5, 0.0)
    for bad in ({"stt_config": []}, {"stt_config": {"audio_delay_seconds": -1}},
                {"stt_config": {"audio_silence_prefix_seconds": float("nan")}},
                {"stt_config": {"audio_delay_seconds": True}}):
        with pytest.raises(ValueError, match="stt_config"):
            SpeechToTextTiming.of(bad)


def test_words_carry_their_times():
    from engine.runtime.transcriber import CaptionStep

    steps = [CaptionStep(0, 3, "", 0.0), CaptionStep(1, 10, " hel", 0.08), CaptionStep(2, 11, "lo", 0.16),
             CaptionStep(3, 3, "", 0.24), CaptionStep(4, 12, " there", 0.4)]
    got = words(steps)
    assert [(w.text, w.start) for w in got] == [("hello", 0.08), ("there", 0.4)]
    assert got[0].end == 0.4 and got[1].end == pytest.approx(0.48)


# --------------------------------------------------------------------------- the demo-size model

def test_the_demo_stt_model_is_built_and_recognised():
    files = resolve_model("demo-stt")
    assert files.family == "demo_stt" and files.source == "demo"
    assert recognise(files.lm_config) is demo_stt.FAMILY
    config = LMConfig.from_hub_config(files.lm_config)
    assert (config.n_q, config.dep_q, config.extra_heads_num_heads, config.extra_heads_dim) == (32, 0, 4, 6)
    assert "demo-stt" in CAPTION_PRESETS and "demo-stt" not in PRESETS
    assert {"stt-1b-en_fr", "stt-2.6b-en"} <= set(CAPTION_PRESETS)
    assert CAPTION_PRESETS["stt-1b-en_fr"].repo == "kyutai/stt-1b-en_fr"
    assert CAPTION_PRESETS["stt-1b-en_fr"].pinned_on_first_download


def test_the_demo_stt_model_transcribes_on_the_cpu():
    model = load_speech_to_text("demo-stt", device="cpu")
    pcm = read_audio(SPEECH["hello_24k.wav"])
    steps = model.transcribe(pcm)
    timing = model.timing
    expected = (int(timing.audio_silence_prefix_seconds * SAMPLE_RATE) + len(pcm)
                + int((timing.audio_delay_seconds + FLUSH_EXTRA_SECONDS) * SAMPLE_RATE)) // FRAME_SIZE
    assert len(steps) == expected and [s.step for s in steps] == list(range(expected))
    assert all(len(s.voice_activity) == 4 and abs(sum(s.voice_activity[0]) - 1) < 1e-4 for s in steps)
    assert steps[0].seconds == 0.0 and steps[-1].seconds > len(pcm) / SAMPLE_RATE - 0.5
    assert model.precision is Precision.FLOAT32


def test_an_stt_preset_is_read_in_its_layout_and_pinned_to_its_first_download(hub):
    from engine.files import model_revisions

    first = "0123456789abcdef0123456789abcdef01234567"
    files = {"config.json": json.dumps(stt_config(0.0, 0.5)).encode(), "model.safetensors": b"lm",
             STT_MIMI: b"mimi", STT_TOKENIZER: b"spm"}
    snap = add_to_cache(hub, "kyutai/stt-1b-en_fr", files, revision=first)
    got = resolve_model("stt-1b-en_fr")
    assert got.family == "stt" and got.lm_path == snap / "model.safetensors"
    assert (got.mimi_path, got.tokenizer_path) == (snap / STT_MIMI, snap / STT_TOKENIZER)
    assert model_revisions.chosen_revisions() == {"stt-1b-en_fr": first}


def test_a_conversation_and_a_speech_to_text_model_are_not_confused():
    with pytest.raises(ModelError, match="speech-to-text model.*parley transcribe --model demo-stt"):
        load_model("demo-stt", device="cpu")
    with pytest.raises(ModelError, match="not a speech-to-text one"):
        load_speech_to_text("demo", device="cpu")


@pytest.mark.reference
def test_a_fed_piece_runs_through_the_frame_function_and_reads_the_host_once(tmp_path, monkeypatch):
    """Every frame after the first runs as a live frame (``FrameStep.__call__``: the CUDA graph where
    CUDA runs), and the tokens and heads of a fed piece are read back once, not every step."""
    from engine.runtime.frame_step import FrameStep

    folder = build_stt_folder(tmp_path / "stt", 0.1, 0.5, seed=1)
    model = SpeechToText(read_model_dir(folder), torch.device("cpu"), Precision.FLOAT32)
    stream = model.new_stream()
    calls, reads = [], []
    live = FrameStep.__call__
    monkeypatch.setattr(FrameStep, "__call__", lambda self, *a, **k: calls.append(a[1]) or live(self, *a, **k))
    for name in ("tolist", "item", "__int__"):
        method = getattr(torch.Tensor, name)
        monkeypatch.setattr(torch.Tensor, name, lambda self, *a, m=method, n=name: reads.append(n) or m(self, *a))
    steps = stream.feed(speech()[:12 * FRAME_SIZE])
    monkeypatch.undo()
    assert len(steps) > 10 and calls == list(range(2, len(steps) + 1))  # the first frame made two steps
    assert len(reads) <= 2  # the tokens, the voice-activity heads


@pytest.mark.parametrize("delay", [0.5, 0.25])
def test_a_live_finish_gives_the_text_of_every_frame_up_to_the_end_and_stops_there(tmp_path, delay):
    """A turn's end (``finish(live=True)``): the steps are the reference flush's first ones, their
    last covers the audio's last frame, and it needs far fewer frames than the reference's flush."""
    folder = build_stt_folder(tmp_path / "stt", 0.1, delay, seed=2)
    model = SpeechToText(read_model_dir(folder), torch.device("cpu"), Precision.FLOAT32)
    pcm = speech()[: int(2.3 * SAMPLE_RATE)]  # ends inside a frame
    live = model.new_stream()
    live_steps = live.feed(pcm) + live.finish(live=True)
    whole = model.transcribe(pcm)
    assert live_steps == whole[: len(live_steps)]
    audio_seconds = len(pcm) / SAMPLE_RATE
    assert live_steps[-1].seconds >= audio_seconds - FRAME_SECONDS  # the text of the last (partial) frame
    assert live_steps[-1].seconds < audio_seconds + 2 * FRAME_SECONDS
    assert len(whole) - len(live_steps) >= FLUSH_EXTRA_SECONDS / FRAME_SECONDS - 2
