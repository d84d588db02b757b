"""The main window: lays out the panels, asks the user (file dialogs, confirmations) and forwards
the answers to the conversation view-model, which holds the state (``app.conversation.view_model``).

Layout: the library on the left, the conversation in the middle, meters and devices on the
right (a column that scrolls); a header with the status, the model and the persona; an error
banner under it, which takes its room from the columns instead of growing the window. Panels render
the view-model; adding a feature means a view-model signal or command and a few lines here.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, QObject, QSettings, QSize, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QProgressDialog,
    QPushButton,
    QSplitter,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from app import paths
from app.audio.device_follow import follow_devices
from app.conversation.announcer import TurnAnnouncer
from app.conversation.health import HealthModel
from app.conversation.media_pause import MediaPause
from app.conversation.panel import ConversationPanel
from app.conversation.replay import ReplayPlayer
from app.conversation.status import Status, status_label
from app.conversation.transcript_formats import FORMATS, format_named_by_filter
from app.conversation.view_model import ConversationModel
from app.desktop_key.backends import desktop_grab
from app.desktop_key.talk_key import DesktopTalkKey
from app.engine_thread.controller import ModelLoader, load_engine_model
from app.library.listing import ConversationEntry
from app.library.model import LibraryModel
from app.library.model_offer import model_to_offer
from app.library.names import new_conversation_path
from app.library.panel import LibraryPanel
from app.voices.own_voices import list_own_voices
from app.voices.persona import PersonaDialog
from app.voices.personas_model import PersonasModel
from app.widgets.announce import announce
from app.widgets.colours import checkbox_style, scheme_for, status_colour
from app.widgets.elided_label import ElidedLabel
from app.widgets.scroll_column import ScrollColumn
from app.widgets.steady_minimum import SteadyMinimum
from app.window import recovery
from app.window.audio_menu import disable_processing_actions
from app.window.banner import Banner
from app.window.devices_panel import DevicesPanel
from app.window.menus import Menus
from app.window.meters_panel import MetersPanel
from app.window.microphone_banner import MicrophoneBanner
from app.window.notices import Notices
from app.window.tray import Tray
from app.window.tray_state import TrayModel
from engine import VoiceLibrary

log = logging.getLogger(__name__)

CONVERSATION_FILTER = QT_TRANSLATE_NOOP("MainWindow", "Parley conversation (*.parley);;All files (*)")
# The columns' widths at the default size; a smaller window shrinks them in proportion.
SPLITTER_SIZES = [250, 620, 300]
DEFAULT_SIZE = QSize(1280, 760)
MESSAGE_MS = 5000
ENTER_KEYS = (Qt.Key_Return, Qt.Key_Enter)


def takes_typing(widget: QWidget) -> bool:
    """Whether Space typed into ``widget`` is text (a field), not push-to-talk."""
    return isinstance(widget, (QLineEdit, QTextEdit, QPlainTextEdit, QAbstractSpinBox)) or (
        isinstance(widget, QComboBox) and widget.isEditable())


class MainWindow(QMainWindow):
    def __init__(self, store: QSettings, model_loader: ModelLoader = load_engine_model,
                 audio: bool = True, worker_seed: int | None = None, cuda_graph: bool = True,
                 conversations_dir: Path | None = None, journal_dir: Path | None = None) -> None:
        """``journal_dir``: crash journals (offered for recovery once the first model loaded)."""
        super().__init__()
        self.model = ConversationModel(store, model_loader, audio=audio, worker_seed=worker_seed,
                                       cuda_graph=cuda_graph, journal_dir=journal_dir, parent=self)
        self.recovery: recovery.RecoveryDialogs | None = None
        self.opening_dialog: QProgressDialog | None = None  # a compact file's rebuild, made when one reports
        self.replay = ReplayPlayer(self)
        self.replay.output_device = self.model.preferences.settings.output_device
        self.library = LibraryModel(conversations_dir or paths.conversations_dir(), self)
        self._close_after_save = False
        self.shut_down_cleanly = True

        self.setWindowTitle("Parley")
        self._build_ui()
        self.menus = Menus(self)
        self.tray = Tray(self, TrayModel(self.model, self.health, self))
        self.notices = Notices(lambda: self.isHidden() or self.isMinimized(), self)
        self.notices.notice.connect(self.tray.notify)
        self.model.files.recovery_event.connect(self.notices.recovery_event)
        self.announcer = TurnAnnouncer(self.model, self)
        self.announcer.announce.connect(lambda text: announce(self.conversation_panel.view, text))
        self.menus.view_menu.addAction(self.tray.keep_action)
        self.device_follower = follow_devices(self.model)  # None without audio
        self.talk_key = DesktopTalkKey(self.model, desktop_grab, self)
        self.media_pause = MediaPause(self.model, parent=self)
        self._build_shortcuts()
        self._set_tab_order()
        self.conversation_panel.talk_button.setFocus()  # where Space, push-to-talk, belongs
        self._connect_model()
        self._render_model()
        self._render_persona()
        self._render_status(self.model.status)
        self.installEventFilter(self)
        QApplication.instance().focusChanged.connect(self._watch_focus)
        self._build_crash_protection_note()
        self._build_talk_key_note()
        self.library.renamed.connect(self.model.files.file_renamed)
        self.library.removed.connect(self.model.files.file_removed)

    # -- construction ------------------------------------------------------------------------
    def _build_ui(self) -> None:
        central = SteadyMinimum(self)
        outer = central.column

        top = QHBoxLayout()
        self.status_label = QLabel()
        self.status_label.setObjectName("status")
        self.status_label.setAlignment(Qt.AlignCenter)
        self.status_label.setMinimumWidth(120)
        self.model_label = QLabel()
        self.model_label.setWordWrap(True)  # a long model name wraps instead of widening the window
        self.model_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.persona_button = QPushButton(self.tr("Personas..."))
        self.persona_button.setToolTip(
            self.tr("Choose who the assistant is (a new conversation), or edit the personas."))
        self.persona_button.clicked.connect(self.open_persona_dialog)
        top.addWidget(self.status_label)
        top.addWidget(self.model_label, 1)
        top.addWidget(self.persona_button)
        outer.addLayout(top)
        self.persona_label = QLabel()
        self.persona_label.setWordWrap(True)
        self.persona_label.setObjectName("persona")
        self.persona_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        outer.addWidget(self.persona_label)
        central.add_banner(self._build_error_box())
        self.microphone_banner = MicrophoneBanner(self.model, self.choose_microphone)
        central.add_banner(self.microphone_banner)

        self.library_panel = LibraryPanel(self.library)
        self.library_panel.open_requested.connect(self.open_entry)
        self.library_panel.replay_requested.connect(self.replay_entry)
        self.health = HealthModel(self.model, self)
        self.conversation_panel = ConversationPanel(self.model, self.replay, self.health)
        self.conversation_panel.end_button.clicked.connect(self.end_conversation)
        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        self.meters_panel = MetersPanel(self.model, self.health)
        self.devices_panel = DevicesPanel(self.model.devices)
        side_layout.addWidget(self.meters_panel)
        side_layout.addWidget(self.devices_panel)
        side_layout.addStretch(1)
        self.side_panel = ScrollColumn(side)
        self.side_panel.setAccessibleName(self.tr("Meters and devices"))
        splitter = QSplitter(Qt.Horizontal)
        splitter.setChildrenCollapsible(False)  # a column dragged too narrow stops at its minimum
        for widget, stretch in ((self.library_panel, 2), (self.conversation_panel, 5), (self.side_panel, 2)):
            splitter.addWidget(widget)
            splitter.setStretchFactor(splitter.count() - 1, stretch)
        splitter.setSizes(SPLITTER_SIZES)
        outer.addWidget(splitter, 1)
        self.setCentralWidget(central)
        self.setStyleSheet(checkbox_style(scheme_for(self.palette())))  # its dialogs' boxes too
        room = self.screen().availableGeometry().size() * 0.92  # a taskbar and the title bar need room too
        self.resize(DEFAULT_SIZE.boundedTo(room))

    def _build_error_box(self) -> Banner:
        self.error_box = Banner()
        self.error_label = self.error_box.label
        self.resume_button = self.error_box.resume_button
        self.dismiss_button = self.error_box.dismiss_button
        self.error_box.resume_requested.connect(self._resume)
        return self.error_box

    def _build_shortcuts(self) -> None:
        """Ctrl+F: search the library; Esc: clear the search, else dismiss the banner (both while the
        window has focus)."""
        QShortcut(QKeySequence.Find, self, self.focus_search)
        QShortcut(QKeySequence(Qt.Key_Escape), self, self.escape)

    def focus_search(self) -> None:
        self.set_library_visible(True)
        self.menus.library_action.setChecked(True)
        self.library_panel.search.setFocus(Qt.ShortcutFocusReason)
        self.library_panel.search.selectAll()

    def escape(self) -> None:
        """Esc: in the library's search with a query, clear it (every row back); elsewhere dismiss the banner."""
        search = self.library_panel.search
        if search.hasFocus() and search.text():
            search.clear()
        else:
            self.dismiss_banner()

    def dismiss_banner(self) -> None:
        self.error_box.hide()

    def _set_tab_order(self) -> None:
        """Header, banner, library, conversation, meters and devices: the order they are read in."""
        chain = [self.persona_button, *self.error_box.tab_chain(), *self.microphone_banner.tab_chain(),
                 *self.library_panel.tab_chain(), *self.conversation_panel.tab_chain(),
                 *self.meters_panel.tab_chain(), *self.devices_panel.tab_chain()]
        for before, after in zip(chain, chain[1:]):
            QWidget.setTabOrder(before, after)

    def _build_crash_protection_note(self) -> None:
        """A lasting note in the status bar while the conversation is not journaled (a full disk): one
        line, whole in its tooltip, so that it never changes the window's minimum size."""
        self.crash_protection_label = ElidedLabel()
        self.crash_protection_label.setStyleSheet(f"color: {scheme_for(self.palette()).error}; font-weight: bold;")
        self.statusBar().addPermanentWidget(self.crash_protection_label, 1)
        self.model.files.crash_protection_changed.connect(self._render_crash_protection)
        self._render_crash_protection(self.model.files.crash_protection_problem)

    def _render_crash_protection(self, problem: str) -> None:
        self.crash_protection_label.setText(
            self.tr("Crash protection stopped: {problem}. Parley keeps trying and resumes it once the disk "
                    "has room; save the conversation to keep it.").format(problem=problem) if problem else "")
        self.crash_protection_label.setVisible(bool(problem))

    def _build_talk_key_note(self) -> None:
        """A lasting note in the status bar while the desktop-wide talk key does not work."""
        self.talk_key_label = ElidedLabel()  # one line, whole in its tooltip: never raises the minimum size
        self.statusBar().addPermanentWidget(self.talk_key_label, 1)
        self.talk_key.changed.connect(self._render_talk_key)
        self._render_talk_key()

    def _render_talk_key(self) -> None:
        self.talk_key_label.setText(self.talk_key.note)
        self.talk_key_label.setVisible(bool(self.talk_key.note))

    def open_talk_key_dialog(self):
        from app.desktop_key.dialog import TalkKeyDialog

        dialog = TalkKeyDialog(self.talk_key, self)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        dialog.open()
        return dialog

    def _connect_model(self) -> None:
        m = self.model
        m.status_changed.connect(self._render_status)
        m.models.model_changed.connect(self._render_model)
        m.models.persona_changed.connect(self._render_persona)
        m.waiting_changed.connect(self.menus.wait_action.setChecked)
        for changed in (m.live_changed, m.conversation_replaced):
            changed.connect(lambda *_args: self.menus.end_action.setEnabled(self.model.can_end))
        self.menus.end_action.setEnabled(m.can_end)
        m.files.title_changed.connect(self.setWindowTitle)
        m.files.title_changed.connect(lambda _title: self.library.set_current(self.model.files.conversation_path))
        m.error.connect(self.show_error)
        m.message.connect(lambda text: self.statusBar().showMessage(text, MESSAGE_MS))
        m.preferences.changed.connect(self._settings_changed)
        m.files.saved.connect(self._saved)
        m.devices.processing_changed.connect(self._render_processing)
        m.models.previous_model_offered.connect(self._offer_previous_model)
        m.files.recovery_offered.connect(self._offer_recovery)
        m.files.opening.connect(self._render_opening)
        self.replay.failed.connect(self.show_error)

    # -- rendering ---------------------------------------------------------------------------
    def _render_status(self, status: Status) -> None:
        self.status_label.setText(status_label(status))
        scheme = scheme_for(self.palette())
        self.status_label.setStyleSheet(
            f"#status {{ background: {status_colour(scheme, status.value)}; color: {scheme.pill_text}; "
            "font-weight: bold;"
            " border-radius: 10px; padding: 4px 12px; }")

    def _render_model(self) -> None:
        text, tip = self.model.models.model_text()
        self.model_label.setText(text)
        self.model_label.setToolTip(tip)
        self.devices_panel.render_mode(self.model.models.interpreting)
        self._render_persona()

    def _render_persona(self) -> None:
        text, tip = self.model.models.persona_text()
        self.persona_label.setText(text)
        self.persona_label.setToolTip(tip)

    def _render_processing(self) -> None:
        if self.model.devices.processing_problem:
            disable_processing_actions(self.menus.processing_actions, self.model.devices.processing_problem)

    def _offer_previous_model(self, name: str, device: str, precision: str) -> None:
        """The old model was unloaded to make room on the GPU and the new one failed to load."""
        answer = QMessageBox.question(self, self.tr("No model loaded"),
                                      self.tr("Load the previous model ({name}) again?").format(name=name),
                                      QMessageBox.Yes | QMessageBox.No, QMessageBox.Yes)
        if answer == QMessageBox.Yes:
            self.model.models.load_model(name, device, precision)

    def _offer_recovery(self, journals) -> None:
        self.recovery = recovery.offer_recovery(self, self.model.files, journals, self.show_error)

    def _render_opening(self, frames: int, total: int) -> None:
        """A compact file being rebuilt: its progress with Cancel (shown after a few seconds, so a
        short rebuild shows none); (0, 0): the opening ended."""
        if not total:
            if self.opening_dialog is not None:
                self.opening_dialog.deleteLater()
                self.opening_dialog = None
            return
        if self.opening_dialog is None:
            self.opening_dialog = QProgressDialog(self.tr("Opening the conversation (rebuilding it from its file)..."),
                                                  self.tr("Cancel"), 0, total, self)
            self.opening_dialog.setWindowModality(Qt.WindowModal)
            self.opening_dialog.setAutoClose(False)
            self.opening_dialog.setAutoReset(False)
            self.opening_dialog.canceled.connect(self.model.files.cancel_open)
        self.opening_dialog.setMaximum(total)
        self.opening_dialog.setValue(frames)

    def _settings_changed(self, settings) -> None:
        self.menus.rebuild_recent(settings.recent_files)
        self.replay.output_device = settings.output_device

    def show_error(self, message: str, resumable: bool = False) -> None:
        self._close_after_save = False
        self.error_box.show_message(message, resumable)

    def _resume(self) -> None:
        self.dismiss_banner()
        self.model.resume()

    # -- push-to-talk ------------------------------------------------------------------------
    def _watch_focus(self, _old: QWidget | None, new: QWidget | None) -> None:
        """A key goes to the focused widget (to the window when none has focus), so the
        push-to-talk filter watches each widget of this window that takes focus. A filter on the
        whole application ran Python for every event of every widget: ~60 per frame on the GUI
        thread, which the engine's worker shares the cores and the interpreter with."""
        if new is not None and new.window() is self:
            new.installEventFilter(self)  # once: installing it again only moves it to the front

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        """Space anywhere in this window is push-to-talk, except in a text field (the library's
        search). It is taken here, so a focused button or box is not also clicked: Enter presses
        the focused button or ticks the focused box instead (Qt gives a window's buttons no key
        of their own besides Space), and on the Talk button it is held as Space is."""
        if event.type() not in (QEvent.KeyPress, QEvent.KeyRelease) or not isinstance(obj, QWidget) \
                or obj.window() is not self:
            return super().eventFilter(obj, event)
        talk_key = event.key() == Qt.Key_Space or (event.key() in ENTER_KEYS
                                                   and obj is self.conversation_panel.talk_button)
        if talk_key and not takes_typing(obj):
            if not event.isAutoRepeat():
                if event.type() == QEvent.KeyPress:
                    self.press_talk("key")
                else:
                    self.release_talk("key")
            return True
        if event.key() in ENTER_KEYS and isinstance(obj, QAbstractButton) and obj.isEnabled() \
                and event.modifiers() in (Qt.NoModifier, Qt.KeypadModifier):
            if event.type() == QEvent.KeyPress and not event.isAutoRepeat():
                obj.animateClick()
            return True
        return super().eventFilter(obj, event)

    def press_talk(self, source: str) -> None:
        self.model.press_talk(source)

    def release_talk(self, source: str) -> None:
        self.model.release_talk(source)

    def set_open_mic(self, on: bool) -> None:
        self.conversation_panel.open_mic_box.setChecked(on)

    def refresh_devices(self) -> None:
        self.model.devices.refresh()

    def choose_microphone(self) -> None:
        """The microphone picker, shown and opened (the no-microphone banner's Choose)."""
        self.side_panel.setVisible(True)
        self.devices_panel.input_combo.setFocus()
        self.devices_panel.input_combo.showPopup()

    def choose_language(self, language: str) -> None:
        """View > Language: kept for the next start (translators are installed before any window)."""
        self.model.preferences.update(language=language)
        self.statusBar().showMessage(self.tr("The language changes the next time Parley starts."), MESSAGE_MS)

    def set_library_visible(self, visible: bool) -> None:
        self.library_panel.setVisible(visible)

    def set_meters_visible(self, visible: bool) -> None:
        self.side_panel.setVisible(visible)

    # -- persona -----------------------------------------------------------------------------
    def open_persona_dialog(self) -> PersonaDialog:
        """The persona picker and editor; choosing one starts a new conversation with it."""
        m = self.model
        personaplex = None if m.models.model_info is None else m.models.is_personaplex
        personas = PersonasModel(m.models.personas, m.models.voices, personaplex, m.models.persona.name)
        dialog = PersonaDialog(personas, self)
        personas.setParent(dialog)
        list_own_voices(VoiceLibrary(), personas.add_voices)  # by name, as personas keep them; off this thread
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        personas.chosen.connect(self.apply_persona)
        personas.changed.connect(self._persona_edited)
        dialog.open()
        return dialog

    def _persona_edited(self) -> None:
        """An edit saved in the dialog: the current persona's new settings apply to its next conversation."""
        self.model.models.persona = self.model.models.persona_named(self.model.models.persona.name)
        self._render_persona()

    def open_voices_dialog(self):
        """The voice library; the devices are lent to its recorder while it is open."""
        from app.voices.dialog import VoiceLibraryDialog
        from app.voices.recorder import VoiceRecorder
        from app.voices.view_model import VoicesModel

        recorder = VoiceRecorder()
        dialog = VoiceLibraryDialog(VoicesModel(VoiceLibrary(), self.model.models.voices, recorder), self)
        recorder.setParent(dialog)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        self.model.devices.lend(recorder)
        dialog.finished.connect(self.model.devices.take_back)
        dialog.open()
        return dialog

    def apply_persona(self, persona) -> None:
        """Start a conversation with ``persona`` (an ``engine.Persona``); the current one, if it has
        unsaved changes, is saved first: to its file, or into the library under a new name."""
        keep = None
        if self.model.files.unsaved_frames:
            keep = self.model.files.conversation_path or str(new_conversation_path(self.library.folder))
        self.model.start_with_persona(persona, keep_in=keep)

    # -- conversations -----------------------------------------------------------------------
    def load_model(self, name: str, device: str, precision: str) -> None:
        self.model.models.load_model(name, device, precision)

    def new_conversation(self) -> None:
        if self._confirm_discard():
            self.model.new_conversation()

    def end_conversation(self) -> None:
        """End: the frames stop at once; what the person said is offered to be saved; a new, empty
        conversation waits for Talk or Start. Cancel lets the conversation go on as it was."""
        was_live = self.model.live
        self.model.pause()
        if self._confirm_discard():
            self.model.end_conversation()
        elif was_live:
            self.model.start()

    def open_conversation_dialog(self) -> None:
        if not self._confirm_discard():
            return
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Open conversation"), str(self.library.folder),
                                              self.tr(CONVERSATION_FILTER))
        if path:
            self.model.files.open_conversation(path)

    def open_conversation(self, path: str) -> None:
        self.model.files.open_conversation(path)

    def open_entry(self, entry: ConversationEntry) -> None:
        """Open a library entry; one saved with another model offers to switch to that model, where
        it is on this machine (``app.library.model_offer``)."""
        if entry.info is None:
            self.show_error(entry.error)
            return
        info = self.model.models.model_info
        if info is not None and entry.info.fingerprint != info.fingerprint:
            other = model_to_offer(entry.info.model, self.model.preferences.settings.model)
            if other is None:
                self.show_error(self.tr("“{title}” was saved with the model {model}, which is not on "
                                        "this machine (the loaded model is {loaded}). Parley does not fetch or load a "
                                        "model a file names: load that model yourself, then open the conversation "
                                        "again.").format(title=entry.title, model=entry.info.model[:200],
                                                         loaded=info.label))
                return
            answer = QMessageBox.question(
                self, self.tr("Another model"),
                self.tr("“{title}” was saved with the model {model}; the loaded model is "
                        "{loaded}. Switch to {other} and open it?").format(
                    title=entry.title, model=entry.info.model, loaded=info.label, other=other),
                QMessageBox.Yes | QMessageBox.Cancel, QMessageBox.Yes)
            if answer == QMessageBox.Yes and self._confirm_discard():
                self.model.models.switch_model_and_open(other, str(entry.path))
            return
        if self._confirm_discard():
            self.model.files.open_conversation(str(entry.path))

    def replay_entry(self, entry: ConversationEntry) -> None:
        """Play a saved conversation's recording; needs no model. The live conversation pauses (its
        reply would play over the replay); Continue resumes it."""
        if self.replay.load(str(entry.path)):
            self.model.pause()
            self.replay.play()

    def open_recent(self, path: str) -> None:
        if not os.path.exists(path):
            self.show_error(self.tr("{path} no longer exists.").format(path=path))
            self.model.files.forget_recent(path)
            return
        if self._confirm_discard():
            self.model.files.open_conversation(path)

    def save(self) -> bool:
        """Save to the conversation's file, or where the person chooses; False when they cancelled."""
        if self.model.files.conversation_path and os.path.isfile(self.model.files.conversation_path):
            self.model.files.save(self.model.files.conversation_path)
            return True
        return self.save_as_dialog()

    def save_as_dialog(self) -> bool:
        start = self.model.files.conversation_path or str(new_conversation_path(self.library.folder))
        while True:
            path, _ = QFileDialog.getSaveFileName(self, self.tr("Save conversation"), start,
                                                  self.tr(CONVERSATION_FILTER))
            if not path:
                break
            if not Path(path).stem.strip():  # a blank name: a blank row in the library
                QMessageBox.warning(self, self.tr("Save conversation"),
                                    self.tr("A conversation needs a name: type one, or keep the one proposed."))
                continue
            self.model.files.save(path if Path(path).suffix else path + ".parley")
            return True
        self._close_after_save = False
        return False

    def _saved(self, _path: str) -> None:
        if self._close_after_save:
            self.close()

    def export_transcript_dialog(self) -> None:
        conversation = Path(self.model.files.conversation_path or new_conversation_path(self.library.folder))
        path, chosen = QFileDialog.getSaveFileName(self, self.tr("Export transcript"),
                                                   str(conversation.with_suffix(FORMATS[0].suffix)),
                                                   ";;".join(f.dialog_filter for f in FORMATS))
        if path:
            if not Path(path).suffix:
                path += format_named_by_filter(chosen).suffix
            self.model.files.export_transcript(path)

    def export_audio_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export conversation audio"),
                                              str(self.library.folder / "conversation.wav"),
                                              self.tr("WAV audio, left: you, right: assistant (*.wav)"))
        if path:
            self.model.files.export_audio(path if path.lower().endswith(".wav") else path + ".wav")

    def _confirm_discard(self) -> bool:
        """Whether to go on with what replaces the conversation: nothing the person said is unsaved,
        or they chose Discard, or Save (the engine thread writes it before it runs what comes next)."""
        if not self.model.files.unsaved_frames:
            return True
        answer = QMessageBox.question(self, self.tr("Unsaved conversation"),
                                      self.tr("Save the current conversation before it is closed?"),
                                      QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, QMessageBox.Save)
        if answer == QMessageBox.Save:
            return self.save()
        return answer == QMessageBox.Discard

    # -- dialogs -----------------------------------------------------------------------------
    def open_model_manager(self):
        from app.models.manager import ModelManagerDialog

        in_use = self.model.preferences.settings.model if self.model.models.model_info is not None else None
        dialog = ModelManagerDialog(self.model.preferences.settings, self, in_use=in_use)
        dialog.model_chosen.connect(self._model_chosen)
        dialog.finished_download.connect(self.notices.download_finished)
        dialog.open()
        return dialog

    def _model_chosen(self, name: str, device: str, precision: str) -> None:
        if self._confirm_discard():
            self.model.models.load_model(name, device, precision)

    def about(self) -> None:
        try:
            log = self.tr("Log file: {path}").format(path=paths.log_file())
        except paths.FolderProblem as e:
            log = self.tr("No log file: {problem}").format(problem=e)
        QMessageBox.about(self, self.tr("About Parley"),
                          self.tr("Parley: a local, real-time, full-duplex voice assistant for the "
                                  "Moshi family of speech models.") + f"\n\n{log}")

    # -- shutdown ----------------------------------------------------------------------------
    def quit(self) -> None:
        """File → Quit and the tray's Quit: close for good, not into the tray."""
        self.tray.quit()

    def closeEvent(self, event) -> None:
        if not self._close_after_save and self.tray.hides_on_close():
            event.ignore()
            self.hide()
            return
        if self.model.files.unsaved_frames and not self._close_after_save:
            answer = QMessageBox.question(
                self, self.tr("Save conversation?"), self.tr("Save the current conversation before quitting?"),

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
        """See ``ConversationModel.shutdown``; also stops a replay and the key filter."""
        QApplication.instance().removeEventFilter(self)
        self.replay.stop()
        self.talk_key.stop()
        self.media_pause.stop()
        if self.device_follower is not None:
            self.device_follower.stop()
        if self.recovery is not None:  # an offer left open: the journal stays for a later start
            self.recovery.offer.lock.release()
        return self.model.shutdown()
