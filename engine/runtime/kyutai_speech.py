"""A loaded Kyutai TTS model: the LM, Mimi and the tokenizer on one device, speaking a text with a
voice as the reference's ``TTSModel.simple_generate`` does (greedy or sampled)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import torch

from ..codec.mimi import load_mimi
from ..errors import ModelError
from ..families import family_named
from ..families.kyutai_tts import DEFAULT_CFG, SpeechTiming
from ..files.models import ModelFiles
from ..lm.generate import SamplingConfig, SpeechGenerator
from ..lm.model import LMConfig
from ..lm.tokenizer import TextTokenizer
from ..lm.tts_generator import FRAME_RATE, speak, speaker_condition
from ..lm.tts_machine import TextMachine, script_entries
from .loading import load_lm_weights
from .model_info import Precision
from .speech_frames import speech_pcm

MAX_STEPS = 30_000  # the reference's ``max_gen_length`` (40 minutes)
RELEASED_SAMPLING = SamplingConfig(temp=0.6, temp_text=0.6)  # its config's ``lm_gen_config``


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
        generator = self.generator
        state = generator.init_state(1, seed)
        generator.condition(state, speaker_condition([v.to(self.device) for v in voices]), cfg)
        entries = script_entries(self.tokenizer.encode, [text], FRAME_RATE, padding_between=1)
        machine = TextMachine(self.config.text_card + 1, self.timing.second_stream_ahead, entries)
        frames = speak(generator, state, machine, max_steps)
        return speech_pcm(self.mimi, frames, generator.delay_steps, machine.end_step).float().cpu()


def read_voice(path: str | Path) -> torch.Tensor:
    """A released voice file's ``speaker_wavs`` [1, dim, T] (kyutai/tts-voices' ``*.safetensors``)."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    try:
        tensor = load_file(str(path)).get("speaker_wavs")
    except (SafetensorError, OSError) as e:
        raise ModelError(f"{path} is not a readable voice file: {e}") from e
    if tensor is None or tensor.dim() != 3 or tensor.shape[0] != 1 or not tensor.is_floating_point():
        raise ModelError(f"{path} holds no voice (a float 'speaker_wavs' [1, dim, frames])")
    return tensor.float()
