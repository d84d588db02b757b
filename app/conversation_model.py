"""The conversation view-model: everything the window shows, as state and signals, with no widgets.

It owns the engine worker (in its thread) and the audio streams, the push-to-talk state, the
turns, the status, the current file and its unsaved changes, and the settings. Panels render its
state and call its commands; they never talk to the worker or read the audio bridge themselves.
Questions to the user (file dialogs, "discard changes?") stay in the window: the view-model only
acts on the answers.

It never waits for the worker: requests go through ``EngineWorker``'s thread-safe methods and
answers arrive as queued signals. Audio device health is polled by a timer (PortAudio threads
must not emit Qt signals).
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import asdict, replace
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, QThread, QTimer, Signal

from app import recovery
from app.audio_io import AudioIO, DeviceStatus
from app.audio_menu import open_mic_note, processing_from
from app.engine_worker import EngineWorker, ModelLoader, load_engine_model
from app.frame_stats import FrameStats
from app.push_to_talk import TalkState
from app.real_time import RealTimeMonitor, too_slow_text
from app.settings import AppSettings, load_settings, save_settings
from app.status import SPEECH_DB, Status, StatusInputs, derive_status
from app.transcript import FrameObservation, Transcript
from app.turn_list import TurnListModel
from engine import DEFAULT_ROLE

log = logging.getLogger(__name__)

UI_TIMER_MS = 50
# Loading reads the weights and, on the CPU, the kernel plan (measured on a first start here).
FIRST_LOADING_STAGE = "reading the weights and choosing the fastest kernels for this computer..."


def same_file_name(a: str, b: str) -> bool:
    """Whether two paths name the same file, whether or not it exists (a removed file's old name)."""
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def graph_text(graph) -> str:
    """The CUDA-graph part of the model line: the truth of the running session, not the setting."""
    if graph is None:
        return "-"
    if graph.active:
        return "on"
    if graph.pending:
        return "warming up"
    return "off"


class ConversationModel(QObject):
    status_changed = Signal(object)  # Status
    talk_changed = Signal(object)  # TalkState
    model_changed = Signal()  # model_info, loading, graph: see model_text()
    persona_changed = Signal()  # prompts_in_use, voices
    title_changed = Signal(str)
    frame = Signal(object)  # FrameStats of the newest frame (meters and latency)
    health_changed = Signal(str)  # dropped frames, xruns, output gaps
    speed_warning_changed = Signal(str)  # see speed_warning
    devices_changed = Signal(object)  # DeviceStatus
    error = Signal(str, bool)  # (message, resumable)
    message = Signal(str)  # a transient note for the status bar
    settings_changed = Signal(object)  # AppSettings
    saved = Signal(str)  # path
    conversation_replaced = Signal()  # a new or opened conversation replaced the turns
    clip_ready = Signal(object)  # (user, assistant, start seconds) of a clip, after request_clip()
    processing_changed = Signal()  # echo cancellation etc.: the settings or whether they can run
    # (name, device, precision) of the model released to make room on the GPU for one that then
    # failed to load: nothing is loaded now, and the window offers to load it again.
    previous_model_offered = Signal(str, str, str)
    recovery_offered = Signal(object)  # [PendingJournal] a crashed run left, once the first model loaded
    crash_protection_changed = Signal(str)  # see crash_protection_problem

    def __init__(self, store: QSettings, model_loader: ModelLoader = load_engine_model, audio: bool = True,
                 worker_seed: int | None = None, cuda_graph: bool = True, journal_dir: Path | None = None,
                 parent: QObject | None = None) -> None:
        """``journal_dir``: crash journals (offered for recovery at start); None: no journals."""
        super().__init__(parent)
        self.store = store
        self.settings: AppSettings = load_settings(store)
        self.talk = TalkState(open_mic=self.settings.open_mic)
        self.turns = TurnListModel(Transcript(), self)
        self.conversation_path: str | None = None
        self.unsaved_frames = 0
        self.model_info = None
        self.loading_model: str | None = None
        self.loading_stage = ""  # what loading is doing now (shown after the model's name)
        self.graph = None  # the running session's engine.GraphStatus, as the last frame reported it
        self.voices: list[str] = []  # shipped voices of the loaded model (reported by the worker)
        self.prompts_in_use = ("", "")  # (voice, role) of the current conversation
        self.streaming = False
        self.last_stats: FrameStats | None = None
        self.device_status = DeviceStatus()
        self.health = ""
        self.real_time = RealTimeMonitor()
        # Says what to do while the machine is too slow to run the model in real time; "" when it is not.
        self.speed_warning = ""
        # Why the conversation is not journaled for crash recovery now (a full disk); "" when it is.
        self.crash_protection_problem = ""
        self.status = Status.IDLE
        self._last_speech_time = float("-inf")
        self._last_release_time = float("-inf")
        self._requested_model: tuple[str, str, str] | None = None

        self.pending_journals = recovery.pending_journals(journal_dir) if journal_dir else []  # before any new one
        self.processing_problem = ""  # why echo cancellation etc. cannot run here ("" when they can)
        self.worker = EngineWorker(model_loader, seed=worker_seed, cuda_graph=cuda_graph, journal_dir=journal_dir)
        self.worker.save_compact = self.settings.save_compact
        self.worker.processing = processing_from(self.settings)
        self.worker_thread = QThread(self)
        self.worker_thread.setObjectName("parley-engine")
        self.worker.moveToThread(self.worker_thread)
        self.worker_thread.started.connect(self.worker.run)
        self._connect_worker()
        self.worker_thread.start()
        self.worker.mic_open = self.talk.mic_open

        self.audio = AudioIO(self.worker.set_bridge) if audio else None
        self.timer = QTimer(self)
        self.timer.setInterval(UI_TIMER_MS)
        self.timer.timeout.connect(self.tick)
        self.timer.start()
        if self.audio is not None:
            self.audio.start(self.settings.input_device or None, self.settings.output_device or None)

    def _connect_worker(self) -> None:
        # Bound methods of this object only: PySide6 would run a lambda in the worker's thread.
        w = self.worker
        w.model_loading.connect(self._on_model_loading)
        w.model_stage.connect(self._on_model_stage)
        w.model_loaded.connect(self._on_model_loaded)
        w.model_failed.connect(self._on_model_failed)
        w.previous_model_offered.connect(self._on_previous_model_offered)
        w.processing_unavailable.connect(self._on_processing_unavailable)
        w.conversation_opened.connect(self._on_conversation_opened)
        w.conversation_failed.connect(self._on_error)
        w.voices_listed.connect(self._on_voices_listed)
        w.prompts_in_use.connect(self._on_prompts_in_use)
        w.frame_done.connect(self._on_frame)
        w.error.connect(self._on_worker_error)
        w.file_done.connect(self._on_file_done)
        w.conversation_saved.connect(self._on_conversation_saved)
        w.file_failed.connect(self._on_file_failed)
        w.clip_ready.connect(self._on_clip)
        w.journal_state.connect(self._on_journal_state)

    # -- derived state -----------------------------------------------------------------------
    @property
    def transcript(self) -> Transcript:
        return self.turns.transcript

    @property
    def is_personaplex(self) -> bool:
        return self.model_info is not None and self.model_info.family == "personaplex"

    def model_text(self) -> tuple[str, str]:
        """(the model line, its tooltip)."""
        if self.loading_model is not None:
            return f"Loading model {self.loading_model}: {self.loading_stage}", ""
        info = self.model_info
        if info is None:
            return "No model loaded (Model → Model manager...)", ""
        # info.label says plainly when it is the untrained demo model.
        return (f"Model: {info.label} · {info.device} · {info.precision.value} · CUDA graph: "
                f"{graph_text(self.graph)}", (self.graph.reason or "") if self.graph else "")

    def open_mic_note(self) -> tuple[str, bool]:
        """(the note under the open-mic switch, whether it is a warning)."""
        return open_mic_note(self.worker.processing, self.processing_problem)

    def title(self) -> str:
        name = Path(self.conversation_path).name if self.conversation_path else "Untitled conversation"
        return f"{name}{' *' if self.unsaved_frames else ''} — Parley"

    def persona_prompts(self) -> tuple[str | None, str | None]:
        """The saved voice and role for a new conversation; none unless the model is PersonaPlex."""
        if not self.is_personaplex:
            return None, None
        return self.settings.persona_voice or None, self.settings.persona_role or None

    # -- push-to-talk ------------------------------------------------------------------------
    def press_talk(self, source: str) -> None:
        was_open = self.talk.mic_open
        self._set_talk(self.talk.press(source))
        if not was_open and self.status is Status.SPEAKING:
            self.worker.barge_in()  # the user interrupts: silence what the assistant still had queued
            self._last_speech_time = float("-inf")
        self._update_status()

    def release_talk(self, source: str) -> None:
        was_open = self.talk.mic_open
        self._set_talk(self.talk.release(source))
        if was_open and not self.talk.mic_open:
            self._last_release_time = time.monotonic()
        self._update_status()

    def set_open_mic(self, on: bool) -> None:
        self._set_talk(TalkState(self.talk.held_by, open_mic=on))
        self.update_settings(open_mic=on)
        self._update_status()

    def _set_talk(self, talk: TalkState) -> None:
        self.talk = talk
        self.worker.mic_open = talk.mic_open
        self.talk_changed.emit(talk)

    # -- commands ----------------------------------------------------------------------------
    def load_model(self, name: str, device: str, precision: str) -> None:
        """Load in the worker; the choice is remembered once it loaded (a failed one is not)."""
        self._requested_model = (name, device, precision)
        self.graph = None
        # The saved persona is used if the model turns out to be PersonaPlex (the worker knows).
        self.worker.load_model(name, device, precision, self.settings.persona_voice or None,
                               self.settings.persona_role or None)

    def switch_model_and_open(self, model: str, path: str) -> None:
        """Load ``model`` (with the remembered device and precision), then open ``path`` on it; the
        worker runs both in order, and a failed load leaves the running model, which refuses the file."""
        self.load_model(model, self.settings.device, self.settings.precision)
        self.worker.open_conversation(path)

    def new_conversation(self) -> None:
        self.worker.new_conversation(*self.persona_prompts())

    def start_with_persona(self, voice: str, role: str) -> None:
        """Remember the choice, then start a new conversation with it (in the worker); if the engine
        refuses the prompts, the error shows and the current conversation carries on."""
        if role.strip() == DEFAULT_ROLE:
            role = ""  # the default, wherever it changes later
        self.update_settings(persona_voice=voice, persona_role=role)
        self.worker.new_conversation(voice or None, role or None)

    def open_conversation(self, path: str) -> None:
        self.worker.open_conversation(path)

    def save(self, path: str) -> None:
        self.worker.save_conversation(path)

    def export_audio(self, path: str) -> None:
        self.worker.export_audio(path)

    def export_transcript(self, path: str) -> None:
        try:
            self.transcript.export(path)
        except (OSError, ValueError) as e:
            self._on_error(f"Could not export the transcript: {e}")
            return
        self.message.emit(f"Exported transcript: {path}")

    def forget_recent(self, path: str) -> None:
        self.update_settings(recent_files=tuple(p for p in self.settings.recent_files if p != path))

    def request_clip(self, start_s: float, end_s: float) -> None:
        self.worker.request_clip(start_s, end_s)

    def resume(self) -> None:
        self.worker.resume()

    def set_processing(self, processing) -> None:
        """An app.echo.ProcessingSettings chosen in the Audio menu: applied at once and persisted."""
        self.worker.processing = processing
        self.update_settings(**asdict(processing))
        self.processing_changed.emit()

    def set_file_kind(self, kind: str) -> None:
        """File > Conversation files: the kind the next saves write (an AppSettings.file_kind)."""
        self.update_settings(file_kind=kind)
        self.worker.save_compact = self.settings.save_compact

    def choose_devices(self, input_label: str, output_label: str) -> None:
        """Device labels as the pickers show them; "" = the system default."""
        self.update_settings(input_device=input_label, output_device=output_label)
        if self.audio is not None:
            self.audio.start(input_label or None, output_label or None)

    def refresh_devices(self) -> None:
        if self.audio is not None:
            self.audio.refresh_devices()

    def update_settings(self, **changes) -> None:
        self.settings = replace(self.settings, **changes)
        save_settings(self.store, self.settings)
        self.settings_changed.emit(self.settings)

    # -- worker results ----------------------------------------------------------------------
    def _on_model_loading(self, name: str) -> None:
        self.loading_model, self.loading_stage = name, FIRST_LOADING_STAGE
        self.model_changed.emit()

    def _on_model_stage(self, text: str) -> None:
        self.loading_stage = text
        self.model_changed.emit()

    def _on_model_failed(self, message: str) -> None:
        """The previous model (if any) and its conversation stay loaded and keep running."""
        self.loading_model = None
        self.model_changed.emit()
        self._on_error(message)

    def _on_previous_model_offered(self, name: str, device: str, precision: str) -> None:
        self.model_info = None
        self.model_changed.emit()
        self.previous_model_offered.emit(name, device, precision)

    def _on_processing_unavailable(self, message: str) -> None:
        self.processing_problem = message
        self.processing_changed.emit()
        self.message.emit(message)

    def _on_model_loaded(self, info) -> None:
        self.model_info = info
        self.loading_model = None
        self.model_changed.emit()
        self.real_time.reset()  # the old model's speed says nothing about this one
        self._update_speed_warning()
        if self.pending_journals:  # the first model of this run: offer what a crash left behind
            journals, self.pending_journals = self.pending_journals, []
            self.recovery_offered.emit(journals)
        if self._requested_model is not None:
            name, device, precision = self._requested_model
            self.update_settings(model=name, device=device, precision=precision)

    def _on_voices_listed(self, voices) -> None:
        self.voices = list(voices)
        self.persona_changed.emit()

    def _on_prompts_in_use(self, voice: str, role: str) -> None:
        self.prompts_in_use = (voice, role)
        self.persona_changed.emit()

    def _on_conversation_opened(self, transcript, path: str, recording) -> None:
        self.turns.reset(transcript, recording)
        self.conversation_path = path or None
        self.unsaved_frames = 0
        if path:
            self.update_settings(recent_files=self.settings.with_recent(path).recent_files)
        self.conversation_replaced.emit()
        self.title_changed.emit(self.title())

    def _on_frame(self, stats: FrameStats) -> None:
        self.last_stats = stats
        if stats.graph != self.graph:
            self.graph = stats.graph
            self.model_changed.emit()
        self.streaming = True
        self.unsaved_frames += 1
        self.real_time.add(stats.step_ms)
        self._update_speed_warning()
        if stats.output_db > SPEECH_DB:
            self._last_speech_time = time.monotonic()
        # Push-to-talk held: the whole hold is the user's turn; open mic: only where they are heard.
        user_talking = stats.mic_open and (bool(self.talk.held_by) or stats.model_input_db > SPEECH_DB)
        self.turns.add_frame(FrameObservation(stats.seconds, user_talking, stats.model_input_db, stats.output_db,
                                              stats.text))
        self.frame.emit(stats)
        if self.unsaved_frames == 1:
            self.title_changed.emit(self.title())

    def _update_speed_warning(self) -> None:
        text = ""
        if self.real_time.too_slow and self.model_info is not None:
            info = self.model_info
            text = too_slow_text("the demo model" if info.is_demo else info.name, self.real_time.median_ms,
                                 info.lighter_precisions, info.device != "cpu")
        if text != self.speed_warning:
            self.speed_warning = text
            self.speed_warning_changed.emit(text)

    def _on_journal_state(self, problem: str) -> None:
        self.crash_protection_problem = problem
        self.crash_protection_changed.emit(problem)

    def file_renamed(self, old: str, new: str) -> None:
        """A file was renamed in the library: the conversation saved there follows it (Save writes
        the new name, never the old one again)."""
        if self.conversation_path and same_file_name(self.conversation_path, old):
            self.conversation_path = new
            self.title_changed.emit(self.title())

    def file_removed(self, path: str) -> None:
        """A file was moved to the trash in the library: the conversation saved there is unsaved
        again (Save asks where, instead of writing the removed name back)."""
        if self.conversation_path and same_file_name(self.conversation_path, path):
            self.conversation_path = None
            self.unsaved_frames = max(self.unsaved_frames, 1)
            self.title_changed.emit(self.title())

    def _on_clip(self, clip) -> None:
        self.clip_ready.emit(clip)

    def _on_worker_error(self, message: str) -> None:
        self.error.emit(message + "\nThe conversation is kept; press Resume to continue.", True)

    def _on_file_done(self, what: str, path: str) -> None:
        self.message.emit(f"{what.capitalize()}: {path}")

    def _on_conversation_saved(self, path: str, unsaved_frames: int) -> None:
        """``unsaved_frames``: the frames that ran while the file was written (not in it)."""
        self.conversation_path = path
        self.unsaved_frames = unsaved_frames
        self.update_settings(recent_files=self.settings.with_recent(path).recent_files)
        self.title_changed.emit(self.title())
        self.saved.emit(path)
        self.message.emit(f"Saved: {path}")

    def _on_file_failed(self, what: str, message: str) -> None:
        self._on_error(message)

    def _on_error(self, message: str) -> None:
        log.error("%s", message)
        self.error.emit(message, False)

    # -- timer: audio health, status ---------------------------------------------------------
    def tick(self) -> None:
        if self.audio is not None:
            self._poll_audio()
        self._update_status()

    def _poll_audio(self) -> None:
        status = self.audio.poll()
        if status != self.device_status:
            self.device_status = status
            self.devices_changed.emit(status)
        bridge = self.audio.bridge
        dropped = self.last_stats.dropped_frames if self.last_stats else 0
        xruns = (bridge.input_overflows + bridge.output_underflows) if bridge else 0
        starved = bridge.output_starved_samples / bridge.output_rate if bridge else 0.0
        health = f"{dropped} frames dropped · {xruns} xruns · {starved:.1f} s output gaps"
        if health != self.health:
            self.health = health
            self.health_changed.emit(health)
        if status.state != "running":
            self.streaming = False

    def _update_status(self) -> None:
        status = derive_status(StatusInputs(
            streaming=self.streaming and self.model_info is not None,
            mic_open=self.talk.mic_open,
            now=time.monotonic(),
            last_speech_time=self._last_speech_time,
            last_release_time=self._last_release_time,
        ))
        if status is not self.status:
            self.status = status
            self.status_changed.emit(status)

    # -- shutdown ----------------------------------------------------------------------------
    def shutdown(self) -> bool:
        """Stop the timer, the audio streams and the worker thread, each with a bounded wait.

        Returns False when the worker is still busy (e.g. inside a model load, which cannot be
        interrupted): the caller must then leave the process without destroying that thread.
        """
        if not self.timer.isActive():
            return not self.worker_thread.isRunning()
        self.timer.stop()
        if self.audio is not None:
            self.audio.stop(timeout=2.0)
        self.worker.stop()
        self.worker_thread.quit()
        return self.worker_thread.wait(5000)
