"""The library side panel: search, the list of saved conversations, open / play / rename / delete.

It renders a ``LibraryModel`` through a ``LibraryFilter`` and says what the user asked for with
signals; the window decides what opening means (unsaved changes, another model).
"""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import QModelIndex, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QKeySequence, QPalette, QPen, QShortcut
from PySide6.QtWidgets import (
    QGridLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListView,
    QMessageBox,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QVBoxLayout,
    QWidget,
)

from app.i18n import date_time_text, duration_text, size_text, translate
from app.library.listing import ConversationEntry
from app.library.model import CurrentRole, EntryRole, LibraryFilter, LibraryModel, SnippetRole
from app.widgets.colours import scheme_for
from app.widgets.plain_text import PlainLabel, as_written

ROW_PADDING = 6
CURRENT_BAR = 4  # px: the mark on the edge of the open conversation's row
FOCUS_PX = 2  # the frame of the row that has the focus


def describe(entry: ConversationEntry) -> str:
    """The second line of a row: date, duration, persona, model, size (or why the file cannot be read)."""
    info = entry.info
    if info is None:
        return translate("LibraryPanel", "Unreadable: {problem}").format(problem=entry.error)
    try:
        when = date_time_text(datetime.fromisoformat(info.created).astimezone())
    except (ValueError, OverflowError, OSError):
        when = info.created or translate("LibraryPanel", "unknown date")
    persona = f"{info.persona} · " if info.persona else ""
    return f"{when} · {duration_text(info.seconds)} · {persona}{info.model} · {size_text(info.bytes)}"


def title_font(font: QFont) -> QFont:
    bold = QFont(font)
    bold.setBold(True)
    return bold


def shown_title(font: QFont, title: str, width: int) -> str:
    """A row's title as painted in ``width`` pixels: cut in the middle, since dated titles differ at
    their end ("Conversation 2026-12-06 14.42")."""
    return QFontMetrics(title_font(font)).elidedText(title, Qt.ElideMiddle, width)


def title_rect(option) -> QRect:
    return option.rect.adjusted(ROW_PADDING, ROW_PADDING, -ROW_PADDING, -ROW_PADDING)


class EntryDelegate(QStyledItemDelegate):
    def sizeHint(self, option, index) -> QSize:
        """As wide as the list gives (the texts are cut to fit it): never a sideways scroll bar."""
        return QSize(0, 2 * option.fontMetrics.height() + 3 * ROW_PADDING)

    def paint(self, painter, option, index) -> None:
        entry: ConversationEntry = index.data(EntryRole)
        painter.save()
        selected = bool(option.state & QStyle.State_Selected)
        if selected:
            painter.fillRect(option.rect, option.palette.highlight())
        current = bool(index.data(CurrentRole))
        if current:  # the conversation open in the window: a bar on its edge, and said in words
            painter.fillRect(QRect(option.rect.left(), option.rect.top(), CURRENT_BAR, option.rect.height()),
                             option.palette.color(QPalette.HighlightedText if selected else QPalette.Highlight))
        text_colour = option.palette.color(QPalette.HighlightedText if selected else QPalette.Text)
        if option.state & QStyle.State_HasFocus:  # the row Tab or the arrows reached, chosen or not
            painter.setPen(QPen(text_colour if selected else option.palette.color(QPalette.Highlight), FOCUS_PX))
            painter.drawRect(option.rect.adjusted(1, 1, -FOCUS_PX, -FOCUS_PX))
        rect = title_rect(option)
        line = option.fontMetrics.height()
        painter.setFont(title_font(option.font))
        painter.setPen(text_colour)
        title = shown_title(option.font, entry.title, rect.width())
        painter.drawText(QRect(rect.left(), rect.top(), rect.width(), line), Qt.AlignLeft, title)
        painter.setFont(option.font)
        if not selected:
            painter.setPen(QColor(scheme_for(option.palette).muted))
        opened = translate("LibraryPanel", "Open now · {details}") if current else "{details}"
        detail = index.data(SnippetRole) or opened.format(details=describe(entry))  # a hit: the words around it
        detail = option.fontMetrics.elidedText(detail, Qt.ElideRight, rect.width())
        painter.drawText(QRect(rect.left(), rect.top() + line + ROW_PADDING, rect.width(), line), Qt.AlignLeft,
                         detail)
        painter.restore()


