"""Journaling a session's frames, and rebuilding its state from a journal with the tokens forced.

The two directions mirror each other. While a conversation runs, ``record_frames`` hooks a
session so that every frame appends, off the frame loop, what the state depends on: the user's
exact samples, the codes Mimi made of them, and the tokens the generator wrote into its token
cache (text + audio). ``recover`` replays those frames on a fresh session of the same model:

- the temporal transformer runs one step per frame on the input the generator would build, with
  the journaled tokens written where the generator writes its sampled ones: no sampling, no
  text head, and no depth transformer, except on the last frame, whose depth-transformer cache
  is part of the state (it is reset every frame, so the last frame alone determines it);
- Mimi's encoder and decoder stream only over the last frames that their state depends on
  (``Mimi.exact_after_frames``, about 82 s for the released codec), from a fresh state seeked to
  that frame. The encoder's codes are not needed (the journal has them): they are compared with
  the journaled ones over the frames where they must come out exact, which a different machine
  or precision may not reproduce. The decoder's output there is the assistant's audio; before
  that, the audio is decoded from the codes in larger pieces, which is faster;
- the sampling RNG is a counter: it is advanced by the draws sampling would have made.

On the same machine and precision the rebuilt state equals, bit for bit, the state of the
uninterrupted run at the same frame. The forced step uses the generators' own token-cache
helpers so that the cache bookkeeping exists once.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from ..audio import FRAME_SECONDS, FRAME_SIZE
from ..codec.mimi import OFFLINE_CHUNK_FRAMES
from ..errors import ConversationFileError, RecoveryCancelled
from ..files import conversation
from ..files.compact import compact_contents, read_compact
from ..files.journal import Journal, JournalHeader, JournalWriter, read_journal
from ..lm.generate import PersonaPlexGenerator
from ..state import StateTree
from .growing_array import GrowingArray
from .loading import LoadedModel
from .session import Session, TranscriptEntry

Progress = Callable[[int, int], None]  # (frames rebuilt, frames in all)
# Frames, beyond what Mimi's state needs, whose re-encoded codes are compared with the journal's.
VERIFY_FRAMES = 12
COMPACT_ABOVE_BYTES_PER_FRAME = 64 * 1024


@dataclass(frozen=True)
class Recovery:
    session: Session
    frames: int  # frames rebuilt
    lost_frames: int  # frames of the journal's damaged tail
    damage: str | None
    encoder_mismatches: int  # checked frames whose re-encoded user codes differ from the journaled ones
    codec_frames: int  # the last frames, over which Mimi was replayed (its contexts' reach)
    rebuild_seconds: float


# ---- writing ---------------------------------------------------------------------------------

def written_tokens(generator, gen_state: StateTree) -> torch.Tensor:
    """The tokens the last ``step`` wrote into the token cache, [B, 1 + dep_q] (text first).

    Moshi writes them at the new offset; PersonaPlex at the offset of the step (forced streams
    included)."""
    tokens = gen_state["tokens"]
    offset = tokens["offset"] - (1 if isinstance(generator, PersonaPlexGenerator) else 0)
    column = (offset % generator.columns).view(1, 1, 1)
    n = generator.config.dep_q + 1
    return tokens["cache"][:, :n].gather(2, column.expand(tokens["cache"].shape[0], n, 1)).squeeze(-1)


def journal_header(session: Session) -> JournalHeader:
    info, generator = session.model.info, session.generator
    threads = 0
    if session.model.device.type == "cpu":
        threads = session.threads or torch.get_num_threads()
    return JournalHeader(model=info.name, fingerprint=info.fingerprint, sampling=session.sampling,
                         seed=session.seed, prompts=dict(session.prompts), user_streams=generator.user_streams,
                         token_streams=generator.config.dep_q + 1, threads=threads)


class FrameRecorder:
    """Keeps, for every frame of a conversation, the user codes and written tokens (what a
    compact file holds), and appends each frame to a crash journal when given one. Attached to a
    session as its ``frame_observer`` by ``record_frames``."""

    def __init__(self, session: Session, journal: JournalWriter | None):
        self.header = journal_header(session)
        self.journal = journal
        self.user_codes = GrowingArray((self.header.user_streams,), np.int64)
        self.tokens = GrowingArray((self.header.token_streams,), np.int64)

    def __call__(self, session: Session, pcm: np.ndarray) -> None:
        if session.sampling != self.header.sampling:  # the frames would no longer replay: stop
            session.frame_observer = None
            self.close()
            return
        user = session.frame_step.user_codes[0].to("cpu", copy=True).numpy()
        tokens = written_tokens(session.generator, session.state["gen"])[0].to("cpu", copy=True).numpy()
        self.user_codes.extend(user)
        self.tokens.extend(tokens)
        if self.journal is not None:
            self.journal.append(session.frames - 1, user, tokens, pcm.copy())

    def close(self, remove: bool = False) -> None:
        """Close the journal (if any): ``remove=True`` once the conversation is saved or ended."""
        if self.journal is not None:
            self.journal.close(remove)


def record_frames(session: Session, journal: str | Path | None = None) -> FrameRecorder:
    """Record every frame of a conversation (so that it can be saved compact) and, with
    ``journal``, write a crash journal there (created or replaced). A conversation that has run
    must have been recorded from its start (a rebuilt one is): its frames go first."""
    previous = session.frame_observer
    if session.frames and not can_save_compact(session):
        raise ValueError("a journal starts with a conversation: this session has already run "
                         f"{session.frames} frames that were not recorded")
    writer = JournalWriter(journal, journal_header(session)) if journal is not None else None
    recorder = FrameRecorder(session, writer)
    if session.frames:
        user_codes, tokens = previous.user_codes.array(), previous.tokens.array()
        recorder.user_codes, recorder.tokens = GrowingArray.of(user_codes), GrowingArray.of(tokens)
        if writer is not None:
            user_pcm = session.audio()[0].reshape(session.frames, FRAME_SIZE)
            for i in range(session.frames):
                writer.append(i, user_codes[i], tokens[i], user_pcm[i])
    session.frame_observer = recorder
    return recorder


def start_journal(session: Session, path: str | Path) -> FrameRecorder:
    """Journal every frame of a new conversation to ``path``; ``close(remove=True)`` when done."""
    return record_frames(session, path)


def can_save_compact(session: Session) -> bool:
    """Whether every frame of ``session`` was recorded (a conversation restored from a full file
    was not) and its audio kept."""
    recorder = session.frame_observer
    return (isinstance(recorder, FrameRecorder) and len(recorder.tokens) == session.frames
            and session.record_audio)


def prefers_compact(model: LoadedModel) -> bool:
    """The default kind: compact when a frame of LM cache outweighs the frames' compact record by
    far (the 7B models: 0.5 MB per frame), a full snapshot otherwise (the demo: 12 KB)."""
    c = model.lm.config
    per_frame = c.num_layers * 2 * c.dim * model.lm.text_emb.weight.element_size()  # K and V of one step
    return per_frame > COMPACT_ABOVE_BYTES_PER_FRAME


def save_conversation(session: Session, path: str | Path, compact: bool | None = None) -> str:
    """Save as a full snapshot or compact (see ``snapshot_conversation``). Returns the kind written."""
    snapshot = snapshot_conversation(session, compact)
    snapshot.write(path)
    return snapshot.kind


def snapshot_conversation(session: Session, compact: bool | None = None) -> conversation.ConversationSnapshot:
    """The file of ``session`` as it is now, full or compact (``None``: ``prefers_compact``, when the
    frames were recorded), to write now or from another thread while the session goes on."""
    if compact is None:
        compact = prefers_compact(session.model) and can_save_compact(session)
    if not compact:
        return conversation.snapshot_session(session)
    if not can_save_compact(session):
        raise ValueError("this conversation cannot be saved compact: its frames were not recorded from "
                         "its start (it was opened from a full file); save it in full")
    recorder: FrameRecorder = session.frame_observer
    header, user_codes, tokens = recorder.header, recorder.user_codes.frozen(), recorder.tokens.frozen()
    user = session.recording()[0]
    transcript = [(e.frame_index, e.seconds, e.text) for e in session.transcript]
    return conversation.ConversationSnapshot(
        conversation.COMPACT, session.frames,
        lambda: compact_contents(header, user_codes.array(), tokens.array(), user.array(), transcript))


# ---- replaying -------------------------------------------------------------------------------

def recover(model: LoadedModel, path: str | Path, progress: Progress | None = None,
            cancel: Callable[[], bool] | None = None) -> Recovery:
    """Rebuild the conversation journaled at ``path`` as a new session on ``model``.

    Every whole frame before any damage is recovered. Raises ``ConversationFileError`` for a
    journal of another model or one with nothing recoverable, ``RecoveryCancelled`` when
    ``cancel()`` returns True (checked every frame)."""
    t0 = time.perf_counter()
    journal = read_journal(path)
    if journal.header.fingerprint != model.info.fingerprint:
        raise ConversationFileError(f"{Path(path).name} is the journal of another model ({journal.header.model}); "
                                    f"recover it with that model, not {model.info.name}.")
    return rebuild(model, journal, Path(path).name, progress, cancel, t0)


def open_conversation(model: LoadedModel, path: str | Path, progress: Progress | None = None,
                      cancel: Callable[[], bool] | None = None) -> Session:
    """Open a conversation file of either kind as a new session: a full one is restored, a
    compact one rebuilt by replay (with ``progress``, cancellable)."""
    if conversation.file_kind(path) == conversation.FULL:
        return Session.load(path, model)
    t0 = time.perf_counter()
    return rebuild(model, read_compact(path, model.info.fingerprint), Path(path).name, progress, cancel, t0).session


def rebuild(model: LoadedModel, journal: Journal, name: str, progress: Progress | None = None,
            cancel: Callable[[], bool] | None = None, started: float | None = None) -> Recovery:
    """Replay ``journal``'s frames on a new session; the session keeps recording its frames."""
    t0 = time.perf_counter() if started is None else started
    header = journal.header
    session = Session(model, header.sampling, header.seed, voice_prompt=header.prompts.get("voice"),
                      text_prompt=header.prompts.get("text"))
    generator = session.generator
    if (header.user_streams, header.token_streams) != (generator.user_streams, generator.config.dep_q + 1):
        raise ConversationFileError(f"{name} does not match {model.info.name}'s streams: it was written "
                                    "by another model.")
    frames, why = _valid_frames(journal, generator.config)
    damage = journal.damage if frames == journal.frames else why
    lost = journal.lost_frames + journal.frames - frames
    if header.threads and model.device.type == "cpu":
        session.threads = header.threads  # its next frames too, so that it stays replayable
    recorder = record_frames(session)
    with _cpu_threads(header.threads if model.device.type == "cpu" else 0):
        mismatches, codec_frames = _replay(session, journal, frames, progress, cancel)
    recorder.user_codes = GrowingArray.of(journal.user_codes[:frames])
    recorder.tokens = GrowingArray.of(journal.tokens[:frames])
    return Recovery(session, frames, lost, damage, mismatches, codec_frames, time.perf_counter() - t0)


