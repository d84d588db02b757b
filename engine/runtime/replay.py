"""Journaling a session's frames, and rebuilding its state from a journal with the tokens forced
(bit for bit the uninterrupted run's on the same machine and precision)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from ..audio import FRAME_SECONDS, FRAME_SIZE
from ..errors import ConversationFileError
from ..files import conversation
from ..files.captions import Caption
from ..files.compact import compact_contents, read_compact
from ..files.journal import Journal, JournalHeader, JournalWriter, read_journal
from ..host_memory import check_rebuild_fits
from .growing_array import GrowingArray
from .loading import LoadedModel
from .rebuild import Progress
from .session import Session

log = logging.getLogger(__name__)

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
    differs: str | None = None  # why the rebuilt state may differ from the recorded run's (None: it need not)


def journal_header(session: Session) -> JournalHeader:
    info, generator = session.model.info, session.generator
    threads = 0
    if session.model.device.type == "cpu":
        threads = session.threads or torch.get_num_threads()
    return JournalHeader(model=info.name, fingerprint=info.fingerprint, sampling=session.sampling,
                         seed=session.seed, prompts=dict(session.prompts), user_streams=generator.user_streams,
                         token_streams=generator.config.token_streams, threads=threads, persona=session.persona)


class FrameRecorder:
    """A session's ``frame_observer``: keeps each frame's user codes and tokens, and journals it if asked."""

    def __init__(self, session: Session, journal: JournalWriter | None):
        self.header = journal_header(session)
        self.journal = journal
        self.captions_journaled = 0  # how many of the session's captions the journal holds
        self.turn_ends_journaled = 0  # and of its turn ends
        self.user_codes = GrowingArray((self.header.user_streams,), np.int64)
        self.tokens = GrowingArray((self.header.token_streams,), np.int64)

    def __call__(self, session: Session, pcm: np.ndarray) -> None:
        if session.sampling != self.header.sampling:  # the frames would no longer replay: stop
            session.observe(None)
            self.close()
            return
        user = session.frame_step.user_codes[0].to("cpu", copy=True).numpy()
        tokens = session.generator.written_tokens(session.state["gen"])[0].to("cpu", copy=True).numpy()
        self.user_codes.extend(user)
        self.tokens.extend(tokens)
        if self.journal is not None:
            self.journal.append(session.frames - 1, user, tokens, pcm.copy())

    def journal_captions(self, session: Session) -> None:
        """Append the session's captions and turn ends the journal lacks."""
        if self.journal is not None:
            for caption in session.captions[self.captions_journaled:]:
                self.journal.append_caption(caption)
            for seconds in session.turn_ends[self.turn_ends_journaled:]:
                self.journal.append_turn_end(seconds)
        self.captions_journaled, self.turn_ends_journaled = len(session.captions), len(session.turn_ends)

    def close(self, remove: bool = False) -> None:
        """Close the journal (if any): ``remove=True`` once the conversation is saved or ended."""
        if self.journal is not None:
            self.journal.close(remove)


def record_frames(session: Session, journal: str | Path | None = None) -> FrameRecorder:
    """Record every frame of a conversation (so it can be saved compact), with ``journal`` also to a
    crash journal there. A conversation that has run must have been recorded from its start."""
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
    recorder.journal_captions(session)
    session.observe(recorder)
    return recorder


def keep_captions(session: Session, captions, turn_ends=()) -> tuple[tuple[Caption, ...], tuple[float, ...]]:
    """Keep caption pieces and turn ends with ``session`` and its crash journal; returns them as kept."""
    kept = session.add_captions(captions, turn_ends)
    recorder = session.frame_observer
    if isinstance(recorder, FrameRecorder):
        recorder.journal_captions(session)
    return kept


def can_save_compact(session: Session) -> bool:
    """Whether every frame of ``session`` was recorded and its audio kept."""
    recorder = session.frame_observer
    return (isinstance(recorder, FrameRecorder) and len(recorder.tokens) == session.frames
            and session.record_audio)


def prefers_compact(model: LoadedModel) -> bool:
    """The default kind: compact where a frame of LM cache far outweighs its compact record (7B models)."""
    c = model.lm.config
    per_frame = c.num_layers * 2 * c.dim * model.lm.text_emb.weight.element_size()  # K and V of one step
    return per_frame > COMPACT_ABOVE_BYTES_PER_FRAME


def save_conversation(session: Session, path: str | Path, compact: bool | None = None) -> str:
    """Save as a full snapshot or compact (see ``snapshot_conversation``). Returns the kind written."""
    snapshot = snapshot_conversation(session, compact)
    snapshot.write(path)
    return snapshot.kind


def snapshot_conversation(session: Session, compact: bool | None = None) -> conversation.ConversationSnapshot:
    """The file of ``session`` as it is now, full or compact, to write from any thread meanwhile."""
    if compact is None:
        compact = prefers_compact(session.model) and can_save_compact(session)
    if not compact:
        return session.snapshot()
    if not can_save_compact(session):
        raise ValueError("this conversation cannot be saved compact: its frames were not recorded from "
                         "its start (it was opened from a full file); save it in full")
    recorder: FrameRecorder = session.frame_observer
    header, user_codes, tokens = recorder.header, recorder.user_codes.frozen(), recorder.tokens.frozen()
    user = session.recording()[0]
    progress = session.progress()
    return conversation.ConversationSnapshot(
        conversation.COMPACT, session.frames,
        lambda: compact_contents(header, user_codes.array(), tokens.array(), user.array(), progress.transcript,
                                 progress.captions, progress.turn_ends))


