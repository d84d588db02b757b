"""The conversation view-model: everything the window shows, as state and signals, with no widgets.

It owns the engine worker (in its thread) and the one dispatch of the worker's events, and holds
the conversation itself: the push-to-talk state, whether the conversation runs (``live``: nothing
runs until Talk, open mic or Start), "wait for me", the turns and the status. The other concerns
are its parts, each a widget-free QObject with its own state and signals, which the window binds
to directly:

- ``preferences`` (``app.conversation.preferences``): the settings, shared by every part;
- ``files`` (``app.conversation.files_model``): the current file, unsaved changes, the title,
  save, export, open, recent files, crash journals;
- ``devices`` (``app.conversation.devices_model``): the audio devices and the microphone processing;
- ``models`` (``app.conversation.models_model``): the loaded model and the personas.

Panels render that state and call its commands; they never talk to the worker or read the audio
bridge themselves. Questions to the user (file dialogs, "discard changes?") stay in the window:
the view-model only acts on the answers.

It never waits for the engine thread: it submits typed commands (``app.engine_thread.messages``) to
``EngineWorker`` and handles the typed events that come back through one queued signal. The audio
devices are polled by a timer (PortAudio threads must not emit Qt signals).
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, QThread, QTimer, Signal

from app.audio.levels import SPEECH_DB
from app.conversation.captions_model import CaptionsModel
from app.conversation.chat_mode import ChatMode
from app.conversation.devices_model import DevicesModel
from app.conversation.files_model import ConversationFiles
from app.conversation.models_model import ModelsModel
from app.conversation.preferences import Preferences
from app.conversation.push_to_talk import TalkState
from app.conversation.status import Status, StatusInputs, derive_status
from app.conversation.transcript import YOU, FrameObservation, Transcript
from app.conversation.turn_list import TurnListModel
from app.engine_thread import messages as m
from app.engine_thread.controller import ModelLoader, load_engine_model
from app.engine_thread.frame_stats import FrameStats
from app.engine_thread.worker import EngineWorker
from engine import CHAT_CONVERSATION, ConversationFileError, Persona, conversation_kind

log = logging.getLogger(__name__)

UI_TIMER_MS = 50


class ConversationModel(QObject):
    status_changed = Signal(object)  # Status
    talk_changed = Signal(object)  # TalkState
    live_changed = Signal(bool)  # whether the conversation's frames run (see live)
    talk_available_changed = Signal()  # see talk_available()
    waiting_changed = Signal(bool)  # waiting_for_user: the current conversation's "wait for me"
    frame = Signal(object)  # FrameStats of the newest frame (meters and latency)
    error = Signal(str, bool)  # (message, resumable)
    message = Signal(str)  # a transient note for the status bar
    conversation_replaced = Signal()  # a new or opened conversation replaced the turns
    clip_ready = Signal(object)  # an engine_messages.ClipReady, after request_clip()

    def __init__(self, store: QSettings, model_loader: ModelLoader = load_engine_model, audio: bool = True,
                 worker_seed: int | None = None, cuda_graph: bool = True, journal_dir: Path | None = None,
                 parent: QObject | None = None) -> None:
        """``journal_dir``: crash journals (offered for recovery at start); None: no journals."""
        super().__init__(parent)
        self.preferences = Preferences(store, self)
        self.talk = TalkState(open_mic=self.preferences.settings.open_mic)
        self.turns = TurnListModel(Transcript(), self)
        self.streaming = False
        # Whether the conversation's frames run: a conversation starts stopped (no CPU use) and runs
        # once the person presses Talk, turns on open mic or presses Start, until Pause.
        self.live = False
        self.frames_this_conversation = 0
        self.waiting_for_user = False  # the assistant is held silent until the user speaks ("wait for me")
        self.last_stats: FrameStats | None = None
        self.status = Status.IDLE
        self._last_speech_time = float("-inf")
        self._last_release_time = float("-inf")
        self._ended = False  # End asked for the next conversation: it waits, even with open mic on

        self.worker = EngineWorker(model_loader, seed=worker_seed, cuda_graph=cuda_graph, journal_dir=journal_dir)
        # Each part submits its own settings to the worker before the thread starts.
        self.files = ConversationFiles(self.worker, self.preferences, self.turns, journal_dir, self)
        self.devices = DevicesModel(self.worker, self.preferences, audio, self)
        self.models = ModelsModel(self.worker, self.preferences, self)
        self.captions = CaptionsModel(self.worker.submit, self.turns, self.preferences.settings.captions,
                                      lambda on: self.preferences.update(captions=on), self)
        self.chat = ChatMode(self.devices, self.preferences, self.turns, self,  # your language model
                             journal_dir=journal_dir)
        self.chat.file_changed.connect(self._chat_file_changed)
        self.chat.note.connect(self.message)
        self.chat.changed.connect(self.talk_available_changed)
        self.chat.changed.connect(self._update_status)
        self.chat.failed.connect(self._on_error)
        self.worker.submit(m.SetMicOpen(self.talk.mic_open))
        for part in (self.files, self.devices, self.captions):
            part.message.connect(self.message)
        self.files.failed.connect(self._on_error)
        self.files.chat_recovery.connect(self._recover_chat)
        self.captions.error.connect(self._on_error)
        self.devices.microphone_changed.connect(self.talk_available_changed)
        self.models.ready_changed.connect(self.talk_available_changed)
        self.models.ready_changed.connect(self._update_status)
        self.worker_thread = QThread(self)
        self.worker_thread.setObjectName("parley-engine")
        self.worker.moveToThread(self.worker_thread)
        self.worker_thread.started.connect(self.worker.run)
        # A bound method of this object: PySide6 would run a lambda in the engine thread.
        self.worker.event.connect(self._on_event)
        files, models = self.files, self.models
        self._handlers = {
            m.ModelLoading: models.on_loading, m.ModelStage: models.on_stage,
            m.ModelLoaded: self._on_model_loaded, m.ModelFailed: self._on_model_failed,
            m.PreviousModelOffered: models.on_previous_model_offered,
            m.ProcessingUnavailable: self.devices.on_processing_unavailable,
            m.ConversationOpened: self._on_conversation_opened, m.ConversationFailed: self._on_conversation_failed,
            m.FrameDone: self._on_frame, m.EngineError: self._on_engine_error, m.FileDone: files.on_file_done,
            m.ConversationSaved: files.on_conversation_saved, m.FileFailed: files.on_file_failed,
            m.ClipReady: self.clip_ready.emit, m.RecoveryProgress: files.recovery_event.emit,
            m.OpenProgress: files.on_open_progress, m.OpenCancelled: files.on_open_cancelled,
            m.RecoveryDone: files.recovery_event.emit, m.JournalState: files.on_journal_state,
            m.LiveChanged: self._on_live_changed, m.WaitingChanged: self._on_waiting_changed,
            **self.captions.handlers(),
        }
        self.worker_thread.start()

        self.timer = QTimer(self)
        self.timer.setInterval(UI_TIMER_MS)
        self.timer.timeout.connect(self.tick)
        self.timer.start()
        self.devices.open(self.preferences.settings.input_device, self.preferences.settings.output_device)

    def _on_event(self, event) -> None:
        self._handlers[type(event)](event)

    # -- derived state -----------------------------------------------------------------------
    @property
    def transcript(self) -> Transcript:
        return self.turns.transcript

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
        if self.chat.active:
            return self.chat.ready, "" if self.chat.ready else self.chat.message
        if self.models.loading_model is not None:
            return False, self.tr("Loading the model; Talk works once it is ready.")
        if self.models.model_info is None:
            return False, self.tr("No model is loaded (Model → Model manager...).")
        if self.devices.no_microphone:
            return False, self.tr("No microphone: {problem}").format(problem=self.devices.no_microphone)
        return True, ""

    # -- push-to-talk ------------------------------------------------------------------------
    def press_talk(self, source: str) -> None:
        if self.talk.listening:  # an interpreter: Start and Pause alone
            return
        if self.chat.active:  # your language model: push-to-talk, its own loop
            first = not self.talk.held_by
            self._set_talk(self.talk.press(source))
            if first:
                self.chat.press_talk()
            return
        was_open = self.talk.mic_open
        self.start()
        self._set_talk(self.talk.press(source))
        if not was_open and self.status is Status.SPEAKING:
            self.worker.barge_in()  # the user interrupts: silence what the assistant still had queued
            self._last_speech_time = float("-inf")
        self._update_status()

    def release_talk(self, source: str) -> None:
        was_open, was_held = self.talk.mic_open, bool(self.talk.held_by)
        self._set_talk(self.talk.release(source))
        if self.chat.active:  # its own loop: the release ends the turn (open mic or not)
            if was_held and not self.talk.held_by:
                self.chat.release_talk()
            return
        if was_open and not self.talk.mic_open:
            self._last_release_time = time.monotonic()
        self._update_status()

    def set_open_mic(self, on: bool) -> None:
        if self.chat.active:
            self.chat.set_open_mic(on)
        elif on:
            self.start()
        self._set_talk(TalkState(self.talk.held_by, open_mic=on))
        self.preferences.update(open_mic=on)
        self._update_status()

    def _set_talk(self, talk: TalkState) -> None:
        self.talk = talk
        self.worker.submit(m.SetMicOpen(talk.mic_open, talk_held=bool(talk.held_by)))
        self.talk_changed.emit(talk)

    # -- commands ----------------------------------------------------------------------------
    def start(self) -> None:
        """Run the conversation's frames (Talk, open mic or Start); a no-op where it cannot. Asked of
        the worker even while ``live`` says it runs: a Pause sent just before may not have come back."""
        if self.talk_available()[0] and not self.chat.active:
            self.devices.follow_conversation(True)  # the streams open now, not a round trip later
            self.worker.submit(m.SetLive(True))

    def pause(self) -> None:
        """Stop the frames: the model uses no CPU until Talk or Start; the conversation is kept."""
        self.worker.submit(m.SetLive(False))

    def start_chat(self, url: str, model: str, **options) -> bool:
        """Talk with your language model (``ChatMode.start``): the speech-to-speech conversation pauses.
        Unless ``options`` give one, its system prompt is the chosen persona's role, heard, not read,
        in the interface's language."""
        from app.chat.instructions import system_prompt

        self.pause()
        self._set_talk(replace(self.talk, held_by=frozenset()))
        options.setdefault("system", system_prompt(self.models.persona.role, self.chat.language()))
        return self.chat.start(url, model, **options)

    def stop_chat(self) -> None:
        """Back to the speech model (saving first is the window's question): its conversation's title again."""
        self.chat.stop()
        self.files.title_changed.emit(self.files.title())

    def open_file(self, path: str, conversations_folder: Path | None = None) -> None:
        """Open a conversation file: one with your language model continues it (``ChatMode.resume``;
        ``conversations_folder``: where its conversations tool searches), any other is the speech
        model's (a conversation with your language model running stops first)."""
        try:
            with_language_model = conversation_kind(path) == CHAT_CONVERSATION
        except ConversationFileError:
            with_language_model = False  # the speech model's open says what is wrong with it
        if with_language_model:
            self.pause()
            self._set_talk(replace(self.talk, held_by=frozenset()))
            if self.chat.resume(path, conversations_folder):
                self.conversation_replaced.emit()
            return
        if self.chat.active:
            self.stop_chat()
        self.files.open_conversation(path)

    def _recover_chat(self, journal: str) -> None:
        """Continue the conversation with your language model a crash left (its journal, unsaved);
        the offer lets the journal's lock go once it is continued, and the chat takes it."""
        self.pause()
        self._set_talk(replace(self.talk, held_by=frozenset()))
        resumed = self.chat.resume(journal, recovered=True)
        self.files.recovery_event.emit(m.RecoveryDone("" if resumed else self.chat.message))
        if resumed:
            self.chat.lock_journal()
            self.conversation_replaced.emit()

    def _chat_file_changed(self) -> None:
        if self.chat.active:
            self.files.title_changed.emit(self.files.title(self.chat))

    def new_conversation(self) -> None:
        """A new conversation with the current persona (with your language model: its history afresh)."""
        if self.chat.active:
            self._ended = False  # nothing waits for a speech-to-speech conversation to open
            self.chat.new_conversation()
            self.conversation_replaced.emit()
            return
        self.worker.submit(m.NewConversation(self.models.persona))

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
            self.files.save(keep_in)
        self.models.choose_persona(persona)
        self.worker.submit(m.NewConversation(persona))

    def request_clip(self, start_s: float, end_s: float) -> None:
        self.worker.submit(m.RequestClip(start_s, end_s))

    def resume(self) -> None:
        self.worker.submit(m.Resume())

    def set_wait_for_user(self, on: bool) -> None:
        """"Wait for me" for the current conversation only: the assistant stays silent until the
        person speaks. No persona changes (a persona's own setting is edited in the persona dialog)."""
        self.worker.submit(m.SetWaitForUser(on))

    # -- worker results ----------------------------------------------------------------------
    def _on_model_failed(self, event: m.ModelFailed) -> None:
        self.models.on_failed(event)
        self._on_error(event.message)

    def _on_model_loaded(self, event: m.ModelLoaded) -> None:
        self.models.on_loaded(event)
        self.devices.set_interpreting(self.models.interpreting)
        self.turns.set_interpreting(self.models.interpreting)
        self._set_talk(replace(self.talk, listening=self.models.interpreting, held_by=frozenset()))
        self.files.offer_pending_journals()
        self.captions.offer(event.info.is_demo, event.info.device)

    def _on_conversation_opened(self, event: m.ConversationOpened) -> None:
        self.models.conversation_opened(event)
        self._set_waiting(event.waiting_for_user)
        self.turns.reset(event.transcript, event.recording, event.captions, event.turn_ends)
        self.frames_this_conversation = 0
        spoke = not event.path and any(turn.speaker == YOU for turn in self.transcript.turns)
        self.files.conversation_opened(event.path, spoke)
        self.conversation_replaced.emit()
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
        self.models.set_graph(stats.graph)
        self.streaming = True
        self.frames_this_conversation += 1
        if stats.output_db > SPEECH_DB:
            self._last_speech_time = time.monotonic()
        if stats.mic_open and (bool(self.talk.held_by) or stats.model_input_db > SPEECH_DB):
            self.files.heard(stats.frame_index)  # something said: a file should keep it
        # The person's turns: the frames the model heard them in, as their recording says it again
        # when the conversation is opened or recovered (a quiet start of a held Talk is no turn).
        self.turns.add_frame(FrameObservation(stats.seconds, stats.model_input_db > SPEECH_DB, stats.model_input_db,
                                              stats.output_db, stats.text))
        self.frame.emit(stats)

    def _on_engine_error(self, event: m.EngineError) -> None:
        if event.resumable:
            self.error.emit(event.message + "\n" + self.tr("The conversation is kept; press Resume to continue."), True)
        else:
            self._on_error(event.message)

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
        self.devices.follow_conversation(event.live)
        if not event.live:
            self.streaming = False
        self.live_changed.emit(event.live)
        self._update_status()

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
            loading=self.models.loading_model is not None,
            loaded=self.models.model_info is not None,
            live=self.live,
            paused=self.has_content,
            streaming=self.streaming,
            mic_open=self.talk.mic_open,
            waiting_for_user=self.waiting_for_user,
            now=time.monotonic(),
            last_speech_time=self._last_speech_time,
            last_release_time=self._last_release_time,
            chat=self.chat.status,
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
        chat_ended = self.chat.stop()  # a loop still loading its models is left to the process's exit
        self.devices.stop(timeout=2.0)
        self.worker.stop()
        self.worker_thread.quit()
        return self.worker_thread.wait(5000) and chat_ended
