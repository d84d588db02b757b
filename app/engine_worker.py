"""The engine worker: one thread that owns the model and the conversation session.

The worker is a QObject living in its own QThread. Its ``run`` loop is driven by input audio:
it sleeps on the bridge's ``data_ready`` event (set by the PortAudio input callback), assembles
24 kHz frames, steps the session once per frame and queues the reply for the output callback.
Requests from the GUI (load a model, open/save a conversation, push-to-talk, barge-in) never
wait for the worker: they are put on a command queue, or are a plain attribute the loop reads.
Results travel back as queued Qt signals. A save takes a snapshot of the conversation between two
frames and a thread of its own writes the file, so the frames go on while it does.

Latency never grows: if the model falls behind real time, the oldest input is dropped (and
counted) instead of queued.
"""

from __future__ import annotations

import logging
import math
import queue
import secrets
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import torch
from PySide6.QtCore import QObject, Signal, Slot

import engine
from app.audio_bridge import AudioBridge
from app.echo import MicProcessor, ProcessingSettings, library_problem
from app.frame_stats import FrameStats, StageTimings, level_db
from app.journal_lock import JournalLock
from app.output_cushion import QUIET_DB, OutputCushion
from app.resample import FrameAssembler, OutputConverter
from app.saved_marker import mark_saved, read_mark, remove_mark
from engine import FRAME_MS, FRAME_SIZE, SAMPLE_RATE

log = logging.getLogger(__name__)

MAX_INPUT_BACKLOG_S = 0.25  # device audio older than this is skipped before it reaches the model
MAX_PENDING_FRAMES = 2  # assembled frames waiting for the model; more means we are behind
IDLE_POLL_S = 0.05
DATA_WAIT_S = 0.02
JOURNAL_RETRY_S = 5.0  # how often a journal that failed to write (a full disk) is started again


ModelLoader = Callable[[str, str, str, bool], object]  # (name, device, precision, cuda_graph) -> LoadedModel


def load_engine_model(name: str, device: str, precision: str, cuda_graph: bool):
    return engine.load_model(name, device=device, precision=precision, cuda_graph=cuda_graph)


