"""The model manager: which presets exist, which are on this machine, download them, pick one,
and move a preset to a newer commit of its hub repository when (only when) the person asks."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

import engine
from app.i18n import number_text, translate
from app.models.device_report import cuda_unavailable_reason
from app.models.download import ModelDownload
from app.models.model_texts import description, listed, memory_text, summary, terms, terms_short
from app.models.pair_fit import captions_line, least_gpu_gb, partners
from app.models.preset_notes import (
    RUNS_HERE,
    auto_choice,
    auto_precision,
    cuda_build,
    fit_badge,
    free_disk_gb,
    gpu_memory,
    revision_note,
    this_gpu,
)
from app.models.speech_rows import is_voice, remove_question, runs_on_any_cpu, status_of, voice_note
from app.settings import AppSettings
from app.widgets.plain_text import PlainLabel, as_written, escaped
from engine import short_revision

DEVICES = ("auto", "cpu", "cuda")
PRECISIONS = tuple(p.value for p in engine.Precision)
COLUMNS = (QT_TRANSLATE_NOOP("ModelManager", "Model"), QT_TRANSLATE_NOOP("ModelManager", "About"),  # translated
           QT_TRANSLATE_NOOP("ModelManager", "Here"), QT_TRANSLATE_NOOP("ModelManager", "Size"),  # where shown
           QT_TRANSLATE_NOOP("ModelManager", "With captions"), QT_TRANSLATE_NOOP("ModelManager", "On this machine"),
           QT_TRANSLATE_NOOP("ModelManager", "Licence"))
ELIDED_COLUMN_PX = 150

class ModelManagerDialog(QDialog):
    model_chosen = Signal(str, str, str)  # preset name, device, precision
    chat_requested = Signal()  # "Your language model": the person's own server instead of a model here
    finished_download = Signal(str)  # what a download or update check came to (not a cancel: the person's own)

    def __init__(self, settings: AppSettings, parent=None, in_use: str | None = None) -> None:
        """``in_use``: the preset the window runs now (None: none)."""
        super().__init__(parent)
        self.in_use = in_use
        self.confirmation: QMessageBox | None = None  # the question asked before a download
        # The conversation models, then the caption models, then the voice models.
        self.presets = {**engine.PRESETS, **engine.CAPTION_PRESETS, **engine.SPEECH_PRESETS}
        self.download: ModelDownload | None = None
        self.offered: dict[str, str] = {}  # preset -> a commit other than the one in use, found when asked
        self.cuda_problem = cuda_unavailable_reason()
        self.gpu = this_gpu(self.cuda_problem)
        # The GPU's memory, for what auto would choose and whether captions fit beside (None: no GPU here).
        self.cuda = gpu_memory() if self.cuda_problem is None else None
        self.setWindowTitle(self.tr("Models"))
        self.setMinimumSize(760, 420)
        self.resize(980, 480)
        layout = QVBoxLayout(self)

        self.table = QTableWidget(len(self.presets), len(COLUMNS))
        self.table.setHorizontalHeaderLabels([translate("ModelManager", c) for c in COLUMNS])
        self.table.setAccessibleName(self.tr("Models"))
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setTabKeyNavigation(False)  # Tab leaves the table for the buttons; the arrows choose a row
        self.table.verticalHeader().hide()
        self.table.setWordWrap(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeToContents)
        for column in ("About", "Here", "With captions"):  # the texts share the room and wrap, none squeezing another
            header.setSectionResizeMode(COLUMNS.index(column), QHeaderView.Stretch)
        for column in ("On this machine", "Licence"):  # long paths and licence notes: elided, whole on hover
            header.setSectionResizeMode(COLUMNS.index(column), QHeaderView.Interactive)
            header.resizeSection(COLUMNS.index(column), ELIDED_COLUMN_PX)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        layout.addWidget(self.table, 1)

        self.description = QLabel()
        self.description.setWordWrap(True)
        self.description.setTextInteractionFlags(Qt.TextSelectableByMouse | Qt.LinksAccessibleByMouse)
        self.description.setOpenExternalLinks(True)
        layout.addWidget(self.description)

        progress_row = QHBoxLayout()
        self.progress = QProgressBar()
        self.progress.setFormat("%p%")
        self.progress_label = PlainLabel()
        self.cancel_button = QPushButton(self.tr("Cancel download"))
        self.cancel_button.clicked.connect(self.cancel_download)
        progress_row.addWidget(self.progress, 1)
        progress_row.addWidget(self.progress_label)
        progress_row.addWidget(self.cancel_button)
        layout.addLayout(progress_row)
        self._show_progress(False)

        options = QHBoxLayout()
        self.device_combo = QComboBox()
        devices = DEVICES if cuda_build() else tuple(d for d in DEVICES if d != "cuda")  # none this torch lacks
        self.device_combo.addItems(devices)
        self.device_combo.setCurrentText(settings.device if settings.device in devices else "auto")
        self.precision_combo = QComboBox()
        self.precision_combo.addItems(PRECISIONS)
        self.precision_combo.setToolTip(self.tr("auto: the heaviest precision that fits in the GPU's free memory "
                                                "(bfloat16, else int8); int4 is experimental: it fits an 8 GB card "
                                                "but can lower the model's quality"))
        self.precision_combo.setCurrentText(settings.precision if settings.precision in PRECISIONS else "auto")
        options.addWidget(QLabel(self.tr("Device")))
        options.addWidget(self.device_combo)
        options.addWidget(QLabel(self.tr("Precision")))
        options.addWidget(self.precision_combo)
        options.addStretch(1)
        layout.addLayout(options)

        buttons = QHBoxLayout()
        self.folder_button = QPushButton(self.tr("Open models folder"))
        self.folder_button.clicked.connect(self.open_folder)
        self.download_button = QPushButton(self.tr("Download"))
        self.download_button.clicked.connect(self.start_download)
        self.update_button = QPushButton(self.tr("Check for update"))
        self.update_button.clicked.connect(self.update_clicked)
        self.remove_button = QPushButton(self.tr("Remove"))
        self.remove_button.setToolTip(self.tr("Delete this voice model's files from this computer"))
        self.remove_button.clicked.connect(self.remove_clicked)
        self.use_button = QPushButton(self.tr("Use this model"))
        self.use_button.clicked.connect(self._use)
        close = QPushButton(self.tr("Close"))
        close.clicked.connect(self.reject)
        self.chat_button = QPushButton(self.tr("Your language model..."))
        self.chat_button.clicked.connect(lambda: (self.chat_requested.emit(), self.reject()))
        for button in (self.chat_button, self.folder_button, self.remove_button, self.download_button,
                       self.update_button, self.use_button, close):
            button.setAutoDefault(False)  # Enter presses Use, and only on a model that runs here
        buttons.addWidget(self.folder_button)
        buttons.addWidget(self.chat_button)
        buttons.addStretch(1)
        buttons.addWidget(self.remove_button)
        buttons.addWidget(self.update_button)
        buttons.addWidget(self.download_button)
        buttons.addWidget(self.use_button)
        buttons.addWidget(close)
        layout.addLayout(buttons)

        self.timer = QTimer(self)
        self.timer.setInterval(100)
        self.timer.timeout.connect(self._poll_download)
        self.refresh()
        names = list(self.presets)
        self.table.selectRow(names.index(settings.model) if settings.model in names else 0)
        self.table.setFocus()  # the arrows choose a model at once; Enter uses one that runs here (the default button)

    # -- table -------------------------------------------------------------------------------
    def refresh(self) -> None:
        self.statuses = {}
        for row, (name, preset) in enumerate(self.presets.items()):
            try:
                status = status_of(name)
                where = str(status.path) if status.present else (
                    self.tr("not downloaded") if not status.path
                    else self.tr("partly downloaded (%n files missing)", "", len(status.missing)))
            except (engine.ModelError, OSError) as e:
                status, where = None, self.tr("unknown: {problem}").format(problem=e)
            self.statuses[name] = status
            if status is not None and status.other_revision is not None:
                self.offered.setdefault(name, status.other_revision)
            if status is not None and self.offered.get(name) == status.revision:
                self.offered.pop(name, None)  # moved there
            if preset.repo is None and status is not None and not status.present:  # a demo: built here
                where = self.tr("built on first use (about a minute)")
            here = self.badge(preset)
            captions = "" if name in engine.CAPTION_PRESETS or is_voice(name) else captions_line(preset, self.cuda)
            cells = (name, summary(preset), self.tr("in use · {badge}").format(badge=here) if name == self.in_use
                     else here, self.tr("{gb} GB").format(gb=number_text(preset.approx_gb, 1)), captions, where,
                     terms_short(preset))
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(as_written(text))
                if name == self.in_use:  # the model the window runs now stands out
                    font = QFont(item.font())
                    font.setBold(True)
                    item.setFont(font)
                self.table.setItem(row, column, item)
        self._selection_changed()

    def badge(self, preset: engine.Preset) -> str:
        """``fit_badge`` for this machine (what ``auto`` chooses is asked only where there is a GPU)."""
        if preset.repo is None or runs_on_any_cpu(preset):
            return translate("ModelManager", RUNS_HERE)
        if is_voice(preset.name):  # a GPU voice: its memory need is not known before its download
            return fit_badge(preset, self.cuda_problem, cuda_build(), None, None)
        return fit_badge(preset, self.cuda_problem, cuda_build(), self.fits_gpu(preset), least_gpu_gb(preset.name))

    def fits_gpu(self, preset: engine.Preset) -> bool | None:
        """Whether ``auto`` finds a precision that fits this GPU's memory (None: no GPU here)."""
        if self.cuda is None or is_voice(preset.name):
            return None
        if preset.name in engine.CAPTION_PRESETS:
            return least_gpu_gb(preset.name) <= self.cuda.free_gb
        choice = auto_choice(preset, self.cuda)
        return choice is not None and choice.precision != "int4"  # int4 only where the person opts in

    def runs_here(self, preset: engine.Preset) -> bool:
        return preset.repo is None or runs_on_any_cpu(preset) or bool(self.fits_gpu(preset))

    def selected_name(self) -> str:
        rows = self.table.selectionModel().selectedRows()
        return list(self.presets)[rows[0].row() if rows else 0]

    def _selection_changed(self) -> None:
        name = self.selected_name()
        preset = self.presets[name]
        status = self.statuses.get(name)
        captions, voice = name in engine.CAPTION_PRESETS, is_voice(name)
        text = escaped(description(preset))
        if voice:
            text += "<br>" + escaped(voice_note(preset))
        elif preset.repo is not None:  # a real model: it needs a GPU
            text += "<br>" + " ".join(escaped(t) for t in (memory_text(preset), self.gpu) if t)
            if self.cuda is not None and not captions:
                text += f"<br>{escaped(auto_precision(preset, self.cuda))}"
            if not captions:  # each caption model that may run beside it (the demo's: its row says it)
                each = listed(list(dict.fromkeys(captions_line(preset, self.cuda, p) for p in partners(preset))))
                text += "<br>" + self.tr("With captions: {each}.").format(each=each)
        if captions:
            text += "<br>" + self.tr("A caption model writes what the person says: it runs beside a conversation "
                                     "model, and is not one to talk to.")
        if preset.non_commercial:
            text += "<br>" + self.tr("<b>Non-commercial use only</b> ({licence}).").format(licence=preset.licence)
        if preset.gated:
            text += "<br>" + self.tr("<b>Licence:</b> {licence}. This model is gated: open "
                                     "<a href='{page}'>{page}</a>, accept the terms while logged in, then set "
                                     "HF_TOKEN (or run <code>hf auth login</code>) before downloading.").format(
                licence=preset.licence, page=preset.page)
        elif preset.page:
            text += "<br>" + self.tr("Source: <a href='{page}'>{page}</a> · licence {licence}").format(
                page=preset.page, licence=preset.licence)
        if status is not None and preset.repo is not None:
            text += f"<br>{escaped(revision_note(preset, status.revision, self.offered.get(name)))}"
        self.description.setText(text)
        downloadable = preset.repo is not None and not (status and status.present)
        self.download_button.setEnabled(downloadable and self.download is None)
        offered = self.offered.get(name)
        self.update_button.setText(self.tr("Update to {revision}").format(revision=short_revision(offered)) if offered
                                   else self.tr("Check for update"))
        self.update_button.setEnabled(preset.repo is not None and not voice and self.download is None)
        self.remove_button.setVisible(voice)
        here = status is not None and status.path is not None
        self.remove_button.setEnabled(voice and here and self.download is None)
        self.use_button.setEnabled(not captions and not voice)  # a voice is chosen where a turn is read aloud
        self.use_button.setDefault(not captions and not voice and self.runs_here(preset))

    # -- actions -----------------------------------------------------------------------------
    def open_folder(self) -> None:
        status = self.statuses.get(self.selected_name())
        folder = status.path if status is not None and status.path else engine.hub_cache_dir()
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))

    def start_download(self) -> None:
        if self.download is None:
            name = self.selected_name()
            self.confirm_download(name, lambda: self._start(ModelDownload(name),
                                                             self.tr("Downloading {name}...").format(name=name)))

    def confirm_download(self, name: str, then) -> None:
        """Ask before a download: its size, the free disk, and whether the model can run here; ``then()``
        on Download. Refused outright where the disk has no room for it."""
        preset = self.presets[name]
        cache = engine.hub_cache_dir()
        free = free_disk_gb(cache)
        here = self.badge(preset)
        runs = self.runs_here(preset)
        room = free >= preset.approx_gb
        text = (self.tr("{name} is about {gb} GB. The disk that holds {folder} has {free} GB free.").format(
                    name=name, gb=number_text(preset.approx_gb, 1), folder=cache, free=number_text(free, 1))
                + ("" if room else " " + self.tr("That is not enough: free some space first."))
                + f"\n\n{terms(preset)}"
                + ("" if runs else "\n\n" + self.tr("It {badge}: on this computer it would not run in real "
                                                     "time.").format(badge=here)))
        box = QMessageBox(QMessageBox.Question if room else QMessageBox.Warning,
                          self.tr("Download {name}?").format(name=name), text, parent=self)
        if room:
            download = box.addButton(self.tr("Download"), QMessageBox.AcceptRole)
            cancel = box.addButton(QMessageBox.Cancel)
            box.setDefaultButton(download if runs else cancel)  # Enter does not start what cannot run here
            download.clicked.connect(then)
        else:
            box.addButton(QMessageBox.Close)
        if self.confirmation is not None:
            self.confirmation.deleteLater()  # the question asked before, answered
        self.confirmation = box
        box.open()

    def remove_clicked(self) -> None:
        """Asked first; the files go from the Hugging Face cache (``engine.remove_speech_model``)."""
        name = self.selected_name()
        status = self.statuses.get(name)
        if self.download is not None or not is_voice(name) or status is None or status.path is None:
            return
        box = QMessageBox(QMessageBox.Question, self.tr("Remove {name}?").format(name=name),
                          remove_question(name, status), parent=self)
        remove = box.addButton(self.tr("Remove"), QMessageBox.DestructiveRole)
        box.setDefaultButton(box.addButton(QMessageBox.Cancel))
        remove.clicked.connect(lambda: self._remove(name))
        if self.confirmation is not None:
            self.confirmation.deleteLater()
        self.confirmation = box
        box.open()

    def _remove(self, name: str) -> None:
        try:
            count = engine.remove_speech_model(name)
            message = self.tr("Removed {name} (%n files).", "", count).format(name=name)
        except OSError as e:
            message = self.tr("{name} could not be removed: {problem}").format(name=name, problem=e)
        self.refresh()
        self.description.setText(escaped(message))

    def update_clicked(self) -> None:
        """Ask the hub which commit main is at, or, once a newer one is offered, move to it."""
        if self.download is not None:
            return
        name = self.selected_name()
        offered = self.offered.get(name)
        if offered is None:
            self._start(ModelDownload(name, check=True), self.tr("Asking the hub about {name}...").format(name=name))
        else:
            self._start(ModelDownload(name, revision=offered),
                        self.tr("Updating {name} to {revision}...").format(name=name, revision=short_revision(offered)))

    def _start(self, task: ModelDownload, label: str) -> None:
        self.download = task
        self.progress.setRange(0, 0)  # busy until the first byte counts arrive
        self.progress_label.setText(label)
        self._show_progress(True)
        self.download_button.setEnabled(False)
        self.update_button.setEnabled(False)
        self.timer.start()

    def cancel_download(self) -> None:
        if self.download is not None:
            self.download.cancel()
            self._finish_download(self.tr("Download cancelled; completed files are kept, the rest restarts next "
                                          "time."), cancelled=True)

    def _poll_download(self) -> None:
        if self.download is None:
            return
        for update in self.download.poll():
            if update.kind == "progress" and update.total_bytes:
                self.progress.setRange(0, 1000)
                self.progress.setValue(int(1000 * update.done_bytes / update.total_bytes))
                self.progress_label.setText(
                    self.tr("{what} {done} / {total} GB").format(what=update.text,
                                                                 done=number_text(update.done_bytes / 2**30, 2),
                                                                 total=number_text(update.total_bytes / 2**30, 2)))
            elif update.kind == "done" and self.download.check:
                self._checked(self.download.name, update.text)
            elif update.kind == "done":
                self._finish_download(self.tr("Downloaded to {folder}").format(folder=update.text))
            elif update.kind == "failed":
                failed = (self.tr("Checking for an update failed: {problem}") if self.download.check
                          else self.tr("Download failed: {problem}"))
                self._finish_download(failed.format(problem=update.text))

    def _checked(self, name: str, latest: str) -> None:
        status = self.statuses.get(name)
        in_use = status.revision if status is not None else self.presets[name].revision
        if latest == in_use:
            self._finish_download(self.tr("{name} is up to date: the hub's main is at {revision}, the revision in "
                                          "use.").format(name=name, revision=short_revision(latest)))
            return
        self.offered[name] = latest
        self._finish_download(self.tr("The hub has another revision of {name}: {revision} (in use: {in_use}). "
                                      "'Update to {revision}' downloads it (files that did not change are not "
                                      "downloaded again); until then nothing changes.").format(
            name=name, revision=short_revision(latest),
            in_use=short_revision(in_use) if in_use else self.tr("none yet")))

    def _finish_download(self, message: str, cancelled: bool = False) -> None:
        if not cancelled:
            self.finished_download.emit(message)
        self.timer.stop()
        self.download = None
        self._show_progress(False)
        self.refresh()
        self.description.setText(message)

    def _show_progress(self, visible: bool) -> None:
        for widget in (self.progress, self.progress_label, self.cancel_button):
            widget.setVisible(visible)

    def _use(self) -> None:
        """A real model not on this machine yet is downloaded by loading it: asked first, like Download."""
        name = self.selected_name()
        if name in engine.CAPTION_PRESETS or is_voice(name):  # not one to talk to (its Use button is off)
            return
        status = self.statuses.get(name)
        if self.presets[name].repo is not None and not (status is not None and status.present):
            self.confirm_download(name, self._choose)
        else:
            self._choose()

    def _choose(self) -> None:
        self.model_chosen.emit(self.selected_name(), self.device_combo.currentText(),
                               self.precision_combo.currentText())
        self.accept()

    def done(self, result: int) -> None:
        if self.download is not None:
            self.download.cancel()
            self.download = None
        self.timer.stop()
        super().done(result)