@contextlib.contextmanager
def _cpu_threads(threads: int):
    """Run with ``threads`` torch threads (this thread's setting), as the journaled frames ran;
    0 leaves it as it is."""
    before = torch.get_num_threads()
    if threads > 0:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _valid_frames(journal: Journal, config) -> tuple[int, str | None]:
    """How many leading frames hold only tokens the model has (a foreign or forged journal
    could name others), and why the rest is refused."""
    user_ok = ((journal.user_codes >= 0) & (journal.user_codes < config.card)).all(axis=1)
    tokens_ok = ((journal.tokens[:, 0] >= 0) & (journal.tokens[:, 0] < config.text_card)
                 & ((journal.tokens[:, 1:] >= 0) & (journal.tokens[:, 1:] < config.card)).all(axis=1))
    bad = np.flatnonzero(~(user_ok & tokens_ok))
    if bad.size == 0:
        return journal.frames, None
    return int(bad[0]), f"tokens out of range in frame {int(bad[0])}"


def codec_replay_start(mimi, frames: int) -> int:
    """The first frame from which a rebuild of ``frames`` frames runs Mimi: late enough to skip
    what no longer matters, early enough that Mimi's state (``exact_after_frames``) and the codes
    of the last ``VERIFY_FRAMES`` frames come out exact. 0: Mimi replays every frame."""
    start = frames - mimi.exact_after_frames() - VERIFY_FRAMES
    return start if start > 0 else 0


