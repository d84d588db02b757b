"""The window's conversation commands that ask the person something first: New, End, Open (a file,
a library entry, a recent file), Save, Save as, the exports, a persona's new conversation and Stop
talking with your language model. Each asks (a file dialog, "save first?") and hands the answer to
the view-model: to its ``ConversationFiles``, or while a conversation with your language model
runs to its ``ChatMode``, which keeps that conversation's file."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject
from PySide6.QtWidgets import QFileDialog, QMessageBox

from app.conversation.transcript_formats import FORMATS, format_named_by_filter
from app.i18n import translate
from app.library.listing import ConversationEntry
from app.library.model_offer import model_to_offer
from app.library.names import new_conversation_path
from app.widgets.plain_text import as_written
from engine import CHAT_CONVERSATION

CONVERSATION_FILTER = QT_TRANSLATE_NOOP("MainWindow", "Parley conversation (*.parley);;All files (*)")


class FileCommands(QObject):
    def __init__(self, window) -> None:
        """``window``: the ``MainWindow``, the dialogs' parent, whose view-model, library and replay are used."""
        super().__init__(window)
        self.window = window
        self.model, self.library = window.model, window.library
        self.close_after_save = False  # Save chosen on quitting: the window closes once the file is written
        self.model.files.saved.connect(self._saved)
        self.model.chat.saved.connect(self._saved)

    @property
    def current(self):
        """Whose file the conversation shown is: the chat's while it runs, else the speech model's
        (both have ``conversation_path``, ``unsaved_frames``, ``save`` and ``export_audio``)."""
        return self.model.chat if self.model.chat.active else self.model.files

    def stop_chat(self) -> None:
        """Back to the speech model, once the conversation with your language model is saved or let go."""
        if self.confirm_discard():
            self.model.stop_chat()

    def new_conversation(self) -> None:
        if self.confirm_discard():
            self.model.new_conversation()

    def end_conversation(self) -> None:
        """End: the frames stop at once; what the person said is offered to be saved; a new, empty
        conversation waits for Talk or Start. Cancel lets the conversation go on as it was."""
        was_live = self.model.live
        self.model.pause()
        if self.confirm_discard():
            self.model.end_conversation()
        elif was_live:
            self.model.start()

    def open_conversation_dialog(self) -> None:
        if not self.confirm_discard():
            return
        path, _ = QFileDialog.getOpenFileName(self.window, translate("MainWindow", "Open conversation"),
                                              str(self.library.folder), translate("MainWindow", CONVERSATION_FILTER))
        if path:
            self.model.open_file(path, self.library.folder)

    def open_entry(self, entry: ConversationEntry) -> None:
        """Open a library entry; one saved with another model offers to switch to that model, where
        it is on this machine (``app.library.model_offer``)."""
        if entry.info is None:
            self.window.show_error(entry.error)
            return
        info = self.model.models.model_info
        with_language_model = entry.info.kind == CHAT_CONVERSATION  # needs no speech model
        if info is not None and entry.info.fingerprint != info.fingerprint and not with_language_model:
            other = model_to_offer(entry.info.model, self.model.preferences.settings.model)
            if other == info.name:  # the same name, other weights: loading it again would offer it again
                self.window.show_error(translate("MainWindow",
                    "“{title}” was saved with another copy of the model {model}, whose weights differ from the "
                    "loaded one's (built or downloaded elsewhere), so Parley cannot continue it here.").format(
                        title=entry.title, model=info.label))
                return
            if other is None:
                self.window.show_error(translate("MainWindow",
                    "“{title}” was saved with the model {model}, which is not on this machine (the loaded model "
                    "is {loaded}). Parley does not fetch or load a model a file names: load that model yourself, "
                    "then open the conversation again.").format(title=entry.title, model=entry.info.model[:200],
                                                                 loaded=info.label))
                return
            answer = QMessageBox.question(
                self.window, translate("MainWindow", "Another model"),
                as_written(translate("MainWindow", "“{title}” was saved with the model {model}; the loaded model "
                                                   "is {loaded}. Switch to {other} and open it?").format(
                    title=entry.title, model=entry.info.model, loaded=info.label, other=other)),
                QMessageBox.Yes | QMessageBox.Cancel, QMessageBox.Yes)
            if answer == QMessageBox.Yes and self.confirm_discard():
                self.model.models.switch_model_and_open(other, str(entry.path))
            return
        if self.confirm_discard():
            self.model.open_file(str(entry.path), self.library.folder)

    def replay_entry(self, entry: ConversationEntry) -> None:
        """Play a saved conversation's recording; needs no model. The live conversation pauses (its
        reply would play over the replay); Continue resumes it."""
        if self.window.replay.load(str(entry.path)):
            self.model.pause()
            self.window.replay.play()

    def open_recent(self, path: str) -> None:
        if not os.path.exists(path):
            self.window.show_error(translate("MainWindow", "{path} no longer exists.").format(path=path))
            self.model.files.forget_recent(path)
            return
        if self.confirm_discard():
            self.model.open_file(path, self.library.folder)

    def apply_persona(self, persona) -> None:
        """Start a conversation with ``persona`` (an ``engine.Persona``); the current one, if it has
        unsaved changes, is saved first: to its file, or into the library under a new name."""
        keep = None
        if self.model.files.unsaved_frames:
            keep = self.model.files.conversation_path or str(new_conversation_path(self.library.folder))
        self.model.start_with_persona(persona, keep_in=keep)

    def save(self) -> bool:
        """Save to the conversation's file, or where the person chooses; False when they cancelled."""
        files = self.current
        if files.conversation_path and os.path.isfile(files.conversation_path):
            files.save(files.conversation_path)
            return True
        return self.save_as_dialog()

    def save_as_dialog(self) -> bool:
        files = self.current
        start = files.conversation_path or str(new_conversation_path(self.library.folder))
        while True:
            path, _ = QFileDialog.getSaveFileName(self.window, translate("MainWindow", "Save conversation"), start,
                                                  translate("MainWindow", CONVERSATION_FILTER))
            if not path:
                break
            if not Path(path).stem.strip():  # a blank name: a blank row in the library
                QMessageBox.warning(self.window, translate("MainWindow", "Save conversation"),
                                    translate("MainWindow", "A conversation needs a name: type one, or keep the "
                                                            "one proposed."))
                continue
            files.save(path if Path(path).suffix else path + ".parley")
            return True
        self.close_after_save = False
        return False

    def _saved(self, _path: str) -> None:
        if self.close_after_save:
            self.window.close()

    def export_transcript_dialog(self) -> None:
        conversation = Path(self.current.conversation_path or new_conversation_path(self.library.folder))
        path, chosen = QFileDialog.getSaveFileName(self.window, translate("MainWindow", "Export transcript"),
                                                   str(conversation.with_suffix(FORMATS[0].suffix)),
                                                   ";;".join(f.dialog_filter for f in FORMATS))
        if path:
            if not Path(path).suffix:
                path += format_named_by_filter(chosen).suffix
            self.model.files.export_transcript(path)

    def export_audio_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self.window, translate("MainWindow", "Export conversation audio"),
                                              str(self.library.folder / "conversation.wav"),
                                              translate("MainWindow", "WAV audio, left: you, right: assistant (*.wav)"))
        if path:
            self.current.export_audio(path if path.lower().endswith(".wav") else path + ".wav")

    def confirm_discard(self) -> bool:
        """Whether to go on with what replaces the conversation: nothing the person said is unsaved,
        or they chose Discard, or Save (the engine thread writes it before it runs what comes next)."""
        if not self.current.unsaved_frames:
            return True
        answer = QMessageBox.question(self.window, translate("MainWindow", "Unsaved conversation"),
                                      translate("MainWindow", "Save the current conversation before it is closed?"),
                                      QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, QMessageBox.Save)
        if answer == QMessageBox.Save:
            return self.save()
        return answer == QMessageBox.Discard

    def confirm_quit(self) -> bool:
        """Whether the window may close now: nothing unsaved, Discard, or the save already written; Save
        starts the save and closes the window once the worker reports it written."""
        if not self.current.unsaved_frames or self.close_after_save:
            return True
        answer = QMessageBox.question(
            self.window, translate("MainWindow", "Save conversation?"),
            translate("MainWindow", "Save the current conversation before quitting?"),
            QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, QMessageBox.Save)
        if answer == QMessageBox.Save:
            self.close_after_save = True
            self.save()
        return answer == QMessageBox.Discard
