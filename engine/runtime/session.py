"""A conversation: one explicit state tree stepped one 80 ms frame at a time.

    model = load_model("demo")
    session = model.new_session(seed=1)
    result = session.step(pcm_1920_float32)      # -> FrameResult (pcm, text, timings, caches)
    session.save("talk.parley"); session.restore("talk.parley"); Session.load("talk.parley", model)

The state ``{"mimi": ..., "gen": ...}`` is allocated once; every frame updates it in place through
a ``FrameStep`` (one CUDA graph on CUDA). Host-side counters, the transcript and the recorded
audio of both sides live beside it, private to the session: they change only with the state, by
``step``, ``restore`` (a full file copied back into the same buffers) and ``rebuild_from`` (a
journal's frames replayed with their tokens forced). ``snapshot`` gives the whole of it as a file.
"""

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
    """Whether frames replay a CUDA graph: ``active`` once captured; ``pending`` while warming up
    for a capture; otherwise ``reason`` says why frames run eagerly."""

    active: bool
    pending: bool
    reason: str | None


RECORDING_BLOCK = BLOCK_FRAMES * FRAME_SIZE  # samples per block of each side's recording
# The longest an interpreter's translation may go on after the source has ended (``process``):
# kyutai's interpreters lag their source by a few seconds.
TRANSLATION_TAIL_S = 20.0


