"""The engine's public API: load a model, open a ``Session``, step it one 80 ms frame at a time.

    model = load_model("demo")
    session = model.new_session(seed=1)
    result = session.step(pcm_1920_float32)      # -> FrameResult (pcm, text, timings, caches)
    session.save("talk.parley"); Session.load("talk.parley", model)

A session is one explicit state tree ``{"mimi": ..., "gen": ...}`` plus host-side counters and
the transcript. Saving stores exactly that (see ``engine.conversation``); loading copies it back
in place, so resuming continues as if the conversation had never stopped.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import torch

from .conversation import ConversationFileError, read_conversation, write_conversation
from .fingerprint import model_fingerprint
from .frame_step import FrameStep, graphs_disabled_by_env
from .generate import SamplingConfig, make_generator
from .lm import LMConfig, load_lm
from .mimi import FRAME_SIZE, SAMPLE_RATE, load_mimi
from .models import ModelError, ModelFiles, resolve_model
from .packed import pack_linears
from .quantize import quantize_lm_int8
from .state import StateTree, flatten, nbytes
from .tokenizer import TextTokenizer

__all__ = ["CacheStats", "FrameResult", "FrameTimings", "LoadedModel", "ModelInfo", "OfflineResult",
           "SamplingConfig", "Session", "load_model"]

FRAME_SECONDS = FRAME_SIZE / SAMPLE_RATE
APP_VERSION = "0.1.0"


@dataclass(frozen=True)
class ModelInfo:
    name: str
    family: str  # "moshi" | "personaplex"
    is_demo: bool
    device: str
    dtype: str
    cuda_graph: bool
    fingerprint: str

    @property
    def label(self) -> str:
        return "demo (untrained, babbles)" if self.is_demo else self.name


@dataclass(frozen=True)
class FrameTimings:
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
    frames_in: int


@dataclass(frozen=True)
class TranscriptEntry:
    frame_index: int
    seconds: float
    text: str


def resolve_device(device: str) -> torch.device:
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise ModelError("--device cuda was asked for, but no CUDA device is available (use --device cpu)")
    if device not in ("cpu", "cuda"):
        raise ModelError(f"unknown device {device!r}: expected auto, cpu or cuda")
    return torch.device(device)


def resolve_dtype(dtype: str, device: torch.device) -> torch.dtype:
    if dtype == "auto":
        return torch.bfloat16 if device.type == "cuda" else torch.float32
    choices = {"float32": torch.float32, "bfloat16": torch.bfloat16}
    if dtype not in choices:
        raise ModelError(f"unknown dtype {dtype!r}: expected auto, float32 or bfloat16")
    return choices[dtype]


class _StageTimer:
    """Wall time of one callable per frame (the depth transformer inside the generator step)."""

    def __init__(self, fn: Callable, device: torch.device):
        self.fn, self.device, self.ms = fn, device, 0.0

    def __call__(self, *args, **kwargs):
        t0 = _now(self.device)
        out = self.fn(*args, **kwargs)
        self.ms = _now(self.device) - t0
        return out


def _now(device: torch.device) -> float:
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return time.perf_counter() * 1000.0


class LoadedModel:
    """Mimi + LM + tokenizer on one device, shared by the sessions opened on it."""

    def __init__(self, files: ModelFiles, device: torch.device, dtype: torch.dtype, cuda_graph: bool = True,
                 int8: bool = False):
        self.files, self.device, self.dtype, self.int8 = files, device, dtype, int8
        self.cuda_graph = device.type == "cuda" and cuda_graph and not graphs_disabled_by_env()
        self.lm_config = LMConfig.from_hub_config(files.lm_config)
        self.tokenizer = TextTokenizer(files.tokenizer_path)
        if self.tokenizer.vocab_size > self.lm_config.text_card:
            raise ModelError(f"the text tokenizer ({self.tokenizer.vocab_size} pieces) does not belong to this "
                             f"model (text_card {self.lm_config.text_card})")
        self.mimi = load_mimi(files.mimi_path, num_codebooks=8, device=device)
        self.lm = _load_lm_for(files, self.lm_config, device, dtype, int8)
        self.depth_timer = None
        if not self.cuda_graph:  # its host timing would sync inside the capture and abort it
            self.depth_timer = _StageTimer(self.lm.depformer_frame, device)
            self.lm.depformer_frame = self.depth_timer
        self.info = ModelInfo(
            name=files.name, family=files.family, is_demo=files.source == "demo", device=str(device),
            dtype=str(dtype).removeprefix("torch.") + (" + int8 weights" if int8 else ""), cuda_graph=self.cuda_graph,
            fingerprint=model_fingerprint(files))

    def new_session(self, sampling: SamplingConfig = SamplingConfig(), seed: int = 42,
                    voice_prompt: str | None = None, text_prompt: str | None = None) -> Session:
        return Session(self, sampling, seed, voice_prompt=voice_prompt, text_prompt=text_prompt)


def load_model(spec: str, device: str = "auto", dtype: str = "auto", cuda_graph: bool = True,
               int8: bool = False, progress=None) -> LoadedModel:
    """Resolve (and if needed fetch) a model, then load it. ``cuda_graph`` is honoured on CUDA only;
    ``int8`` stores the LM's matmul weights as int8 (the 7B fits in ~8 GB)."""
    dev = resolve_device(device)
    files = resolve_model(spec, progress=progress)
    with torch.inference_mode(False):
        return LoadedModel(files, dev, resolve_dtype(dtype, dev), cuda_graph, int8)


