"""The engine thread's decisions: the model, the conversation, its files, its journal, recovery.

``ConversationController`` has no Qt and no audio. It executes the typed commands of
``app.engine_thread.messages`` one at a time on the engine thread and reports what happened as typed
events through ``emit``. It owns:

- the model and its lifecycle: loading, and releasing a GPU model before loading another (a 24 GB
  card cannot hold two 7B models), and the CPU thread count each conversation runs with;
- the conversation (an ``engine.Session``), started with a persona (its sampling and "wait for
  me", and on PersonaPlex its voice and role); whether its frames run (``live``: a conversation
  starts stopped and runs once the person talks or presses Start) and whether streaming is halted
  after a failed frame;
- conversation files: open (a full file in place, a compact one rebuilt), save (a snapshot taken
  between two frames, written by a thread of its own so the frames go on), audio export;
- the crash journal of every conversation (``journal``, an
  ``app.engine_thread.conversation_journal.ConversationJournal``), and recovery from one;
- captions of what the person says (``captions``, an ``app.engine_thread.caption_feed.CaptionFeed``:
  the caption model beside the conversation model), finished where the conversation pauses, is
  saved while stopped or ends, and started afresh at each conversation's frame count.

``conversation`` counts the conversations: the frame pump starts its stream afresh when it changes.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import engine
from app.engine_thread import messages as m
from app.engine_thread.caption_feed import CaptionFeed, CaptionModelLoaded
from app.engine_thread.conversation_journal import ConversationJournal

log = logging.getLogger(__name__)

ModelLoader = Callable[[str, str, str, bool], object]  # (name, device, precision, cuda_graph) -> LoadedModel
Emit = Callable[[object], None]  # called with an app.engine_thread.messages event, from any thread
Post = Callable[[object], None]  # queues a command for the engine thread, from any thread


@dataclass(frozen=True)
class _Saved:
    """A save was written: posted from the file writer's thread back to the engine thread."""

    path: str
    conversation: int
    frames: int


def load_engine_model(name: str, device: str, precision: str, cuda_graph: bool):
    return engine.load_model(name, device=device, precision=precision, cuda_graph=cuda_graph)


