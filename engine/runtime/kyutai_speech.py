"""A loaded Kyutai TTS model: the LM, Mimi and the tokenizer on one device, speaking a text with a
voice as the reference's ``TTSModel.simple_generate`` does (greedy or sampled)."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import torch

from ..codec.mimi import load_mimi
from ..errors import ModelError
from ..families import HUB_PRESETS, family_named
from ..families.kyutai_tts import DEFAULT_CFG, MODEL_TYPE, SpeechTiming
from ..files.hub_layout import CONFIG_NAME
from ..files.kyutai_voices import DEFAULT_VOICE, read_voice, voice_path
from ..files.models import ModelFiles, resolve_model
from ..lm.conditioning import parse_conditioners
from ..lm.generate import SamplingConfig, SpeechGenerator
from ..lm.model import LMConfig
from ..lm.tokenizer import TextTokenizer
from ..lm.tts_generator import FRAME_RATE, speak_steps, speaker_condition
from ..lm.tts_machine import TextMachine, script_entries
from ..regular_files import read_regular
from .loading import load_lm_weights, resolve_device
from .model_info import Precision
from .speech_frames import SpeechDecoder

MAX_STEPS = 30_000  # the reference's ``max_gen_length`` (40 minutes)
RELEASED_SAMPLING = SamplingConfig(temp=0.6, temp_text=0.6)  # its config's ``lm_gen_config``
MAX_CONFIG_BYTES = 1 << 20


class KyutaiSpeech:
    """``say(text, voices)`` -> float32 samples at 24 kHz. ``codebooks``: how many of the 32 to write."""

    def __init__(self, files: ModelFiles, device: torch.device, precision: Precision,
                 sampling: SamplingConfig = RELEASED_SAMPLING, codebooks: int | None = None):
        if family_named(files.family).generator != SpeechGenerator.kind:
            raise ModelError(f"{files.name} is not a Kyutai TTS model: choose kyutai-tts")
        try:
            self.config = LMConfig.from_hub_config(files.lm_config)
            self.timing = SpeechTiming.of(files.lm_config)
        except ValueError as e:
            raise ModelError(f"{files.name}'s config.json: {e}") from e
        if device.type == "cpu" and precision in (Precision.AUTO, Precision.BFLOAT16):
            precision = Precision.FLOAT32
        self.files, self.device, self.precision = files, device, precision.resolve(device)
        self.tokenizer = TextTokenizer(files.tokenizer_path)
        if self.tokenizer.vocab_size > self.config.text_card:
            raise ModelError(f"the text tokenizer ({self.tokenizer.vocab_size} pieces) does not belong to this "
                             f"model (text_card {self.config.text_card})")
        lm = load_lm_weights(files, self.config, device, self.precision.activation_dtype(device), self.precision)
        self.generator = SpeechGenerator(lm, sampling, self.timing.delay_steps(FRAME_RATE), codebooks)
        self.mimi = load_mimi(files.mimi_path, num_codebooks=self.generator.codebooks, device=device)

    def say(self, text: str, voices: Sequence[torch.Tensor], cfg: float | None = DEFAULT_CFG, seed: int = 0,
            max_steps: int = MAX_STEPS) -> torch.Tensor:
        """``text`` spoken by ``voices`` (released embeddings, ``speaker_wavs`` [1, dim, T] each)."""
        pcm = [f.pcm for f in self.stream(text, voices, KyutaiRun(), cfg=cfg, seed=seed, max_steps=max_steps)]
        pcm = [p for p in pcm if p is not None]
        return torch.cat(pcm) if pcm else torch.zeros(0)

    def stream(self, text: str, voices: Sequence[torch.Tensor], run: KyutaiRun, stop: threading.Event | None = None,
               cfg: float | None = DEFAULT_CFG, seed: int = 0, max_steps: int = MAX_STEPS) -> Iterator[SpeechFrame]:
        """``say`` a frame at a time, as generated: every aligned frame (its audio None where nothing
        is played yet or any more). ``stop`` set ends it before the next frame; ``run`` says how far it got."""
        generator = self.generator
        state = generator.init_state(1, seed)
        generator.condition(state, speaker_condition([v.to(self.device) for v in voices]), cfg)
        entries = script_entries(self.tokenizer.encode, [text], FRAME_RATE, padding_between=1)
        machine = TextMachine(self.config.text_card + 1, self.timing.second_stream_ahead, entries)
        decoder = SpeechDecoder(self.mimi, generator.delay_steps, self.device)
        run.words, run.frames = machine.transcript, 0
        started = time.perf_counter()
        for step, result in speak_steps(generator, state, machine, max_steps):
            if step >= generator.first_output_frame:
                pcm = decoder.push(result, machine.end_step)
                run.end_step, run.frames = machine.end_step, run.frames + 1
                yield SpeechFrame(step, int(result.text[0]), tuple(result.audio[0].tolist()),
                                  None if pcm is None else pcm.float().cpu(), 1000 * (time.perf_counter() - started))
                started = time.perf_counter()
            if stop is not None and stop.is_set():
                run.stopped = True
                return


@dataclass(frozen=True)
class SpeechFrame:
    """One aligned frame: its step, the text token written, the audio codes (-1: none) and the
    1920 samples it plays (None: none), and the milliseconds it took (step and decode)."""

    step: int
    text: int
    audio: tuple[int, ...]
    pcm: torch.Tensor | None
    ms: float


@dataclass
class KyutaiRun:
    """How a ``KyutaiSpeech.stream`` went: the words with the step each started at, the aligned frames
    given, the text's end step (None: not reached) and whether it was stopped."""

    words: list[tuple[str, int]] = field(default_factory=list)
    frames: int = 0
    end_step: int | None = None
    stopped: bool = False


def speaks_kyutai(spec: str | os.PathLike) -> bool:
    """Whether ``spec`` names a Kyutai TTS model: its preset, or a folder whose config.json says so."""
    if isinstance(spec, str) and spec in HUB_PRESETS:
        return family_named(HUB_PRESETS[spec].family).generator == SpeechGenerator.kind
    config = Path(spec).expanduser() / CONFIG_NAME
    try:
        raw = read_regular(config, MAX_CONFIG_BYTES)
        claimed = raw is not None and json.loads(raw).get("model_type") == MODEL_TYPE
    except (OSError, ValueError, AttributeError):
        return False
    return claimed


def kyutai_voice(files: ModelFiles, choice: str | None = None, download: bool = True) -> torch.Tensor:
    """A voice by name (``kyutai/tts-voices``'s, default kyutai's) or file, checked against the model
    of ``files`` (before its weights are loaded)."""
    try:
        specs, cross = parse_conditioners(files.lm_config)
    except ValueError as e:
        raise ModelError(f"{files.name}'s config.json: {e}") from e
    dims = [s.dim for s in specs if cross is not None and s.name in cross.names]
    path = voice_path(choice or DEFAULT_VOICE, files.lm_config, files.voices_dir, download)
    return read_voice(path, dims[0] if len(dims) == 1 else None)


def load_kyutai_speech(spec: str | ModelFiles, device: str = "auto", precision: Precision | str = Precision.AUTO,
                       sampling: SamplingConfig = RELEASED_SAMPLING, progress=None) -> KyutaiSpeech:
    """Resolve (and if needed fetch) the Kyutai TTS preset or a model folder (or take its files), then load it."""
    dev = resolve_device(device)
    files = spec if isinstance(spec, ModelFiles) else resolve_model(spec, progress=progress)
    with torch.inference_mode(False):
        return KyutaiSpeech(files, dev, Precision.parse(precision), sampling)
