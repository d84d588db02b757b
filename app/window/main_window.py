"""The main window: lays out the panels and connects them to the conversation view-model, which
holds the state (``app.conversation.view_model``). What the window asks the person lives beside it:
the conversation-file commands (``file_commands``), the other dialogs (``dialogs``), the keyboard
(``keys``), the header (``header``), the banners and the status bar's notes (``status_notes``).

Layout: the library on the left, the conversation in the middle, meters and devices on the
right (a column that scrolls); a header with the status, the model and the persona; an error
banner under it, which takes its room from the columns instead of growing the window. Panels render
the view-model; adding a feature means a view-model signal or command and a few lines here.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QSettings, QSize, Qt
from PySide6.QtWidgets import QMainWindow, QSplitter, QVBoxLayout, QWidget

from app import paths
from app.audio.device_follow import follow_devices
from app.conversation.announcer import TurnAnnouncer
from app.conversation.health import HealthModel
from app.conversation.media_pause import MediaPause
from app.conversation.panel import ConversationPanel
from app.conversation.read_aloud import ReadAloud
from app.conversation.replay import ReplayPlayer
from app.conversation.view_model import ConversationModel
from app.desktop_key.backends import desktop_grab
from app.desktop_key.talk_key import DesktopTalkKey
from app.engine_thread.controller import ModelLoader, load_engine_model
from app.library.model import LibraryModel
from app.library.panel import LibraryPanel
from app.widgets.announce import announce
from app.widgets.colours import checkbox_style, scheme_for
from app.widgets.scroll_column import ScrollColumn
from app.widgets.steady_minimum import SteadyMinimum
from app.window.audio_menu import disable_processing_actions
from app.window.banner import Banner
from app.window.chat_dialog import ChatStrip
from app.window.devices_panel import DevicesPanel
from app.window.dialogs import Dialogs
from app.window.file_commands import FileCommands
from app.window.header import Header
from app.window.keys import WindowKeys, chain_tab_order
from app.window.menus import Menus
from app.window.meters_panel import MetersPanel
from app.window.microphone_banner import MicrophoneBanner
from app.window.notices import Notices
from app.window.read_aloud_menu import ReadAloudControls
from app.window.status_notes import StatusNotes
from app.window.tray import Tray
from app.window.tray_state import TrayModel

log = logging.getLogger(__name__)

# The columns' widths at the default size; a smaller window shrinks them in proportion.
SPLITTER_SIZES = [250, 620, 300]
DEFAULT_SIZE = QSize(1280, 760)
MESSAGE_MS = 5000


class MainWindow(QMainWindow):
    def __init__(self, store: QSettings, model_loader: ModelLoader = load_engine_model,
                 audio: bool = True, worker_seed: int | None = None, cuda_graph: bool = True,
                 conversations_dir: Path | None = None, journal_dir: Path | None = None) -> None:
        """``journal_dir``: crash journals (offered for recovery once the first model loaded)."""
        super().__init__()
        self.model = ConversationModel(store, model_loader, audio=audio, worker_seed=worker_seed,
                                       cuda_graph=cuda_graph, journal_dir=journal_dir, parent=self)
        self.replay = ReplayPlayer(self)
        self.replay.output_device = self.model.preferences.settings.output_device
        self.library = LibraryModel(conversations_dir or paths.conversations_dir(), self)
        self.shut_down_cleanly = True
        self.files = FileCommands(self)
        self.talk_key = DesktopTalkKey(self.model, desktop_grab, self)

        self.setWindowTitle("Parley")
        self._build_ui()
        self.notices = Notices(lambda: self.isHidden() or self.isMinimized(), self)
        self.dialogs = Dialogs(self)
        self.menus = Menus(self)
        self.tray = Tray(self, TrayModel(self.model, self.health, self))
        self.notices.notice.connect(self.tray.notify)
        self.model.files.recovery_event.connect(self.notices.recovery_event)
        self.announcer = TurnAnnouncer(self.model, self)
        self.announcer.announce.connect(lambda text: announce(self.conversation_panel.view, text))
        self.menus.view_menu.addAction(self.tray.keep_action)
        self.device_follower = follow_devices(self.model)  # None without audio
        self.media_pause = MediaPause(self.model, parent=self)
        self.keys = WindowKeys(self)
        chain_tab_order([self.header.persona_button, *self.error_box.tab_chain(),
                         *self.microphone_banner.tab_chain(), *self.library_panel.tab_chain(),
                         *self.conversation_panel.tab_chain(), *self.meters_panel.tab_chain(),
                         *self.devices_panel.tab_chain()])  # the order the window is read in
        self.read_aloud = ReadAloud(self.model.preferences, self)
        self.read_aloud_controls = ReadAloudControls(self, self.read_aloud)
        self.chat_strip = ChatStrip(self, self.model.chat)
        self.conversation_panel.talk_button.setFocus()  # where Space, push-to-talk, belongs
        self._connect_model()
        self.status_notes = StatusNotes(self.statusBar(), self.model.files, self.talk_key)
        for files in (self.model.files, self.model.chat):  # each follows its file in the library
            self.library.renamed.connect(files.file_renamed)
            self.library.removed.connect(files.file_removed)

    def _build_ui(self) -> None:
        central = SteadyMinimum(self)
        self.header = Header(self.model)
        self.header.persona_button.clicked.connect(lambda: self.dialogs.open_persona_dialog())
        central.column.addWidget(self.header)
        self.error_box = Banner()
        self.error_box.resume_requested.connect(self._resume)
        central.add_banner(self.error_box)
        self.microphone_banner = MicrophoneBanner(self.model, self.choose_microphone)
        central.add_banner(self.microphone_banner)

        self.library_panel = LibraryPanel(self.library)
        self.library_panel.open_requested.connect(self.files.open_entry)
        self.library_panel.replay_requested.connect(self.files.replay_entry)
        self.health = HealthModel(self.model, self)
        self.conversation_panel = ConversationPanel(self.model, self.replay, self.health)
        self.conversation_panel.end_button.clicked.connect(self.files.end_conversation)
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
        central.column.addWidget(splitter, 1)
        self.setCentralWidget(central)
        self.setStyleSheet(checkbox_style(scheme_for(self.palette())))  # its dialogs' boxes too
        room = self.screen().availableGeometry().size() * 0.92  # a taskbar and the title bar need room too
        self.resize(DEFAULT_SIZE.boundedTo(room))

    def _connect_model(self) -> None:
        m = self.model
        m.models.model_changed.connect(lambda: self.devices_panel.render_mode(self.model.models.interpreting))
        self.devices_panel.render_mode(m.models.interpreting)
        m.waiting_changed.connect(self.menus.wait_action.setChecked)
        for changed in (m.live_changed, m.conversation_replaced):
            changed.connect(lambda *_args: self.menus.end_action.setEnabled(self.model.can_end))
        self.menus.end_action.setEnabled(m.can_end)
        m.files.title_changed.connect(self.setWindowTitle)
        m.files.title_changed.connect(lambda _title: self.library.set_current(self.files.current.conversation_path))
        m.error.connect(self.show_error)
        m.message.connect(lambda text: self.statusBar().showMessage(text, MESSAGE_MS))
        m.preferences.changed.connect(self._settings_changed)
        m.devices.processing_changed.connect(self._render_processing)
        self.replay.failed.connect(self.show_error)

    def _render_processing(self) -> None:
        if self.model.devices.processing_problem:
            disable_processing_actions(self.menus.processing_actions, self.model.devices.processing_problem)

    def _settings_changed(self, settings) -> None:
        self.menus.rebuild_recent(settings.recent_files)
        self.replay.output_device = settings.output_device

    def show_error(self, message: str, resumable: bool = False) -> None:
        self.files.close_after_save = False
        self.error_box.show_message(message, resumable)

    def dismiss_banner(self) -> None:
        self.error_box.hide()

    def _resume(self) -> None:
        self.dismiss_banner()
        self.model.resume()

    # -- commands the menus, the tray and scripts call ----------------------------------------
    def load_model(self, name: str, device: str, precision: str) -> None:
        self.model.models.load_model(name, device, precision)

    def open_conversation(self, path: str) -> None:
        self.model.files.open_conversation(path)

    def press_talk(self, source: str) -> None:
        self.model.press_talk(source)

    def release_talk(self, source: str) -> None:
        self.model.release_talk(source)

    def set_open_mic(self, on: bool) -> None:
        self.conversation_panel.open_mic_box.setChecked(on)

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

    # -- shutdown ----------------------------------------------------------------------------
    def quit(self) -> None:
        """File → Quit and the tray's Quit: close for good, not into the tray."""
        self.tray.quit()

    def closeEvent(self, event) -> None:
        if not self.files.close_after_save and self.tray.hides_on_close():
            event.ignore()
            self.hide()
            return
        if not self.files.confirm_quit():
            event.ignore()  # cancelled, or saving: closes again once the worker reports the file saved
            return
        self.shut_down_cleanly = self.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> bool:
        """See ``ConversationModel.shutdown``; also stops a replay and the talk key."""
        self.replay.stop()
        self.read_aloud.stop()
        self.talk_key.stop()
        self.media_pause.stop()
        if self.device_follower is not None:
            self.device_follower.stop()
        self.dialogs.release()
        return self.model.shutdown()