def _replay(session: Session, journal: Journal, frames: int, progress: Progress | None,
            cancel: Callable[[], bool] | None) -> tuple[int, int]:
    """Replay ``frames`` frames; returns (encoder mismatches, frames Mimi replayed).

    The temporal transformer steps through every frame. Mimi streams only from
    ``codec_replay_start``, seeked to that frame. Its outputs are exact from ``exact_from`` on;
    the assistant's audio before that is decoded from its codes in ``OFFLINE_CHUNK_FRAMES``
    pieces on a separate state, as ``Mimi.decode`` does (equal to the live stream's output within
    float rounding, and 3.5x faster than streaming it)."""
    model, generator, step = session.model, session.generator, session.frame_step
    mimi, state, device = model.mimi, session.state, model.device
    first_step = session.generator_steps  # after PersonaPlex's prompt phases
    first_decoded = max(0, generator.first_output_frame - first_step)  # the first frame Mimi decodes
    codec_from = codec_replay_start(mimi, frames)
    exact_from = codec_from + mimi.exact_after_frames() if codec_from else 0
    mimi.seek(state["mimi"], codec_from, max(0, codec_from - first_decoded))
    mismatches = 0
    assistant_audio, transcript = np.zeros((frames, FRAME_SIZE), np.float32), []  # silence before first_decoded
    offline = _OfflineDecoder(mimi, assistant_audio)
    with torch.inference_mode():
        for i in range(frames):
            if cancel is not None and cancel():
                raise RecoveryCancelled(f"recovery cancelled after {i} of {frames} frames")
            pcm = journal.pcm[i]
            user = torch.from_numpy(journal.user_codes[i]).view(1, -1).to(device)
            if i >= codec_from:
                step.pcm_in.copy_(torch.from_numpy(pcm).view(1, 1, FRAME_SIZE))
                codes = mimi.encode_step(step.pcm_in, state["mimi"])[:, :, 0]
                mismatches += i >= exact_from and not torch.equal(codes, user)
            tokens = torch.from_numpy(journal.tokens[i]).view(1, -1).to(device)
            text, audio = _forced_step(generator, state["gen"], user, tokens, last=i == frames - 1)
            if i >= first_decoded:
                agent = audio[:, :mimi.num_codebooks, None]
                if i >= codec_from:
                    step.pcm_out.copy_(mimi.decode_step(agent, state["mimi"]))
                if i >= exact_from:
                    assistant_audio[i] = step.pcm_out.view(-1).to("cpu", torch.float32).numpy()
                else:
                    offline.add(i, agent, last=i == min(exact_from, frames) - 1)
                piece = model.tokenizer.piece(int(text[0]))
                if piece:
                    transcript.append(TranscriptEntry(i, round(i * FRAME_SECONDS, 2), piece))
            if progress is not None and (i % 10 == 9 or i == frames - 1):
                progress(i + 1, frames)
        state["gen"]["rng"]["counter"].add_(session.generator.draws_per_step * frames)
    session.frames, session.generator_steps = frames, first_step + frames
    session.decoded_frames += max(0, frames - first_decoded)
    session.transcript = transcript
    if session.record_audio:  # the session's own recording, as ``step`` would have kept it
        session.keep_recording(journal.pcm[:frames], assistant_audio)
    return mismatches, frames - codec_from