def roll_back(session: Session) -> Session:
    """A new session in the state ``session`` had after its last complete frame, rebuilt from its
    recorded frames: a frame that failed half-way may leave the state tensors half-advanced."""
    if not can_save_compact(session):
        raise ValueError("this conversation's frames were not recorded (it was opened from a full file): "
                         "it cannot be rolled back")
    recorder: FrameRecorder = session.frame_observer
    user = session.audio()[0].reshape(session.frames, FRAME_SIZE)
    journal = Journal(recorder.header, recorder.user_codes.array(), recorder.tokens.array(), user, 0, None)
    rebuilt = rebuild(session.model, journal, "this conversation").session
    rebuilt.wait_for_user(session.waiting_for_user)
    rebuilt.add_captions(session.captions, session.turn_ends)
    return rebuilt


def recover(model: LoadedModel, path: str | Path, progress: Progress | None = None,
            cancel: Callable[[], bool] | None = None, journal: Journal | None = None) -> Recovery:
    """Rebuild the conversation journaled at ``path`` as a new session on ``model``, every whole frame
    before any damage. Raises ``ConversationFileError`` (another model's, or nothing recoverable) or
    ``RecoveryCancelled``."""
    t0 = time.perf_counter()
    journal = read_journal(path) if journal is None else journal
    if journal.header.fingerprint != model.info.fingerprint:
        raise ConversationFileError(f"{Path(path).name} is the journal of another model ({journal.header.model}); "
                                    f"recover it with that model, not {model.info.name}.")
    return rebuild(model, journal, Path(path).name, progress, cancel, t0)


def open_conversation(model: LoadedModel, path: str | Path, progress: Progress | None = None,
                      cancel: Callable[[], bool] | None = None) -> Session:
    """Open a conversation file as a new session: a full one restored, a compact one rebuilt by replay."""
    kind = conversation.file_kind(path)
    if kind == conversation.CHAT:
        raise conversation.with_language_model(Path(path))
    if kind == conversation.FULL:
        return Session.load(path, model)
    t0 = time.perf_counter()
    journal = read_compact(path, model.info.fingerprint)
    return rebuild(model, journal, Path(path).name, progress, cancel, t0, whole=True).session


def rebuild(model: LoadedModel, journal: Journal, name: str, progress: Progress | None = None,
            cancel: Callable[[], bool] | None = None, started: float | None = None, whole: bool = False) -> Recovery:
    """Replay ``journal``'s frames on a new session that keeps recording. ``whole``: every frame or
    none (a saved file is refused rather than opened short, since saving again would lose frames);
    otherwise the frames before the first damaged one (a crash journal)."""
    t0 = time.perf_counter() if started is None else started
    header = journal.header
    session = Session(model, header.sampling, header.seed, voice_prompt=header.prompts.get("voice"),
                      text_prompt=header.prompts.get("text"), persona=header.persona)
    generator = session.generator
    if (header.user_streams, header.token_streams) != (generator.user_streams, generator.config.token_streams):
        raise ConversationFileError(f"{name} does not match {model.info.name}'s streams: it was written "
                                    "by another model.")
    frames, why = _valid_frames(journal, generator.config)
    if whole and frames < journal.frames:
        raise ConversationFileError(f"{name} is damaged ({why}): only its first {frames} of {journal.frames} frames "
                                    "could be replayed, so it is not opened (and stays as it is); open another copy.")
    damage = journal.damage if frames == journal.frames else why
    lost = journal.lost_frames + journal.frames - frames
    check_rebuild_fits(frames, name)
    recorder = record_frames(session)
    replayed = session.rebuild_from(journal, frames, progress, cancel)
        # the captions of the frames rebuilt (a damaged tail's go)
    session.add_captions((c for c in journal.captions if c[0] < frames * FRAME_SECONDS),
                         (s for s in journal.turn_ends if s < frames * FRAME_SECONDS))
    recorder.user_codes = GrowingArray.of(journal.user_codes[:frames])
    recorder.tokens = GrowingArray.of(journal.tokens[:frames])
    differs = _threads_differ(header.threads if model.device.type == "cpu" else 0, session.threads)
    if differs:
        log.warning("%s: %s", name, differs)
    return Recovery(session, frames, lost, damage, replayed.encoder_mismatches, replayed.codec_frames,
                    time.perf_counter() - t0, differs)


def _threads_differ(recorded: int, used: int | None) -> str | None:
    """Why a rebuild that could not run with its frames' thread count (``replay_threads``) may differ."""
    if not recorded or recorded == used:
        return None
    return (f"its frames ran with {recorded} CPU threads and this machine runs them with {used or 'its own count'}: "
            "the words and sounds are the same, but what the assistant says next may differ from what it would "
            "have said in the original run")


def _valid_frames(journal: Journal, config) -> tuple[int, str | None]:
    """How many leading frames hold only tokens the model has (a journal could name others), and why
    the rest is refused; an interpreter's input may also be its end-of-source token."""
    user_ok = ((journal.user_codes >= 0) & (journal.user_codes < config.card)).all(axis=1)
    if config.rules.ends_source:
        user_ok |= (journal.user_codes == config.card).all(axis=1)
    tokens_ok = ((journal.tokens[:, 0] >= 0) & (journal.tokens[:, 0] < config.text_card)
                 & ((journal.tokens[:, 1:] >= 0) & (journal.tokens[:, 1:] < config.card)).all(axis=1))
    bad = np.flatnonzero(~(user_ok & tokens_ok))
    if bad.size == 0:
        return journal.frames, None
    return int(bad[0]), f"tokens out of range in frame {int(bad[0])}"
