"""The library: the conversations in the conversations folder as a Qt item model (no widgets).

It reads file headers only, keeps each entry until the file changes (path, size and mtime), and
watches the folder, so files added, renamed or removed outside the app appear or disappear.
Deleting moves a file to the system trash (``QFile.moveToTrash``: Linux, Windows, macOS).
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import (
    QAbstractListModel,
    QFile,
    QFileSystemWatcher,
    QModelIndex,
    QPersistentModelIndex,
    QRegularExpression,
    QSortFilterProxyModel,
    QStandardPaths,
    Qt,
    QTimer,
    Signal,
)

from app.conversation_list import SUFFIX, ConversationEntry, read_entry

EntryRole = Qt.UserRole + 1
SearchRole = Qt.UserRole + 2  # what search looks in: the title and the transcript
RESCAN_DELAY_MS = 200  # a copy into the folder fires many change events: rescan once they settle
FORBIDDEN_NAME_CHARS = set('/\\:*?"<>|')


class LibraryModel(QAbstractListModel):
    changed = Signal()  # the list was rescanned

    def __init__(self, folder: Path, parent=None) -> None:
        super().__init__(parent)
        self.folder = folder
        self.entries: list[ConversationEntry] = []
        self._known: dict[Path, tuple[int, int, ConversationEntry]] = {}  # path -> (size, mtime_ns, entry)
        self.watcher = QFileSystemWatcher([str(folder)], self)
        self._rescan_timer = QTimer(self)
        self._rescan_timer.setSingleShot(True)
        self._rescan_timer.setInterval(RESCAN_DELAY_MS)
        self._rescan_timer.timeout.connect(self.rescan)
        self.watcher.directoryChanged.connect(self._rescan_timer.start)
        self.rescan()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.entries)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self.entries):
            return None
        entry = self.entries[index.row()]
        if role == EntryRole:
            return entry
        if role == SearchRole:
            return f"{entry.title}\n{entry.info.text if entry.info else ''}"
        if role in (Qt.DisplayRole, Qt.AccessibleTextRole):
            return entry.title
        if role == Qt.ToolTipRole:
            return str(entry.path) + (f"\n{entry.error}" if entry.error else "")
        return None

    def rescan(self) -> None:
        """Re-list the folder; only new or changed files have their header read."""
        known: dict[Path, tuple[int, int, ConversationEntry]] = {}
        for path in self.folder.glob(f"*{SUFFIX}"):
            try:
                stat = path.stat()
            except OSError:
                continue  # removed while listing
            old = self._known.get(path)
            if old is not None and old[:2] == (stat.st_size, stat.st_mtime_ns):
                known[path] = old
            else:
                known[path] = (stat.st_size, stat.st_mtime_ns, read_entry(path))
        self._known = known
        entries = sorted((e for _, _, e in known.values()),
                         key=lambda e: (e.info.created if e.info else "", e.path.name), reverse=True)
        self.beginResetModel()
        self.entries = entries
        self.endResetModel()
        self.changed.emit()

    def row_of(self, path: str | Path) -> int | None:
        path = Path(path)
        return next((i for i, e in enumerate(self.entries) if e.path == path), None)

    def rename(self, row: int, new_name: str) -> str | None:
        """Give a conversation the user's name (the file name); returns an error message or None."""
        entry = self.entries[row]
        name = new_name.strip()
        if name.lower().endswith(SUFFIX):
            name = name[:-len(SUFFIX)]
        if not name or FORBIDDEN_NAME_CHARS & set(name) or name in (".", ".."):
            return f"{new_name!r} cannot be a file name."
        target = entry.path.with_name(name + SUFFIX)
        if target == entry.path:
            return None
        if target.exists():
            return f"There is already a conversation called {name!r}."
        try:
            os.rename(entry.path, target)
        except OSError as e:
            return f"Could not rename {entry.path.name}: {e.strerror or e}"
        self.rescan()
        return None

    def move_to_trash(self, row: int) -> str | None:
        """Move a conversation to the system trash; returns an error message or None."""
        entry = self.entries[row]
        # Qt creates the home trash but not its parent: on a fresh Linux account without
        # ~/.local/share the move would fail.
        Path(QStandardPaths.writableLocation(QStandardPaths.GenericDataLocation)).mkdir(parents=True, exist_ok=True)
        if not QFile.moveToTrash(str(entry.path)):
            return f"Could not move {entry.path.name} to the trash."
        self.rescan()
        return None


class LibraryFilter(QSortFilterProxyModel):
    """Search: rows whose title or transcript holds every word of the query, ignoring case."""

    def __init__(self, source: LibraryModel, parent=None) -> None:
        super().__init__(parent)
        self.setSourceModel(source)
        self.setFilterRole(SearchRole)

    def set_query(self, query: str) -> None:
        every_word = "".join(f"(?=.*{QRegularExpression.escape(word)})" for word in query.split())
        self.setFilterRegularExpression(QRegularExpression(
            every_word, QRegularExpression.CaseInsensitiveOption | QRegularExpression.DotMatchesEverythingOption))
