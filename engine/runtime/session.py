"""A conversation: one explicit state tree, allocated once and stepped in place one 80 ms frame at a
time; counters, transcript and recording live beside it and change only with it."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

import numpy as np
import torch

from ..audio import FRAME_SECONDS, FRAME_SIZE, SAMPLE_RATE
from ..errors import ModelError
from ..files import conversation
from ..files.captions import CAPTION_DECIMALS, Caption
from ..files.journal import Journal
from ..files.personas import Persona
from ..lm.generate import Forcing, SamplingConfig, make_generator
from ..lm.sampling import DEFAULT_SEED
from ..state import StateTree, nbytes
from .frame_step import STAGES, FrameStep, release_cached_blocks
from .growing_array import BLOCK_FRAMES
from .model_info import ModelParts
from .rebuild import Progress, ReplayedFrames, replay_frames
from .recording import PcmRecording
from .source_start import lead_in, source_frames
from .threads import replay_threads, running_with

FrameObserver = Callable[["Session", np.ndarray], None]  # called after every frame with the user's samples


@dataclass(frozen=True)
class FrameTimings:
    """Milliseconds per stage of an eagerly computed frame; a replayed CUDA graph has only a total."""

    encode_ms: float
    lm_ms: float  # temporal transformer + text sampling
    depth_ms: float  # depth transformer over all codebooks, with sampling
    decode_ms: float
    total_ms: float


@dataclass(frozen=True)
class CacheStats:
    name: str
    used: int
    capacity: int
    wraps: int
    nbytes: int


@dataclass(frozen=True)
class FrameResult:
    pcm: np.ndarray  # float32 [1920], 24 kHz mono: the assistant's audio for this frame
    text: str  # the text piece produced this frame ("" if none)
    text_token: int | None  # None while the model's output is not aligned yet (first frame)
    audio_codes: tuple[int, ...] | None
    frame_index: int
    timings: FrameTimings
    caches: tuple[CacheStats, ...]


@dataclass(frozen=True)
class OfflineResult:
    pcm: np.ndarray  # float32, as long as the frames fed (whole frames)
    text: str
    text_tokens: list[int]  # one per frame that produced output
    audio_codes: list[list[int]]
    frames_in: int  # frames fed: the recording's, and an interpreter's end-of-source frame and tail
    frame_ms: list[float]  # each frame's compute time (FrameTimings.total_ms), in order


@dataclass(frozen=True)
class TranscriptEntry:
    frame_index: int
    seconds: float
    text: str


@dataclass(frozen=True)
class GraphStatus:
    """Whether frames replay a CUDA graph (``active``), are warming up for one, or run eagerly (``reason``)."""

    active: bool
    pending: bool
    reason: str | None


RECORDING_BLOCK = BLOCK_FRAMES * FRAME_SIZE  # samples per block of each side's recording
TRANSLATION_TAIL_S = 20.0  # the longest an interpreter's translation may go on after its source ended


class Session:
    """One conversation. Not thread-safe: use it from one thread (the engine worker)."""

    def __init__(self, model: ModelParts, sampling: SamplingConfig = SamplingConfig(), seed: int = DEFAULT_SEED, *,
                 voice_prompt: str | None = None, text_prompt: str | None = None, record_audio: bool = True,
                 run_prompts: bool = True, persona: Persona | None = None):
        """``run_prompts=False`` skips the prompt phases or lead-in (``source_start``; for a session to restore)."""
        self.model, self.seed = model, seed
        self._frame_steps: dict[SamplingConfig, FrameStep] = {}
        generator = make_generator(model.lm, sampling)
        self.state: StateTree = {"mimi": model.mimi.init_state(1), "gen": generator.init_state(1, seed)}
        self._rings = _ring_sizes(model, self.state)
        self._frames = 0  # live frames stepped
        self._generator_steps = 0  # generator steps, prompt phases included
        self._decoded_frames = 0  # frames decoded by Mimi (the generator's aligned outputs)
        self._transcript: list[TranscriptEntry] = []
        self._captions: list[Caption] = []
        self._turn_ends: list[float] = []
        self.prompts = {"voice": voice_prompt, "text": text_prompt}
        self.persona = persona
        self.record_audio = record_audio
        self._threads: int | None = None
        self._keep_recording(None, None)
        self._observer: FrameObserver | None = None
        self._forcing = self._silence_forcing(generator)
        self._use(sampling, generator)
        if run_prompts:
            self._prompt(voice_prompt, text_prompt)
        self.frame_step.prepare(self.generator_steps)  # warm-up and capture now, not on live frames

    @classmethod
    def load(cls, path: str | Path, model: ModelParts) -> Session:
        """Open a saved conversation on ``model`` as a new session (``restore`` reopens one in place)."""
        session = cls(model, run_prompts=False)
        session.restore(path)
        return session

    @property
    def frames(self) -> int:
        return self._frames

    @property
    def generator_steps(self) -> int:
        """Generator steps, PersonaPlex's prompt phases included."""
        return self._generator_steps

    @property
    def decoded_frames(self) -> int:
        """Frames Mimi decoded (those whose generator output was aligned)."""
        return self._decoded_frames

    @property
    def transcript(self) -> tuple[TranscriptEntry, ...]:
        return tuple(self._transcript)

    @property
    def threads(self) -> int | None:
        """The CPU thread count frames must keep to stay replayable (float sums group per thread); None: any."""
        return self._threads

    @property
    def captions(self) -> tuple[Caption, ...]:
        """The person's words where a caption model heard them (``engine.runtime.captioner``)."""
        return tuple(self._captions)

    @property
    def turn_ends(self) -> tuple[float, ...]:
        """Where the caption model's voice-activity heads said the person's turn ended (seconds)."""
        return tuple(self._turn_ends)

    def add_captions(self, captions: Iterable[Caption], turn_ends: Iterable[float] = ()
                     ) -> tuple[tuple[Caption, ...], tuple[float, ...]]:
        """Keep caption pieces and turn ends, clamped to the last frame and rounded as files keep them."""
        kept = tuple((self._caption_time(seconds), text) for seconds, text in captions)
        ends = tuple(self._caption_time(seconds) for seconds in turn_ends)
        self._captions.extend(kept)
        self._turn_ends.extend(ends)
        return kept, ends

    def _caption_time(self, seconds: float) -> float:
        last = max(0, self._frames - 1) * FRAME_SECONDS
        return round(min(max(0.0, float(seconds)), last), CAPTION_DECIMALS)

    @property
    def frame_observer(self) -> FrameObserver | None:
        return self._observer

    def observe(self, observer: FrameObserver | None) -> None:
        """Call ``observer(session, pcm)`` after every frame from now on; None: no one."""
        self._observer = observer

    def progress(self) -> conversation.SessionProgress:
        """The host side as a file stores it (with the state tree, the whole conversation)."""
        return conversation.SessionProgress(
            self.sampling, self.seed, self._frames, self._generator_steps, self._decoded_frames, dict(self.prompts),
            tuple(conversation.transcript_tuples(self._transcript)), self.persona, tuple(self._captions),
            tuple(self._turn_ends))

    @property
    def sampling(self) -> SamplingConfig:
        return self.generator.sampling

    def _use(self, sampling: SamplingConfig, generator=None) -> None:
        """Make ``sampling`` current; frame steps (graphs hold it as constants) are kept per sampling."""
        step = self._frame_steps.get(sampling)
        if step is None:
            generator = generator or make_generator(self.model.lm, sampling)
            step = FrameStep(self.model.mimi, generator, self.state, use_cuda_graph=self.model.cuda_graph,
                             forcing=self._forcing)
            self._frame_steps[sampling] = step
        self.frame_step = step
        self.generator = step.generator

    @property
    def waiting_for_user(self) -> bool:
        return bool(self._forcing.streams.any())

    def wait_for_user(self, waiting: bool) -> None:
        """"Wait for me": while ``waiting``, frames force the assistant's text to padding, audio to silence."""
        agent_streams = 1 + self.generator.agent_streams
        with torch.inference_mode():
            self._forcing.streams[:agent_streams] = waiting

    def _silence_forcing(self, generator) -> Forcing:
        """The buffers of ``wait_for_user``: padding text, Mimi's codes of silence (a fresh encoder's 3rd frame)."""
        mimi, device, c = self.model.mimi, self.model.device, generator.config
        with torch.inference_mode():
            state, zeros = mimi.init_state(1, device), torch.zeros(1, 1, mimi.frame_size, device=device,
                                                                   dtype=mimi.pcm_dtype)
            for _ in range(3):
                codes = mimi.encode_step(zeros, state)[0, :, 0]
        tokens = torch.zeros(1, c.token_streams, dtype=torch.long, device=device)
        tokens[0, 0] = c.existing_text_padding_id
        agent = generator.agent_streams
        tokens[0, 1:1 + agent] = codes[:agent]
        return Forcing(tokens, torch.zeros(c.token_streams, dtype=torch.bool, device=device))

    @property
    def graph(self) -> GraphStatus:
        step = self.frame_step
        return GraphStatus(step.graph_active, step.graph_pending, step.fallback_reason)

    def _prompt(self, voice_prompt: str | None, text_prompt: str | None) -> None:
        if not self.model.info.takes_prompts:
            if voice_prompt or text_prompt:
                raise ModelError(f"{self.model.info.name} is not a PersonaPlex model: voice and text prompts "
                                 "need --model personaplex (or a PersonaPlex model folder)")
            self._generator_steps = lead_in(self.model.mimi, self.generator, self.state["gen"])
            return
        from ..lm.personaplex import run_prompt_phases
        from ..lm.prompts import NO_VOICE, resolve_voice, role_prompt_tokens
        from .voices import load_voice

        voice_prompt = resolve_voice(self.model.files.voices_dir, voice_prompt)
        self.prompts["voice"] = voice_prompt or NO_VOICE
        voice = load_voice(self.model, voice_prompt) if voice_prompt else None
        tokens = role_prompt_tokens(self.model.tokenizer, text_prompt)
        with torch.inference_mode():
            steps = run_prompt_phases(self.generator, self.state["gen"], voice, tokens)
        release_cached_blocks(self.model.device)  # the prompt's chunks' activations
        self._generator_steps = len(steps)

    def step(self, pcm: np.ndarray) -> FrameResult:
        """One frame of the user's audio (float32 [1920], 24 kHz mono) -> the assistant's frame."""
        pcm = np.asarray(pcm, dtype=np.float32)
        if pcm.shape != (FRAME_SIZE,):
            raise ValueError(f"expected one frame of {FRAME_SIZE} samples (float32, 24 kHz mono), got shape "
                             f"{pcm.shape}")
        clock = _StageClock(self.model.device)
        with torch.inference_mode():
            x = torch.from_numpy(pcm).to(self.model.device).view(1, 1, FRAME_SIZE)
            text, audio, out = self.frame_step(x, self.generator_steps, mark=clock.mark)
            aligned = self.generator_steps >= self.generator.first_output_frame
            if aligned:
                out_np = out.view(-1).to("cpu", torch.float32, copy=True).numpy()  # out is a static buffer
                token = int(text[0])
                audio_codes = tuple(int(c) for c in audio[0, :self.model.mimi.num_codebooks].tolist())
            else:
                out_np, token, audio_codes = np.zeros(FRAME_SIZE, np.float32), None, None
        if self.model.runtime_unmeasured and not self.frame_step.graph_pending:
            self.model.measure_runtime_memory()  # the frames run as they will from now on
        timings = clock.timings()
        frame_index = self._frames
        self._frames += 1
        self._generator_steps += 1
        self._decoded_frames += aligned
        piece = self.model.tokenizer.piece(token) if token is not None else ""
        if piece:
            self._transcript.append(TranscriptEntry(frame_index, round(frame_index * FRAME_SECONDS, 2), piece))
        if self.record_audio:
            self._user_audio.extend(pcm)
            self._assistant_audio.extend(out_np)
        if self._observer is not None:
            self._observer(self, pcm)
        return FrameResult(out_np, piece, token, audio_codes, frame_index, timings, self.cache_stats())

    def end_source(self) -> FrameResult:
        """An interpreter's source has ended: one silent frame marked as the reference does."""
        if self.generator.end_of_source_token is None:
            raise ModelError(f"{self.model.info.name} is not an interpreter: its input has no end to mark")
        flag = self.frame_step.source_ended
        with torch.inference_mode():
            flag.fill_(True)
        try:
            return self.step(np.zeros(FRAME_SIZE, np.float32))
        finally:
            with torch.inference_mode():
                flag.fill_(False)

    def process(self, pcm: np.ndarray, tail_s: float = TRANSLATION_TAIL_S) -> OfflineResult:
        """Feed a whole recording (zero-padded) as a live listener hears it; an interpreter then gets
        ``end_source`` (``source_frames``) and silence until its translation ends (``tail_s`` at most)."""
        pcm = np.asarray(pcm, dtype=np.float32).reshape(-1)
        frames = source_frames(pcm.size, self.generator.end_of_source_token is not None)
        padded = np.zeros(frames * FRAME_SIZE, np.float32)
        padded[:pcm.size] = pcm
        outs, tokens, codes, text, frame_ms = [], [], [], [], []
        results = (self.step(padded[i * FRAME_SIZE:(i + 1) * FRAME_SIZE]) for i in range(frames))
        if self.generator.end_of_source_token is not None:
            results = chain(results, self._translation_tail(round(tail_s / FRAME_SECONDS)))
        for r in results:
            outs.append(r.pcm)
            frame_ms.append(r.timings.total_ms)
            if r.text_token is not None:
                tokens.append(r.text_token)
                codes.append(list(r.audio_codes))
                text.append(r.text)
        pcm_out = np.concatenate(outs) if outs else np.zeros(0, np.float32)
        return OfflineResult(pcm_out, "".join(text), tokens, codes, len(outs), frame_ms)

    def _translation_tail(self, limit: int) -> Iterator[FrameResult]:
        """The end-of-source frame, then silence until the translation ends (or ``limit`` frames)."""
        r = self.end_source()
        yield r
        for _ in range(limit):
            if r.text_token == self.generator.end_of_text_token:
                return
            r = self.step(np.zeros(FRAME_SIZE, np.float32))
            yield r

    def cache_stats(self) -> tuple[CacheStats, ...]:
        """Ring usage from host counters (no device reads; sizes computed once per session)."""
        steps = self.model.mimi.cfg.steps_per_frame
        written = (self.generator_steps, self.frames * steps, self.decoded_frames * steps)
        return tuple(CacheStats(name, min(n, capacity), capacity, n // capacity, nbytes)
                     for (name, capacity, nbytes), n in zip(self._rings, written))

    def _keep_recording(self, user: np.ndarray | None, assistant: np.ndarray | None) -> None:
        """Replace the recording with these (handed over; None: none): user side exact, assistant's 16-bit."""
        empty = np.zeros(0, np.float32)
        self._user_audio = PcmRecording.of(empty if user is None else user, RECORDING_BLOCK, exact=True)
        self._assistant_audio = PcmRecording.of(empty if assistant is None else assistant, RECORDING_BLOCK,
                                                exact=False)

    def audio(self) -> tuple[np.ndarray, np.ndarray]:
        """(user, assistant) float32 24 kHz recordings of the whole conversation."""
        return self._user_audio.array(), self._assistant_audio.array()

    def recording(self) -> tuple[PcmRecording, PcmRecording]:
        """(user, assistant) recordings as they are now, sharing blocks: what a save writes meanwhile."""
        return self._user_audio.frozen(), self._assistant_audio.frozen()

    def audio_between(self, start_s: float, end_s: float) -> tuple[np.ndarray, np.ndarray]:
        """(user, assistant) recordings from ``start_s`` to ``end_s`` conversation seconds (clamped)."""
        start, stop = round(start_s * SAMPLE_RATE), round(end_s * SAMPLE_RATE)
        return self._user_audio.rows(start, stop), self._assistant_audio.rows(start, stop)

    def snapshot(self) -> conversation.ConversationSnapshot:
        """This conversation's full file as of now, to write from any thread while it goes on."""
        recording = self.recording() if self.record_audio else None
        return conversation.snapshot_session(self.model.info, self.state, self.progress(), recording)

    def save(self, path: str | Path) -> None:
        self.snapshot().write(path)

    def restore(self, path: str | Path) -> None:
        """Replace this conversation with a saved one in place (captured graphs stay valid); all checked first."""
        record = conversation.read_session_file(path, self.model.info.fingerprint, self.state, self.model.lm.config)
        self._use(record.sampling)
        self.wait_for_user(False)
        conversation.copy_into_state(self.state, record.state)
        self.seed = record.seed
        self._frames, self._decoded_frames, self._generator_steps = (record.frames, record.decoded_frames,
                                                                     record.generator_steps)
        self.prompts = dict(record.prompts)
        self.persona = record.persona
        self._transcript = [TranscriptEntry(f, s, t) for f, s, t in record.transcript]
        self._captions = list(record.captions)
        self._turn_ends = list(record.turn_ends)
        self._keep_recording(record.user_audio, record.assistant_audio)
        self.frame_step.prepare(self._generator_steps)  # a frame step new to this sampling: capture it now

    def rebuild_from(self, journal: Journal, frames: int, progress: Progress | None = None,
                     cancel: Callable[[], bool] | None = None) -> ReplayedFrames:
        """Replay the first ``frames`` frames of ``journal`` (tokens forced) on this new session, with
        the thread count they ran with where possible, so the state equals the journaled run's bit for
        bit. Raises ``RecoveryCancelled`` when ``cancel()``."""
        if self._frames:
            raise ValueError(f"a rebuild starts from a new session; this one has run {self._frames} frames")
        threads = replay_threads(journal.header.threads) if self.model.device.type == "cpu" else 0
        with running_with(threads):
            replayed = replay_frames(self.frame_step, self.model.tokenizer, journal, frames, self._generator_steps,
                                     progress, cancel)
        self._threads = threads or None
        self._frames, self._generator_steps = frames, self._generator_steps + frames
        self._decoded_frames += replayed.decoded_frames
        self._transcript = [TranscriptEntry(*entry) for entry in replayed.transcript]
        if self.record_audio:  # the session's own recording, as ``step`` would have kept it
            self._keep_recording(journal.pcm[:frames], replayed.assistant_audio)
        return replayed


class _StageClock:
    """Stage times of one frame: host clocks on the CPU, CUDA events (no per-stage sync) on CUDA."""

    def __init__(self, device: torch.device):
        self.cuda = device.type == "cuda"
        self.marks: dict[str, object] = {}
        self.start = self._now()

    def _now(self):
        if not self.cuda:
            return time.perf_counter() * 1000.0
        event = torch.cuda.Event(enable_timing=True)
        event.record()
        return event

    def mark(self, stage: str) -> None:
        self.marks[stage] = self._now()

    def timings(self) -> FrameTimings:
        end = self._now()
        if self.cuda:
            end.synchronize()
            elapsed = lambda a, b: a.elapsed_time(b)
        else:
            elapsed = lambda a, b: b - a
        total = elapsed(self.start, end)
        if set(STAGES) - set(self.marks) - {"decode"}:  # a replayed graph: one launch, no stages
            return FrameTimings(0.0, 0.0, 0.0, 0.0, total)
        points = [self.start] + [self.marks[s] for s in STAGES if s in self.marks]
        ms = [elapsed(a, b) for a, b in zip(points, points[1:])] + [0.0]
        return FrameTimings(encode_ms=ms[0], lm_ms=ms[1], depth_ms=ms[2], decode_ms=ms[3], total_ms=total)


def _ring_sizes(model: ModelParts, state: StateTree) -> tuple[tuple[str, int, int], ...]:
    """(name, capacity, bytes) of the LM's and Mimi's ring caches, in ``cache_stats`` order."""
    mimi = model.mimi
    rings = (("LM", model.lm.transformer, state["gen"]["lm"]["temporal"]),
             ("Mimi encoder", mimi.encoder_transformer.transformer, state["mimi"]["encoder"]["transformer"]),
             ("Mimi decoder", mimi.decoder_transformer.transformer, state["mimi"]["decoder"]["transformer"]))
    return tuple((name, module.cfg.ring.capacity, nbytes(tree)) for name, module, tree in rings)