class _OfflineDecoder:
    """Decodes the assistant's codes of the frames before the exact replay in pieces of
    ``OFFLINE_CHUNK_FRAMES`` from a fresh state (``Mimi.decode``'s chunking), writing each
    frame's audio into its row of ``audio`` [frames, FRAME_SIZE]."""

    def __init__(self, mimi, audio: np.ndarray):
        self.mimi, self.audio = mimi, audio
        self.state = None
        self.frames: list[int] = []
        self.codes: list[torch.Tensor] = []

    def add(self, frame: int, codes: torch.Tensor, last: bool) -> None:
        if self.state is None:
            self.state = self.mimi.init_state(1, codes.device)
        self.frames.append(frame)
        self.codes.append(codes)
        if len(self.codes) == OFFLINE_CHUNK_FRAMES or last:
            pcm = self.mimi.decode_step(torch.cat(self.codes, dim=-1), self.state)
            self.audio[self.frames] = pcm.view(len(self.codes), FRAME_SIZE).to("cpu", torch.float32).numpy()
            self.frames, self.codes = [], []


def _forced_step(generator, gen_state: StateTree, user: torch.Tensor, tokens: torch.Tensor, last: bool
                 ) -> tuple[torch.Tensor, torch.Tensor]:
    """One generator step with the written tokens known: the same token-cache updates and
    temporal-transformer input as ``generator.step``, without sampling. Returns the aligned
    output (text [B], audio [B, dep_q]) like ``step``."""
    lm, cache_state = generator.lm, gen_state["tokens"]
    cache, offset = cache_state["cache"], cache_state["offset"]
    n = generator.config.dep_q + 1
    written_at = (lambda: (offset % generator.columns).expand(n))
    if isinstance(generator, PersonaPlexGenerator):
        generator._force(gen_state, user, None, None)
        _, _, input_column = generator._prepare(gen_state)
        x = lm.embed_codes(generator._input_codes(gen_state, input_column))
        _temporal(lm, x, gen_state, tokens, last)
        flags = cache_state["provided"]
        flags.scatter_(2, input_column.view(1, 1, 1).expand(*flags.shape[:2], 1), False)
        generator._write_column(cache, slice(0, n), written_at(), tokens)
        out = generator._aligned_output(cache, offset)
        offset.add_(1)
        return out
    generator._write_column(cache, slice(n, None), (offset + generator._delays[n:]) % generator.columns, user)
    column = (offset % generator.columns).view(1, 1, 1).expand(cache.shape[0], cache.shape[1], 1)
    codes = torch.where(offset <= generator._delays, generator._initial, cache.gather(2, column).squeeze(-1))
    _temporal(lm, lm.embed_codes(codes), gen_state, tokens, last)
    offset.add_(1)
    generator._write_column(cache, slice(0, n), written_at(), tokens)
    return generator._aligned_output(cache, offset)


def _temporal(lm, x: torch.Tensor, gen_state: StateTree, tokens: torch.Tensor, last: bool) -> None:
    """The temporal transformer's step (its state is all that matters); on the last frame also
    the depth transformer, fed the known tokens, so that its cache holds what sampling left."""
    if not last:
        lm.transformer(x, gen_state["lm"]["temporal"])
        return
    h, _ = lm.temporal_step(x, gen_state["lm"])
    lm.depformer_frame(h, tokens[:, 0], gen_state["lm"]["depformer"], lambda logits, cb: tokens[:, 1 + cb])
