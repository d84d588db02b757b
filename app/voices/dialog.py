"""The voice library dialog and the guided recording dialog: they render ``VoicesModel`` and
``VoiceRecorder`` (app/voices/view_model.py, app/voices/recorder.py) and send the user's commands back."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
)

from app.i18n import number_text, translate
from app.voices.view_model import CONSENT, VoicesModel
from app.widgets.colours import problem_style, scheme_for
from app.widgets.meters import LevelMeter
from app.widgets.plain_text import PlainLabel, as_written
from engine import VOICE_MAX_SECONDS, VOICE_MIN_SECONDS

# A classic phonetics passage (Aesop, in the IPA handbook): most of English's sounds in about 30 s.
TEXT_TO_READ = QT_TRANSLATE_NOOP(  # these three: translated where shown
    "RecordVoiceDialog",
    "The North Wind and the Sun were disputing which was the stronger, when a traveller came along "
    "wrapped in a warm cloak. They agreed that the one who first succeeded in making the traveller take "
    "his cloak off should be considered stronger than the other. Then the North Wind blew as hard as he "
    "could, but the more he blew, the more closely did the traveller fold his cloak around him; and at "
    "last the North Wind gave up the attempt. Then the Sun shone out warmly, and immediately the "
    "traveller took off his cloak."
)
AUDIO_FILTER = QT_TRANSLATE_NOOP("VoiceLibraryDialog", "Audio (*.wav *.flac *.ogg *.mp3);;All files (*)")
NO_SHIPPED = QT_TRANSLATE_NOOP("VoiceLibraryDialog", "NATF0..., VARM...: listed when a PersonaPlex model is loaded.")


def _wrapped(text: str) -> PlainLabel:
    label = PlainLabel(text)
    label.setWordWrap(True)
    return label


class RecordVoiceDialog(QDialog):
    """Record 10-30 s of reading, hear it, record again, name it and save it into the library."""

    def __init__(self, voices: VoicesModel, parent=None) -> None:
        super().__init__(parent)
        self.voices, self.recorder = voices, voices.recorder
        self.setWindowTitle(self.tr("Record a voice"))
        self.setMinimumWidth(560)
        layout = QVBoxLayout(self)
        layout.addWidget(_wrapped(translate("VoicesModel", CONSENT)))
        layout.addWidget(_wrapped(self.tr("Press Record and read this aloud in your usual voice, for "
                                          "{least} to {most} seconds:").format(least=number_text(VOICE_MIN_SECONDS),
                                                                               most=number_text(VOICE_MAX_SECONDS))))
        self.text = _wrapped(self.tr(TEXT_TO_READ))
        self.text.setFrameShape(QFrame.StyledPanel)
        self.text.setMargin(10)
        font = QFont(self.text.font())
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.text.setFont(font)
        self.text.setTextInteractionFlags(Qt.TextSelectableByMouse)
        layout.addWidget(self.text)

        self.meter = LevelMeter(self.tr("Microphone"))
        layout.addWidget(self.meter)
        self.progress = QProgressBar()
        self.progress.setRange(0, int(VOICE_MAX_SECONDS * 10))
        self.progress.setAccessibleName(self.tr("recorded length"))
        layout.addWidget(self.progress)
        self.status = _wrapped("")
        layout.addWidget(self.status)
        self.problems = _wrapped("")
        self.problems.setStyleSheet(problem_style(self.palette()))
        layout.addWidget(self.problems)

        row = QHBoxLayout()
        self.record_button = QPushButton(self.tr("&Record"))
        self.record_button.clicked.connect(self._record_or_stop)
        self.listen_button = QPushButton(self.tr("&Listen"))
        self.listen_button.clicked.connect(self._listen)
        row.addWidget(self.record_button)
        row.addWidget(self.listen_button)
        row.addStretch(1)
        layout.addLayout(row)

        name_row = QHBoxLayout()
        name_label = QLabel(self.tr("&Name"))
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText(self.tr("e.g. My voice"))
        self.name_edit.setMaxLength(40)
        name_label.setBuddy(self.name_edit)
        name_row.addWidget(name_label)
        name_row.addWidget(self.name_edit, 1)
        layout.addLayout(name_row)

        self.buttons = QDialogButtonBox(QDialogButtonBox.Cancel)
        self.save_button = self.buttons.addButton(self.tr("&Save voice"), QDialogButtonBox.AcceptRole)
        self.buttons.accepted.connect(self._save)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.name_edit.textChanged.connect(self.render)
        self.recorder.changed.connect(self.render)
        self.finished.connect(self.recorder.discard)
        self.recorder.discard()  # a fresh take (and no voice of the library still playing)
        self.render()

    def render(self) -> None:
        r = self.recorder
        recording, has_audio = r.state == "recording", r.state in ("recorded", "playing")
        self.record_button.setText(self.tr("&Stop") if recording
                                   else self.tr("Record &again") if has_audio else self.tr("&Record"))
        self.listen_button.setText(self.tr("Stop &listening") if r.state == "playing" else self.tr("&Listen"))
        self.listen_button.setEnabled(has_audio)
        self.meter.set_level(r.level_db)
        self.progress.setValue(int(r.seconds * 10))
        self.progress.setFormat(self.tr("{seconds} s").format(seconds=number_text(r.seconds, 1)))
        if r.error:
            status = r.error
        elif recording:
            left = VOICE_MIN_SECONDS - r.seconds
            status = (self.tr("Recording... %n s more at least.", "", max(1, round(left))) if left > 0 else
                      self.tr("Recording... you can stop now, or go on (it stops at {most} s).").format(
                          most=number_text(VOICE_MAX_SECONDS)))
        elif has_audio:
            status = self.tr("Listen to it; record again if it does not sound like you, or name it and save it.")
        else:
            status = self.tr("Not recording.")
        self.status.setText(status)
        self.problems.setText("\n".join(r.problems + ((self.voices.error,) if self.voices.error else ())))
        self.save_button.setEnabled(has_audio and not r.problems and bool(self.name_edit.text().strip()))

    def _record_or_stop(self) -> None:
        if self.recorder.state == "recording":
            self.recorder.stop()
        else:
            self.recorder.record()

    def _listen(self) -> None:
        if self.recorder.state == "playing":
            self.recorder.stop()
        else:
            self.recorder.play()

    def _save(self) -> None:
        self.recorder.stop()
        if self.voices.save_recording(self.name_edit.text()):
            self.accept()
        else:
            self.render()


class VoiceLibraryDialog(QDialog):
    """The shipped voices and the user's own: record, import, play, rename, remove."""

    def __init__(self, voices: VoicesModel, parent=None) -> None:
        super().__init__(parent)
        self.voices = voices
        self.setWindowTitle(self.tr("Voices"))
        self.setMinimumSize(560, 420)
        layout = QVBoxLayout(self)
        layout.addWidget(_wrapped(self.tr("PersonaPlex speaks with the voice of its persona (Model > Personas). "
                                          "Your own voices can be chosen there by name, and with "
                                          "\"parley offline --voice-prompt NAME\".")))
        row = QHBoxLayout()
        self.list = QListWidget()
        self.list.setAccessibleName(self.tr("voices"))
        self.list.setWordWrap(True)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.list.currentItemChanged.connect(lambda *_: self.render_buttons())
        self.list.itemDoubleClicked.connect(lambda *_: self.play())
        row.addWidget(self.list, 1)
        buttons = QVBoxLayout()
        self.record_button = self._button(buttons, self.tr("&Record..."), self.record)
        self.import_button = self._button(buttons, self.tr("&Import..."), self.import_file)
        buttons.addSpacing(12)
        self.play_button = self._button(buttons, self.tr("&Play"), self.play)
        self.rename_button = self._button(buttons, self.tr("Re&name..."), self.rename)
        self.remove_button = self._button(buttons, self.tr("Remo&ve"), self.remove)
        buttons.addStretch(1)
        row.addLayout(buttons)
        layout.addLayout(row)
        self.note = _wrapped("")
        layout.addWidget(self.note)
        layout.addWidget(_wrapped(translate("VoicesModel", CONSENT) + " " + self.tr(
            "Your voices are kept in {folder}.").format(folder=voices.library.folder)))
        close = QDialogButtonBox(QDialogButtonBox.Close)
        close.rejected.connect(self.reject)
        layout.addWidget(close)
        voices.changed.connect(self.render)
        voices.recorder.changed.connect(self.render_buttons)
        self.finished.connect(voices.recorder.discard)
        self.render()

    def _button(self, layout, text: str, slot) -> QPushButton:
        button = QPushButton(text)
        button.clicked.connect(slot)
        layout.addWidget(button)
        return button

    # -- rendering ---------------------------------------------------------------------------
    def render(self) -> None:
        current = self.voices.take_made() or self.selected()  # what a command just made, else what was chosen
        self.list.clear()
        self._section(self.tr("Shipped with the model"))
        shipped = [e for e in self.voices.entries if e.kind == "shipped"]
        own = [e for e in self.voices.entries if e.kind == "user"]
        for entry in shipped:
            self._item(entry)
        if not shipped:
            self._section(self.tr(NO_SHIPPED), hint=True)
        self._section(self.tr("Your voices"))
        for entry in own:
            self._item(entry)
        if not own:
            self._section(self.tr("None yet: record one or import a recording."), hint=True)
        for i in range(self.list.count()):
            if self.list.item(i).data(Qt.UserRole) == current:
                self.list.setCurrentRow(i)
        v = self.voices
        self.note.setText(v.error or v.message)
        self.note.setStyleSheet(problem_style(self.palette()) if v.error else "")
        self.render_buttons()

    def _section(self, text: str, hint: bool = False) -> None:
        item = QListWidgetItem(text)
        item.setFlags(Qt.ItemIsEnabled)  # never selectable
        if hint:  # the muted colour, which reads in both palettes (a disabled item's grey did not)
            item.setForeground(QColor(scheme_for(self.palette()).muted))
        font = item.font()
        font.setBold(not hint)
        font.setItalic(hint)
        item.setFont(font)
        self.list.addItem(item)

    def _item(self, entry) -> None:
        item = QListWidgetItem(f"    {entry.label}")
        item.setData(Qt.UserRole, entry.name)
        if entry.problem:
            item.setToolTip(as_written(entry.problem))
        self.list.addItem(item)

    def render_buttons(self) -> None:
        entry = self.voices.entry(self.selected() or "")
        own = entry is not None and entry.kind == "user"
        playing = self.voices.recorder.state == "playing"
        self.play_button.setText(self.tr("Sto&p") if playing else self.tr("&Play"))
        self.play_button.setEnabled(playing or (own and not entry.problem))
        self.play_button.setToolTip("" if own or entry is None
                                    else self.tr("Shipped voices have no recording to play."))
        self.rename_button.setEnabled(own)
        self.remove_button.setEnabled(own)

    def selected(self) -> str | None:
        item = self.list.currentItem()
        return item.data(Qt.UserRole) if item is not None else None

    # -- commands ----------------------------------------------------------------------------
    def record(self) -> RecordVoiceDialog:
        dialog = RecordVoiceDialog(self.voices, self)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        dialog.open()
        return dialog

    def import_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Import a voice recording"), str(Path.home()),
                                              self.tr(AUDIO_FILTER))
        if not path:
            return
        pcm = self.voices.read_import(path)  # too short, quiet or clipped: said before a name is asked
        if pcm is None:
            return
        name, ok = QInputDialog.getText(self, self.tr("Import a voice"), self.tr("Name of the voice:"),
                                       text=Path(path).stem[:40])
        if ok:
            self.voices.add_imported(name, pcm)

    def play(self) -> None:
        if self.voices.recorder.state == "playing":
            self.voices.recorder.stop()
        elif self.selected():
            self.voices.play(self.selected())

    def rename(self) -> None:
        name = self.selected()
        new, ok = QInputDialog.getText(self, self.tr("Rename a voice"),
                                       self.tr("New name for {name}:").format(name=name),
                                       text=name or "")
        if name and ok:
            self.voices.rename(name, new)

    def remove(self) -> None:
        name = self.selected()
        if name and QMessageBox.question(self, self.tr("Remove a voice"),
                                         as_written(self.tr("Delete the voice {name} and its recording?").format(
                                             name=name)),
                                         QMessageBox.Yes | QMessageBox.No, QMessageBox.No) == QMessageBox.Yes:
            self.voices.remove(name)