class ConversationController:
    def __init__(self, emit: Emit, post: Post, model_loader: ModelLoader = load_engine_model,
                 seed: int | None = None, cuda_graph: bool = True, journal_dir: Path | None = None) -> None:
        """``post`` queues a command for the engine thread (a written save comes back that way);
        ``journal_dir``: where each conversation's crash journal is written (None: no journals)."""
        self.emit, self._post = emit, post
        self._load = model_loader
        self._seed = seed
        self._cuda_graph = cuda_graph
        self._file_writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="parley-save")  # saves, in order
        self.model = None
        self._loaded_as: tuple[str, str, str] | None = None  # (name, device, precision) of self.model
        self.session = None
        self.conversation = 0  # counts the conversations (a file opened in place reuses the session)
        self.halted = False  # a frame failed: no frames until Resume or another conversation
        self.live = False  # the person asked for frames (SetLive); each conversation starts stopped
        self.starts = 0  # counts the times frames were started (the frame pump skips what came before)
        self.save_compact: bool | None = None  # None: the engine's default kind for the model
        self.journal = ConversationJournal(journal_dir, emit)
        self.captions = CaptionFeed(emit, post)
        self._handlers = {
            m.LoadModel: self._load_model, m.NewConversation: self._new_conversation,
            m.OpenConversation: self._open, m.SaveConversation: self._save, m.ExportAudio: self._export_audio,
            m.RecoverJournal: self._recover, m.RequestClip: self._clip, m.Resume: self._resume,
            m.SetSaveKind: self._set_save_kind, m.SetLive: self._set_live, _Saved: self._saved,
            m.SetWaitForUser: self._set_wait_for_user,
            m.SetCaptions: lambda c: self.captions.want(c, self.session),
            CaptionModelLoaded: lambda c: self.captions.loaded(c, self.session),
        }

    @property
    def streaming(self) -> bool:
        """Whether frames run: a conversation, started by the person, not halted."""
        return self.session is not None and self.live and not self.halted

    def _set_live(self, c: m.SetLive) -> None:
        live = c.live and self.session is not None
        if live and not self.live:
            self.starts += 1
        if self.live and not live:  # paused: the last words come out from behind the caption model's delay
            self.captions.finish(self.session)
        if live != self.live or live != c.live:  # a refused start is said too: the streams opened for it close
            self.live = live
            self.emit(m.LiveChanged(live))

    def _set_wait_for_user(self, c: m.SetWaitForUser) -> None:
        if self.session is not None:
            self.session.wait_for_user(c.waiting)
            self.emit(m.WaitingChanged(self.session.waiting_for_user))

    def execute(self, command) -> None:
        """Run one command; a failure is reported, never raised (the engine thread must go on)."""
        try:
            self._handlers[type(command)](command)
        except Exception as e:
            log.exception("%s failed", type(command).__name__)
            self.emit(m.EngineError(f"{type(command).__name__} failed: {e}", resumable=False))

    def halt(self) -> None:
        """A frame failed: the conversation is kept, frames stop until ``Resume``, which first rolls
        it back to its last complete frame (the failed step may have half-advanced its state)."""
        self.halted = True

    def close(self) -> None:
        """A clean exit: a save in progress is finished, not cut off; the conversation needs no
        recovery. The session and the models are let go here, on the engine thread's way out: the
        worker object itself may outlive its window (PySide keeps its wrapper), never what it held."""
        self._file_writer.shutdown(wait=True)
        self.captions.close()
        self.journal.end()
        self.session = self.model = None

    # ---- the model ---------------------------------------------------------------------------

    def _load_model(self, c: m.LoadModel) -> None:
        self.emit(m.ModelLoading(c.name))
        released = self._release_gpu_model()
        try:
            model = self._load(c.name, c.device, c.precision, self._cuda_graph)
        except Exception as e:
            log.exception("loading model %s failed", c.name)
            message = f"Could not load model {c.name!r}: {e}"
            if released is not None:
                message += f"\nThe previous model ({released[0]}) was unloaded first to free the GPU's memory."
            self.emit(m.ModelFailed(message))
            if released is not None:
                self.emit(m.PreviousModelOffered(*released))
            return
        self.model, self._loaded_as = model, (c.name, c.device, c.precision)
        self._use_threads_for(None)  # measured now, while the window still says it is loading
        files = getattr(model, "files", None)
        self.emit(m.ModelLoaded(model.info, tuple(engine.shipped_voices(getattr(files, "voices_dir", None)))))
        if not self._start(c.persona, fallback=True):
            # The old conversation belongs to the old model: start one with the model's own prompts.
            self._start(c.persona, with_prompts=False)

    def _use_threads_for(self, session) -> None:  # session: None before the first
        """A rebuilt conversation keeps the thread count its frames ran with; any other gets the
        model's fastest (measured once per model, with the window and audio threads running)."""
        model = self.model
        if not isinstance(model, engine.LoadedModel) or model.device.type != "cpu":
            return
        if session is not None and getattr(session, "threads", None):
            engine.use_threads(session.threads)
            return
        if model.thread_choice is None:
            self.emit(m.ModelStage("Measuring how many threads run this model fastest here..."))
        choice = model.use_best_threads()
        log.info("torch threads: %d (ms per frame by thread count: mean %s, p90 %s; measured in %.1f s)",
                 choice.threads, choice.mean_ms, choice.p90_ms, choice.seconds)

    def _release_gpu_model(self) -> tuple[str, str, str] | None:
        """Unload a model that lives on a GPU (and its conversation) before loading another. Returns
        how it was loaded, or None if none was released (on the CPU the old model keeps running
        until the new one is ready)."""
        model = self.model
        if model is None or not str(model.info.device).startswith("cuda"):
            return None
        released = self._loaded_as
        self.session = self.model = self._loaded_as = None
        self.conversation += 1
        del model
        engine.release_memory()
        return released

    # ---- conversations -----------------------------------------------------------------------

    def _new_conversation(self, c: m.NewConversation) -> None:
        self._start(c.persona)

    def _start(self, persona: engine.Persona | None, fallback: bool = False, with_prompts: bool = True) -> bool:
        """Start a conversation with ``persona``: its sampling and "wait for me", and where the model
        takes prompts (and ``with_prompts``) its voice and role. With prompts that fail (a voice
        the model lacks, a bad recording) it reports ``ConversationFailed`` and keeps the current
        one. Returns whether it started."""
        if self.model is None:
            return False
        seed = self._seed if self._seed is not None else secrets.randbelow(2**31)
        takes_prompts = with_prompts and self.model.info.takes_prompts
        voice_prompt, text_prompt = persona.applies(takes_prompts) if persona is not None else (None, None)
        try:
            session = self.model.new_session(
                sampling=persona.sampling if persona is not None else engine.SamplingConfig(), seed=seed,
                voice_prompt=voice_prompt, text_prompt=text_prompt, persona=persona)
        except Exception as e:
            if not (voice_prompt or text_prompt):
                raise  # no prompts: a real failure, reported by execute
            log.exception("a new conversation with prompts failed")
            kept = ("Started one with the model's default voice and role instead." if fallback
                    else "The current conversation is kept.")
            name = f" {persona.name!r}" if persona is not None else ""
            self.emit(m.ConversationFailed(f"Could not start a conversation with the persona{name}: {e}\n{kept}"))
            return False
        if persona is not None and persona.wait_for_user:  # a new session does not wait
            session.wait_for_user(True)
        self._use_session(session)
        self._opened(session, "")
        return True

    def _opened(self, session, path: str) -> None:
        prompts = getattr(session, "prompts", None) or {}
        recording = session.audio() if session.record_audio else ()
        self.emit(m.ConversationOpened(session.progress().transcript, path, recording, str(prompts.get("voice") or ""),
                                       str(prompts.get("text") or ""), getattr(session, "persona", None),
                                       session.waiting_for_user, session.captions,
                                       session.turn_ends))

    def _open(self, c: m.OpenConversation) -> None:
        if self.model is None:
            self.emit(m.FileFailed("open", "Load a model before opening a conversation."))
            return
        self.captions.finish(self.session)  # before a file replaces it in place: its words, not the file's
        session = self.session
        try:
            if session is None or engine.conversation_kind(c.path) == "compact":  # a compact one is rebuilt
                session = engine.open_conversation(self.model, c.path, progress=lambda n, total: self.emit(
                    m.OpenProgress(n, total)), cancel=c.cancel.is_set)
            else:  # in place: the same buffers and CUDA graph, no prompt phases
                session.restore(c.path)
                session.observe(None)  # the recorded frames were the previous conversation's
        except engine.RecoveryCancelled:
            self.emit(m.OpenCancelled(c.path))
            return
        except (OSError, ValueError) as e:  # the current conversation stays as it is
            name, why = Path(c.path).name, str(e)  # a reason that starts with the file's name says it once
            self.emit(m.FileFailed("open", why if why.startswith(name) else f"Could not open {name}: {why}"))
            return
        self._use_session(session)
        self._opened(session, c.path)

    def _recover(self, c: m.RecoverJournal) -> None:
        if self.model is None:
            self.emit(m.RecoveryDone("Load a model before recovering a conversation."))
            return
        try:
            recovery = engine.recover(self.model, c.path, progress=lambda n, total: self.emit(
                m.RecoveryProgress(n, total)), cancel=c.cancel.is_set)
        except engine.RecoveryCancelled:
            self.emit(m.RecoveryDone("Recovery cancelled; the journal is kept."))
            return
        except (OSError, ValueError) as e:  # the current conversation stays as it is
            self.emit(m.RecoveryDone(f"Could not recover {Path(c.path).name}: {e}"))
            return
        self._use_session(recovery.session)  # journals it again, all its frames first
        Path(c.path).unlink(missing_ok=True)
        self._opened(recovery.session, "")
        self.emit(m.RecoveryDone(""))
        lost = f" ({recovery.lost_frames} damaged frames at the end were lost)" if recovery.lost_frames else ""
        log.info("recovered %d frames from %s in %.1f s%s", recovery.frames, c.path, recovery.rebuild_seconds, lost)

    def _clip(self, c: m.RequestClip) -> None:
        """Only the clip is copied: after an hour, copying the whole recording took the engine thread
        1.7 s (frames dropped) and the window another 7.5 s to lay it out for playing."""
        if self.session is not None:
            self.emit(m.ClipReady(*self.session.audio_between(c.start_s, c.end_s), c.start_s))

    def _resume(self, _: m.Resume) -> None:
        if not self.halted or self.session is None:
            return
        self.captions.finish(self.session)  # kept with it: the rolled-back conversation takes its captions
        if not engine.can_save_compact(self.session):  # opened from a full file: nothing to rebuild from
            log.warning("resuming after a failed frame without rolling back: the frames were not recorded")
            self.halted = False
            return
        self._use_session(engine.roll_back(self.session))  # journaled anew, all its frames first
        self._set_live(m.SetLive(True))  # Resume means go on

    def _set_save_kind(self, c: m.SetSaveKind) -> None:
        self.save_compact = c.compact

    # ---- files -------------------------------------------------------------------------------

    def _save(self, c: m.SaveConversation) -> None:
        session = self.session
        if session is None:
            self.emit(m.FileFailed("save", "There is no conversation to save."))
            return
        if not self.streaming:  # the file holds the words still behind the caption model's delay; while
            self.captions.finish(session)  # frames run, the next save does (finishing stalls them ~0.5 s)
        try:
            snapshot = engine.snapshot_conversation(session, compact=self.save_compact and
                                                    engine.can_save_compact(session))
        except (OSError, ValueError) as e:
            self.emit(m.FileFailed("save", f"Could not save {Path(c.path).name}: {e}"))
            return
        self._file_writer.submit(self._write_snapshot, snapshot, c.path, self.conversation)

    def _write_snapshot(self, snapshot, path: str, conversation: int) -> None:
        """On the file writer's thread; the engine thread notes the save when it is written (``_saved``)."""
        if self._write_file("save", path, lambda: snapshot.write(path)):
            self._post(_Saved(path, conversation, snapshot.frames))

    def _saved(self, c: _Saved) -> None:
        if c.conversation != self.conversation:  # another conversation since: nothing of this one to mark
            self.emit(m.FileDone("saved", c.path))
            return
        self.journal.note_saved(c.frames, c.path)
        self.emit(m.ConversationSaved(c.path, c.frames))

    def _export_audio(self, c: m.ExportAudio) -> None:
        if self.session is None:
            self.emit(m.FileFailed("export audio", "There is no conversation to export."))
            return
        self._file_writer.submit(self._write_audio, *self.session.recording(), c.path)

    def _write_audio(self, user, assistant, path: str) -> None:
        """On the file writer's thread: the recordings as they were when the export was asked for."""
        if self._write_file("export audio", path, lambda: write_stereo_wav(path, user.array(), assistant.array())):
            self.emit(m.FileDone("exported audio", path))

    def _write_file(self, what: str, path: str, write: Callable[[], None]) -> bool:
        """On the file writer's thread: ``write()``; False, with ``FileFailed`` sent, when it failed."""
        try:
            write()
            return True
        except Exception as e:  # said, whatever it is: the person must not believe the file written
            if not isinstance(e, (OSError, ValueError)):
                log.exception("writing %s failed", path)
            self.emit(m.FileFailed(what, f"Could not {what} {Path(path).name}: {e}"))
            return False

    # ---- the crash journal -------------------------------------------------------------------

    def _use_session(self, session) -> None:
        """Make ``session`` the conversation: the previous one's journal is removed (it ended by the
        person's choice) and the new one is journaled when it can be (a conversation restored from a
        full snapshot has no recorded frames to journal from)."""
        self.journal.end()
        self.captions.finish(self.session)  # the ended one's last words (a save before End holds them)
        self.session = session
        self.conversation += 1
        self.halted = False
        self._set_live(m.SetLive(False))  # it runs when the person talks or presses Start
        self.captions.start(session)
        self._use_threads_for(session)
        self.journal.follow(session)

    @property
    def journal_path(self) -> Path | None:
        return self.journal.path

    def check_journal(self) -> None:
        """After frames: a journal write that failed is said; a stopped journal is retried."""
        self.journal.check(self.session)


def write_stereo_wav(path: str, left: np.ndarray, right: np.ndarray) -> None:
    """A 16-bit stereo wav of the conversation (left: user, right: assistant), written atomically."""
    n = max(len(left), len(right))
    stereo = np.zeros((n, 2), dtype=np.float32)
    stereo[: len(left), 0] = left
    stereo[: len(right), 1] = right
    engine.write_wav(path, stereo)