class LibraryPanel(QWidget):
    open_requested = Signal(object)  # ConversationEntry
    replay_requested = Signal(object)  # ConversationEntry

    def __init__(self, library: LibraryModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library = library
        self.filter = LibraryFilter(library, self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        heading = QLabel(self.tr("Conversations"))
        heading.setStyleSheet("font-weight: bold;")
        layout.addWidget(heading)
        self.search = QLineEdit()
        self.search.setPlaceholderText(self.tr("Search titles and transcripts"))
        self.search.setClearButtonEnabled(True)
        self.search.setToolTip(self.tr("Search titles and transcripts (Ctrl+F)"))
        self.search.setAccessibleName(self.tr("Search conversations"))
        self.search.textChanged.connect(self.filter.set_query)
        layout.addWidget(self.search)
        self.list = QListView()
        self.list.setModel(self.filter)
        self.list.setItemDelegate(EntryDelegate(self.list))
        self.list.setUniformItemSizes(True)  # every row is two lines: a reset of 5,000 rows measures one
        self.list.setAccessibleName(self.tr("saved conversations"))
        self.list.activated.connect(self._activated)  # double click or Enter
        layout.addWidget(self.list, 1)
        self.empty_label = PlainLabel()
        self.empty_label.setWordWrap(True)
        layout.addWidget(self.empty_label)
        buttons = QGridLayout()  # two by two: the column stays narrow enough for a small screen
        self.open_button = QPushButton(self.tr("Open"))
        self.play_button = QPushButton(self.tr("Play"))
        self.rename_button = QPushButton(self.tr("Rename"))
        self.delete_button = QPushButton(self.tr("Delete"))
        for i, (button, slot, description) in enumerate((
                (self.open_button, self._open, self.tr("Open the conversation selected in the library")),
                (self.play_button, self._play, self.tr("Play the conversation selected in the library")),
                (self.rename_button, self.rename_selected, self.tr("Rename the conversation selected in the library")),
                (self.delete_button, self.delete_selected,
                 self.tr("Delete the conversation selected in the library")))):
            button.clicked.connect(slot)
            button.setAccessibleDescription(description)
            buttons.addWidget(button, i // 2, i % 2)
        layout.addLayout(buttons)
        QShortcut(QKeySequence(Qt.Key_F2), self.list, self.rename_selected, context=Qt.WidgetShortcut)
        QShortcut(QKeySequence.Delete, self.list, self.delete_selected, context=Qt.WidgetShortcut)
        library.changed.connect(self._render_empty)
        library.scanned.connect(self._render_empty)
        for signal in (self.filter.search_done, self.filter.rowsInserted, self.filter.rowsRemoved,
                       self.filter.modelReset, self.search.textChanged):
            signal.connect(self._render_empty)
        self.list.selectionModel().currentChanged.connect(self._render_buttons)
        for signal in (self.filter.rowsRemoved, self.filter.modelReset, self.filter.layoutChanged):
            signal.connect(self._render_buttons)
        self._render_buttons()
        self._kept_view: tuple[object, int] = (None, 0)  # (selected path, scroll position) over a reset
        library.modelAboutToBeReset.connect(self._keep_view)
        library.modelReset.connect(self._restore_view)
        self._render_empty()

    def tab_chain(self) -> list[QWidget]:
        return [self.search, self.list, self.open_button, self.play_button, self.rename_button, self.delete_button]

    def selected(self) -> ConversationEntry | None:
        index = self.list.currentIndex()
        return index.data(EntryRole) if index.isValid() else None

    def select_path(self, path) -> bool:
        row = self.library.row_of(path)
        if row is None:
            return False
        index = self.filter.mapFromSource(self.library.index(row))
        if not index.isValid():
            return False
        self.list.setCurrentIndex(index)
        return True

    def _keep_view(self) -> None:
        """Rows arrive in batches while the folder is read: the row the person chose stays chosen."""
        entry = self.selected()
        self._kept_view = (entry.path if entry is not None else None, self.list.verticalScrollBar().value())

    def _restore_view(self) -> None:
        path, scrolled = self._kept_view
        self.list.verticalScrollBar().setValue(scrolled)
        if path is not None and self.select_path(path):
            self.list.scrollTo(self.list.currentIndex())

    def _render_buttons(self, *_args) -> None:
        """The buttons act on the chosen conversation: with none chosen they are greyed out."""
        chosen = self.selected() is not None
        for button in (self.open_button, self.play_button, self.rename_button, self.delete_button):
            button.setEnabled(chosen)

    def _render_empty(self, *_args) -> None:
        """What an empty list means: the folder still being read, nothing saved yet, or nothing
        that matches the search (still searching the transcripts, or done)."""
        query = self.search.text().strip()
        if self.library.scanning:
            text = self.tr("Reading the conversations folder...")
        elif self.library.problem:
            text = self.library.problem
        elif not self.library.entries:
            text = self.tr("No saved conversations yet. File → Save keeps one here.")
        elif query and self.filter.searching:
            text = self.tr("Searching the transcripts for “{query}”...").format(query=query)
        else:
            text = self.tr("No conversation matches “{query}”.").format(query=query)
        self.empty_label.setText(text)
        self.empty_label.setVisible(self.filter.rowCount() == 0)

    def _activated(self, index: QModelIndex) -> None:
        entry = index.data(EntryRole)
        if entry is not None:
            self.open_requested.emit(entry)

    def _open(self) -> None:
        if (entry := self.selected()) is not None:
            self.open_requested.emit(entry)

    def _play(self) -> None:
        if (entry := self.selected()) is not None:
            self.replay_requested.emit(entry)

    def rename_selected(self) -> None:
        entry = self.selected()
        if entry is None:
            return
        name = entry.title
        while True:  # a refused name is asked again, as typed, until it is taken or the person cancels
            name, ok = QInputDialog.getText(self, self.tr("Rename conversation"), self.tr("Name:"), text=name)
            if not ok or self.rename(entry, name):
                return

    def rename(self, entry: ConversationEntry, name: str) -> bool:
        problem = self._on_row_of(entry, lambda row: self.library.rename(row, name))
        if problem:
            QMessageBox.warning(self, self.tr("Rename conversation"), as_written(problem))
        return problem is None

    def _on_row_of(self, entry: ConversationEntry, action) -> str | None:
        """``action(row)`` of the entry's row now (a rescan may have moved or removed it)."""
        row = self.library.row_of(entry.path)
        if row is None:
            return self.tr("{file} is no longer in the conversations folder.").format(file=entry.path.name)
        return action(row)

    def delete_selected(self) -> None:
        entry = self.selected()
        if entry is None:
            return
        answer = QMessageBox.question(self, self.tr("Delete conversation"),
                                      as_written(self.tr("Move “{title}” to the trash?").format(title=entry.title)),
                                      QMessageBox.Yes | QMessageBox.Cancel, QMessageBox.Cancel)
        if answer == QMessageBox.Yes:
            problem = self._on_row_of(entry, self.library.move_to_trash)
            if problem:
                QMessageBox.warning(self, self.tr("Delete conversation"), as_written(problem))
