"""Pocket TTS against the package (``pocket-tts`` 4.0.1, the oracle) on random-weight models built
with its own constructors and saved in the released layout (bfloat16 weights): in float32 at
temperature 0, per-frame latents, each chunk's end-of-speech frame and the audio equal the
package's within float32 rounding (``tests.rounding``: measured against our float64 run); the text
is cut as the package cuts it; what the code does not cover is refused with a sentence."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

from bench.pocket_reference import ROW, VOICE, build, eos_bias_for, raw_eos_logits, small_arch
from engine.errors import ModelError, VoiceLibraryError
from engine.pocket_tts.config import PocketConfig, UnsupportedConfig
from engine.pocket_tts.loading import load_pocket_tts
from engine.pocket_tts.speech import Speaker, SpeechRun
from engine.pocket_tts.text import split_chunks
from engine.pocket_tts.voices import read_voice_file, voice_file
from tests.rounding import assert_as_exact_as

pytest.importorskip("pocket_tts")  # installed by the Makefile's test stamp: this runs in `make test`


SHORT = "hello there, my friend"
LONG = ("The first sentence is here. Then, a second one; with a pause: and more words! "
        "Is this the third? 3.5 apples cost 2.25 each, said the woman\u2019s friend. "
        "Finally the last sentence of this rather long text comes to its end")
THRESHOLD = -4.0


def package_run(ref, text: str, state=None):
    """(latents [frames, 32], frames per chunk, audio) of the package at temperature 0 (from the
    shipped voice, or ``state``)."""
    latents, counts = [], []
    step, stream = ref._run_flow_lm_and_increment_step, ref._generate_audio_stream_short_text

    def record(*args, **kwargs):
        out = step(*args, **kwargs)
        if kwargs.get("backbone_input_latents") is not None:
            latents.append(out[0].view(-1).clone())
        return out

    def per_chunk(*args, **kwargs):
        before, samples = len(latents), 0
        for audio in stream(*args, **kwargs):
            samples += audio.shape[-1]
            yield audio
        frames = samples // 1920
        counts.append(frames)
        del latents[before + frames:]  # a frame computed past the end is not spoken

    ref._run_flow_lm_and_increment_step, ref._generate_audio_stream_short_text = record, per_chunk
    try:
        if state is None:
            state = ref.get_state_for_audio_prompt(str(ref_voice(ref)))
        audio = ref.generate_audio(state, text)
    finally:
        del ref._run_flow_lm_and_increment_step, ref._generate_audio_stream_short_text
    return torch.stack(latents), counts, audio


def ref_voice(ref):
    return ref.config_folder / "languages" / ROW / "embeddings" / f"{VOICE}.safetensors"


def our_run(model, text: str, voice=None):
    voice = read_voice_file(model, voice_file(model, VOICE)) if voice is None else voice
    run = SpeechRun()
    frames = list(Speaker(model, voice, temperature=0.0).speak(text, run))
    latents = torch.stack([f.latent for f in frames]).double()
    audio = torch.from_numpy(np.concatenate([f.audio for f in frames])).double()
    return latents, run, audio


@pytest.fixture(scope="module", params=[0, 1], ids=["config-a", "config-b"])
def models(request, tmp_path_factory):
    """(package model, our float32 model, our float64 twin, the frame EOS was tuned to fall on)."""
    arch = small_arch(request.param)
    folder = tmp_path_factory.mktemp(f"pocket{request.param}")
    ref, _ = build(folder, arch, seed=request.param, eos_bias=-1e4)
    ref.config_folder = folder
    state = ref.get_state_for_audio_prompt(str(ref_voice(ref)))
    bias, eos_frame = eos_bias_for(raw_eos_logits(ref, state, SHORT), THRESHOLD)
    ref, _ = build(folder, arch, seed=request.param, eos_bias=bias)
    ref.config_folder = folder
    cfg = PocketConfig.from_package_dict(arch)
    ours = load_pocket_tts(folder, ROW, cfg)
    twin = load_pocket_tts(folder, ROW, cfg)
    twin.flow_lm.double()
    twin.codec.double()
    return ref, ours, twin, eos_frame


@pytest.mark.parametrize("text", [SHORT, LONG], ids=["short", "chunks"])
def test_float32_latents_end_frames_and_audio_equal_the_package(models, text):
    ref, ours, twin, eos_frame = models
    want_latents, want_counts, want_audio = package_run(ref, text)
    got_latents, run, got_audio = our_run(ours, text)
    exact_latents, exact_run, exact_audio = our_run(twin, text)
    assert [c.frames for c in run.chunks] == want_counts == [c.frames for c in exact_run.chunks]
    if text == SHORT:
        assert run.chunks[0].end_frame == eos_frame  # the end of speech falls where it was put
        assert want_counts == [eos_frame + run.chunks[0].frames_after_eos]
    else:
        assert len(run.chunks) > 1
    assert_as_exact_as(got_latents, want_latents.double(), exact_latents, "latents")
    assert_as_exact_as(got_audio, want_audio.double(), exact_audio, "audio")


def test_text_is_cut_as_the_package_cuts_it(models):
    from pocket_tts.models.text_chunking import split_into_best_sentences

    ref, ours, _, _ = models
    rules = ours.config.text
    texts = [LONG, SHORT, "  one.two. three...  four?! five", "x" * 130 + ", and then; more: words.",
             "Pi is 3.14159 and e is 2.71. Done", "\u00ab Quoted \u00bb (text) [here] \u2013 ok\u2019s;",
             "no end punctuation,", "line\nbreaks\r\nhere"]
    for max_tokens in (12, 50):
        for text in texts:
            want = split_into_best_sentences(
                ref.flow_lm.conditioner.tokenizer, text, max_tokens, rules.pad_with_spaces_for_short_inputs,
                remove_semicolons=rules.remove_semicolons,
                append_terminal_punctuation=rules.append_terminal_punctuation,
                capitalize_first_letter=rules.capitalize_first_letter,
                replace_characters=dict(rules.replace_characters))
            assert split_chunks(text, ours.tokenizer, rules, max_tokens) == want, (text, max_tokens)


@pytest.mark.parametrize("change, words", [
    (lambda a: a["flow_lm"]["flow"].update(type="drifting"), "flow head"),
    (lambda a: a["flow_lm"]["transformer"].update(num_kv_heads=2), "grouped-query"),
    (lambda a: a["flow_lm"]["lookup_table"].update(rank=8), "low-rank"),
    (lambda a: a["mimi"].update(decoder_transformer=a["mimi"]["transformer"]), "decoder"),
])
def test_configurations_not_covered_are_refused_with_a_sentence(change, words):
    arch = small_arch(0)
    change(arch)
    with pytest.raises(UnsupportedConfig, match=words):
        PocketConfig.from_package_dict(arch)


def test_weights_of_another_shape_are_refused(models, tmp_path):
    _, ours, _, _ = models
    arch = small_arch(0)
    arch["flow_lm"]["transformer"]["num_layers"] += 1
    with pytest.raises(ModelError, match="does not match"):
        load_pocket_tts(ours.folder, ROW, PocketConfig.from_package_dict(arch))
    with pytest.raises(ModelError, match="no Pocket TTS model"):
        load_pocket_tts(tmp_path, ROW, ours.config)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_voice_files_that_are_not_voices_get_a_sentence(models, tmp_path):
    _, ours, _, _ = models
    fifo = tmp_path / "fifo.safetensors"
    os.mkfifo(fifo)
    with pytest.raises(VoiceLibraryError, match="cannot be read"):
        read_voice_file(ours, fifo)  # refused without waiting for a writer
    junk = tmp_path / "junk.safetensors"
    junk.write_bytes(b"\xff" * 64)
    with pytest.raises(VoiceLibraryError, match="not a Pocket TTS voice"):
        read_voice_file(ours, junk)
    with pytest.raises(VoiceLibraryError, match="no voice 'nobody'"):
        voice_file(ours, "nobody")
    from safetensors.torch import save_file
    heads, dim = ours.config.flow.num_heads, ours.config.flow.head_dim
    bad = {f"transformer.layers.{i}.self_attn/cache": torch.full((2, 1, 4, heads, dim), float("nan"))
           for i in range(ours.config.flow.num_layers)}
    bad.update({f"transformer.layers.{i}.self_attn/offset": torch.tensor([4])
                for i in range(ours.config.flow.num_layers)})
    save_file(bad, str(tmp_path / "nan.safetensors"))
    with pytest.raises(VoiceLibraryError, match="not finite"):
        read_voice_file(ours, tmp_path / "nan.safetensors")


def test_with_a_temperature_and_a_seed_the_noise_is_the_packages(models):
    """The package draws its noise from torch's global generator (in its generation thread); seeded
    the same, ours draws the same numbers in the same order, so the latents agree as at temperature 0."""
    ref, ours, twin, _ = models
    ref.temp = 0.5
    try:
        torch.manual_seed(1234)
        want_latents, want_counts, _ = package_run(ref, SHORT)
    finally:
        ref.temp = 0.0
    results = []
    for model in (ours, twin):
        voice = read_voice_file(model, voice_file(model, VOICE))
        run = SpeechRun()
        frames = list(Speaker(model, voice, temperature=0.5, seed=1234).speak(SHORT, run))
        results.append((torch.stack([f.latent for f in frames]).double(), [c.frames for c in run.chunks]))
    (got, got_counts), (exact, _) = results
    assert got_counts == want_counts
    assert_as_exact_as(got, want_latents.double(), exact, "latents at temperature 0.5")


def test_a_stop_ends_the_speech_within_one_frame(models):
    import threading

    _, ours, _, _ = models
    stop, run = threading.Event(), SpeechRun()
    voice = read_voice_file(ours, voice_file(ours, VOICE))
    frames = []
    for frame in Speaker(ours, voice, temperature=0.0).speak(LONG, run, stop):
        frames.append(frame)
        stop.set()  # what Ctrl+C or the app's stop does while a frame plays
    assert len(frames) == 1 and run.stopped


def test_the_float16_weight_kernel_on_every_linear_equals_the_package(models):
    """``engine.kernels.half_weight`` forced on every linear (the load chooses it by timing, so
    the other tests may not run it): its weights are the stored bfloat16 ones, exact in float16."""
    from engine.codec.conv import StreamingConv1d, StreamingConvTranspose1d
    from engine.kernels.half_weight import HalfWeightMatmul, runs_here
    from engine.kernels.packed import PackedLinear

    if not runs_here():
        pytest.skip("no FBGEMM on this CPU: the kernel is never offered")
    ref, ours, twin, _ = models
    model = load_pocket_tts(ref.config_folder, ROW, ours.config)
    linears = [m for part in (model.flow_lm, model.codec) for m in part.modules() if isinstance(m, PackedLinear)]
    linears += [m for m in model.flow_lm.modules() for m in getattr(m, "hidden_linears", list)()]
    for linear in linears:
        linear._matmul = HalfWeightMatmul()
        assert linear._matmul.pack(linear.weight), "a stored bfloat16 weight is exact in float16"
    convs = [m for m in model.codec.modules() if isinstance(m, (StreamingConv1d, StreamingConvTranspose1d))
             and m.layer.groups == 1 and getattr(m, "_matmul_ok", True)]
    for conv in convs:  # the matmul form at every step count up to MATMUL_MAX_STEPS, on float16 weights
        conv.kernels.clear()
        conv._linear = HalfWeightMatmul()
        conv.repack()
        assert conv._linear.packed is not None
    assert convs
    want_latents, _, want_audio = package_run(ref, SHORT)
    got_latents, _, got_audio = our_run(model, SHORT)
    exact_latents, _, exact_audio = our_run(twin, SHORT)
    assert_as_exact_as(got_latents, want_latents.double(), exact_latents, "latents")
    assert_as_exact_as(got_audio, want_audio.double(), exact_audio, "audio")


def recording(seconds: float = 2.5, seed: int = 7) -> torch.Tensor:
    """Noise swelling over the recording, then 0.4 s far below it (a pause ``end_on_pause`` cuts)."""
    n = int(seconds * 24000)
    audio = 0.2 * torch.randn(n, generator=torch.Generator().manual_seed(seed)) * torch.linspace(0.3, 1.0, n)
    audio[-int(0.4 * 24000):] *= 1e-3
    return audio


def test_a_voice_cloned_from_a_recording_and_its_speech_equal_the_packages(models, tmp_path):
    """Through the cloning weights (the codec's encoder, ``speaker_proj_weight``): the voice state
    and, at temperature 0, the speech from it."""
    from pocket_tts.models.model_state import export_model_state

    from engine.pocket_tts.voices import voice_from_audio

    ref, ours, twin, _ = models
    assert ours.voice_cloning
    audio = recording()
    state = ref.get_state_for_audio_prompt(audio[None])
    export_model_state(state, tmp_path / "cloned.safetensors")
    want = read_voice_file(ours, tmp_path / "cloned.safetensors")
    got, exact = voice_from_audio(ours, audio), voice_from_audio(twin, audio)
    assert got.length == want.length == exact.length
    assert_as_exact_as(got.k.double(), want.k.double(), exact.k, "cloned keys")
    assert_as_exact_as(got.v.double(), want.v.double(), exact.v, "cloned values")
    want_latents, want_counts, want_audio = package_run(ref, SHORT, ref.get_state_for_audio_prompt(audio[None]))
    got_latents, run, got_audio = our_run(ours, SHORT, got)
    exact_latents, _, exact_audio = our_run(twin, SHORT, exact)
    assert [c.frames for c in run.chunks] == want_counts
    assert_as_exact_as(got_latents, want_latents.double(), exact_latents, "latents")
    assert_as_exact_as(got_audio, want_audio.double(), exact_audio, "audio")
