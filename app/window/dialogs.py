"""The window's dialogs other than files: the model manager, personas, voices, the talk key, About,
the offer to load the previous model again, a crash journal's recovery and a compact file's rebuild
progress. Each renders a view-model it is given; the answers go back to the conversation's."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QMessageBox, QProgressDialog

from app import paths
from app.chat.discovery import find_servers
from app.i18n import translate
from app.voices.own_voices import list_own_voices
from app.voices.persona import PersonaDialog
from app.voices.personas_model import PersonasModel
from app.widgets.plain_text import as_written
from app.window import recovery
from engine import VERSION, VoiceLibrary


class Dialogs(QObject):
    def __init__(self, window) -> None:
        """``window``: the ``MainWindow``, the dialogs' parent."""
        super().__init__(window)
        self.window = window
        self.model = window.model
        self.recovery: recovery.RecoveryDialogs | None = None
        self.server_finder = find_servers  # how "Your language model" finds running servers
        self.opening_dialog: QProgressDialog | None = None  # a compact file's rebuild, made when one reports
        self.model.models.previous_model_offered.connect(self.offer_previous_model)
        self.model.files.recovery_offered.connect(self.offer_recovery)
        self.model.files.opening.connect(self.render_opening)

    def open_model_manager(self):
        from app.models.manager import ModelManagerDialog

        in_use = self.model.preferences.settings.model if self.model.models.model_info is not None else None
        dialog = ModelManagerDialog(self.model.preferences.settings, self.window, in_use=in_use)
        dialog.model_chosen.connect(self._model_chosen)
        dialog.finished_download.connect(self.window.notices.download_finished)
        dialog.chat_requested.connect(self.open_chat_dialog)
        dialog.open()
        return dialog

    def open_chat_dialog(self):
        """Your language model: its server and model; Talk with it starts the conversation."""
        from app.window.chat_dialog import ChatDialog

        dialog = ChatDialog(self.model, self.window, self.server_finder, self.window.library.folder)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        dialog.open()
        return dialog

    def _model_chosen(self, name: str, device: str, precision: str) -> None:
        if self.window.files.confirm_discard():
            self.model.models.load_model(name, device, precision)

    def open_persona_dialog(self) -> PersonaDialog:
        """The persona picker and editor; choosing one starts a new conversation with it."""
        models = self.model.models
        takes_prompts = None if models.model_info is None else models.takes_prompts
        personas = PersonasModel(models.personas, models.voices, takes_prompts, models.persona.name)
        dialog = PersonaDialog(personas, self.window)
        personas.setParent(dialog)
        list_own_voices(VoiceLibrary(), personas.add_voices)  # by name, as personas keep them; off this thread
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        personas.chosen.connect(self.window.files.apply_persona)
        personas.changed.connect(self._persona_edited)
        dialog.open()
        return dialog

    def _persona_edited(self) -> None:
        """An edit saved in the dialog: the current persona's new settings apply to its next conversation."""
        models = self.model.models
        models.persona = models.persona_named(models.persona.name)
        self.window.header.render_persona()

    def open_voices_dialog(self):
        """The voice library; the devices are lent to its recorder while it is open."""
        from app.voices.dialog import VoiceLibraryDialog
        from app.voices.recorder import VoiceRecorder
        from app.voices.view_model import VoicesModel

        recorder = VoiceRecorder()
        dialog = VoiceLibraryDialog(VoicesModel(VoiceLibrary(), self.model.models.voices, recorder), self.window)
        recorder.setParent(dialog)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        self.model.devices.lend(recorder)
        dialog.finished.connect(self.model.devices.take_back)
        dialog.open()
        return dialog

    def open_talk_key_dialog(self):
        from app.desktop_key.dialog import TalkKeyDialog

        dialog = TalkKeyDialog(self.window.talk_key, self.window)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        dialog.open()
        return dialog

    def about_text(self) -> str:
        """About's text: what Parley is, its version, and where its log is."""
        try:
            log = translate("MainWindow", "Log file: {path}").format(path=paths.log_file())
        except paths.FolderProblem as e:
            log = translate("MainWindow", "No log file: {problem}").format(problem=e)
        return (translate("MainWindow", "Parley: a local, real-time, full-duplex voice assistant for the "
                          "Moshi family of speech models.") + "\n\n"
                + translate("MainWindow", "Version {version}").format(version=VERSION) + f"\n{log}")

    def about(self) -> None:
        QMessageBox.about(self.window, translate("MainWindow", "About Parley"), as_written(self.about_text()))

    def offer_previous_model(self, name: str, device: str, precision: str) -> None:
        """The old model was unloaded to make room on the GPU and the new one failed to load."""
        question = translate("MainWindow", "Load the previous model ({name}) again?").format(name=name)
        answer = QMessageBox.question(self.window, translate("MainWindow", "No model loaded"), as_written(question),
                                      QMessageBox.Yes | QMessageBox.No, QMessageBox.Yes)
        if answer == QMessageBox.Yes:
            self.model.models.load_model(name, device, precision)

    def offer_recovery(self, journals) -> None:
        self.recovery = recovery.offer_recovery(self.window, self.model.files, journals, self.window.show_error)

    def render_opening(self, frames: int, total: int) -> None:
        """A compact file being rebuilt: its progress with Cancel (shown after a few seconds, so a
        short rebuild shows none); (0, 0): the opening ended."""
        if not total:
            if self.opening_dialog is not None:
                self.opening_dialog.deleteLater()
                self.opening_dialog = None
            return
        if self.opening_dialog is None:
            self.opening_dialog = QProgressDialog(
                translate("MainWindow", "Opening the conversation (rebuilding it from its file)..."),
                translate("MainWindow", "Cancel"), 0, total, self.window)
            self.opening_dialog.setWindowModality(Qt.WindowModal)
            self.opening_dialog.setAutoClose(False)
            self.opening_dialog.setAutoReset(False)
            self.opening_dialog.canceled.connect(self.model.files.cancel_open)
        self.opening_dialog.setMaximum(total)
        self.opening_dialog.setValue(frames)

    def release(self) -> None:
        """At shutdown: an offer left open keeps its journal for a later start."""
        if self.recovery is not None:
            self.recovery.offer.lock.release()
