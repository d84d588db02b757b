"""The library: the conversations in the conversations folder as a Qt item model (no widgets).

It reads file headers only, off the GUI thread: the window is usable at once and the list fills
in as the headers are read. Each entry is kept until the file changes (path, size and mtime), and
the folder is watched, so files added, renamed or removed outside the app appear or disappear.
Search reads transcripts from the files when asked, also off the GUI thread (``LibraryFilter``).
Deleting moves a file to the system trash (``QFile.moveToTrash``: Linux, Windows, macOS).
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from PySide6.QtCore import (
    QAbstractListModel,
    QCoreApplication,
    QFile,
    QFileSystemWatcher,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    QStandardPaths,
    Qt,
    QTimer,
    Signal,
)

from app.library.listing import (
    SUFFIX,
    ConversationEntry,
    FileKey,
    listing_problem,
    newest_first,
    scan,
    transcript_text,
)
from app.library.snippet import snippet_around
from app.widgets.plain_text import as_written

EntryRole = Qt.UserRole + 1
CurrentRole = Qt.UserRole + 2  # the row is the conversation open in the window
SnippetRole = Qt.UserRole + 3  # while searching: the words around the hit in its transcript ("" for none)
RESCAN_DELAY_MS = 200  # a copy into the folder fires many change events: rescan once they settle
BATCH_S = 0.25  # how often a running scan or search hands what it found to the GUI thread
FORBIDDEN_NAME_CHARS = set('/\\:*?"<>|\0')
MAX_NAME_BYTES = 255 - len(SUFFIX.encode())  # a file name's limit on every common file system


_DONE = object()


class _Relay(QObject):
    """Carries a background thread's results to the GUI thread (queued signals) and numbers its
    jobs: a job is cancelled once a newer one starts, or when its receiver is destroyed.

    The thread holds the relay and never its receiver: the last reference to a QObject dropped in
    another thread deletes it there (its timers and watchers with it), which aborts Qt. The relay
    itself belongs to the application, so it is never deleted while a thread may emit."""

    found = Signal(int, object)  # (job number, batch of results)
    finished = Signal(int)  # job number

    def __init__(self, receiver: QObject) -> None:
        super().__init__(QCoreApplication.instance())
        self.job = 0
        receiver.destroyed.connect(self.cancel)

    def next_job(self) -> int:
        self.job += 1
        return self.job

    def cancel(self) -> None:
        self.job = -1

    def cancelled(self, job: int) -> bool:
        return job != self.job


def run_in_background(job: int, items, relay: _Relay) -> None:
    """Iterate ``items`` on a daemon thread, handing ``relay.found`` what it yields, a batch at most
    every ``BATCH_S``; stops early once the job is cancelled.

    The thread shares the interpreter lock with the GUI thread, and parsing a header holds it: after
    each item it sleeps as long as the item took, so the GUI thread gets the lock at least half the
    time (without the pause, a window built while 5,000 headers were read took 0.7 s to appear)."""
    def work() -> None:
        batch, sent = [], time.monotonic()
        iterator = iter(items)
        while True:
            started = time.monotonic()
            item = next(iterator, _DONE)
            if item is _DONE or relay.cancelled(job):
                break
            time.sleep(time.monotonic() - started)
            if item is not None:
                batch.append(item)
            if batch and time.monotonic() - sent >= BATCH_S:
                relay.found.emit(job, batch)
                batch, sent = [], time.monotonic()
        if relay.cancelled(job):
            return
        if batch:
            relay.found.emit(job, batch)
        relay.finished.emit(job)

    threading.Thread(target=work, name="parley-library", daemon=True).start()


class LibraryModel(QAbstractListModel):
    changed = Signal()  # rows were added, changed or removed
    scanned = Signal()  # a scan of the folder finished (``scanning`` is False)
    renamed = Signal(str, str)  # (old path, new path): renamed here
    removed = Signal(str)  # path: moved to the trash here

    def __init__(self, folder: Path, parent=None) -> None:
        super().__init__(parent)
        self.folder = folder
        self.entries: list[ConversationEntry] = []
        self.current: Path | None = None  # the file of the conversation open in the window
        self.problem = ""  # why the folder could not be listed at the last scan ("" when it could)
        self._known: dict[Path, tuple[FileKey | None, ConversationEntry]] = {}  # path -> (key, entry)
        self._seen: dict[Path, tuple[FileKey | None, ConversationEntry]] = {}  # by the running scan
        self._scan_again = False
        self._relay = _Relay(self)
        self._relay.found.connect(self._on_found)
        self._relay.finished.connect(self._on_scan_finished)
        self.watcher = QFileSystemWatcher([str(folder)], self)
        self._rescan_timer = QTimer(self)
        self._rescan_timer.setSingleShot(True)
        self._rescan_timer.setInterval(RESCAN_DELAY_MS)
        self._rescan_timer.timeout.connect(self.rescan)
        self.watcher.directoryChanged.connect(self._rescan_timer.start)
        self.scanning = True  # from the event loop's first turn: the window is up before any header is read
        QTimer.singleShot(0, self, self._first_scan)

    def _first_scan(self) -> None:
        self.scanning = False
        self.rescan()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.entries)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self.entries):
            return None
        entry = self.entries[index.row()]
        if role == EntryRole:
            return entry
        if role == CurrentRole:
            return entry.path == self.current
        if role == Qt.DisplayRole:
            return entry.title
        if role == Qt.AccessibleTextRole:
            if entry.path == self.current:
                return self.tr("{title} (open now)").format(title=entry.title)
            return entry.title
        if role == Qt.ToolTipRole:
            return as_written(str(entry.path) + (f"\n{entry.error}" if entry.error else ""))
        return None

    def set_current(self, path: str | Path | None) -> None:
        """The conversation open in the window is the file at ``path`` (None: an unsaved one)."""
        current = Path(path) if path else None
        if current != self.current:
            self.current = current
            if self.entries:
                self.dataChanged.emit(self.index(0), self.index(len(self.entries) - 1), [CurrentRole])

    def rescan(self) -> None:
        """Re-list the folder off the GUI thread; only new or changed files have their header read.
        Rows fill in as they are read (``changed``); ``scanned`` says when the folder is done."""
        if self.scanning:
            self._scan_again = True  # the running scan may have passed the change already
            return
        self.scanning, self._scan_again = True, False
        self._seen = {}
        run_in_background(self._relay.next_job(), scan(self.folder, dict(self._known)), self._relay)

    def _on_found(self, number: int, batch) -> None:
        if self._relay.cancelled(number):
            return
        for path, key, entry in batch:
            self._seen[path] = (key, entry)
        self._show({**self._known, **self._seen})

    def _on_scan_finished(self, number: int) -> None:
        if self._relay.cancelled(number):
            return
        self._known, self._seen = self._seen, {}
        self.problem = listing_problem(self.folder)
        self._show(self._known)
        self.scanning = False
        self.scanned.emit()
        if self._scan_again:
            self.rescan()

    def _show(self, known) -> None:
        entries = newest_first(entry for _key, entry in known.values())
        self.beginResetModel()
        self.entries = entries
        self.endResetModel()
        self.changed.emit()

    def row_of(self, path: str | Path) -> int | None:
        path = Path(path)
        return next((i for i, e in enumerate(self.entries) if e.path == path), None)

    def rename(self, row: int, new_name: str) -> str | None:
        """Give a conversation the user's name (the file name); returns an error message or None.
        Never replaces another file, even one created after the check."""
        entry = self.entries[row]
        name = new_name.strip()
        if name.lower().endswith(SUFFIX):
            name = name[:-len(SUFFIX)]
        if not name or FORBIDDEN_NAME_CHARS & set(name) or name in (".", ".."):
            return self.tr("{name} cannot be a file name.").format(name=repr(new_name))
        if len(os.fsencode(name)) > MAX_NAME_BYTES:
            return self.tr("That name is too long (at most {count} bytes).").format(count=MAX_NAME_BYTES)
        target = entry.path.with_name(name + SUFFIX)
        if target == entry.path:
            return None
        try:
            rename_no_replace(entry.path, target)
        except FileExistsError:
            return self.tr("There is already a conversation called {name}.").format(name=repr(name))
        except (OSError, ValueError) as e:
            return self.tr("Could not rename {file}: {problem}").format(file=entry.path.name,
                                                                         problem=getattr(e, "strerror", None) or e)
        self.renamed.emit(str(entry.path), str(target))
        self.rescan()
        return None

    def move_to_trash(self, row: int) -> str | None:
        """Move a conversation to the system trash; returns an error message or None."""
        entry = self.entries[row]
        # Qt creates the home trash but not its parent: on a fresh Linux account without
        # ~/.local/share the move would fail.
        Path(QStandardPaths.writableLocation(QStandardPaths.GenericDataLocation)).mkdir(parents=True, exist_ok=True)
        if not QFile.moveToTrash(str(entry.path)):
            return self.tr("Could not move {file} to the trash.").format(file=entry.path.name)
        self.removed.emit(str(entry.path))
        self.rescan()
        return None


def rename_no_replace(source: Path, target: Path) -> None:
    """Rename ``source`` to ``target``; FileExistsError if ``target`` exists, without a window
    between a check and the rename. Windows' rename never replaces; elsewhere a hard link (which
    fails on an existing name) then removing the old name. Where the file system has no hard links
    (FAT) the check and the rename are separate steps: the best such a file system allows."""
    if os.name == "nt":
        os.rename(source, target)
        return
    if target.exists() and os.path.samefile(source, target):  # a case-insensitive name, changed in case
        os.rename(source, target)
        return
    try:
        os.link(source, target, follow_symlinks=False)
    except FileExistsError:
        raise
    except OSError:  # no hard links here
        if target.exists():
            raise FileExistsError(target) from None
        os.rename(source, target)
        return
    os.unlink(source)


class LibraryFilter(QSortFilterProxyModel):
    """Search: rows whose title or transcript holds every word of the query, ignoring case.

    Titles match at once; transcripts are read from the files off the GUI thread when a query is
    typed (none is kept in memory), and their rows join as they are found: ``searching`` until
    every file was read, then ``search_done``."""

    search_done = Signal()

    def __init__(self, source: LibraryModel, parent=None) -> None:
        super().__init__(parent)
        self.setSourceModel(source)
        self.library = source
        self.words: list[str] = []
        self.searching = False
        self._found: dict[Path, str] = {}  # files whose transcript holds every word: the words around the hit
        self._relay = _Relay(self)
        self._relay.found.connect(self._on_found)
        self._relay.finished.connect(self._on_finished)
        source.scanned.connect(self._search)  # files added or changed are searched too

    def set_query(self, query: str) -> None:
        self.words = query.lower().split()
        self._search()

    def _search(self) -> None:
        number, words = self._relay.next_job(), self.words
        self._refilter(self._found.clear)
        self.searching = bool(words)
        if not words:
            self.search_done.emit()
            return
        candidates = [(e.path, e.title) for e in self.library.entries if e.info is not None]

        def matches():
            for path, title in candidates:
                transcript = transcript_text(path)
                text = f"{title}\n{transcript}".lower()
                yield (path, snippet_around(transcript, words)) if all(word in text for word in words) else None

        run_in_background(number, matches(), self._relay)

    def _on_found(self, number: int, found) -> None:
        if not self._relay.cancelled(number):
            self._refilter(lambda: self._found.update(found))

    def _on_finished(self, number: int) -> None:
        if not self._relay.cancelled(number):
            self.searching = False
            self.search_done.emit()

    def _refilter(self, change) -> None:
        """Apply ``change()`` to what the filter accepts (Qt 6.10 wants it between begin and end)."""
        if hasattr(QSortFilterProxyModel, "Direction"):
            self.beginFilterChange()
            change()
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            change()
            self.invalidateFilter()

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        if not self.words:
            return True
        entry = self.library.entries[source_row]
        title = entry.title.lower()
        return all(word in title for word in self.words) or entry.path in self._found

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.DisplayRole):
        if role == SnippetRole:
            entry = super().data(index, EntryRole)
            return self._found.get(entry.path, "") if entry is not None and self.words else ""
        return super().data(index, role)
