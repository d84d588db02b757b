"""The conversation view-model: everything the window shows, as state and signals, with no widgets.

It owns the engine worker (in its thread), the push-to-talk state, whether
the conversation runs (``live``: nothing runs until Talk, open mic or Start), the turns, the
status, the current file and its unsaved changes (what the person said that no file holds), and
the settings; the audio devices are its ``devices`` (``app.conversation.devices_model``). Panels
render its state and call its commands; they never talk to the worker or read the audio bridge themselves.
Questions to the user (file dialogs, "discard changes?") stay in the window: the view-model only
acts on the answers.

It never waits for the engine thread: it submits typed commands (``app.engine_thread.messages``) to
``EngineWorker`` and handles the typed events that come back through one queued signal. The audio
devices are polled by a timer (PortAudio threads must not emit Qt signals).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import asdict, replace
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject, QSettings, QThread, QTimer, Signal

from app.audio.levels import SPEECH_DB
from app.conversation.captions_model import CaptionsModel
from app.conversation.devices_model import DevicesModel
from app.conversation.push_to_talk import TalkState, open_mic_note
from app.conversation.status import Status, StatusInputs, derive_status
from app.conversation.transcript import YOU, FrameObservation, Transcript
from app.conversation.transcript_formats import export_transcript
from app.conversation.turn_list import TurnListModel
from app.engine_thread import messages as m
from app.engine_thread.controller import ModelLoader, load_engine_model
from app.engine_thread.frame_stats import FrameStats
from app.engine_thread.worker import EngineWorker
from app.i18n import translate
from app.journals.pending import pending_journals_in_background
from app.settings import AppSettings, load_settings, processing_from, save_settings
from app.voices.personas_model import voice_label
from engine import DEFAULT_PERSONA, DEFAULT_ROLE, Persona, PersonaLibrary

log = logging.getLogger(__name__)

UI_TIMER_MS = 50
# Loading reads the weights and, on the CPU, the kernel plan (measured on a first start here).
FIRST_LOADING_STAGE = QT_TRANSLATE_NOOP("ConversationModel",  # translated where shown
                                        "reading the weights and choosing the fastest kernels for this computer...")


def same_file_name(a: str, b: str) -> bool:
    """Whether two paths name the same file, whether or not it exists (a removed file's old name)."""
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def graph_text(graph) -> str:
    """The CUDA-graph part of the model line: the truth of the running session, not the setting."""
    if graph is None:
        return "-"
    if graph.active:
        return translate("ConversationModel", "on")
    if graph.pending:
        return translate("ConversationModel", "warming up")
    return translate("ConversationModel", "off")


class ConversationModel(QObject):
    status_changed = Signal(object)  # Status
    talk_changed = Signal(object)  # TalkState
    live_changed = Signal(bool)  # whether the conversation's frames run (see live)
    talk_available_changed = Signal()  # see talk_available()
    model_changed = Signal()  # model_info, loading, graph: see model_text()
    persona_changed = Signal()  # persona, conversation_persona, prompts_in_use, voices
    waiting_changed = Signal(bool)  # waiting_for_user: the current conversation's "wait for me"
    title_changed = Signal(str)
    frame = Signal(object)  # FrameStats of the newest frame (meters and latency)
    error = Signal(str, bool)  # (message, resumable)
    message = Signal(str)  # a transient note for the status bar
    settings_changed = Signal(object)  # AppSettings
    saved = Signal(str)  # path
    conversation_replaced = Signal()  # a new or opened conversation replaced the turns
    clip_ready = Signal(object)  # an engine_messages.ClipReady, after request_clip()
    recovery_event = Signal(object)  # engine_messages.RecoveryProgress / RecoveryDone, after recover()
    opening = Signal(int, int)  # frames of a compact file rebuilt, of total (see opening_progress); (0, 0): done
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
        self.opening_progress: tuple[int, int] | None = None  # a compact file's rebuild: (frames, total)
        self._open_cancel = None  # threading.Event of the file being opened
        self.unsaved_frames = 0
        self.model_info = None
        self.loading_model: str | None = None
        self.loading_stage = ""  # what loading is doing now (shown after the model's name)
        self.graph = None  # the running session's engine.GraphStatus, as the last frame reported it
        self.voices: list[str] = []  # shipped voices of the loaded model (reported by the worker)
        self.prompts_in_use = ("", "")  # (voice, role) of the current conversation
        self.personas = PersonaLibrary()
        # The persona new conversations start with: the one chosen last, or the current conversation's.
        self.persona: Persona = self.persona_named(self.settings.persona)
        self.conversation_persona: Persona | None = None  # the current conversation's (None: a file without one)
        self.streaming = False
        # Whether the conversation's frames run: a conversation starts stopped (no CPU use) and runs
        # once the person presses Talk, turns on open mic or presses Start, until Pause.
        self.live = False
        self.has_conversation = False  # a conversation was started or opened since the window opened
        self.frames_this_conversation = 0
        # Indexes of the frames the person was heard in that no file holds yet: only those are unsaved
        # work (what the assistant said alone, the demo's babble, is not); ``unsaved_frames`` counts them.
        self._spoken_frames: list[int] = []
        self.waiting_for_user = False  # the assistant is held silent until the user speaks ("wait for me")
        self.last_stats: FrameStats | None = None
        # Why the conversation is not journaled for crash recovery now (a full disk); "" when it is.
        self.crash_protection_problem = ""
        self.status = Status.IDLE
        self._last_speech_time = float("-inf")
        self._last_release_time = float("-inf")
        self._requested_model: tuple[str, str, str] | None = None
        self._ended = False  # End asked for the next conversation: it waits, even with open mic on

        # Listed before the worker starts a journal of its own, read off the GUI thread.
        self._pending_journals = pending_journals_in_background(journal_dir) if journal_dir else None
        self.processing_problem = ""  # why echo cancellation etc. cannot run here ("" when they can)
        self.processing = processing_from(self.settings)  # microphone processing wanted (Audio menu)
        self.worker = EngineWorker(model_loader, seed=worker_seed, cuda_graph=cuda_graph, journal_dir=journal_dir)
        self.worker.submit(m.SetSaveKind(self.settings.save_compact))
        self.worker.submit(m.SetProcessing(self.processing))
        self.worker.submit(m.SetMicOpen(self.talk.mic_open))
        self.captions = CaptionsModel(self.worker.submit, self.turns, self.settings.captions,
                                      lambda on: self.update_settings(captions=on), self)
        self.captions.message.connect(self.message)
        self.captions.error.connect(self._on_error)
        self.worker_thread = QThread(self)
        self.worker_thread.setObjectName("parley-engine")
        self.worker.moveToThread(self.worker_thread)
        self.worker_thread.started.connect(self.worker.run)
        # A bound method of this object: PySide6 would run a lambda in the engine thread.
        self.worker.event.connect(self._on_event)
        self._handlers = {
            m.ModelLoading: self._on_model_loading, m.ModelStage: self._on_model_stage,
            m.ModelLoaded: self._on_model_loaded, m.ModelFailed: self._on_model_failed,
            m.PreviousModelOffered: self._on_previous_model_offered,
            m.ProcessingUnavailable: self._on_processing_unavailable,
            m.ConversationOpened: self._on_conversation_opened, m.ConversationFailed: self._on_conversation_failed,
            m.FrameDone: self._on_frame, m.EngineError: self._on_engine_error, m.FileDone: self._on_file_done,
            m.ConversationSaved: self._on_conversation_saved, m.FileFailed: self._on_file_failed,
            m.ClipReady: self.clip_ready.emit, m.RecoveryProgress: self.recovery_event.emit,
            m.OpenProgress: self._on_open_progress, m.OpenCancelled: self._on_open_cancelled,
            m.RecoveryDone: self.recovery_event.emit, m.JournalState: self._on_journal_state,
            m.LiveChanged: self._on_live_changed, m.WaitingChanged: self._on_waiting_changed,
            **self.captions.handlers(),
        }
        self.worker_thread.start()

        self.devices = DevicesModel(self.worker, audio, self)
        self.devices.microphone_changed.connect(self.talk_available_changed)
        self.timer = QTimer(self)
        self.timer.setInterval(UI_TIMER_MS)
        self.timer.timeout.connect(self.tick)
        self.timer.start()
        self.devices.open(self.settings.input_device, self.settings.output_device)

    def _on_event(self, event) -> None:
        self._handlers[type(event)](event)

    # -- derived state -----------------------------------------------------------------------
    @property
    def transcript(self) -> Transcript:
        return self.turns.transcript

    @property
    def is_personaplex(self) -> bool:
        return self.model_info is not None and self.model_info.takes_prompts

    def model_text(self) -> tuple[str, str]:
        """(the model line, its tooltip)."""
        if self.loading_model is not None:
            return self.tr("Loading model {name}: {stage}").format(name=self.loading_model,
                                                                   stage=self.tr(self.loading_stage)), ""
        info = self.model_info
        if info is None:
            return self.tr("No model loaded (Model → Model manager...)"), ""
        # info.label says plainly when it is the untrained demo model; CUDA graphs exist only on a GPU.
        graph = self.tr(" · CUDA graph: {state}").format(state=graph_text(self.graph)) if info.device != "cpu" else ""
        return (self.tr("Model: {label} · {device} · {precision}").format(
            label=info.label, device=info.device, precision=info.precision.value) + graph,
                (self.graph.reason or "") if self.graph else "")

    def open_mic_note(self) -> tuple[str, bool]:
        """(the note under the open-mic switch, whether it is a warning)."""
        return open_mic_note(self.processing, self.processing_problem)

    @property
    def has_content(self) -> bool:
        """Whether the conversation has run or has turns (an opened one): stopping it is a pause."""
        return self.frames_this_conversation > 0 or bool(self.transcript.turns)

    @property
    def can_end(self) -> bool:
        """Whether End has a conversation to end: it runs, or it has run or has turns."""
        return self.live or self.has_content

    def talk_available(self) -> tuple[bool, str]:
        """(whether Talk, open mic and Start can work now, and why not when they cannot)."""
        if self.loading_model is not None:
            return False, self.tr("Loading the model; Talk works once it is ready.")
        if self.model_info is None:
            return False, self.tr("No model is loaded (Model → Model manager...).")
        if self.devices.no_microphone:
            return False, self.tr("No microphone: {problem}").format(problem=self.devices.no_microphone)
        return True, ""

    def title(self) -> str:
        name = Path(self.conversation_path).name if self.conversation_path else self.tr("Untitled conversation")
        return (self.tr("{name} * — Parley") if self.unsaved_frames else self.tr("{name} — Parley")).format(name=name)

    def persona_named(self, name: str) -> Persona:
        """The library's persona called ``name``, or the default one where there is none (or its
        file is damaged)."""
        entry = self.personas.find(name or DEFAULT_PERSONA.name)
        return entry.persona if entry is not None and entry.persona is not None else DEFAULT_PERSONA

    def persona_text(self) -> tuple[str, str]:
        """(the line saying who speaks, its tooltip)."""
        persona = self.conversation_persona
        if persona is None and not self.has_conversation:  # nothing runs yet: who the first one starts with
            persona = self.persona
        if persona is None:
            return self.tr("Persona: none (a conversation saved before personas)"), ""
        voice, role = self.prompts_in_use
        if self.model_info is not None and not self.is_personaplex:
            text = (self.tr("Persona: {name} · waits for you to speak first · this model takes no voice or role")
                    if persona.wait_for_user else self.tr("Persona: {name} · this model takes no voice or role"))
            return text.format(name=persona.name), ""
        role = role or DEFAULT_ROLE
        short = role if len(role) <= 80 else role[:79] + "…"
        return (self.tr("Persona: {name} · voice: {voice} · role: {role}").format(
                    name=persona.name, voice=voice_label(voice), role=short),
                self.tr("Voice: {voice}").format(voice=voice or self.tr("none")) + f"\n\n{role}")

    # -- push-to-talk ------------------------------------------------------------------------
    def press_talk(self, source: str) -> None:
        was_open = self.talk.mic_open
        self.start()
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
        if on:
            self.start()
        self._set_talk(TalkState(self.talk.held_by, open_mic=on))
        self.update_settings(open_mic=on)
        self._update_status()

    def _set_talk(self, talk: TalkState) -> None:
        self.talk = talk
        self.worker.submit(m.SetMicOpen(talk.mic_open, talk_held=bool(talk.held_by)))
        self.talk_changed.emit(talk)

    # -- commands ----------------------------------------------------------------------------
    def start(self) -> None:
        """Run the conversation's frames (Talk, open mic or Start); a no-op where it cannot. Asked of
        the worker even while ``live`` says it runs: a Pause sent just before may not have come back."""
        if self.talk_available()[0]:
            self.worker.submit(m.SetLive(True))

    def pause(self) -> None:
        """Stop the frames: the model uses no CPU until Talk or Start; the conversation is kept."""
        self.worker.submit(m.SetLive(False))

    def load_model(self, name: str, device: str, precision: str) -> None:
        """Load in the worker; the choice is remembered once it loaded (a failed one is not)."""
        self._requested_model = (name, device, precision)
        self.graph = None
        self._on_model_loading(m.ModelLoading(name))  # says so at once, not once the worker starts on it
        # The persona's voice and role are used if the model turns out to be PersonaPlex (the worker knows).
        self.worker.submit(m.LoadModel(name, device, precision, self.persona))

    def switch_model_and_open(self, model: str, path: str) -> None:
        """Load ``model`` (with the remembered device and precision), then open ``path`` on it; the
        worker runs both in order, and a failed load leaves the running model, which refuses the file."""
        self.load_model(model, self.settings.device, self.settings.precision)
        self.worker.submit(m.OpenConversation(path))

    def new_conversation(self) -> None:
        """A new conversation with the current persona."""
        self.worker.submit(m.NewConversation(self.persona))

    def end_conversation(self) -> None:
        """End: the conversation's frames stop and a new, empty one waits for Talk or Start (open mic
        does not start it, as it starts a New one). Saving first is the window's question."""
        self._ended = True
        self.new_conversation()

    def start_with_persona(self, persona: Persona, keep_in: str | None = None) -> None:
        """Remember the choice, then start a new conversation with it (in the worker). ``keep_in``:
        a file the current conversation is saved to first (the engine thread snapshots it before it
        starts the new one). If the engine refuses the persona's prompts, the error shows and the
        current conversation carries on."""
        if keep_in:
            self.save(keep_in)
        self.persona = persona
        self.update_settings(persona=persona.name)
        self.persona_changed.emit()
        self.worker.submit(m.NewConversation(persona))

    def open_conversation(self, path: str) -> None:
        """Open ``path``; a compact file's rebuild reports ``opening`` and ``cancel_open`` stops it."""
        command = m.OpenConversation(path)
        self._open_cancel = command.cancel
        self.worker.submit(command)

    def cancel_open(self) -> None:
        """Stop the rebuild of the file being opened (the current conversation goes on)."""
        if self._open_cancel is not None:
            self._open_cancel.set()

    def _on_open_progress(self, event: m.OpenProgress) -> None:
        self.opening_progress = (event.frames, event.total)
        self.opening.emit(event.frames, event.total)

    def _on_open_cancelled(self, event: m.OpenCancelled) -> None:
        self._opening_ended()
        self.message.emit(self.tr("Opening {file} was cancelled; the current conversation goes on.").format(
            file=Path(event.path).name))

    def _opening_ended(self) -> None:
        self._open_cancel = None
        if self.opening_progress is not None:
            self.opening_progress = None
            self.opening.emit(0, 0)

    def save(self, path: str) -> None:
        self.worker.submit(m.SaveConversation(path))

    def export_audio(self, path: str) -> None:
        self.worker.submit(m.ExportAudio(path))

    def recover(self, journal: str) -> threading.Event:
        """Rebuild a crash journal's conversation (``recovery_event`` says how it goes); set the
        returned event to cancel it."""
        command = m.RecoverJournal(journal)
        self.worker.submit(command)
        return command.cancel

    def export_transcript(self, path: str) -> None:
        """Write the transcript in the format ``path``'s suffix names (``transcript_formats.FORMATS``)."""
        title = Path(self.conversation_path).stem if self.conversation_path else "Untitled conversation"
        try:
            export_transcript(self.transcript, path, title)
        except (OSError, ValueError) as e:
            self._on_error(self.tr("Could not export the transcript: {problem}").format(problem=e))
            return
        self.message.emit(self.tr("Exported transcript: {path}").format(path=path))

    def forget_recent(self, path: str) -> None:
        self.update_settings(recent_files=tuple(p for p in self.settings.recent_files if p != path))

    def request_clip(self, start_s: float, end_s: float) -> None:
        self.worker.submit(m.RequestClip(start_s, end_s))

    def resume(self) -> None:
        self.worker.submit(m.Resume())

    def set_wait_for_user(self, on: bool) -> None:
        """"Wait for me" for the current conversation only: the assistant stays silent until the
        person speaks. No persona changes (a persona's own setting is edited in the persona dialog)."""
        self.worker.submit(m.SetWaitForUser(on))

    def set_processing(self, processing) -> None:
        """An app.audio.echo.ProcessingSettings chosen in the Audio menu: applied at once and persisted."""
        self.processing = processing
        self.worker.submit(m.SetProcessing(processing))
        self.update_settings(**asdict(processing))
        self.processing_changed.emit()

    def set_file_kind(self, kind: str) -> None:
        """File > Conversation files: the kind the next saves write (an AppSettings.file_kind)."""
        self.update_settings(file_kind=kind)
        self.worker.submit(m.SetSaveKind(self.settings.save_compact))

    def choose_devices(self, input_label: str, output_label: str) -> None:
        """Device labels as the pickers show them; "" = the system default."""
        self.update_settings(input_device=input_label, output_device=output_label)
        self.devices.open(input_label, output_label)

    def update_settings(self, **changes) -> None:
        self.settings = replace(self.settings, **changes)
        save_settings(self.store, self.settings)
        self.settings_changed.emit(self.settings)

    # -- worker results ----------------------------------------------------------------------
    def _on_model_loading(self, event: m.ModelLoading) -> None:
        self.loading_model, self.loading_stage = event.name, FIRST_LOADING_STAGE
        self.model_changed.emit()
        self.talk_available_changed.emit()
        self._update_status()

    def _on_model_stage(self, event: m.ModelStage) -> None:
        self.loading_stage = event.text
        self.model_changed.emit()

    def _on_model_failed(self, event: m.ModelFailed) -> None:
        """The previous model (if any) and its conversation stay loaded and keep running."""
        self.loading_model = None
        self.model_changed.emit()
        self.talk_available_changed.emit()
        self._on_error(event.message)

    def _on_previous_model_offered(self, event: m.PreviousModelOffered) -> None:
        self.model_info = None
        self.model_changed.emit()
        self.talk_available_changed.emit()
        self.previous_model_offered.emit(event.name, event.device, event.precision)

    def _on_processing_unavailable(self, event: m.ProcessingUnavailable) -> None:
        self.processing_problem = event.message
        self.processing_changed.emit()
        self.message.emit(event.message)

    def _on_model_loaded(self, event: m.ModelLoaded) -> None:
        self.model_info = event.info
        self.voices = list(event.voices)
        self.persona_changed.emit()
        self.loading_model = None
        self.model_changed.emit()
        self.talk_available_changed.emit()
        self._offer_pending_journals()
        self.captions.offer(event.info.is_demo, event.info.device)
        if self._requested_model is not None:
            name, device, precision = self._requested_model
            self.update_settings(model=name, device=device, precision=precision)

    @property
    def journal_offer_pending(self) -> bool:
        """Whether the journals a crash left are yet to be offered: they are being read, or no model is loaded yet."""
        return self._pending_journals is not None

    def _offer_pending_journals(self) -> None:
        """Once the first model of this run is loaded: offer what a crash left behind, when read."""
        if self._pending_journals is None:
            return
        if not self._pending_journals.done():
            QTimer.singleShot(50, self, self._offer_pending_journals)
            return
        future, self._pending_journals = self._pending_journals, None
        journals = [] if future.exception() is not None else future.result()
        if journals:
            self.recovery_offered.emit(journals)

    def _on_conversation_opened(self, event: m.ConversationOpened) -> None:
        if event.path:
            self._opening_ended()
        self.prompts_in_use = (event.voice, event.role)
        self.conversation_persona = event.persona
        if event.persona is not None:  # go on with it: the library's version by its name, else the file's
            entry = self.personas.find(event.persona.name)
            self.persona = entry.persona if entry is not None and entry.persona is not None else event.persona
        self.persona_changed.emit()
        self._set_waiting(event.waiting_for_user)
        self.turns.reset(event.transcript, event.recording, event.captions)
        self.conversation_path = event.path or None
        self.has_conversation = True
        self.frames_this_conversation = 0
        # A recovered conversation holds the person's words in no file: unsaved until it is saved.
        spoke = not event.path and any(turn.speaker == YOU for turn in self.transcript.turns)
        self._spoken_frames = []
        self.unsaved_frames = 1 if spoke else 0
        if event.path:
            self.update_settings(recent_files=self.settings.with_recent(event.path).recent_files)
        self.conversation_replaced.emit()
        self.title_changed.emit(self.title())
        self._update_status()
        ended, self._ended = self._ended, False
        if self.talk.open_mic and not event.path and not spoke and not ended:
            self.start()  # hands-free: a new conversation listens at once, no button needed

    def _on_conversation_failed(self, event: m.ConversationFailed) -> None:
        self._ended = False
        self._on_error(event.message)

    def _on_frame(self, event: m.FrameDone) -> None:
        stats: FrameStats = event.stats
        self.last_stats = stats
        if event.waiting_for_user != self.waiting_for_user:
            self._set_waiting(event.waiting_for_user)
            if event.waiting_for_user:
                self.message.emit(self.tr("The assistant waits for you to speak first."))
        if stats.graph != self.graph:
            self.graph = stats.graph
            self.model_changed.emit()
        self.streaming = True
        self.frames_this_conversation += 1
        if stats.output_db > SPEECH_DB:
            self._last_speech_time = time.monotonic()
        # Push-to-talk held: the whole hold is the user's turn; open mic: only where they are heard.
        user_talking = stats.mic_open and (bool(self.talk.held_by) or stats.model_input_db > SPEECH_DB)
        if user_talking:
            self._spoken_frames.append(stats.frame_index)
            self.unsaved_frames += 1
            if self.unsaved_frames == 1:
                self.title_changed.emit(self.title())
        self.turns.add_frame(FrameObservation(stats.seconds, user_talking, stats.model_input_db, stats.output_db,
                                              stats.text))
        self.frame.emit(stats)

    def _on_engine_error(self, event: m.EngineError) -> None:
        if event.resumable:
            self.error.emit(event.message + "\n" + self.tr("The conversation is kept; press Resume to continue."), True)
        else:
            self._on_error(event.message)

    def _on_journal_state(self, event: m.JournalState) -> None:
        self.crash_protection_problem = event.problem
        self.crash_protection_changed.emit(event.problem)

    def file_renamed(self, old: str, new: str) -> None:
        """A file was renamed in the library: the conversation saved there follows it (Save writes
        the new name, never the old one again), and so does Open recent."""
        if self.conversation_path and same_file_name(self.conversation_path, old):
            self.conversation_path = new
            self.title_changed.emit(self.title())
        if any(same_file_name(p, old) for p in self.settings.recent_files):
            self.update_settings(recent_files=tuple(new if same_file_name(p, old) else p
                                                    for p in self.settings.recent_files))

    def file_removed(self, path: str) -> None:
        """A file was moved to the trash in the library: the conversation saved there is unsaved
        again (Save asks where, instead of writing the removed name back)."""
        if self.conversation_path and same_file_name(self.conversation_path, path):
            self.conversation_path = None
            self.unsaved_frames = max(self.unsaved_frames, 1)
            self.title_changed.emit(self.title())


    def _on_file_done(self, event: m.FileDone) -> None:
        what = {"saved": self.tr("Saved: {path}"), "exported audio": self.tr("Exported audio: {path}")}
        self.message.emit(what.get(event.what, f"{event.what.capitalize()}: {{path}}").format(path=event.path))

    def _on_waiting_changed(self, event: m.WaitingChanged) -> None:
        self._set_waiting(event.waiting)
        self.message.emit(self.tr("The assistant waits for you to speak first.") if event.waiting
                          else self.tr("The assistant may speak first."))
        self._update_status()

    def _set_waiting(self, waiting: bool) -> None:
        if waiting != self.waiting_for_user:
            self.waiting_for_user = waiting
            self.waiting_changed.emit(waiting)

    def _on_live_changed(self, event: m.LiveChanged) -> None:
        self.live = event.live
        if not event.live:
            self.streaming = False
        self.live_changed.emit(event.live)
        self._update_status()

    def _on_conversation_saved(self, event: m.ConversationSaved) -> None:
        """Still unsaved: the frames the person spoke in that ran while the file was written (not in it)."""
        path = event.path
        self.conversation_path = path
        self._spoken_frames = [i for i in self._spoken_frames if i >= event.frames]
        self.unsaved_frames = len(self._spoken_frames)
        self.update_settings(recent_files=self.settings.with_recent(path).recent_files)
        self.title_changed.emit(self.title())
        self.saved.emit(path)
        self.message.emit(self.tr("Saved: {path}").format(path=path))

    def _on_file_failed(self, event: m.FileFailed) -> None:
        if event.what == "open":
            self._opening_ended()
        self._on_error(event.message)

    def _on_error(self, message: str) -> None:
        log.error("%s", message)
        self.error.emit(message, False)

    # -- timer: the devices, status ---------------------------------------------------------
    def tick(self) -> None:
        dropped = self.last_stats.dropped_frames if self.last_stats else 0
        if self.devices.audio is not None and not self.devices.poll(dropped):
            self.streaming = False
        self._update_status()

    def _update_status(self) -> None:
        status = derive_status(StatusInputs(
            loading=self.loading_model is not None,
            loaded=self.model_info is not None,
            live=self.live,
            paused=self.has_content,
            streaming=self.streaming,
            mic_open=self.talk.mic_open,
            waiting_for_user=self.waiting_for_user,
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
        self.devices.stop(timeout=2.0)
        self.worker.stop()
        self.worker_thread.quit()
        return self.worker_thread.wait(5000)
