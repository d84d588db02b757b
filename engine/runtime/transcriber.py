"""Speech to text: kyutai's streaming STT models as a transcriber of the person's 24 kHz audio, fed
in pieces of any length. Around the LM, exactly as the reference ``moshi.run_inference`` (0.2.13):
``int(audio_silence_prefix_seconds * 24000)`` samples of silence first; the first frame's codes given
twice (only the second step's text counts); ``audio_delay_seconds + 1`` s of silence after, then a
partial frame dropped. A piece is dated where its words were said (less the prefix and the delay).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ..audio import FRAME_SECONDS, FRAME_SIZE, SAMPLE_RATE
from ..codec.mimi import load_mimi
from ..errors import ModelError
from ..families import family_named
from ..families.stt import SpeechToTextTiming
from ..files.models import ModelFiles, resolve_model
from ..lm.generate import MoshiGenerator, SamplingConfig
from ..lm.model import LMConfig, LMModel
from ..lm.sampling import DEFAULT_SEED
from ..lm.tokenizer import TextTokenizer
from .frame_step import FrameOptions, FrameStep
from .loading import load_lm_weights, resolve_device
from .model_info import Precision

FLUSH_EXTRA_SECONDS = 1.0  # the reference's silence after the audio beyond the model's delay
LIVE_FLUSH_EXTRA_SECONDS = FRAME_SECONDS  # a turn's end: a frame past the delay covers the last partial frame


@dataclass(frozen=True)
class CaptionStep:
    """What one model step (one 80 ms frame) wrote: its text token and text ("" for padding), when
    the words were said (seconds, never before 0), and the extra heads' probabilities, if any."""

    step: int
    token: int
    text: str
    seconds: float
    voice_activity: tuple[tuple[float, ...], ...] = ()


@dataclass(frozen=True)
class Word:
    text: str
    start: float
    end: float


class SpeechToText:
    """A loaded speech-to-text model: Mimi, the LM and the tokenizer on one device."""

    def __init__(self, files: ModelFiles, device: torch.device, precision: Precision):
        family = family_named(files.family)
        if not family.speech_to_text:
            raise ModelError(f"{files.name} is a {family.title} conversation model, not a speech-to-text one: "
                             "choose a Kyutai STT model (stt-1b-en_fr, stt-2.6b-en, demo-stt) for captions.")
        try:
            self.config = LMConfig.from_hub_config(files.lm_config)
            self.timing = SpeechToTextTiming.of(files.lm_config)
        except ValueError as e:
            raise ModelError(f"{files.name}'s config.json: {e}") from e
        if self.config.has_depformer:
            raise ModelError(f"{files.name}'s config.json gives it a depth transformer (dep_q "
                             f"{self.config.dep_q}): a speech-to-text model writes text only (dep_q 0).")
        if device.type == "cpu" and precision in (Precision.AUTO, Precision.BFLOAT16):
            precision = Precision.FLOAT32  # no kernel plan here: float32 weights, said as they are
        self.files, self.device, self.precision = files, device, precision.resolve(device)
        self.dtype = self.precision.activation_dtype(device)
        self.tokenizer = TextTokenizer(files.tokenizer_path)
        if self.tokenizer.vocab_size > self.config.text_card:
            raise ModelError(f"the text tokenizer ({self.tokenizer.vocab_size} pieces) does not belong to this "
                             f"model (text_card {self.config.text_card})")
        self.mimi = load_mimi(files.mimi_path, num_codebooks=self.config.n_q, device=device)
        self.lm: LMModel = load_lm_weights(files, self.config, device, self.dtype, self.precision)

    @property
    def has_voice_activity(self) -> bool:
        return self.config.extra_heads_num_heads > 0

    def new_stream(self, sampling: SamplingConfig = SamplingConfig.greedy(), seed: int = DEFAULT_SEED
                   ) -> TranscriptionStream:
        """A transcription from the start of the person's audio (greedy, as the released models ask)."""
        return TranscriptionStream(self, MoshiGenerator(self.lm, sampling), seed)

    def transcribe(self, pcm: np.ndarray, sampling: SamplingConfig = SamplingConfig.greedy()
                   ) -> list[CaptionStep]:
        """All of a recording (float32 mono at 24 kHz), flushed: every step's result."""
        stream = self.new_stream(sampling)
        return [*stream.feed(pcm), *stream.finish()]


