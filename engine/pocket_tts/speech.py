"""Speech from text, frame by frame, as the package generates it: each chunk of the text starts
from a copy of the voice's state with a fresh codec decoder (its first 5 ms faded in), ends
``frames_after_eos`` frames after the first end-of-speech at or after frame 6, or at the chunk's
frame budget. A stop event is looked at before every frame.

Noise: each frame's flow starts from ``normal(0, sqrt(temperature))`` (zeros at temperature 0),
drawn from this generator's own seeded ``torch.Generator``, one draw for the text prompt and one
per frame, in the package's order.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import torch

from .config import (
    FADE_IN_SECONDS,
    GEN_SECONDS_PADDING,
    MAX_TOKENS_PER_CHUNK,
    MIN_FRAMES_BEFORE_EOS,
    TOKENS_PER_SECOND_ESTIMATE,
)
from .loading import PocketTTS
from .text import prepare, split_chunks
from .voices import Voice


@dataclass(frozen=True)
class SpeechFrame:
    chunk: int
    index: int  # within the chunk
    latent: torch.Tensor  # [latent_dim], before denormalisation (what the package's generator yields)
    audio: np.ndarray  # float32 [frame_size]
    cpu_ms: float  # this thread's CPU time for the frame (FlowLM step and decoding)


@dataclass
class ChunkInfo:
    text: str
    tokens: list[int]
    frames_after_eos: int
    max_frames: int
    end_frame: int | None = None  # the first end-of-speech frame counted (None: budget reached)
    frames: int = 0


@dataclass
class SpeechRun:
    chunks: list[ChunkInfo] = field(default_factory=list)
    stopped: bool = False


class Speaker:
    def __init__(self, model: PocketTTS, voice: Voice, temperature: float | None = None,
                 eos_threshold: float | None = None, seed: int = 0, decode_steps: int = 1,
                 max_tokens: int = MAX_TOKENS_PER_CHUNK):
        self.model, self.voice = model, voice
        self.temperature = model.config.temperature if temperature is None else temperature
        self.eos_threshold = model.config.eos_threshold if eos_threshold is None else eos_threshold
        if not math.isfinite(self.temperature) or self.temperature < 0:
            raise ValueError("The temperature must be a number at least 0.")
        self.decode_steps, self.max_tokens = decode_steps, max_tokens
        self.generator = torch.Generator().manual_seed(seed)

    def chunks(self, text: str) -> list[str]:
        return split_chunks(text, self.model.tokenizer, self.model.config.text, self.max_tokens)

    def _noise(self) -> torch.Tensor:
        noise = torch.empty(1, self.model.config.flow.latent_dim)
        return noise.normal_(0.0, self.temperature ** 0.5, generator=self.generator)

    @torch.no_grad()
    def speak(self, text: str, run: SpeechRun | None = None,
              stop: threading.Event | None = None) -> Iterator[SpeechFrame]:
        """The frames of ``text``; ``run`` collects what each chunk read and where it ended."""
        run = SpeechRun() if run is None else run
        stop = threading.Event() if stop is None else stop
        for n, chunk in enumerate(self.chunks(text)):
            if stop.is_set():
                break
            yield from self._chunk(n, chunk, run, stop)
        run.stopped = stop.is_set()

    def _chunk(self, n: int, chunk: str, run: SpeechRun, stop: threading.Event) -> Iterator[SpeechFrame]:
        model, flow, codec = self.model, self.model.flow_lm, self.model.codec
        rules = model.config.text
        prompt = prepare(chunk, rules)
        tokens = model.tokenizer.encode(prompt.text)
        after = rules.frames_after_eos if rules.frames_after_eos is not None else prompt.frames_after_eos_guess + 2
        budget = math.ceil((len(tokens) / TOKENS_PER_SECOND_ESTIMATE + GEN_SECONDS_PADDING)
                           * model.config.codec.frame_rate)
        info = ChunkInfo(prompt.text, tokens, after, budget)
        run.chunks.append(info)
        state = flow.init_state(self.voice.length + len(tokens) + budget)
        self.voice.write_into(state)
        flow.read_text(torch.tensor([tokens]), state)
        self._noise()  # the package samples (and drops) a latent after the text prompt
        decoder = codec.init_state()
        fade = torch.linspace(0, 1, int(model.sample_rate * FADE_IN_SECONDS))
        latent = None
        for step in range(budget):
            if stop.is_set():
                return
            start = time.thread_time()
            next_latent, eos_logit = flow.step(latent, state, self._noise(), self.decode_steps)
            if info.end_frame is None and step >= MIN_FRAMES_BEFORE_EOS and bool(eos_logit > self.eos_threshold):
                info.end_frame = step
            if info.end_frame is not None and step >= info.end_frame + after:
                return
            audio = codec.decode(next_latent * flow.emb_std + flow.emb_mean, decoder).view(-1)
            if step == 0:
                audio[:fade.numel()] *= fade
            info.frames += 1
            cpu_ms = (time.thread_time() - start) * 1000
            yield SpeechFrame(n, step, next_latent.view(-1).clone(), audio.numpy().copy(), cpu_ms)
            latent = next_latent.view(1, 1, -1)
