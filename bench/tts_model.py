"""Kyutai TTS for the benchmarks: the released tts-1.6b-en_fr configuration (or its layer counts with
small widths, or a tiny one), random weights built as a load builds them, a random voice at the
released voices' shape, and a text of made-up tokens (no tokenizer, nothing downloaded). A frame is
``speak_steps``'s step as ``KyutaiSpeech.stream`` runs it, then Mimi's decode of its 32 codebooks."""

from __future__ import annotations

import time
from typing import Any

import torch

from engine.codec.mimi import Mimi, MimiConfig
from engine.families.kyutai_tts import FINAL_PADDING, TTS_1_6B_CONFIG, SpeechTiming
from engine.lm.generate import SamplingConfig, SpeechGenerator
from engine.lm.model import LMConfig
from engine.lm.step import Forcing
from engine.lm.tts_generator import FRAME_RATE, speak_steps, speaker_condition
from engine.lm.tts_machine import Entry, TextMachine
from engine.runtime.kyutai_speech import RELEASED_SAMPLING
from engine.runtime.speech_frames import SpeechDecoder

VOICE_FRAMES = 125  # a released voice: 10 s at 12.5 Hz
_CONTROL = {"type": "lut", "lut": {"dim": None, "n_bins": 1, "tokenizer": "noop", "possible_values": ["ok"]}}


def _with_widths(widths: dict[str, Any]) -> dict[str, Any]:
    control = {**_CONTROL, "lut": {**_CONTROL["lut"], "dim": widths["dim"]}}
    return {**TTS_1_6B_CONFIG, **widths,
            "conditioners": {**TTS_1_6B_CONFIG["conditioners"], "control": control}}


CONFIGS = {
    "kyutai-tts": dict(TTS_1_6B_CONFIG),
    # the released layer counts, codebooks, schedule and conditions; small widths (kernel counts)
    "kyutai-tts-small": _with_widths(dict(dim=64, num_heads=2, text_card=64, card=64, depformer_dim=32,
                                          depformer_num_heads=2, depformer_dim_feedforward=132, context=50)),
    "tiny-tts": {**_with_widths(dict(dim=64, num_heads=4, num_layers=2, text_card=100, card=64, depformer_dim=32,
                                     depformer_num_heads=2, depformer_num_layers=1, depformer_dim_feedforward=64,
                                     context=50)),
                 "n_q": 8, "dep_q": 8, "delays": [0, 0] + [2] * 7, "depformer_weights_per_step_schedule": None,
                 "tts_config": {"audio_delay": 0.32, "second_stream_ahead": 2}},
}


def lm_config(name: str) -> LMConfig:
    return LMConfig.from_hub_config(CONFIGS[name])


def build_generator(name: str, device: torch.device, dtype: torch.dtype, precision: str = "bfloat16",
                    sampling: SamplingConfig = RELEASED_SAMPLING) -> SpeechGenerator:
    from bench.gpu_check.models import random_lm

    timing = SpeechTiming.of(CONFIGS[name])
    lm = random_lm(lm_config(name), device, dtype, precision)
    return SpeechGenerator(lm, sampling, timing.delay_steps(FRAME_RATE))


def build_mimi(codebooks: int, device: torch.device) -> Mimi:
    """Mimi at the released size, random weights, decoding ``codebooks``."""
    torch.manual_seed(0)
    mimi = Mimi(MimiConfig(num_codebooks=codebooks)).to(device).eval().requires_grad_(False)
    mimi.prepare()
    return mimi


def speaker_dim(name: str) -> int:
    return CONFIGS[name]["conditioners"]["speaker_wavs"]["tensor"]["dim"]


def voiced_state(generator: SpeechGenerator, name: str, seed: int = 0) -> dict:
    """A fresh state with a random voice (at the released voices' shape) and guidance 2.0."""
    device = generator.lm.text_emb.weight.device
    state = generator.init_state(1, seed)
    voice = torch.randn(1, speaker_dim(name), VOICE_FRAMES, generator=torch.Generator().manual_seed(seed))
    generator.condition(state, speaker_condition([voice.to(device)]))
    return state


def words_for(steps: int) -> int:
    """Enough words that the text does not end within ``steps`` (a word takes at least two)."""
    return steps // 2 + 4


def entries(text_card: int, words: int) -> list[Entry]:
    """``words`` made-up words of 1 to 3 tokens (the reference's ``script_to_entries`` with
    ``padding_between=1``: a word is padded for its tokens), the first with the speaker token."""
    out = []
    for i in range(words):
        tokens = ((1,) if i == 0 else ()) + tuple(4 + (7 * i + 13 * j) % (text_card - 4) for j in range(1 + i % 3))
        out.append(Entry(tokens, f"w{i}", len(tokens)))
    return out


def machine(generator: SpeechGenerator, words: int) -> TextMachine:
    config = generator.config
    return TextMachine(config.text_card + 1, 2, entries(config.text_card, words))


def stream(generator: SpeechGenerator, mimi: Mimi, name: str, frames: int, seed: int = 0) -> dict:
    """What a person hears of one streamed text: the seconds from the start (state, voice) to the
    first audio frame ready on the host, each frame's ms (its step and decode, read back), the
    real-time factor (wall seconds per second of audio) over ``frames`` played frames, and each
    aligned frame's tokens."""
    device = generator.lm.text_emb.weight.device
    started = time.perf_counter()
    state = voiced_state(generator, name, seed)
    max_steps = generator.first_output_frame + generator.delay_steps + 2 + frames
    text = machine(generator, words_for(max_steps))
    decoder = SpeechDecoder(mimi, generator.delay_steps, device)
    first_audio, played, ms, tokens, last = None, 0, [], [], time.perf_counter()
    for step, result in speak_steps(generator, state, text, max_steps, FINAL_PADDING):
        if step >= generator.first_output_frame:
            pcm = decoder.push(result, text.end_step)
            tokens.append([int(result.text[0]), *result.audio[0].tolist()])
            if pcm is not None:
                pcm.cpu()
                played += 1
                if first_audio is None:
                    first_audio = time.perf_counter() - started
        now = time.perf_counter()
        ms.append(1e3 * (now - last))
        last = now
    wall = time.perf_counter() - started
    audio_s = played * mimi.frame_size / mimi.cfg.sample_rate
    return {"first_audio_ms": None if first_audio is None else round(1e3 * first_audio, 1),
            "first_audio_frame": generator.first_output_frame + generator.delay_steps + 2,
            "frames_played": played, "audio_s": round(audio_s, 2), "wall_s": round(wall, 3),
            "real_time_factor": round(wall / audio_s, 3) if audio_s else None, "step_ms": ms, "tokens": tokens}


def forced_step(generator: SpeechGenerator, state: dict, choice: torch.Tensor) -> None:
    """One frame's step with the text machine's choice given (as ``speak_steps`` runs it)."""
    user = torch.empty(1, generator.user_streams, dtype=torch.long, device=choice.device)
    generator.step(user, state, Forcing(text_choice=choice))
