"""The main window: renders what the worker and the audio streams report, and forwards user intent.

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

from PySide6.QtCore import QEvent, QObject, QSettings, Qt, QThread, QTimer, QUrl
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app import paths, recovery
from app.audio_io import AudioIO, DeviceStatus
from app.audio_menu import add_processing_actions, disable_processing_actions, open_mic_note, processing_from
from app.echo_meter import EchoMeter
from app.engine_worker import EngineWorker, ModelLoader, load_engine_model
from app.frame_stats import FrameStats
from app.history_plot import HistoryPlot
from app.meters import LevelMeter
from app.persona import PERSONAPLEX_ONLY, PersonaDialog, describe_voice
from app.push_to_talk import TalkState
from app.settings import AppSettings, load_settings, save_settings
from app.status import SPEECH_DB, Status, StatusInputs, derive_status
from app.transcript import Transcript
from engine import DEFAULT_ROLE, FRAME_MS

log = logging.getLogger(__name__)

CONVERSATION_FILTER = "Parley conversation (*.parley);;All files (*)"
UI_TIMER_MS = 50
STATUS_COLOURS = {
    Status.IDLE: "#7a7f87",
    Status.LISTENING: "#2e9d5b",
    Status.THINKING: "#c58a16",
    Status.SPEAKING: "#2f7fd8",
}


def graph_text(graph) -> str:
    """The CUDA-graph part of the model line: the truth of the running session, not the setting."""
    if graph is None:
        return "-"
    if graph.active:
        return "on"
    if graph.pending:
        return "warming up"
    return "off"


class MainWindow(QMainWindow):
    def __init__(self, store: QSettings, model_loader: ModelLoader = load_engine_model,
                 audio: bool = True, worker_seed: int | None = None, cuda_graph: bool = True,
                 journal_dir: Path | None = None) -> None:
        """``journal_dir``: crash journals (offered for recovery at start); None: no journals."""
        super().__init__()
        self.store = store
        self.settings: AppSettings = load_settings(store)
        self.talk = TalkState(open_mic=self.settings.open_mic)
        self.transcript = Transcript()
        self.conversation_path: str | None = None
        self.unsaved_frames = 0
        self.model_info = None
        self.voices: list[str] = []  # shipped voices of the loaded model (reported by the worker)
        self.prompts_in_use = ("", "")  # (voice, role) of the current conversation
        self.streaming = False
        self.last_stats: FrameStats | None = None
        self._last_speech_time = float("-inf")
        self._last_release_time = float("-inf")
        self._close_after_save = False
        self._status = Status.IDLE
        self._requested_model: tuple[str, str, str] | None = None
        self.shut_down_cleanly = True

        self._pending_journals = recovery.pending_journals(journal_dir) if journal_dir else []  # before any new one
        self.recovery: recovery.RecoveryDialogs | None = None
        self.worker = EngineWorker(model_loader, seed=worker_seed, cuda_graph=cuda_graph, journal_dir=journal_dir)
        self.worker.save_compact = self.settings.save_compact
        self.graph = None  # the running session's engine.GraphStatus, as the last frame reported it
        self.worker_thread = QThread(self)
        self.worker_thread.setObjectName("parley-engine")
        self.worker.moveToThread(self.worker_thread)
        self.worker_thread.started.connect(self.worker.run)
        self._connect_worker()
        self.worker_thread.start()
        self.worker.mic_open = self.talk.mic_open
        self.worker.processing = processing_from(self.settings)
        self.processing_problem = ""  # why echo cancellation etc. cannot run here ("" when they can)

        self.audio = AudioIO(self.worker.set_bridge) if audio else None

        self.setWindowTitle("Parley")
        self.setMinimumSize(880, 560)
        self._build_ui()
        self._build_menus()
        self.timer = QTimer(self)
        self.timer.setInterval(UI_TIMER_MS)
        self.timer.timeout.connect(self._tick)
        self.timer.start()
        QApplication.instance().installEventFilter(self)
        if self.audio is not None:
            self.audio.start(self.settings.input_device or None, self.settings.output_device or None)

    # -- construction ------------------------------------------------------------------------
    def _connect_worker(self) -> None:
        # Bound methods of this window only: PySide6 would run a lambda in the worker's thread.
        w = self.worker
        w.model_loading.connect(self._on_model_loading)
        w.model_loaded.connect(self._on_model_loaded)
        w.model_failed.connect(self._on_model_failed)
        w.previous_model_offered.connect(self._on_previous_model_offered)
        w.conversation_opened.connect(self._on_conversation_opened)
        w.conversation_failed.connect(self._on_conversation_failed)
        w.voices_listed.connect(self._on_voices_listed)
        w.prompts_in_use.connect(self._on_prompts_in_use)
        w.frame_done.connect(self._on_frame)
        w.error.connect(self._on_worker_error)
        w.file_done.connect(self._on_file_done)
        w.file_failed.connect(self._on_file_failed)
        w.processing_unavailable.connect(self._on_processing_unavailable)

    def _build_ui(self) -> None:
        central = QWidget(self)
        outer = QVBoxLayout(central)

        top = QHBoxLayout()
        self.status_label = QLabel()
        self.status_label.setObjectName("status")
        self.status_label.setAlignment(Qt.AlignCenter)
        self.status_label.setMinimumWidth(120)
        self.model_label = QLabel("No model loaded")
        self.model_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.persona_button = QPushButton("Persona...")
        self.persona_button.setFocusPolicy(Qt.NoFocus)  # Space stays push-to-talk; Ctrl+P opens it too
        self.persona_button.clicked.connect(self.open_persona_dialog)
        top.addWidget(self.status_label)
        top.addWidget(self.model_label, 1)
        top.addWidget(self.persona_button)
        outer.addLayout(top)
        self.persona_label = QLabel()
        self.persona_label.setWordWrap(True)
        self.persona_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.persona_label.hide()
        outer.addWidget(self.persona_label)

        self.error_box = QFrame()
        self.error_box.setObjectName("errorBox")
        self.error_box.setStyleSheet("#errorBox { background: #5c1f1f; border-radius: 4px; }"
                                     "#errorBox QLabel { color: #ffecec; }")
        error_layout = QHBoxLayout(self.error_box)
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.resume_button = QPushButton("Resume")
        self.resume_button.setFocusPolicy(Qt.NoFocus)
        self.resume_button.clicked.connect(self._resume)
        self.dismiss_button = QPushButton("Dismiss")
        self.dismiss_button.setFocusPolicy(Qt.NoFocus)
        self.dismiss_button.clicked.connect(self.error_box.hide)
        error_layout.addWidget(self.error_label, 1)
        error_layout.addWidget(self.resume_button)
        error_layout.addWidget(self.dismiss_button)
        self.error_box.hide()
        outer.addWidget(self.error_box)

        splitter = QSplitter(Qt.Horizontal)
        splitter.addWidget(self._build_conversation_panel())
        splitter.addWidget(self._build_stats_panel())
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        outer.addWidget(splitter, 1)
        self.setCentralWidget(central)
        self._render_status()

    def _build_conversation_panel(self) -> QWidget:
        panel = QWidget()
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(0, 0, 0, 0)
        self.transcript_view = QPlainTextEdit()
        self.transcript_view.setReadOnly(True)
        self.transcript_view.setPlaceholderText("Hold Space (or the Talk button) and speak. "
                                                "The assistant's words appear here.")
        self.transcript_view.setAccessibleName("transcript")
        font = self.transcript_view.font()
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.transcript_view.setFont(font)
        layout.addWidget(self.transcript_view, 1)

        controls = QHBoxLayout()
        self.talk_button = QPushButton("Hold to talk  (Space)")
        self.talk_button.setFocusPolicy(Qt.NoFocus)
        self.talk_button.setMinimumHeight(44)
        self.talk_button.pressed.connect(lambda: self.press_talk("button"))
        self.talk_button.released.connect(lambda: self.release_talk("button"))
        self.open_mic_box = QCheckBox("Open mic (hands-free)")
        self.open_mic_box.setChecked(self.settings.open_mic)
        self.open_mic_box.setToolTip("The model hears the microphone all the time. Echo cancellation "
                                     "(Audio menu) keeps it from hearing itself on speakers.")
        self.open_mic_box.toggled.connect(self.set_open_mic)
        controls.addWidget(self.talk_button, 1)
        controls.addWidget(self.open_mic_box)
        layout.addLayout(controls)
        self.headphones_note = QLabel()
        self.headphones_note.setWordWrap(True)
        layout.addWidget(self.headphones_note)
        self._render_open_mic_note()

        devices = QGridLayout()
        self.input_combo = QComboBox()
        self.output_combo = QComboBox()
        for combo in (self.input_combo, self.output_combo):
            combo.setMinimumContentsLength(14)
            combo.activated.connect(self._devices_chosen)
        refresh = QPushButton("Refresh devices")
        refresh.clicked.connect(self.refresh_devices)
        devices.addWidget(QLabel("Microphone"), 0, 0)
        devices.addWidget(self.input_combo, 0, 1)
        devices.addWidget(QLabel("Speaker"), 1, 0)
        devices.addWidget(self.output_combo, 1, 1)
        devices.addWidget(refresh, 0, 2, 2, 1)
        devices.setColumnStretch(1, 1)
        layout.addLayout(devices)
        self.device_label = QLabel("Audio: not started")
        self.device_label.setWordWrap(True)
        layout.addWidget(self.device_label)
        return panel

    def _build_stats_panel(self) -> QWidget:
        panel = QWidget()
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(0, 0, 0, 0)
        levels = QGroupBox("Levels")
        levels_layout = QVBoxLayout(levels)
        self.mic_meter = LevelMeter("Mic")
        self.heard_meter = LevelMeter("Model hears")
        self.output_meter = LevelMeter("Assistant")
        self.echo_meter = EchoMeter()
        for meter in (self.mic_meter, self.heard_meter, self.output_meter, self.echo_meter):
            levels_layout.addWidget(meter)
        layout.addWidget(levels)

        latency = QGroupBox("Latency (ms)")
        form = QFormLayout(latency)
        self.stage_labels: dict[str, QLabel] = {}
        for key, title in (("input_queue", "Input queue"), ("encode", "Encode"), ("lm", "LM"),
                           ("depth", "Depth"), ("decode", "Decode"), ("output_queue", "Output queue")):
            self.stage_labels[key] = QLabel("-")
            form.addRow(title, self.stage_labels[key])
        self.e2e_label = QLabel("-")
        self.rtf_label = QLabel("-")
        form.addRow("Mic to speaker (est.)", self.e2e_label)
        form.addRow("Real-time factor", self.rtf_label)
        layout.addWidget(latency)

        self.history = HistoryPlot(("mic→speaker", "compute"), "ms", reference=FRAME_MS,
                                   reference_label="80 ms frame budget")
        layout.addWidget(self.history, 1)

        health = QGroupBox("Engine")
        health_form = QFormLayout(health)
        self.cache_label = QLabel("-")
        self.cache_label.setWordWrap(True)
        self.drops_label = QLabel("0 frames dropped · 0 xruns")
        self.drops_label.setWordWrap(True)
        self.drops_label.setToolTip("Frames dropped: input skipped because the model fell behind real time. "
                                    "Xruns: the sound card's buffers ran over or under. Output gaps: silence "
                                    "played while the model had no reply ready.")
        health_form.addRow("KV cache", self.cache_label)
        health_form.addRow("Drops", self.drops_label)
        layout.addWidget(health)
        return panel

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self.new_action = self._action(file_menu, "&New conversation", QKeySequence.New, self.new_conversation)
        self.open_action = self._action(file_menu, "&Open...", QKeySequence.Open, self.open_conversation_dialog)
        self.recent_menu = file_menu.addMenu("Open &recent")
        self.save_action = self._action(file_menu, "&Save", QKeySequence.Save, self.save)
        self.save_as_action = self._action(file_menu, "Save &as...", QKeySequence.SaveAs, self.save_as_dialog)
        file_menu.addSeparator()
        self._action(file_menu, "Export &transcript...", None, self.export_transcript_dialog)
        self._action(file_menu, "Export a&udio...", None, self.export_audio_dialog)
        file_menu.addSeparator()
        self._action(file_menu, "Open conversations &folder", None,
                     lambda: _open_folder(paths.conversations_dir()))
        self._action(file_menu, "&Quit", QKeySequence.Quit, self.close)

        model_menu = self.menuBar().addMenu("&Model")
        model_menu.setToolTipsVisible(True)  # says why Persona is disabled
        self._action(model_menu, "&Model manager...", QKeySequence("Ctrl+M"), self.open_model_manager)
        self.persona_action = self._action(model_menu, "&Persona (voice and role)...", QKeySequence("Ctrl+P"),
                                           self.open_persona_dialog)
        self._render_persona_controls()

        audio_menu = self.menuBar().addMenu("&Audio")
        self._action(audio_menu, "&Refresh devices", QKeySequence("F5"), self.refresh_devices)
        self.processing_actions = add_processing_actions(audio_menu, self.worker.processing, self.set_processing)

        help_menu = self.menuBar().addMenu("&Help")
        self._action(help_menu, "Open &log folder", None, lambda: _open_folder(paths.log_dir()))
        self._action(help_menu, "&About Parley", None, self._about)
        self._rebuild_recent_menu()

    def _action(self, menu, text, shortcut, slot) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(shortcut)
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    # -- push-to-talk ------------------------------------------------------------------------
    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        """Space anywhere in this window is push-to-talk (buttons never take focus)."""
        if event.type() in (QEvent.KeyPress, QEvent.KeyRelease) and event.key() == Qt.Key_Space \
                and isinstance(obj, QWidget) and obj.window() is self:
            if not event.isAutoRepeat():
                if event.type() == QEvent.KeyPress:
                    self.press_talk("key")
                else:
                    self.release_talk("key")
            return True
        return super().eventFilter(obj, event)

    def press_talk(self, source: str) -> None:
        was_open = self.talk.mic_open
        self.talk = self.talk.press(source)
        self.worker.mic_open = self.talk.mic_open
        if not was_open and self._status is Status.SPEAKING:
            self.worker.barge_in()  # the user interrupts: drop what the assistant still had queued
            self._last_speech_time = float("-inf")
        if not was_open:
            self.transcript.mark_user_turn(self.last_stats.seconds if self.last_stats else 0.0)
            self._render_transcript()
        self._render_status()

    def release_talk(self, source: str) -> None:
        was_open = self.talk.mic_open
        self.talk = self.talk.release(source)
        self.worker.mic_open = self.talk.mic_open
        if was_open and not self.talk.mic_open:
            self._last_release_time = time.monotonic()
        self._render_status()

    def set_open_mic(self, on: bool) -> None:
        self.talk = TalkState(self.talk.held_by, open_mic=on)
        self.worker.mic_open = self.talk.mic_open
        self._update_settings(open_mic=on)
        self._render_open_mic_note()
        self._render_status()

    def set_processing(self, processing) -> None:
        """An app.echo.ProcessingSettings chosen in the Audio menu: applied at once and persisted."""
        self.worker.processing = processing
        self._update_settings(**asdict(processing))
        self._render_open_mic_note()

    def _on_processing_unavailable(self, message: str) -> None:
        self.processing_problem = message
        disable_processing_actions(self.processing_actions, message)
        self.statusBar().showMessage(message, 15000)
        self._render_open_mic_note()

    def _render_open_mic_note(self) -> None:
        text, warning = open_mic_note(self.worker.processing, self.processing_problem)
        self.headphones_note.setText(text)
        self.headphones_note.setStyleSheet("color: #c58a16;" if warning else "")
        self.headphones_note.setVisible(self.talk.open_mic)

    # -- worker results ----------------------------------------------------------------------
    def _on_model_loading(self, name: str) -> None:
        self.model_label.setText(f"Loading model {name}...")

    def _on_model_failed(self, message: str) -> None:
        """The previous model (if any) and its conversation stay loaded and keep running."""
        self._render_model_label()
        self.show_error(message)

    def _on_previous_model_offered(self, name: str, device: str, precision: str) -> None:
        """The old model was unloaded to make room on the GPU and the new one failed: none is
        loaded now. Offer the old one back."""
        self.model_info = None
        self._render_model_label()
        self._render_persona_controls()
        answer = QMessageBox.question(self, "No model loaded", f"Load the previous model ({name}) again?",
                                      QMessageBox.Yes | QMessageBox.No, QMessageBox.Yes)
        if answer == QMessageBox.Yes:
            self.load_model(name, device, precision)

    def _on_model_loaded(self, info) -> None:
        self.model_info = info
        if self._pending_journals:  # the first model of this run: offer what a crash left behind
            self.recovery = recovery.offer_recovery(self, self.worker, self._pending_journals, self.show_error)
            self._pending_journals = []
        self._render_model_label()
        self._render_persona_controls()
        if self._requested_model is not None:
            name, device, precision = self._requested_model
            self._update_settings(model=name, device=device, precision=precision)

    def _render_model_label(self) -> None:
        info = self.model_info
        if info is None:
            self.model_label.setText("No model loaded (Model → Model manager...)")
            return
        # info.label says plainly when it is the untrained demo model.
        self.model_label.setText(f"Model: {info.label} · {info.device} · {info.precision.value} · "
                                 f"CUDA graph: {graph_text(self.graph)}")
        self.model_label.setToolTip((self.graph.reason or "") if self.graph else "")

    # -- persona (PersonaPlex voice and role prompts) ----------------------------------------
    @property
    def is_personaplex(self) -> bool:
        return self.model_info is not None and self.model_info.family == "personaplex"

    def _render_persona_controls(self) -> None:
        enabled = self.is_personaplex
        if enabled:
            tip = "Choose the assistant's voice and role; applying starts a new conversation."
        elif self.model_info is None:
            tip = PERSONAPLEX_ONLY + " Load one with Model → Model manager."
        else:
            tip = f"{PERSONAPLEX_ONLY} The loaded model ({self.model_info.label}) has no persona."
        for control in (self.persona_button, self.persona_action):
            control.setEnabled(enabled)
            control.setToolTip(tip)
        self.persona_label.setVisible(enabled)
        self._render_persona_label()

    def _render_persona_label(self) -> None:
        voice, role = self.prompts_in_use
        if not role:
            role = DEFAULT_ROLE
        short = role if len(role) <= 90 else role[:89] + "…"
        self.persona_label.setText(f"Persona: voice {describe_voice(voice)} · role: {short}")
        self.persona_label.setToolTip(f"Voice: {voice or 'none'}\n\n{role}")

    def _on_voices_listed(self, voices) -> None:
        self.voices = list(voices)

    def _on_prompts_in_use(self, voice: str, role: str) -> None:
        self.prompts_in_use = (voice, role)
        self._render_persona_label()

    def _on_conversation_failed(self, message: str) -> None:
        self.show_error(message)

    def persona_prompts(self) -> tuple[str | None, str | None]:
        """The saved voice and role for a new conversation; none unless the model is PersonaPlex."""
        if not self.is_personaplex:
            return None, None
        return self.settings.persona_voice or None, self.settings.persona_role or None

    def open_persona_dialog(self) -> PersonaDialog | None:
        if not self.is_personaplex:
            self.statusBar().showMessage(PERSONAPLEX_ONLY, 5000)
            return None
        dialog = PersonaDialog(self.voices, self.settings.persona_voice, self.settings.persona_role, self)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        dialog.applied.connect(self.apply_persona)
        dialog.open()
        return dialog

    def apply_persona(self, voice: str, role: str) -> None:
        """Remember the choice, then start a new conversation with it (in the worker); if the engine
        refuses the prompts, the error shows and the current conversation carries on."""
        if role.strip() == DEFAULT_ROLE:
            role = ""  # the default, wherever it changes later
        self._update_settings(persona_voice=voice, persona_role=role)
        if self._confirm_discard():
            self.worker.new_conversation(voice or None, role or None)

    def _on_conversation_opened(self, transcript, path) -> None:
        self.transcript.load(transcript)
        self.conversation_path = path or None
        self.unsaved_frames = 0
        self.history.clear()
        if path:
            self._update_settings(recent_files=self.settings.with_recent(path).recent_files)
        self._render_transcript()
        self._render_title()

    def _on_frame(self, stats: FrameStats) -> None:
        self.last_stats = stats
        if stats.graph != self.graph:
            self.graph = stats.graph
            self._render_model_label()
        self.streaming = True
        self.unsaved_frames += 1
        now = time.monotonic()
        if stats.output_db > SPEECH_DB:
            self._last_speech_time = now
        if stats.text:
            self.transcript.add(stats.seconds, stats.text)
            self._render_transcript()
        self.mic_meter.set_level(stats.mic_db)
        self.heard_meter.set_level(stats.model_input_db)
        self.output_meter.set_level(stats.output_db)
        self.echo_meter.set_reading(stats.echo)
        t = stats.timings
        for key, label in self.stage_labels.items():
            label.setText(f"{getattr(t, key):.1f}")
        self.e2e_label.setText(f"{stats.end_to_end_ms:.0f} ms")
        slow = "  (slower than real time)" if stats.real_time_factor > 1 else ""
        self.rtf_label.setText(f"{stats.real_time_factor:.2f}{slow}")
        self.history.append(stats.end_to_end_ms, stats.step_ms)
        self.cache_label.setText("\n".join(
            f"{c.name}: {c.used}/{c.capacity} · {c.wraps} wraps · {c.nbytes / 2**20:.1f} MiB" for c in stats.caches
        ) or "-")
        if self.unsaved_frames == 1:
            self._render_title()

    def _on_worker_error(self, message: str) -> None:
        self.show_error(message + "\nThe conversation is kept; press Resume to continue.", resumable=True)

    def _on_file_done(self, what: str, path: str) -> None:
        if what == "saved":
            self.conversation_path = path
            self.unsaved_frames = 0
            self._update_settings(recent_files=self.settings.with_recent(path).recent_files)
            self._render_title()
            if self._close_after_save:
                self.close()
        self.statusBar().showMessage(f"{what.capitalize()}: {path}", 5000)

    def _on_file_failed(self, what: str, message: str) -> None:
        self.show_error(message)

    def show_error(self, message: str, resumable: bool = False) -> None:
        log.error("%s", message)
        self._close_after_save = False
        self.error_label.setText(message)
        self.resume_button.setVisible(resumable)
        self.error_box.show()

    def _resume(self) -> None:
        self.error_box.hide()
        self.worker.resume()

    # -- timer: audio health, status ---------------------------------------------------------
    def _tick(self) -> None:
        if self.audio is not None:
            self._render_audio(self.audio.poll())
        self._render_status()

    def _render_audio(self, status: DeviceStatus) -> None:
        if status.state == "running":
            text = (f"Audio: {status.input_name} ({status.input_rate} Hz) → "
                    f"{status.output_name} ({status.output_rate} Hz)")
            if status.message:
                text += f" · {status.message}"
        else:
            text = f"Audio: {status.state}" + (f" · {status.message}" if status.message else "")
        if self.device_label.text() != text:
            self.device_label.setText(text)
        self._fill_device_combos(status)
        bridge = self.audio.bridge
        dropped = self.last_stats.dropped_frames if self.last_stats else 0
        xruns = (bridge.input_overflows + bridge.output_underflows) if bridge else 0
        starved = bridge.output_starved_samples / bridge.output_rate if bridge else 0.0
        drops = f"{dropped} frames dropped · {xruns} xruns · {starved:.1f} s output gaps"
        if self.drops_label.text() != drops:
            self.drops_label.setText(drops)
        if status.state != "running":
            self.streaming = False

    def _fill_device_combos(self, status: DeviceStatus) -> None:
        inputs = ["System default"] + [d.label for d in status.devices if d.max_input_channels > 0]
        outputs = ["System default"] + [d.label for d in status.devices if d.max_output_channels > 0]
        for combo, names, chosen in ((self.input_combo, inputs, self.settings.input_device),
                                     (self.output_combo, outputs, self.settings.output_device)):
            if [combo.itemText(i) for i in range(combo.count())] != names:
                combo.clear()
                combo.addItems(names)
            combo.setCurrentIndex(names.index(chosen) if chosen in names else 0)

    def _devices_chosen(self) -> None:
        def chosen(combo: QComboBox) -> str:
            return "" if combo.currentIndex() <= 0 else combo.currentText()

        self._update_settings(input_device=chosen(self.input_combo), output_device=chosen(self.output_combo))
        if self.audio is not None:
            self.audio.start(self.settings.input_device or None, self.settings.output_device or None)

    def refresh_devices(self) -> None:
        if self.audio is not None:
            self.audio.refresh_devices()

    def _render_status(self) -> None:
        self._status = derive_status(StatusInputs(
            streaming=self.streaming and self.model_info is not None,
            mic_open=self.talk.mic_open,
            now=time.monotonic(),
            last_speech_time=self._last_speech_time,
            last_release_time=self._last_release_time,
        ))
        text = self._status.value.capitalize()
        if self.status_label.text() != text:
            self.status_label.setText(text)
            self.status_label.setStyleSheet(
                f"#status {{ background: {STATUS_COLOURS[self._status]}; color: white; font-weight: bold;"
                " border-radius: 10px; padding: 4px 12px; }")
        self.talk_button.setDown(bool(self.talk.held_by))

    @property
    def status(self) -> Status:
        return self._status

    def _render_transcript(self) -> None:
        self.transcript_view.setPlainText(self.transcript.as_text())
        bar = self.transcript_view.verticalScrollBar()
        bar.setValue(bar.maximum())

    def _render_title(self) -> None:
        name = Path(self.conversation_path).name if self.conversation_path else "Untitled conversation"
        self.setWindowTitle(f"{name}{' *' if self.unsaved_frames else ''} — Parley")

    # -- conversations -----------------------------------------------------------------------
    def load_model(self, name: str, device: str, precision: str) -> None:
        """Load in the worker; the choice is remembered once it loaded (a failed one is not)."""
        self._requested_model = (name, device, precision)
        self.graph = None
        # The saved persona is used if the model turns out to be PersonaPlex (the worker knows).
        self.worker.load_model(name, device, precision, self.settings.persona_voice or None,
                               self.settings.persona_role or None)

    def new_conversation(self) -> None:
        if self._confirm_discard():
            self.worker.new_conversation(*self.persona_prompts())

    def open_conversation_dialog(self) -> None:
        if not self._confirm_discard():
            return
        path, _ = QFileDialog.getOpenFileName(self, "Open conversation", str(paths.conversations_dir()),
                                              CONVERSATION_FILTER)
        if path:
            self.worker.open_conversation(path)

    def open_conversation(self, path: str) -> None:
        self.worker.open_conversation(path)

    def save(self) -> None:
        if self.conversation_path:
            self.worker.save_conversation(self.conversation_path)
        else:
            self.save_as_dialog()

    def save_as_dialog(self) -> None:
        start = self.conversation_path or str(paths.conversations_dir() / "conversation.parley")
        path, _ = QFileDialog.getSaveFileName(self, "Save conversation", start, CONVERSATION_FILTER)
        if path:
            if not Path(path).suffix:
                path += ".parley"
            self.worker.save_conversation(path)
        else:
            self._close_after_save = False

    def export_transcript_dialog(self) -> None:
        path, chosen = QFileDialog.getSaveFileName(self, "Export transcript",
                                                   str(paths.conversations_dir() / "transcript.txt"),
                                                   "Text (*.txt);;JSON (*.json)")
        if not path:
            return
        if not Path(path).suffix:
            path += ".json" if "json" in chosen.lower() else ".txt"
        try:
            self.transcript.export(path)
        except (OSError, ValueError) as e:
            self.show_error(f"Could not export the transcript: {e}")
            return
        self.statusBar().showMessage(f"Exported transcript: {path}", 5000)

    def export_audio_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export conversation audio",
                                              str(paths.conversations_dir() / "conversation.wav"),
                                              "WAV audio, left: you, right: assistant (*.wav)")
        if path:
            self.worker.export_audio(path if path.lower().endswith(".wav") else path + ".wav")

    def _rebuild_recent_menu(self) -> None:
        self.recent_menu.clear()
        for path in self.settings.recent_files:
            action = self.recent_menu.addAction(Path(path).name)
            action.setToolTip(path)
            action.triggered.connect(lambda checked=False, p=path: self._open_recent(p))
        self.recent_menu.setEnabled(bool(self.settings.recent_files))

    def _open_recent(self, path: str) -> None:
        if not os.path.exists(path):
            self.show_error(f"{path} no longer exists.")
            self._update_settings(recent_files=tuple(p for p in self.settings.recent_files if p != path))
            return
        if self._confirm_discard():
            self.worker.open_conversation(path)

    def _confirm_discard(self) -> bool:
        if not self.unsaved_frames:
            return True
        answer = QMessageBox.question(self, "Unsaved conversation",
                                      "The current conversation has unsaved changes. Discard them?",
                                      QMessageBox.Discard | QMessageBox.Cancel, QMessageBox.Cancel)
        return answer == QMessageBox.Discard

    def _update_settings(self, **changes) -> None:
        self.settings = replace(self.settings, **changes)
        save_settings(self.store, self.settings)
        if "recent_files" in changes:
            self._rebuild_recent_menu()

    # -- dialogs -----------------------------------------------------------------------------
    def open_model_manager(self) -> None:
        from app.model_manager import ModelManagerDialog

        dialog = ModelManagerDialog(self.settings, self)
        dialog.model_chosen.connect(self._model_chosen)
        dialog.open()

    def _model_chosen(self, name: str, device: str, precision: str) -> None:
        if self._confirm_discard():
            self.load_model(name, device, precision)

    def _about(self) -> None:
        QMessageBox.about(self, "About Parley",
                          "Parley: a local, real-time, full-duplex voice assistant for the Moshi family "
                          f"of speech models.\n\nLog file: {paths.log_file()}")

    # -- shutdown ----------------------------------------------------------------------------
    def closeEvent(self, event) -> None:
        if self.unsaved_frames and not self._close_after_save:
            answer = QMessageBox.question(
                self, "Save conversation?", "Save the current conversation before quitting?",
                QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, QMessageBox.Save)
            if answer == QMessageBox.Cancel:
                event.ignore()
                return
            if answer == QMessageBox.Save:
                self._close_after_save = True
                self.save()
                event.ignore()  # closes again once the worker reports the file saved
                return
        self.shut_down_cleanly = self.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> bool:
        """Stop the timer, the audio streams and the worker thread, each with a bounded wait.

        Returns False when the worker is still busy (e.g. inside a model load, which cannot be
        interrupted): the caller must then leave the process without destroying that thread.
        """
        if not self.timer.isActive():
            return not self.worker_thread.isRunning()
        self.timer.stop()
        QApplication.instance().removeEventFilter(self)
        if self.audio is not None:
            self.audio.stop(timeout=2.0)
        self.worker.stop()
        self.worker_thread.quit()
        return self.worker_thread.wait(5000)


def _open_folder(path: Path) -> None:
    QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))