def _load_lm_for(files: ModelFiles, config: LMConfig, device: torch.device, dtype: torch.dtype, int8: bool):
    """int8: quantise on the host, then move (the bf16 copy never occupies the device).
    float32 on CPU: prepacked oneDNN matmuls (1.2-1.5x faster steps on the demo model)."""
    if int8:
        return quantize_lm_int8(load_lm(files.lm_path, config, device="cpu", dtype=dtype)).to(device)
    lm = load_lm(files.lm_path, config, device=device, dtype=dtype)
    if device.type == "cpu" and dtype == torch.float32:
        pack_linears(lm)
    return lm


class Session:
    """One conversation. Not thread-safe: use it from one thread (the engine worker)."""

    frame_size = FRAME_SIZE
    sample_rate = SAMPLE_RATE

    def __init__(self, model: LoadedModel, sampling: SamplingConfig = SamplingConfig(), seed: int = 42, *,
                 voice_prompt: str | None = None, text_prompt: str | None = None, record_audio: bool = True):
        self.model, self.sampling, self.seed = model, sampling, seed
        self.generator = make_generator(model.lm, sampling)
        self.state = _fresh_state(model, self.generator, seed)
        self._rings = _ring_sizes(model, self.state)
        self.frames = 0  # live frames stepped
        self.generator_steps = 0  # generator steps, prompt phases included
        self.decoded_frames = 0  # frames decoded by Mimi (the generator's aligned outputs)
        self.transcript: list[TranscriptEntry] = []
        self.prompts = {"voice": voice_prompt, "text": text_prompt}
        self.record_audio = record_audio
        self._user_audio: list[np.ndarray] = []
        self._assistant_audio: list[np.ndarray] = []
        self._prompt(voice_prompt, text_prompt)
        self.frame_step = FrameStep(model.mimi, self.generator, self.state, use_cuda_graph=model.cuda_graph)

    # ---- prompts -----------------------------------------------------------------------------

    def _prompt(self, voice_prompt: str | None, text_prompt: str | None) -> None:
        if self.model.info.family != "personaplex":
            if voice_prompt or text_prompt:
                raise ModelError(f"{self.model.info.name} is not a PersonaPlex model: voice and text prompts "
                                 "need --model personaplex (or a PersonaPlex model folder)")
            return
        from .personaplex import run_prompt_phases
        from .prompts import load_voice, role_prompt_tokens

        voice = load_voice(self.model, voice_prompt) if voice_prompt else None
        tokens = role_prompt_tokens(self.model.tokenizer, text_prompt)
        with torch.inference_mode():
            steps = run_prompt_phases(self.generator, self.state["gen"], voice, tokens)
        self.generator_steps = len(steps)

    # ---- streaming ---------------------------------------------------------------------------

    def step(self, pcm: np.ndarray) -> FrameResult:
        """One frame of the user's audio (float32 [1920], 24 kHz mono) -> the assistant's frame."""
        pcm = np.asarray(pcm, dtype=np.float32)
        if pcm.shape != (FRAME_SIZE,):
            raise ValueError(f"expected one frame of {FRAME_SIZE} samples (float32, 24 kHz mono), got shape "
                             f"{pcm.shape}")
        m, dev = self.model, self.model.device
        t0 = _now(dev)
        with torch.inference_mode():
            x = torch.from_numpy(pcm).to(dev).view(1, 1, FRAME_SIZE)
            marks: dict[str, float] = {}
            text, audio, out = self.frame_step(x, self.generator_steps,
                                               mark=lambda stage: marks.__setitem__(stage, _now(dev)))
            depth_ms = m.depth_timer.ms if m.depth_timer is not None and marks else 0.0
            aligned = self.generator_steps >= self.generator.first_output_frame
            if aligned:
                out_np = out.view(-1).to("cpu", torch.float32, copy=True).numpy()  # out is a static buffer
                token, audio_codes = int(text[0]), tuple(int(c) for c in audio[0, :8].tolist())
            else:
                out_np, token, audio_codes = np.zeros(FRAME_SIZE, np.float32), None, None
        t3 = _now(dev)
        frame_index = self.frames
        self.frames += 1
        self.generator_steps += 1
        self.decoded_frames += aligned
        piece = m.tokenizer.piece(token) if token is not None else ""
        if piece:
            self.transcript.append(TranscriptEntry(frame_index, round(frame_index * FRAME_SECONDS, 2), piece))
        if self.record_audio:
            self._user_audio.append(pcm.copy())
            self._assistant_audio.append(out_np)
        if marks:
            t1, t2 = marks["encode"], marks["lm"]
            timings = FrameTimings(encode_ms=t1 - t0, lm_ms=t2 - t1 - depth_ms, depth_ms=depth_ms,
                                   decode_ms=t3 - t2, total_ms=t3 - t0)
        else:  # a replayed CUDA graph: one launch, no stage boundaries
            timings = FrameTimings(encode_ms=0.0, lm_ms=0.0, depth_ms=0.0, decode_ms=0.0, total_ms=t3 - t0)
        return FrameResult(out_np, piece, token, audio_codes, frame_index, timings, self.cache_stats())

    def process(self, pcm: np.ndarray) -> OfflineResult:
        """Feed a whole recording (the last frame zero-padded). The output is what a live listener
        hears: frame by frame, silence until the model's output is aligned."""
        pcm = np.asarray(pcm, dtype=np.float32).reshape(-1)
        frames = -(-pcm.size // FRAME_SIZE)
        padded = np.zeros(frames * FRAME_SIZE, np.float32)
        padded[:pcm.size] = pcm
        outs, tokens, codes, text = [], [], [], []
        for i in range(frames):
            r = self.step(padded[i * FRAME_SIZE:(i + 1) * FRAME_SIZE])
            outs.append(r.pcm)
            if r.text_token is not None:
                tokens.append(r.text_token)
                codes.append(list(r.audio_codes))
                text.append(r.text)
        pcm_out = np.concatenate(outs) if outs else np.zeros(0, np.float32)
        return OfflineResult(pcm_out, "".join(text), tokens, codes, frames)

    def cache_stats(self) -> tuple[CacheStats, ...]:
        """Ring usage from host counters (no device reads; sizes computed once per session)."""
        steps = self.model.mimi.cfg.steps_per_frame
        written = (self.generator_steps, self.frames * steps, self.decoded_frames * steps)
        return tuple(CacheStats(name, min(n, capacity), capacity, n // capacity, nbytes)
                     for (name, capacity, nbytes), n in zip(self._rings, written))

    def audio(self) -> tuple[np.ndarray, np.ndarray]:
        """(user, assistant) float32 24 kHz recordings of the whole conversation."""
        join = (lambda xs: np.concatenate(xs) if xs else np.zeros(0, np.float32))
        return join(self._user_audio), join(self._assistant_audio)

    # ---- conversation files ------------------------------------------------------------------

    def save(self, path: str | Path) -> None:
        tensors = _trimmed(self.state)
        if self.record_audio:
            user, assistant = self.audio()
            tensors["audio.user"] = torch.from_numpy(_to_int16(user))
            tensors["audio.assistant"] = torch.from_numpy(_to_int16(assistant))
        meta = {
            "model": self.model.info.name,
            "fingerprint": self.model.info.fingerprint,
            "frames": self.frames,
            "generator_steps": self.generator_steps,
            "decoded_frames": self.decoded_frames,
            "sampling": asdict(self.sampling),
            "seed": self.seed,
            "prompts": self.prompts,
            "transcript": [[e.frame_index, e.seconds, e.text] for e in self.transcript],
            "app_version": APP_VERSION,
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "sample_rate": SAMPLE_RATE,
        }
        write_conversation(path, tensors, meta)

    @classmethod
    def load(cls, path: str | Path, model: LoadedModel) -> Session:
        """Open a saved conversation on ``model`` (refused with a clear message if it does not fit)."""
        file = _read_for(path, model)
        session = cls(model, SamplingConfig(**file.meta["sampling"]), int(file.meta["seed"]),
                      voice_prompt=None, text_prompt=None)
        session._apply(file)
        return session

    def restore(self, path: str | Path) -> None:
        """Replace this session's conversation with a saved one, copying into the live state (so a
        captured CUDA graph stays valid). Everything is checked before anything changes."""
        file = _read_for(path, self.model)
        if SamplingConfig(**file.meta["sampling"]) != self.sampling:
            self.sampling = SamplingConfig(**file.meta["sampling"])
            self.generator = make_generator(self.model.lm, self.sampling)
            self.frame_step = FrameStep(self.model.mimi, self.generator, self.state,
                                        use_cuda_graph=self.model.cuda_graph)
        self._apply(file)

    def _apply(self, file) -> None:
        live = flatten(self.state)
        with torch.inference_mode():
            for name, target in live.items():
                stored = file.tensors[name]
                target.zero_()
                target[tuple(slice(0, s) for s in stored.shape)].copy_(stored)
        meta = file.meta
        self.seed = int(meta["seed"])
        self.frames, self.decoded_frames = int(meta["frames"]), int(meta["decoded_frames"])
        self.generator_steps = int(meta["generator_steps"])
        self.prompts = meta.get("prompts", {"voice": None, "text": None})
        self.transcript = [TranscriptEntry(int(f), float(s), str(t)) for f, s, t in meta["transcript"]]
        user, assistant = file.tensors.get("audio.user"), file.tensors.get("audio.assistant")
        self._user_audio = [_from_int16(user)] if user is not None else []
        self._assistant_audio = [_from_int16(assistant)] if assistant is not None else []


def _read_for(path: str | Path, model: LoadedModel):
    template = flatten(_fresh_state(model, make_generator(model.lm, SamplingConfig()), 0))
    file = read_conversation(path, {k: tuple(v.shape) for k, v in template.items()})
    meta = file.meta
    if meta.get("fingerprint") != model.info.fingerprint:
        raise ConversationFileError(
            f"{Path(path).name} was saved with another model ({meta.get('model', 'unknown')}); open it with "
            f"that model, or start a new conversation with {model.info.name}.")
    try:
        SamplingConfig(**meta["sampling"])
        int(meta["seed"]), int(meta["frames"]), int(meta["decoded_frames"]), int(meta["generator_steps"])
        [(int(f), float(s), str(t)) for f, s, t in meta["transcript"]]
    except (KeyError, TypeError, ValueError) as e:
        raise ConversationFileError(f"{Path(path).name} has damaged metadata ({e}); open another copy.") from e
    return file


def _fresh_state(model: LoadedModel, generator, seed: int) -> StateTree:
    return {"mimi": model.mimi.init_state(1), "gen": generator.init_state(1, seed)}


def _ring_sizes(model: LoadedModel, state: StateTree) -> tuple[tuple[str, int, int], ...]:
    """(name, capacity, bytes) of the LM's and Mimi's ring caches, in ``cache_stats`` order."""
    mimi = model.mimi
    rings = (("LM", model.lm.transformer, state["gen"]["lm"]["temporal"]),
             ("Mimi encoder", mimi.encoder_transformer.transformer, state["mimi"]["encoder"]["transformer"]),
             ("Mimi decoder", mimi.decoder_transformer.transformer, state["mimi"]["decoder"]["transformer"]))
    return tuple((name, module.cfg.ring.capacity, nbytes(tree)) for name, module, tree in rings)


def _trimmed(state: StateTree) -> dict[str, torch.Tensor]:
    """Flatten the state, storing only the filled slots of each ring cache."""
    out: dict[str, torch.Tensor] = {}

    def walk(tree: StateTree, prefix: str) -> None:
        is_ring = "positions" in tree and "layers" in tree
        filled = min(int(tree["offset"]), tree["positions"].shape[0]) if is_ring else None
        for key, value in tree.items():
            name = f"{prefix}{key}"
            if isinstance(value, torch.Tensor):
                out[name] = value
            elif is_ring and key == "layers":
                for layer, kv in value.items():
                    for k, t in kv.items():
                        out[f"{name}.{layer}.{k}"] = t[:, :, :filled]
            else:
                walk(value, name + ".")

    walk(state, "")
    return out


def _to_int16(x: np.ndarray) -> np.ndarray:
    return (np.clip(x, -1.0, 1.0) * 32767.0).round().astype(np.int16)


def _from_int16(t: torch.Tensor) -> np.ndarray:
    return t.numpy().astype(np.float32) / 32767.0