class EngineWorker(QObject):
    model_loading = Signal(str)  # model name
    model_loaded = Signal(object)  # engine ModelInfo
    model_failed = Signal(str)
    # (name, device, precision) of the model released to make room on the GPU for one that then
    # failed to load: the window offers to load it again. Sent after model_failed.
    previous_model_offered = Signal(str, str, str)
    # transcript [(frame_index, seconds, text)], path ("" for a new conversation) and the recorded
    # (user, assistant) audio of an opened file (() if none). Never send None through a queued
    # `object` argument: PySide6 mis-counts its references and aborts the process.
    conversation_opened = Signal(object, str, object)
    conversation_failed = Signal(str)  # a new conversation could not start (bad prompts); the old one is kept
    voices_listed = Signal(object)  # [voice name] shipped with the loaded model; sent before model_loaded
    prompts_in_use = Signal(str, str)  # (voice, role) of the conversation just opened; "" = none / default
    frame_done = Signal(object)  # FrameStats
    error = Signal(str)  # a frame step failed; streaming pauses until resume() or a new conversation
    file_done = Signal(str, str)  # (what, path): "exported audio", or "saved" for a conversation replaced since
    # (path, frames run since the snapshot the file holds): the current conversation was saved
    conversation_saved = Signal(str, int)
    file_failed = Signal(str, str)  # (what, message)
    recovery_progress = Signal(int, int)  # (frames rebuilt, frames in all) while recovering a journal
    recovery_done = Signal(str)  # "" when the conversation was recovered, else why not
    model_stage = Signal(str)  # a slow step of loading a model (shown while it runs)
    processing_unavailable = Signal(str)  # echo cancellation etc. cannot run here (sent once): why
    clip_ready = Signal(object)  # (user, assistant, start seconds): float32 recordings of a requested clip
    # "" while the conversation is journaled (crash protection on); else why journaling stopped (a
    # full disk): it is started again every ``journal_retry_s``, with every frame so far
    journal_state = Signal(str)

    def __init__(self, model_loader: ModelLoader = load_engine_model, seed: int | None = None,
                 cuda_graph: bool = True, journal_dir: Path | None = None) -> None:
        """``journal_dir``: where each conversation's crash journal is written (None: no journals)."""
        super().__init__()
        self._journal_dir = journal_dir
        self._recorder = None  # the current conversation's engine FrameRecorder (with its journal)
        self.journal_path: Path | None = None  # the current conversation's journal
        self._journal_lock: JournalLock | None = None  # held while journal_path is live
        self.journal_problem = ""  # why journaling stopped ("" while it runs or there is none)
        self.journal_retry_s = JOURNAL_RETRY_S
        self._journal_retry_at = 0.0
        self.save_compact: bool | None = None  # None: the engine's default kind for the model
        self.cancel_recovery = False  # set by the GUI to stop a running recovery
        self._load = model_loader
        self._seed = seed
        self._cuda_graph = cuda_graph
        self._commands: queue.SimpleQueue = queue.SimpleQueue()
        self._file_writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="parley-save")  # saves, in order
        self._bridge: AudioBridge | None = None
        self._model = None
        self._loaded_as: tuple[str, str, str] | None = None  # (name, device, precision) of self._model
        self._session = None
        self._conversation = 0  # counts the conversations (a file opened in place reuses the session)
        self._halted = False
        self._stop = False
        # Written by the GUI thread, read by the loop: plain attributes are atomic under the GIL.
        self.mic_open = False
        self.processing = ProcessingSettings()  # microphone processing (echo cancellation...) wanted
        # Loop-private state.
        self._attached: AudioBridge | None = None
        self._assembler: FrameAssembler | None = None
        self._converter: OutputConverter | None = None
        self._cushion = OutputCushion()
        self._scratch = np.zeros((0, 1), dtype=np.float32)
        self._far_scratch = np.zeros((0, 1), dtype=np.float32)
        self._mic_processor: MicProcessor | None = None
        self._processing_in_use: ProcessingSettings | None = None
        self._processing_problem = ""  # set once processing failed here; it stays off from then on
        self._silence = np.zeros(FRAME_SIZE, dtype=np.float32)
        self._dropped_samples = 0.0  # at 24 kHz
        # Input position (in the attached bridge's input ring) up to which every frame is processed;
        # lets a driver without a sound card pace itself by the model (see app.headless).
        self.processed_position = 0

    # -- thread-safe requests (any thread) ---------------------------------------------------
    def set_bridge(self, bridge: AudioBridge | None) -> None:
        """Start taking audio from ``bridge`` (None: no device, the model pauses)."""
        # A position in the new bridge's ring: a driver pacing itself by it must not see the old one's.
        self.processed_position = bridge.input.read if bridge is not None else 0
        self._bridge = bridge

    def barge_in(self) -> None:
        """Silence the assistant audio queued for the speaker (the user interrupts), effective at
        once: the output callback plays zeros in its place from its next read, without waiting for
        the worker loop; what the model says next follows without a gap."""
        bridge = self._bridge
        if bridge is not None:
            bridge.output.request_mute()

    def load_model(self, name: str, device: str = "auto", precision: str = "auto",
                   voice_prompt: str | None = None, text_prompt: str | None = None) -> None:
        """The prompts are used for the first conversation if the model turns out to be PersonaPlex."""
        self._commands.put(("load", name, device, precision, voice_prompt, text_prompt))

    def new_conversation(self, voice_prompt: str | None = None, text_prompt: str | None = None) -> None:
        """A PersonaPlex voice prompt (shipped name or file) and role text; None: none / the default."""
        self._commands.put(("new", voice_prompt, text_prompt))

    def open_conversation(self, path: str) -> None:
        self._commands.put(("open", path))

    def save_conversation(self, path: str) -> None:
        self._commands.put(("save", path))

    def export_audio(self, path: str) -> None:
        self._commands.put(("export_audio", path))

    def recover_journal(self, path: str) -> None:
        """Rebuild the conversation of a crash journal (``recovery_progress``, then ``recovery_done``)."""
        self.cancel_recovery = False
        self._commands.put(("recover", path))

    def request_clip(self, start_s: float, end_s: float) -> None:
        """Ask for the conversation's recording from ``start_s`` to ``end_s`` seconds (answered by
        ``clip_ready``). Only the clip is copied: after an hour, copying the whole recording took
        the worker 1.7 s (frames dropped) and the window another 7.5 s to lay it out for playing."""
        self._commands.put(("clip", start_s, end_s))

    def resume(self) -> None:
        """Continue streaming after a failed frame."""
        self._commands.put(("resume",))

    def stop(self) -> None:
        """End the loop after the current command or frame (a model load runs to its end)."""
        self._stop = True
        self._commands.put(("wake",))

    # -- the loop (worker thread) ------------------------------------------------------------
    @Slot()
    def run(self) -> None:
        while not self._stop:
            bridge = self._bridge
            streaming = bridge is not None and self._session is not None and not self._halted
            command = self._next_command(wait=not streaming)
            if command is not None:
                self._execute(command)
                continue
            if streaming:
                self._pump(bridge)
        self._file_writer.shutdown(wait=True)  # a save in progress is finished, not cut off
        self._end_journal()  # a clean exit: the conversation needs no recovery

    def _next_command(self, wait: bool) -> tuple | None:
        try:
            return self._commands.get(timeout=IDLE_POLL_S) if wait else self._commands.get_nowait()
        except queue.Empty:
            return None

    def _execute(self, command: tuple) -> None:
        kind, *args = command
        try:
            if kind == "load":
                self._load_model(*args)
            elif kind == "new":
                self._new_session(*args)
            elif kind == "open":
                self._open(args[0])
            elif kind == "save":
                self._save(args[0])
            elif kind == "saved":
                self._saved(*args)
            elif kind == "export_audio":
                self._export_audio(args[0])
            elif kind == "recover":
                self._recover(args[0])
            elif kind == "clip" and self._session is not None:
                start_s, end_s = args
                self.clip_ready.emit((*self._session.audio_between(start_s, end_s), start_s))
            elif kind == "resume":
                self._halted = False
        except Exception as e:  # a bug here must not kill the worker thread
            log.exception("worker command %s failed", kind)
            self.error.emit(f"{kind} failed: {e}")

    def _load_model(self, name: str, device: str, precision: str,
                    voice_prompt: str | None = None, text_prompt: str | None = None) -> None:
        self.model_loading.emit(name)
        released = self._release_gpu_model()
        try:
            model = self._load(name, device, precision, self._cuda_graph)
        except Exception as e:
            log.exception("loading model %s failed", name)
            if released is None:
                self.model_failed.emit(f"Could not load model {name!r}: {e}")
            else:
                self.model_failed.emit(f"Could not load model {name!r}: {e}\nThe previous model ({released[0]}) "
                                       "was unloaded first to free the GPU's memory.")
                self.previous_model_offered.emit(*released)
            return
        self._model, self._loaded_as = model, (name, device, precision)
        self._use_threads_for(None)  # measured now, while the window still says it is loading
        files = getattr(model, "files", None)
        self.voices_listed.emit(engine.shipped_voices(getattr(files, "voices_dir", None)))
        self.model_loaded.emit(model.info)
        if model.info.family != "personaplex" or not (voice_prompt or text_prompt):
            self._new_session()
        elif not self._new_session(voice_prompt, text_prompt, fallback=True):
            self._new_session()  # the old conversation belongs to the old model: start one without prompts

    def _use_threads_for(self, session) -> None:  # session: None before the first
        """A rebuilt conversation keeps the thread count its frames ran with; any other gets the
        model's fastest (measured once per model, with the window and audio threads running)."""
        model = self._model
        if not isinstance(model, engine.LoadedModel) or model.device.type != "cpu":
            return
        if session is not None and getattr(session, "threads", None):
            torch.set_num_threads(session.threads)
            return
        if model.thread_choice is None:
            self.model_stage.emit("Measuring how many threads run this model fastest here...")
        choice = model.use_best_threads()
        log.info("torch threads: %d (ms per frame by thread count: mean %s, p90 %s; measured in %.1f s)",
                 choice.threads, choice.mean_ms, choice.p90_ms, choice.seconds)

    def _release_gpu_model(self) -> tuple[str, str, str] | None:
        """Unload a model that lives on a GPU (and its conversation) before loading another: a 24 GB
        card cannot hold two 7B models. Returns how it was loaded, or None if none was released
        (on the CPU the old model keeps running until the new one is ready)."""
        model = self._model
        if model is None or not str(model.info.device).startswith("cuda"):
            return None
        released = self._loaded_as
        self._session = self._model = self._loaded_as = None
        self._conversation += 1
        del model
        self._reset_stream()
        engine.release_memory()
        return released

    def _new_session(self, voice_prompt: str | None = None, text_prompt: str | None = None,
                     fallback: bool = False) -> bool:
        """Start a conversation; with prompts that fail (missing voice file, bad wav, not a PersonaPlex
        model) it reports ``conversation_failed`` and keeps the current one. Returns whether it started."""
        if self._model is None:
            return False
        seed = self._seed if self._seed is not None else secrets.randbelow(2**31)
        try:
            session = self._model.new_session(sampling=engine.SamplingConfig(), seed=seed,
                                              voice_prompt=voice_prompt or None, text_prompt=text_prompt or None)
        except Exception as e:
            if not (voice_prompt or text_prompt):
                raise  # no prompts: a real failure, reported by _execute
            log.exception("a new conversation with prompts failed")
            kept = ("Started one with the default voice and role instead." if fallback
                    else "The current conversation is kept.")
            self.conversation_failed.emit(f"Could not start a conversation with this persona: {e}\n{kept}")
            return False
        self._use_session(session)
        self._emit_prompts(session)
        self.conversation_opened.emit([], "", ())
        return True

    def _emit_prompts(self, session) -> None:
        prompts = getattr(session, "prompts", None) or {}
        self.prompts_in_use.emit(str(prompts.get("voice") or ""), str(prompts.get("text") or ""))

    def _open(self, path: str) -> None:
        if self._model is None:
            self.file_failed.emit("open", "Load a model before opening a conversation.")
            return
        session = self._session
        try:
            if session is None or engine.conversation_kind(path) == "compact":  # a compact one is rebuilt
                session = engine.open_conversation(self._model, path)
            else:  # in place: the same buffers and CUDA graph, no prompt phases
                session.restore(path)
                session.frame_observer = None  # the recorded frames were the previous conversation's
        except (OSError, ValueError) as e:  # the current conversation stays as it is
            self.file_failed.emit("open", f"Could not open {Path(path).name}: {e}")
            return
        self._use_session(session)
        self._emit_prompts(session)
        recording = session.audio() if session.record_audio else ()
        self.conversation_opened.emit(transcript_tuples(session.transcript), path, recording)

    def _save(self, path: str) -> None:
        session = self._session
        if session is None:
            self.file_failed.emit("save", "There is no conversation to save.")
            return
        try:
            snapshot = engine.snapshot_conversation(session, compact=self.save_compact and
                                                    engine.can_save_compact(session))
        except (OSError, ValueError) as e:
            self.file_failed.emit("save", f"Could not save {Path(path).name}: {e}")
            return
        self._file_writer.submit(self._write_snapshot, snapshot, path, self._conversation)

    def _write_snapshot(self, snapshot, path: str, conversation: int) -> None:
        """On the file writer's thread; the worker notes the save when it is written (``_saved``)."""
        if self._write_file("save", path, lambda: snapshot.write(path)):
            self._commands.put(("saved", path, conversation, snapshot.frames))

    def _saved(self, path: str, conversation: int, frames: int) -> None:
        if conversation != self._conversation:  # another conversation since: nothing of this one to mark
            self.file_done.emit("saved", path)
            return
        if self.journal_path is not None:
            try:
                mark_saved(self.journal_path, frames, path)
            except OSError as e:  # the journal stays whole: a crash offers all of it
                log.warning("could not note the save beside the journal: %s", e)
        self.conversation_saved.emit(path, self._session.frames - frames)

    def _recover(self, path: str) -> None:
        if self._model is None:
            self.recovery_done.emit("Load a model before recovering a conversation.")
            return
        try:
            recovery = engine.recover(self._model, path, progress=self.recovery_progress.emit,
                                      cancel=lambda: self.cancel_recovery)
        except engine.RecoveryCancelled:
            self.recovery_done.emit("Recovery cancelled; the journal is kept.")
            return
        except (OSError, ValueError) as e:  # the current conversation stays as it is
            self.recovery_done.emit(f"Could not recover {Path(path).name}: {e}")
            return
        self._use_session(recovery.session)  # journals it again, all its frames first
        Path(path).unlink(missing_ok=True)
        self._emit_prompts(recovery.session)
        recording = recovery.session.audio() if recovery.session.record_audio else ()
        self.conversation_opened.emit(transcript_tuples(recovery.session.transcript), "", recording)
        lost = f" ({recovery.lost_frames} damaged frames at the end were lost)" if recovery.lost_frames else ""
        self.recovery_done.emit("")
        log.info("recovered %d frames from %s in %.1f s%s", recovery.frames, path, recovery.rebuild_seconds, lost)

    # -- crash journal ---------------------------------------------------------------------
    def _use_session(self, session) -> None:
        """Make ``session`` the conversation: the previous one's journal is removed (it ended by the
        person's choice) and the new one is journaled when it can be (a conversation restored from a
        full snapshot has no recorded frames to journal from)."""
        self._end_journal()
        self._session = session
        self._conversation += 1
        self._reset_stream()
        self._use_threads_for(session)
        if self._journal_dir is None:
            return
        frames = getattr(session, "frames", 0)
        if frames and not engine.can_save_compact(session):
            self._say_journal_problem("")  # none to protect: not a stopped one
            return
        self._start_journal(session)

    def _start_journal(self, session) -> None:
        """Journal ``session`` (every frame it recorded first) under a new name and lock. When that
        fails (a full disk) ``journal_state`` says crash protection stopped, the frames are recorded
        in memory meanwhile, and ``_check_journal`` tries again; the journal it replaces goes."""
        path = self._journal_dir / f"conversation-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}.journal"
        lock = None
        try:
            lock = JournalLock.try_acquire(path)
            if lock is None:
                raise OSError(f"{path.name} is locked by another window")
            recorder = engine.record_frames(session, path)
        except (OSError, ValueError) as e:
            if lock is not None:
                path.unlink(missing_ok=True)  # what a failed start wrote
                lock.release()
            if self._recorder is None:  # recorded in memory: a journal started later holds these frames
                self._recorder = engine.record_frames(session)
            self._journal_stopped(f"no crash journal for this conversation: {getattr(e, 'strerror', None) or e}")
            return
        old, old_path, old_lock = self._recorder, self.journal_path, self._journal_lock
        self._recorder, self.journal_path, self._journal_lock = recorder, path, lock
        if old is not None:  # the one that failed: the new journal holds all of it
            close_recorder(old, old_path)
        if old_path is not None:
            if (mark := read_mark(old_path)) is not None:
                mark_saved(path, mark.frames, mark.file)
            remove_mark(old_path)
        if old_lock is not None:
            old_lock.release()
        self._say_journal_problem("")

    def _journal_stopped(self, why: str) -> None:
        self._journal_retry_at = time.monotonic() + self.journal_retry_s
        self._say_journal_problem(why)

    def _say_journal_problem(self, why: str) -> None:
        if why != self.journal_problem:
            log.log(logging.ERROR if why else logging.INFO, "%s", why or "crash protection resumed")
            self.journal_problem = why
            self.journal_state.emit(why)

    def _check_journal(self) -> None:
        """After each frame: a journal write that failed is said; a stopped journal is retried."""
        if self.journal_problem:
            if time.monotonic() >= self._journal_retry_at and self._session is not None:
                self._start_journal(self._session)
            return
        writer = getattr(self._recorder, "journal", None)
        if writer is not None and writer.error:
            self._journal_stopped(writer.error)

    def _end_journal(self) -> None:
        if self._recorder is not None:
            close_recorder(self._recorder, self.journal_path)
        if self.journal_path is not None:
            remove_mark(self.journal_path)
        if self._journal_lock is not None:
            self._journal_lock.release()
        self._recorder, self.journal_path, self._journal_lock = None, None, None

    def _export_audio(self, path: str) -> None:
        if self._session is None:
            self.file_failed.emit("export audio", "There is no conversation to export.")
            return
        self._file_writer.submit(self._write_audio, *self._session.recording(), path)

    def _write_audio(self, user, assistant, path: str) -> None:
        """On the file writer's thread: the recordings as they were when the export was asked for."""
        if self._write_file("export audio", path, lambda: write_stereo_wav(path, user.array(), assistant.array())):
            self.file_done.emit("exported audio", path)

    def _write_file(self, what: str, path: str, write: Callable[[], None]) -> bool:
        """On the file writer's thread: ``write()``; False, with ``file_failed`` sent, when it failed."""
        try:
            write()
            return True
        except Exception as e:  # said, whatever it is: the person must not believe the file written
            if not isinstance(e, (OSError, ValueError)):
                log.exception("writing %s failed", path)
            self.file_failed.emit(what, f"Could not {what} {Path(path).name}: {e}")
            return False

    def _reset_stream(self) -> None:
        self._halted = False
        self._attached = None  # re-creates the resamplers on the next pump
        self._dropped_samples = 0.0

    def _attach(self, bridge: AudioBridge) -> None:
        """Per bridge (and per processing choice): processor, resamplers and scratch buffers."""
        self._attached = bridge
        self._processing_in_use = self.processing
        self._mic_processor = self._make_processor(bridge, self.processing)
        processor = self._mic_processor
        self._assembler = FrameAssembler(processor.rate if processor is not None else bridge.input_rate)
        self._converter = OutputConverter(bridge.output_rate)
        self._cushion = OutputCushion()
        self._scratch = np.zeros((bridge.input.capacity, bridge.input.channels), dtype=np.float32)
        self._far_scratch = np.zeros((bridge.far.capacity, 1), dtype=np.float32)
        bridge.far.read_into(self._far_scratch[:0], max_backlog=0)  # what played before now is not an echo of now
        # What the microphone captured before this conversation or device (while a model loaded, say)
        # is skipped down to the frames the model may have pending, not counted as dropped: it was
        # never the model's to hear.
        waited = int(MAX_PENDING_FRAMES * FRAME_SIZE * bridge.input_rate / SAMPLE_RATE)
        bridge.input.read_into(self._scratch[:0], max_backlog=waited)
        self.processed_position = bridge.input.read

    def _make_processor(self, bridge: AudioBridge, settings: ProcessingSettings) -> MicProcessor | None:
        if not settings.any_enabled or self._processing_problem:
            return None
        problem = library_problem()
        if not problem:
            try:
                return MicProcessor(settings, bridge.input_rate, bridge.output_rate)
            except Exception as e:
                log.exception("the microphone processor could not start")
                problem = f"the microphone processor could not start ({type(e).__name__}: {e})"
        self._processing_failed(problem)
        return None

    def _processing_failed(self, problem: str) -> None:
        """Turn processing off for good and say so once; the raw microphone goes on to the model."""
        self._processing_problem = problem
        self._mic_processor = None
        self.processing_unavailable.emit(f"Echo cancellation, noise suppression and gain control are off: {problem}.")

    def _pump(self, bridge: AudioBridge) -> None:
        if bridge is not self._attached or self.processing != self._processing_in_use:
            self._attach(bridge)
        if not bridge.data_ready.wait(DATA_WAIT_S):
            return
        bridge.data_ready.clear()
        skipped_before = bridge.input.skipped
        max_backlog_s = MAX_INPUT_BACKLOG_S
        far_count = bridge.far.read_into(self._far_scratch, max_backlog=int(max_backlog_s * bridge.output_rate))
        count = bridge.input.read_into(self._scratch, max_backlog=int(max_backlog_s * bridge.input_rate))
        self._dropped_samples += (bridge.input.skipped - skipped_before) * SAMPLE_RATE / bridge.input_rate
        if count == 0:
            return
        arrival = bridge.last_input_time
        assembler = self._assembler
        mic = self._scratch[:count]
        if self._mic_processor is not None:
            try:
                mic_time, far_time = bridge.capture_and_play_times(bridge.input.read - count,
                                                                   bridge.far.read - far_count)
                mic = self._mic_processor.process(mic, self._far_scratch[:far_count], mic_time, far_time)
            except Exception as e:
                log.exception("microphone processing failed")
                self._processing_failed(f"processing failed ({type(e).__name__}: {e})")
                self._attached = None  # the next pump assembles the raw microphone at the device rate
                return
        assembler.push(mic)
        behind = assembler.pending_frames() - MAX_PENDING_FRAMES
        if behind > 0:
            assembler.drop_frames(behind)
            self._dropped_samples += behind * FRAME_SIZE
        while assembler.pending_frames() and not self._halted:
            self._step(bridge, assembler.pop_frame(), arrival)
        self.processed_position = bridge.input.read

    def _step(self, bridge: AudioBridge, mic: np.ndarray, arrival: float) -> None:
        heard = engine.to_16_bit(mic) if self.mic_open else self._silence  # 16-bit: replayable exactly
        started = time.monotonic()
        try:
            result = self._session.step(heard)
        except Exception as e:
            self._halted = True
            log.error("frame step failed:\n%s", traceback.format_exc())
            self.error.emit(f"The model failed on a frame: {type(e).__name__}: {e}")
            return
        step_ms = (time.monotonic() - started) * 1000.0
        queued_s = bridge.output_queue_seconds()
        bridge.output.write(self._trim_cushion(bridge, self._converter.convert(result.pcm), queued_s))
        if self._journal_dir is not None:
            self._check_journal()
        self.frame_done.emit(self._frame_stats(bridge, result, mic, heard, step_ms, started - arrival, queued_s,
                                               self._session.graph))

    def _trim_cushion(self, bridge: AudioBridge, pcm: np.ndarray, queued_s: float) -> np.ndarray:
        """Shrink an output queue deeper than needed where it is inaudible: skip audio a barge-in
        muted, or shorten this frame when it is quiet (``app.output_cushion``)."""
        cushion = self._cushion
        cushion.observe(queued_s)
        excess = int(cushion.excess_s * bridge.output_rate)
        if excess <= 0:
            return pcm
        if bridge.output.muted_ahead() > 0:
            bridge.output.request_skip_muted(excess)
        elif level_db(pcm) < QUIET_DB:
            pcm = pcm[excess:]
        else:
            return pcm
        cushion.trimmed()
        return pcm

    def _frame_stats(self, bridge, result, mic, heard, step_ms, input_wait_s, output_queue_s, graph) -> FrameStats:
        t = result.timings
        input_queue_ms = max(0.0, input_wait_s * 1000.0)
        output_queue_ms = output_queue_s * 1000.0
        end_to_end = (
            1000.0 * (bridge.input_device_latency + bridge.output_device_latency)
            + FRAME_MS
            + input_queue_ms
            + step_ms
            + output_queue_ms
        )
        echo = self._mic_processor.reading() if self._mic_processor is not None else None
        return FrameStats(
            frame_index=result.frame_index,
            seconds=result.frame_index * FRAME_MS / 1000.0,
            text=result.text,
            mic_db=echo.before_db if echo is not None else level_db(mic),
            model_input_db=level_db(heard),
            mic_open=heard is not self._silence,
            output_db=level_db(result.pcm),
            timings=StageTimings(
                input_queue=input_queue_ms,
                encode=t.encode_ms,
                lm=t.lm_ms,
                depth=t.depth_ms,
                decode=t.decode_ms,
                output_queue=output_queue_ms,
            ),
            step_ms=step_ms,
            end_to_end_ms=end_to_end,
            dropped_frames=math.floor(self._dropped_samples / FRAME_SIZE),
            caches=result.caches,
            graph=graph,
            echo=echo,
        )


def close_recorder(recorder, journal: Path | None) -> None:
    """Close a conversation's recorder and remove its journal, also when the journal's last write
    fails on closing (a full disk: the file's buffer cannot be flushed)."""
    try:
        recorder.close(remove=True)
    except OSError as e:
        log.warning("the journal %s failed on closing: %s", journal, e)
        if journal is not None:
            journal.unlink(missing_ok=True)


def transcript_tuples(entries) -> list[tuple[int, float, str]]:
    """The engine's transcript entries (frame_index, seconds, text) as plain tuples for the GUI."""
    return [(e.frame_index, e.seconds, e.text) for e in entries]


def write_stereo_wav(path: str, left: np.ndarray, right: np.ndarray) -> None:
    """A 16-bit stereo wav of the conversation (left: user, right: assistant), written atomically."""
    n = max(len(left), len(right))
    stereo = np.zeros((n, 2), dtype=np.float32)
    stereo[: len(left), 0] = left
    stereo[: len(right), 1] = right
    engine.write_wav(path, stereo)
