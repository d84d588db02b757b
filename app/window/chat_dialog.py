"""Your language model: the dialog where the person chooses their server and model, and the strip
under the turns that says what the conversation with it does (with Stop, back to the speech-to-speech
model). Both render ``app.conversation.chat_mode.ChatMode``; the servers already running are found
by ``app.conversation.chat_servers``."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.chat.discovery import find_servers
from app.conversation.chat_servers import ServerSearch, found_note
from app.widgets.plain_text import PlainLabel, as_written
from engine import CAPTION_PRESETS

TEXT_WIDTH = 440  # pixels: the wrapped texts' width, so that the dialog is not a tall column


class ChatDialog(QDialog):
    def __init__(self, model, parent=None, finder=find_servers, conversations_folder: Path | None = None) -> None:
        """``model``: the ``ConversationModel`` (its ``chat`` and ``preferences``); ``finder``: how
        running servers are found (``app.chat.discovery.find_servers``); ``conversations_folder``:
        the library that the model may search, where the person lets it."""
        super().__init__(parent)
        self.model, self.conversations_folder = model, conversations_folder
        self.setWindowTitle(self.tr("Your language model"))
        layout = QVBoxLayout(self)
        intro = PlainLabel(self.tr("Talk with a language model you run (Ollama, LM Studio, llama-server, vLLM): "
                                   "your speech is written by a speech to text, the model answers, and a Pocket TTS "
                                   "voice speaks its answer. Hold Talk while you speak."))
        intro.setWordWrap(True)
        layout.addWidget(intro)
        intro.setMinimumWidth(TEXT_WIDTH)
        form = QFormLayout()
        settings = model.preferences.settings
        self.url_edit = QLineEdit(settings.llm_url)
        self.url_edit.setPlaceholderText("http://localhost:11434/v1")
        form.addRow(self.tr("Server &address"), self.url_edit)
        self.model_combo = QComboBox()
        self.model_combo.setEditable(True)
        self.model_combo.setEditText(settings.llm_model)
        form.addRow(self.tr("&Model"), self.model_combo)
        self.key_edit = QLineEdit()  # never filled in: a kept key stays in the keyring
        self.key_edit.setEchoMode(QLineEdit.Password)
        self.key_edit.setPlaceholderText(self.tr("Only where the server asks for one"))
        form.addRow(self.tr("&Key"), self.key_edit)
        self.stt_combo = QComboBox()
        self.stt_combo.addItems(list(CAPTION_PRESETS))
        self.stt_combo.setCurrentText(model.chat.stt_model())
        form.addRow(self.tr("Speech to te&xt"), self.stt_combo)
        layout.addLayout(form)
        key_note = PlainLabel(self.tr("A key is kept in your system's keyring, never in a file."))
        key_note.setWordWrap(True)
        layout.addWidget(key_note)
        # Nothing runs that the person did not let it: each tool is off until ticked (and kept so).
        self.tool_boxes = {
            "clock": QCheckBox(self.tr("Let it read the c&lock (today's date and the time here)")),
            "conversations": QCheckBox(self.tr("Let it &search your saved conversations")),
        }
        for name, box in self.tool_boxes.items():
            box.setChecked(name in settings.llm_tools)
            layout.addWidget(box)
        self.note = PlainLabel()
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        buttons = QHBoxLayout()
        self.find_button = QPushButton(self.tr("&Find running servers"))
        self.find_button.clicked.connect(self.find)
        self.talk_button = QPushButton(self.tr("&Talk with it"))
        self.talk_button.setDefault(True)
        self.talk_button.clicked.connect(self.talk)
        close = QPushButton(self.tr("Close"))
        close.setAutoDefault(False)
        close.clicked.connect(self.reject)
        buttons.addWidget(self.find_button)
        buttons.addStretch(1)
        buttons.addWidget(self.talk_button)
        buttons.addWidget(close)
        layout.addLayout(buttons)
        self.search = ServerSearch(self, finder)
        self.search.finished.connect(self.show_found)
        if not settings.llm_url:
            self.find()
        self._fit()

    def find(self) -> None:
        self.find_button.setEnabled(False)
        self.say(self.tr("Looking for Ollama and LM Studio on this computer..."))
        self.search.search()

    def say(self, text: str) -> None:
        """The note under the fields; the dialog grows to show all of it (wrapped labels do not ask)."""
        self.note.setText(text)
        self._fit()

    def _fit(self) -> None:
        layout = self.layout()
        layout.activate()
        width = max(self.width(), layout.totalMinimumSize().width())
        self.resize(width, max(self.height(), layout.totalHeightForWidth(width)))

    def show_found(self, found: list) -> None:
        self.find_button.setEnabled(True)
        self.say(found_note(found))
        if not found:
            return
        chosen = self.model_combo.currentText()
        self.url_edit.setText(found[0].url)
        self.model_combo.clear()
        self.model_combo.addItems(list(found[0].models))
        self.model_combo.setEditText(chosen if chosen in found[0].models else (found[0].models or ("",))[0])

    def talk(self) -> None:
        tools = tuple(name for name, box in self.tool_boxes.items() if box.isChecked())
        if self.model.start_chat(self.url_edit.text(), self.model_combo.currentText(), tools=tools,
                                 conversations_folder=self.conversations_folder,
                                 stt_model=self.stt_combo.currentText(), api_key=self.key_edit.text().strip() or None):
            self.accept()
        else:
            self.say(self.model.chat.message)


class ChatStrip(QObject):
    """Under the turns while a conversation with your language model runs: what it does, and Stop."""

    def __init__(self, window, chat) -> None:
        """``window``: the ``MainWindow``, whose file commands Stop goes through (save first?)."""
        super().__init__(window)
        self.chat = chat
        panel = window.conversation_panel
        self.widget = QWidget()
        row = QHBoxLayout(self.widget)
        row.setContentsMargins(0, 0, 0, 0)
        self.label = PlainLabel()
        self.label.setWordWrap(True)
        self.stop_button = QPushButton(self.tr("Stop talking with your language model"))
        self.stop_button.clicked.connect(window.files.stop_chat)
        row.addWidget(self.label, 1)
        row.addWidget(self.stop_button)
        layout = panel.layout()
        layout.insertWidget(layout.indexOf(panel.placeholder) + 1, self.widget)
        chat.changed.connect(self.render)
        self.render()

    def render(self) -> None:
        self.label.setText(self.chat.message)
        self.label.setToolTip(as_written(self.chat.message))
        self.widget.setVisible(self.chat.active)
