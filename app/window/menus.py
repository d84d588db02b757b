"""The window's menus: each action calls a window command (dialogs live in the window, state in the
view-model). A new menu item is one ``add`` line here and one method on the window."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence

from app import paths
from app.conversation.media_pause import AVAILABLE as MEDIA_PAUSE_AVAILABLE
from app.conversation.media_pause import UNAVAILABLE_WHY
from app.i18n import translate
from app.widgets.plain_text import as_written
from app.window.audio_menu import add_processing_actions
from app.window.captions_menu import add_captions_action
from app.window.file_kind_menu import add_file_kind_menu
from app.window.language_menu import add_language_menu


def open_folder(window, folder: Callable[[], Path]) -> None:
    """Open the folder ``folder()`` makes in the file manager; one it cannot make is said instead."""
    try:
        path = folder()
    except paths.FolderProblem as e:
        window.show_error(str(e))
        return
    QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))


class Menus:
    def __init__(self, window) -> None:
        self.window = window
        bar = window.menuBar()
        file_menu = bar.addMenu(translate("Menus", "&File"))
        self.new_action = self.add(file_menu, translate("Menus", "&New conversation"), QKeySequence.New,
                                   window.files.new_conversation)
        self.end_action = self.add(file_menu, translate("Menus", "&End conversation"), QKeySequence("Ctrl+E"),
                                   window.files.end_conversation)
        self.end_action.setToolTip(translate("Menus", "End this conversation (you are asked to save what you "
                                                      "said); a new one waits for Talk or Start."))
        self.open_action = self.add(file_menu, translate("Menus", "&Open..."), QKeySequence.Open,
                                    window.files.open_conversation_dialog)
        self.recent_menu = file_menu.addMenu(translate("Menus", "Open &recent"))
        self.save_action = self.add(file_menu, translate("Menus", "&Save"), QKeySequence.Save, window.files.save)
        self.save_as_action = self.add(file_menu, translate("Menus", "Save &as..."), QKeySequence.SaveAs,
                                       window.files.save_as_dialog)
        self.file_kind_actions = add_file_kind_menu(file_menu, window.model.preferences.settings.file_kind,
                                                    window.model.files.set_file_kind)
        file_menu.addSeparator()
        self.add(file_menu, translate("Menus", "Export &transcript..."), None, window.files.export_transcript_dialog)
        self.add(file_menu, translate("Menus", "Export a&udio..."), None, window.files.export_audio_dialog)
        file_menu.addSeparator()
        self.add(file_menu, translate("Menus", "Open conversations &folder"), None, lambda: open_folder(window,
                                                                                                        paths.conversations_dir))
        self.add(file_menu, translate("Menus", "&Quit"), QKeySequence.Quit, window.quit)

        model_menu = bar.addMenu(translate("Menus", "&Model"))
        model_menu.setToolTipsVisible(True)
        self.add(model_menu, translate("Menus", "&Model manager..."), QKeySequence("Ctrl+M"),
                 window.dialogs.open_model_manager)
        self.chat_action = self.add(model_menu, translate("Menus", "Your &language model..."), None,
                                    window.dialogs.open_chat_dialog)
        self.chat_action.setToolTip(translate("Menus", "Talk with a language model you run (Ollama, LM Studio, "
                                                       "llama-server, vLLM) through a speech to text and a voice."))
        self.persona_action = self.add(model_menu, translate("Menus", "&Personas..."), QKeySequence("Ctrl+P"),
                                       window.dialogs.open_persona_dialog)
        self.persona_action.setToolTip(
            translate("Menus", "Choose who the assistant is (a new conversation), or edit the personas."))
        self.voices_action = self.add(model_menu, translate("Menus", "&Voices (record, import)..."), None,
                                      window.dialogs.open_voices_dialog)
        self.wait_action = self.add(model_menu, translate("Menus", "&Wait for me to speak (this conversation)"), None,
                                    window.model.set_wait_for_user)
        self.wait_action.setCheckable(True)
        self.wait_action.setChecked(window.model.waiting_for_user)
        self.wait_action.setToolTip(translate(
            "Menus", "The assistant stays silent until you press Talk or speak, in this conversation. "
            "A persona that always waits: Personas..., \"Wait for me to speak first\"."))

        self.captions_action = add_captions_action(model_menu, window.model.captions)

        self.audio_menu = bar.addMenu(translate("Menus", "&Audio"))
        self.add(self.audio_menu, translate("Menus", "&Refresh devices"), QKeySequence("F5"),
                 window.model.devices.refresh)
        self.add(self.audio_menu, translate("Menus", "&Talk key..."), None, window.dialogs.open_talk_key_dialog)
        self.pause_media_action = self.add(self.audio_menu, translate("Menus", "&Pause other players while talking"),
                                           None,
                                           lambda on: window.model.preferences.update(pause_media=on))
        self.pause_media_action.setCheckable(True)
        self.pause_media_action.setChecked(window.model.preferences.settings.pause_media)
        self.pause_media_action.setEnabled(MEDIA_PAUSE_AVAILABLE)
        self.pause_media_action.setToolTip(translate(
            "Menus", "Music and videos pause while you hold Talk or the assistant speaks, "
            "and go on afterwards.") if MEDIA_PAUSE_AVAILABLE else translate("MediaPause", UNAVAILABLE_WHY))
        self.processing_actions = add_processing_actions(self.audio_menu, window.model.devices.processing,
                                                         window.model.devices.set_processing)

        view_menu = self.view_menu = bar.addMenu(translate("Menus", "&View"))
        self.library_action = self.add(view_menu, translate("Menus", "&Library"), QKeySequence("Ctrl+L"),
                                       window.set_library_visible)
        self.library_action.setCheckable(True)
        self.library_action.setChecked(True)
        self.meters_action = self.add(view_menu, translate("Menus", "&Meters and latency"),
                                      QKeySequence("Ctrl+Shift+M"),
                                      window.set_meters_visible)
        self.meters_action.setCheckable(True)
        self.meters_action.setChecked(True)
        self.language_actions = add_language_menu(view_menu, window.model.preferences.settings.language,
                                                  window.choose_language)

        help_menu = bar.addMenu(translate("Menus", "&Help"))
        self.add(help_menu, translate("Menus", "Open &log folder"), None, lambda: open_folder(window, paths.log_dir))
        self.add(help_menu, translate("Menus", "&About Parley"), None, window.dialogs.about)
        self.rebuild_recent(window.model.preferences.settings.recent_files)

    def add(self, menu, text: str, shortcut, slot) -> QAction:
        action = QAction(text, self.window)
        if shortcut is not None:
            action.setShortcut(shortcut)
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def rebuild_recent(self, recent_files: tuple[str, ...]) -> None:
        self.recent_menu.clear()
        for path in recent_files:
            action = self.recent_menu.addAction(Path(path).name)
            action.setToolTip(as_written(path))
            action.triggered.connect(lambda checked=False, p=path: self.window.files.open_recent(p))
        self.recent_menu.setEnabled(bool(recent_files))