class Session:
    """One conversation. Not thread-safe: use it from one thread (the engine worker)."""

    def __init__(self, model: ModelParts, sampling: SamplingConfig = SamplingConfig(), seed: int = DEFAULT_SEED, *,
                 voice_prompt: str | None = None, text_prompt: str | None = None, record_audio: bool = True,
                 run_prompts: bool = True, persona: Persona | None = None):
        """``run_prompts=False`` skips PersonaPlex's prompt phases: only for a session whose state is
        about to be replaced by a saved conversation (``Session.load``). ``persona``: who the
        assistant is, kept with the conversation (its files say it); the prompts and sampling given
        here are what runs (``Persona.applies`` gives a model's prompts of a persona)."""
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
        """Open a saved conversation on ``model`` as a new session (refused with a clear message if it
        does not fit). To reopen one in the session already running, use ``restore``."""
        session = cls(model, run_prompts=False)
        session.restore(path)
        return session

    # ---- what the session keeps beside its state (read-only outside) --------------------------

    @property
    def frames(self) -> int:
        """Live frames stepped."""
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
        """The CPU thread count this conversation's frames must keep (float sums are grouped per
        thread): set when it was rebuilt from frames that ran with it; None: any."""
        return self._threads

    @property
    def captions(self) -> tuple[Caption, ...]:
        """The person's words where a caption model heard them (``engine.runtime.captioner``)."""
        return tuple(self._captions)

    @property
    def turn_ends(self) -> tuple[float, ...]:
        """Where the caption model's voice-activity heads said the person's turn ended (seconds:
        ``engine.runtime.voice_activity``)."""
        return tuple(self._turn_ends)

    def add_captions(self, captions: Iterable[Caption], turn_ends: Iterable[float] = ()
                     ) -> tuple[tuple[Caption, ...], tuple[float, ...]]:
        """Keep caption pieces heard in this conversation's frames, and the person's turn ends; a
        time past its last frame (a finished captioner's flush) is kept at that frame, so that its
        files hold every piece; to the millisecond its files keep. Returns them as kept."""
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
        """Call ``observer(session, pcm)`` after every frame from now on (a crash journal's
        recorder); None: no one."""
        self._observer = observer

    def progress(self) -> conversation.SessionProgress:
        """The host side as a file stores it (with the state tree, the whole conversation)."""
        return conversation.SessionProgress(
            self.sampling, self.seed, self._frames, self._generator_steps, self._decoded_frames, dict(self.prompts),
            tuple(conversation.transcript_tuples(self._transcript)), self.persona, tuple(self._captions),
            tuple(self._turn_ends))

    # ---- sampling and the frame step ---------------------------------------------------------

    @property
    def sampling(self) -> SamplingConfig:
        return self.generator.sampling

    def _use(self, sampling: SamplingConfig, generator=None) -> None:
        """Make ``sampling`` current. Frame steps (and their captured graphs) are kept per sampling
        setting: the settings are constants inside a graph, and switching back reuses its graph."""
        step = self._frame_steps.get(sampling)
        if step is None:
            generator = generator or make_generator(self.model.lm, sampling)
            step = FrameStep(self.model.mimi, generator, self.state, use_cuda_graph=self.model.cuda_graph,
                             forcing=self._forcing)
            self._frame_steps[sampling] = step
        self.frame_step = step
        self.generator = step.generator

    # ---- "wait for me" -----------------------------------------------------------------------

    @property
    def waiting_for_user(self) -> bool:
        return bool(self._forcing.streams.any())

    def wait_for_user(self, waiting: bool) -> None:
        """"Wait for me": while ``waiting``, every frame forces the assistant's text to padding and
        its audio to the codec's silence codes through the generator's forcing (the other streams
        run as always); released, the assistant speaks as the model likes. From the next frame on.
        A journal holds the tokens each frame wrote, so a waiting conversation replays exactly."""
        agent_streams = 1 + self.generator.agent_streams
        with torch.inference_mode():
            self._forcing.streams[:agent_streams] = waiting

    def _silence_forcing(self, generator) -> Forcing:
        """The buffers of ``wait_for_user`` (nothing forced yet): padding text, then the codes Mimi
        makes of silence (a fresh encoder's third frame of zeros, past its start-up) for the
        assistant's audio."""
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

    # ---- prompts -----------------------------------------------------------------------------

    def _prompt(self, voice_prompt: str | None, text_prompt: str | None) -> None:
        if not self.model.info.takes_prompts:
            if voice_prompt or text_prompt:
                raise ModelError(f"{self.model.info.name} is not a PersonaPlex model: voice and text prompts "
                                 "need --model personaplex (or a PersonaPlex model folder)")
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

    # ---- streaming ---------------------------------------------------------------------------

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
        """An interpreter's source speech has ended: one frame (of silence) that tells the model
        so, as the reference marks it (its input codes are ``generator.end_of_source_token``). The
        translation goes on over the frames after it (silence, from ``step``) until the text stream
        writes ``generator.end_of_text_token``. A journal keeps the frame's codes: it replays."""
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
        """Feed a whole recording (the last frame zero-padded). The output is what a live listener
        hears: frame by frame, silence until the model's output is aligned. An interpreter then
        hears that the source has ended (``end_source``) and silence until its translation ends,
        for at most ``tail_s`` seconds: its output is longer than the input."""
        pcm = np.asarray(pcm, dtype=np.float32).reshape(-1)
        frames = -(-pcm.size // FRAME_SIZE)
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
        """Replace the recording with these (24 kHz float32 or 16-bit samples, handed over; None: none),
        for a conversation rebuilt or restored from a file; the frames that follow are appended to it.
        The user's side keeps its samples exactly, the assistant's is kept as 16 bits (see
        ``engine.runtime.recording``)."""
        empty = np.zeros(0, np.float32)
        self._user_audio = PcmRecording.of(empty if user is None else user, RECORDING_BLOCK, exact=True)
        self._assistant_audio = PcmRecording.of(empty if assistant is None else assistant, RECORDING_BLOCK,
                                                exact=False)

    def audio(self) -> tuple[np.ndarray, np.ndarray]:
        """(user, assistant) float32 24 kHz recordings of the whole conversation (the assistant's
        rounded to 16-bit values, as every file keeps it)."""
        return self._user_audio.array(), self._assistant_audio.array()

    def recording(self) -> tuple[PcmRecording, PcmRecording]:
        """(user, assistant) recordings as they are now, unchanged by the frames that follow (their
        blocks shared, not copied): what a save writes while the conversation goes on."""
        return self._user_audio.frozen(), self._assistant_audio.frozen()

    def audio_between(self, start_s: float, end_s: float) -> tuple[np.ndarray, np.ndarray]:
        """(user, assistant) recordings from ``start_s`` to ``end_s`` conversation seconds (clamped to
        what was recorded): a turn to play, without copying the rest of the conversation."""
        start, stop = round(start_s * SAMPLE_RATE), round(end_s * SAMPLE_RATE)
        return self._user_audio.rows(start, stop), self._assistant_audio.rows(start, stop)

    # ---- conversation files ------------------------------------------------------------------

    def snapshot(self) -> conversation.ConversationSnapshot:
        """This conversation's full file as of now, to write now or from another thread while the
        session goes on (``ConversationSnapshot``)."""
        recording = self.recording() if self.record_audio else None
        return conversation.snapshot_session(self.model.info, self.state, self.progress(), recording)

    def save(self, path: str | Path) -> None:
        self.snapshot().write(path)

    def restore(self, path: str | Path) -> None:
        """Replace this conversation with a saved one, in place: the same state buffers (a captured
        CUDA graph stays valid), no prompt phases. Everything is checked before anything changes.
        Nothing of the conversation before is kept, its "wait for me" included: the saved one does
        not wait, as it does not when opened into a new session."""
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
        """Replay the first ``frames`` frames of ``journal`` (its tokens forced: ``engine.runtime.rebuild``)
        on this new session, with the CPU thread count they ran with where this machine allows it
        (``replay_threads``), which its next frames keep so that it stays replayable. On the same
        machine and precision the state then equals, bit for bit, that of the run the journal
        recorded. Raises ``RecoveryCancelled`` when ``cancel()``."""
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
    """Stage times of one frame from the frame function's marks: host clocks on the CPU, CUDA
    events on CUDA (no synchronisation per stage; the frame's output copy waits for the device)."""

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