class TranscriptionStream:
    """One person's audio in, one ``CaptionStep`` per complete frame out (``feed``); ``finish``
    flushes the words still behind the delay. Not thread-safe: one thread feeds it."""

    def __init__(self, model: SpeechToText, generator: MoshiGenerator, seed: int):
        self.model, self.generator = model, generator
        timing = model.timing
        self._prefix_samples = int(timing.audio_silence_prefix_seconds * SAMPLE_RATE)
        self._delay_seconds = timing.audio_delay_seconds
        self._lag_seconds = timing.audio_silence_prefix_seconds + timing.audio_delay_seconds
        heads = model.config.extra_heads_num_heads
        with torch.inference_mode(False):
            state = {"mimi": model.mimi.init_state(1, model.device), "gen": generator.init_state(1, seed)}
            self._heads = torch.zeros(1, heads, model.config.extra_heads_dim, device=model.device)
            self._frame = FrameStep(model.mimi, generator, state, hidden=self._read_heads if heads else None)
        self._pending = np.zeros(self._prefix_samples, dtype=np.float32)
        self._steps = 0
        self._finished = False

    def feed(self, pcm: np.ndarray) -> list[CaptionStep]:
        """Take the next samples (float32 mono, 24 kHz, any length) and step over every frame they complete."""
        if self._finished:
            raise RuntimeError("this transcription is finished: open a new stream")
        samples = np.asarray(pcm, dtype=np.float32)
        if samples.ndim != 1:
            raise ValueError(f"expected mono samples [n], got shape {samples.shape}")
        if not np.isfinite(samples).all():
            raise ValueError("the audio holds NaN or infinite samples")
        self._pending = np.concatenate([self._pending, samples])
        frames = len(self._pending) // FRAME_SIZE
        out = self._run(self._pending[:frames * FRAME_SIZE]) if frames else []
        self._pending = self._pending[frames * FRAME_SIZE:]
        return out

    def finish(self, live: bool = False) -> list[CaptionStep]:
        """Silence for the model's delay and a little more, which lets the last words out; a partial
        frame is dropped. By default the reference's second more (its tokens, exactly); ``live``: a
        turn's end, where only the words up to it matter (7 frames, not 19, at a 0.5 s delay)."""
        extra = LIVE_FLUSH_EXTRA_SECONDS if live else FLUSH_EXTRA_SECONDS
        out = self.feed(np.zeros(int((self._delay_seconds + extra) * SAMPLE_RATE), dtype=np.float32))
        self._finished = True
        return out

    def _run(self, samples: np.ndarray) -> list[CaptionStep]:
        """Every frame of ``samples``; the tokens (and heads) are read back once, at the end."""
        model, frame = self.model, self._frame
        first = self._steps
        with torch.inference_mode():
            pcm = torch.from_numpy(samples.copy()).to(model.device, model.mimi.pcm_dtype).view(-1, 1, 1, FRAME_SIZE)
            tokens, heads = [], []
            for i in range(pcm.shape[0]):
                step = self._steps
                if step == 0:  # the reference gives the first frame twice (module docstring)
                    frame.pcm_in.copy_(pcm[i])
                    frame.run(FrameOptions(decode=False, steps=2))
                else:
                    frame(pcm[i], step + 1)  # generator steps: the first frame made two
                tokens.append(frame.text.clone())
                if model.has_voice_activity:
                    heads.append(self._heads.clone())
                self._steps += 1
            tokens = torch.cat(tokens).tolist()
            heads = torch.cat(heads).float().tolist() if model.has_voice_activity else [()] * len(tokens)
        return [CaptionStep(first + i, token, model.tokenizer.piece(token),
                            max(0.0, (first + i) * FRAME_SECONDS - self._lag_seconds),
                            tuple(tuple(row) for row in heads[i]))
                for i, token in enumerate(tokens)]

    def _read_heads(self, h: torch.Tensor) -> None:
        self._heads.copy_(self.model.lm.extra_head_probabilities(h))


def words(steps: Iterable[CaptionStep]) -> list[Word]:
    """The words the steps wrote, each from its first piece's time to the next word's (the last: one
    frame after its last piece). A piece starting with a space starts a word."""
    pieces = [s for s in steps if s.text]
    found: list[list[CaptionStep]] = []
    for piece in pieces:
        if not found or piece.text.startswith(" "):
            found.append([piece])
        else:
            found[-1].append(piece)
    out = []
    for i, group in enumerate(found):
        end = found[i + 1][0].seconds if i + 1 < len(found) else group[-1].seconds + FRAME_SECONDS
        out.append(Word("".join(p.text for p in group).strip(), group[0].seconds, max(end, group[0].seconds)))
    return [w for w in out if w.text]


def text_of(steps: Sequence[CaptionStep]) -> str:
    return "".join(s.text for s in steps).strip()


def load_speech_to_text(spec: str, device: str = "auto", precision: Precision | str = Precision.AUTO,
                        progress=None) -> SpeechToText:
    """Resolve (and if needed fetch) a speech-to-text preset or model folder, then load it."""
    dev = resolve_device(device)
    chosen = Precision.parse(precision)
    files = resolve_model(spec, progress=progress)
    with torch.inference_mode(False):
        return SpeechToText(files, dev, chosen)
