"""The persona dialog: pick a persona to start a conversation with, and edit, make or delete them.

It renders ``PersonasModel`` (app/voices/personas_model.py), which holds the list, the selection and the
draft being edited, and sends the user's edits and commands back to it. What the loaded model does
not support is not shown: a Moshi model has no voice or role prompt, so those rows are hidden and a
note says what applies instead. How varied the assistant is reads as a named style (Steady ...
Lively) on every model; the sampling numbers behind it are shown on request.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.engine_texts import persona_name
from app.i18n import number_text, translate
from app.voices.personas_model import CUSTOM_STYLE, STYLES, PersonasModel, style_of, voice_label
from app.widgets.colours import problem_style
from app.widgets.plain_text import PlainLabel, as_written
from engine import DEFAULT_ROLE, SamplingConfig

INTRO = QT_TRANSLATE_NOOP("PersonaDialog", "Choosing a persona starts a new conversation with it; the current "
                          "conversation is kept in the library. Edits of the personas that come with Parley are saved "
                          "as your own copy, which Reset undoes.")  # translated where shown
KINDS = {"shipped": "{name}", "edited": QT_TRANSLATE_NOOP("PersonaDialog", "{name}  ·  edited"),
         "user": QT_TRANSLATE_NOOP("PersonaDialog", "{name}  ·  yours")}


def entry_label(entry) -> str:
    label = QT_TRANSLATE_NOOP("PersonaDialog", "{name}  ·  damaged") if entry.problem else KINDS[entry.kind]
    return translate("PersonaDialog", label).format(name=persona_name(entry.name))


class PersonaDialog(QDialog):
    def __init__(self, personas: PersonasModel, parent=None) -> None:
        super().__init__(parent)
        self.personas = personas
        self.setWindowTitle(self.tr("Personas"))
        self.setMinimumSize(780, 520)
        layout = QVBoxLayout(self)
        intro = QLabel(self.tr(INTRO))
        intro.setWordWrap(True)
        layout.addWidget(intro)

        row = QHBoxLayout()
        left = QVBoxLayout()
        self.list = QListWidget()
        self.list.setAccessibleName(self.tr("personas"))
        self.list.currentItemChanged.connect(self._picked)
        self.list.itemDoubleClicked.connect(lambda *_: self.start())
        left.addWidget(self.list, 1)
        left_buttons = QHBoxLayout()
        self.new_button = QPushButton(self.tr("Ne&w"))
        self.new_button.setToolTip(self.tr("A new persona with the selected one's settings"))
        self.new_button.clicked.connect(personas.new_persona)
        self.delete_button = QPushButton(self.tr("&Delete"))
        self.delete_button.clicked.connect(personas.delete)
        left_buttons.addWidget(self.new_button)
        left_buttons.addWidget(self.delete_button)
        left.addLayout(left_buttons)
        row.addLayout(left, 2)
        row.addWidget(self._build_form(), 5)
        layout.addLayout(row, 1)

        self.status = PlainLabel()
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Close)
        self.save_button = self.buttons.addButton(self.tr("S&ave"), QDialogButtonBox.ApplyRole)
        self.save_button.clicked.connect(personas.save)
        self.start_button = self.buttons.addButton(self.tr("Start &conversation"), QDialogButtonBox.AcceptRole)
        self.start_button.setDefault(True)
        self.buttons.accepted.connect(self.start)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        personas.changed.connect(self.render)
        self.render()

    def _build_form(self) -> QWidget:
        form_widget = QWidget()
        self.form = QFormLayout(form_widget)
        self.form.setContentsMargins(0, 0, 0, 0)
        self.name_edit = QLineEdit()
        self.name_edit.setMaxLength(40)
        self.name_edit.textEdited.connect(lambda text: self.personas.edit(name=text))
        self.voice_combo = QComboBox()
        self.voice_combo.setAccessibleName(self.tr("voice"))
        self.voice_combo.activated.connect(lambda i: self.personas.edit(voice=self.voice_combo.itemData(i)))
        self.role_edit = QPlainTextEdit()
        self.role_edit.setAccessibleName(self.tr("role"))
        self.role_edit.setTabChangesFocus(True)  # keyboard users can leave the editor with Tab
        self.role_edit.setPlaceholderText(self.tr("Empty: the model's default role ({role})").format(role=DEFAULT_ROLE))
        self.role_edit.textChanged.connect(self._role_edited)
        defaults = SamplingConfig()
        self.temp = self._temperature(
            "temp", self.tr("Temperature of speech"),
            self.tr("How varied the speech is (0 = always the likeliest; default {value})").format(
                value=number_text(defaults.temp, 1)))
        self.temp_text = self._temperature(
            "temp_text", self.tr("Temperature of words"),
            self.tr("How varied the words are (default {value})").format(value=number_text(defaults.temp_text, 1)))
        self.top_k = self._top_k("top_k", self.tr("Top-k of speech"),
                                 self.tr("Audio tokens to choose from (default {value})").format(value=defaults.top_k))
        self.top_k_text = self._top_k("top_k_text", self.tr("Top-k of words"),
                                      self.tr("Words to choose from (default {value})").format(
                                          value=defaults.top_k_text))
        style_row = QHBoxLayout()
        self.style_combo = QComboBox()
        self.style_combo.setAccessibleName(self.tr("Style"))
        self.style_combo.setToolTip(self.tr("How varied the assistant's speech and words are."))
        self.style_combo.activated.connect(self._style_chosen)
        self.numbers_button = QPushButton(self.tr("Numbers..."))
        self.numbers_button.setCheckable(True)
        self.numbers_button.setToolTip(
            self.tr("Show the sampling settings the style stands for (temperature and top-k)."))
        self.numbers_button.toggled.connect(self.personas.show_numbers)
        style_row.addWidget(self.style_combo, 1)
        style_row.addWidget(self.numbers_button)
        sampling = QHBoxLayout()
        for label, box in ((self.tr("speech"), self.temp), (self.tr("words"), self.temp_text)):
            sampling.addWidget(QLabel(label))
            sampling.addWidget(box)
        sampling.addStretch(1)
        top_k = QHBoxLayout()
        for label, box in ((self.tr("speech"), self.top_k), (self.tr("words"), self.top_k_text)):
            top_k.addWidget(QLabel(label))
            top_k.addWidget(box)
        top_k.addStretch(1)
        self.wait_box = QCheckBox(self.tr("Wait for me to speak first"))
        self.wait_box.setToolTip(self.tr("The assistant stays silent until you press Talk or speak."))
        self.wait_box.toggled.connect(lambda on: self.personas.edit(wait_for_user=on))
        self.form.addRow(self.tr("&Name"), self.name_edit)
        self.form.addRow(self.tr("&Voice"), self.voice_combo)
        self.form.addRow(self.tr("&Role"), self.role_edit)
        style_label = QLabel(self.tr("&Style"))
        style_label.setBuddy(self.style_combo)  # a row of two widgets: Alt+S goes to the choice
        self.form.addRow(style_label, style_row)
        self.form.addRow(self.tr("Temperature"), sampling)
        self.form.addRow(self.tr("Top-k"), top_k)
        self.form.addRow("", self.wait_box)
        self.note = PlainLabel()  # what the loaded model takes of a persona, right under what it shows
        self.note.setWordWrap(True)
        self.form.addRow(self.note)
        return form_widget

    def _temperature(self, field: str, name: str, tip: str) -> QDoubleSpinBox:
        box = QDoubleSpinBox()
        box.setRange(0.0, 2.0)
        box.setSingleStep(0.05)
        box.setDecimals(2)
        box.setToolTip(tip)
        box.setAccessibleName(name)
        box.valueChanged.connect(lambda v: self.personas.edit(**{field: round(v, 2)}))
        return box

    def _top_k(self, field: str, name: str, tip: str) -> QSpinBox:
        box = QSpinBox()
        box.setRange(1, 4096)
        box.setToolTip(tip)
        box.setAccessibleName(name)
        box.valueChanged.connect(lambda v: self.personas.edit(**{field: v}))
        return box

    # -- rendering ---------------------------------------------------------------------------
    def render(self) -> None:
        p = self.personas
        self.list.blockSignals(True)
        self.list.clear()
        for entry in p.entries:
            item = QListWidgetItem(entry_label(entry))
            item.setData(Qt.UserRole, entry.name)
            item.setToolTip(as_written(entry.problem))
            self.list.addItem(item)
            if entry.name == p.selected:
                self.list.setCurrentItem(item)
        self.list.blockSignals(False)

        current, draft = p.current, p.draft
        usable = current is not None and current.persona is not None
        for widget in (self.name_edit, self.voice_combo, self.role_edit, self.style_combo, self.numbers_button,
                       self.temp, self.temp_text, self.top_k, self.top_k_text, self.wait_box):
            widget.blockSignals(True)
            widget.setEnabled(usable)
        kept_name = current is not None and current.kind != "user"  # Parley's: its name cannot be edited
        shown_name = persona_name(draft.name) if kept_name else draft.name  # in the interface's language
        if self.name_edit.text() != shown_name:
            self.name_edit.setText(shown_name)
        self.name_edit.setReadOnly(kept_name)
        self.name_edit.setToolTip("" if current is None or current.kind == "user"
                                  else self.tr("The personas that come with Parley keep their names; New makes one "
                                               "of yours."))
        self.voice_combo.clear()
        for voice in p.voice_choices():
            label = voice_label(voice)
            self.voice_combo.addItem(label[:1].upper() + label[1:] if voice in ("", "none") else voice, voice)
        self.voice_combo.setCurrentIndex(max(0, self.voice_combo.findData(draft.voice)))
        if self.role_edit.toPlainText() != draft.role:
            self.role_edit.setPlainText(draft.role)
        self.style_combo.clear()
        style = style_of(draft.sampling)
        for choice in ((CUSTOM_STYLE,) if style is CUSTOM_STYLE else ()) + STYLES:
            self.style_combo.addItem(translate("PersonasModel", choice.name), choice.name)
            self.style_combo.setItemData(self.style_combo.count() - 1, translate("PersonasModel", choice.says),
                                         Qt.ToolTipRole)
        self.style_combo.setCurrentIndex(self.style_combo.findData(style.name))
        self.numbers_button.setChecked(p.numbers_shown)
        self.temp.setValue(draft.sampling.temp)
        self.temp_text.setValue(draft.sampling.temp_text)
        self.top_k.setValue(draft.sampling.top_k)
        self.top_k_text.setValue(draft.sampling.top_k_text)
        self.wait_box.setChecked(draft.wait_for_user)
        for widget in (self.name_edit, self.voice_combo, self.role_edit, self.style_combo, self.numbers_button,
                       self.temp, self.temp_text, self.top_k, self.top_k_text, self.wait_box):
            widget.blockSignals(False)
        for row in (1, 2):  # voice, role: only where the model takes them
            self.form.setRowVisible(row, p.prompts_apply)
        for row in (4, 5):  # temperature, top-k: behind the style, on request
            self.form.setRowVisible(row, p.numbers_shown)

        kind = current.kind if current is not None else "user"
        self.delete_button.setText(self.tr("R&eset") if kind != "user" else self.tr("&Delete"))
        self.delete_button.setEnabled(kind != "shipped")
        self.delete_button.setToolTip({"shipped": self.tr("Comes with Parley: cannot be deleted"),
                                       "edited": self.tr("Undo your changes: back to how Parley ships it"),
                                       "user": self.tr("Delete this persona")}[kind])
        self.save_button.setEnabled(usable and p.dirty)
        self.start_button.setEnabled(usable)
        self.note.setText(p.note)
        self.status.setText(p.error or p.message)
        self.status.setStyleSheet(problem_style(self.palette()) if p.error else "")

    # -- user actions ------------------------------------------------------------------------
    def _picked(self, item, _previous=None) -> None:
        if item is not None:
            self.personas.select(item.data(Qt.UserRole))

    def _style_chosen(self, index: int) -> None:
        name = self.style_combo.itemData(index)
        if name != CUSTOM_STYLE.name:
            self.personas.set_style(name)

    def _role_edited(self) -> None:
        self.personas.edit(role=self.role_edit.toPlainText())

    def start(self) -> None:
        if self.personas.choose():
            self.accept()
