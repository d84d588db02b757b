"""Recovering a conversation after a crash: the offer to recover a journal that a previous run left
(``app.journals.pending`` finds them), and the rebuild's progress bar (cancellable).

``RecoveryOffer`` is the widget-free state; ``RecoveryDialogs`` renders it: a question (Recover /
Later / Discard; "Later" keeps the journal for the next start), then a progress dialog while the
engine thread rebuilds the state. A journal that cannot be read is offered for deletion instead
(Delete / Keep).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QProgressDialog, QWidget

from app.engine_thread.messages import RecoveryProgress
from app.i18n import duration_text
from app.journals.pending import PendingJournal
from app.journals.saved_marker import read_mark, remove_mark
from engine import FRAME_SECONDS

log = logging.getLogger(__name__)


class RecoveryOffer(QObject):
    """The state of one offer: which journal, whether it is being rebuilt, how far, and the outcome."""

    changed = Signal()

    def __init__(self, files, pending: PendingJournal, parent: QObject | None = None):
        """``files``: the window's ``ConversationFiles``, which runs the rebuild."""
        super().__init__(parent)
        self.files, self.journal, self.frames, self.lock = files, pending.path, pending.frames, pending.lock
        self.problem = pending.problem  # nothing can be recovered: only deleting or keeping it is offered
        self.running = False
        self.done = (0, self.frames)
        self.outcome: str | None = None  # None while undecided or running; "" recovered; else why not
        self._cancel: threading.Event | None = None
        files.recovery_event.connect(self._on_event)

    @property
    def seconds(self) -> float:
        return self.frames * FRAME_SECONDS

    def recover(self) -> None:
        self.running, self.outcome = True, None
        self._cancel = self.files.recover(str(self.journal))
        self.changed.emit()

    def cancel(self) -> None:
        if self._cancel is not None:
            self._cancel.set()

    def discard(self) -> None:
        self.journal.unlink(missing_ok=True)
        remove_mark(self.journal)
        self.lock.release()
        self.outcome = "discarded"
        self.changed.emit()

    def later(self) -> None:
        """Keep the journal for a later start (or another window) to offer."""
        self.lock.release()

    def _on_event(self, event) -> None:
        if isinstance(event, RecoveryProgress):
            self.done = (event.frames, event.total)
        else:
            if not event.problem:  # recovered: the engine thread removed the journal
                self.lock.release()
            self.running, self.outcome = False, event.problem
        self.changed.emit()


class RecoveryDialogs(QObject):
    """Renders a ``RecoveryOffer``: the question, then the progress of the rebuild."""

    def __init__(self, parent: QWidget, offer: RecoveryOffer, show_error: Callable[[str], None]):
        super().__init__(parent)
        self.offer, self.show_error = offer, show_error
        if offer.problem:
            self.question = QMessageBox(QMessageBox.Warning, self.tr("Delete a crash journal?"),
                                        self.tr("Parley did not close properly, and the journal of the conversation "
                                                "it was having cannot be read: {problem}\n\nDelete {journal}? "
                                                "'Keep' leaves it there and asks again at the next start.").format(
                                            problem=offer.problem, journal=offer.journal),
                                        QMessageBox.NoButton, parent)
            self.recover_button = None
            self.discard_button = self.question.addButton(self.tr("Delete"), QMessageBox.DestructiveRole)
            self.later_button = self.question.addButton(self.tr("Keep"), QMessageBox.RejectRole)
        else:
            mark = read_mark(offer.journal)
            saved = "\n\n" + self.tr("It was last saved to {file} {duration} before the end.").format(
                file=Path(mark.file).name, duration=duration_text((offer.frames - mark.frames) * FRAME_SECONDS)) \
                if mark else ""
            self.question = QMessageBox(QMessageBox.Question, self.tr("Recover conversation?"),
                                        self.tr("Parley did not close properly. Recover the conversation it was "
                                                "having ({duration})?").format(duration=duration_text(offer.seconds))
                                        + saved + "\n\n" + self.tr("'Later' keeps it for the next start."),
                                        QMessageBox.NoButton, parent)
            self.recover_button = self.question.addButton(self.tr("Recover"), QMessageBox.AcceptRole)
            self.later_button = self.question.addButton(self.tr("Later"), QMessageBox.RejectRole)
            self.discard_button = self.question.addButton(self.tr("Discard"), QMessageBox.DestructiveRole)
        self.question.setTextFormat(Qt.PlainText)  # journal names, problems from a file
        self.question.buttonClicked.connect(self._on_answer)
        # Made when the rebuild starts: a QProgressDialog starts its own show timer when it is made,
        # and would appear over the question before it is answered.
        self.progress: QProgressDialog | None = None
        offer.changed.connect(self.render)

    def show(self) -> None:
        self.question.open()

    def _on_answer(self, button) -> None:
        if button is self.recover_button:
            self.offer.recover()
        elif button is self.discard_button:
            self.offer.discard()
        else:
            self.offer.later()

    def render(self) -> None:
        offer = self.offer
        if offer.running and self.progress is None:
            self.progress = QProgressDialog(self.tr("Rebuilding the conversation..."), self.tr("Cancel"), 0, 1,
                                            self.parent())
            self.progress.setWindowModality(Qt.WindowModal)
            self.progress.setAutoClose(False)
            self.progress.setAutoReset(False)
            self.progress.canceled.connect(offer.cancel)
        if self.progress is not None:
            done, total = offer.done
            self.progress.setMaximum(max(total, 1))
            self.progress.setValue(done)
            self.progress.setVisible(offer.running)
        if not offer.running and offer.outcome and offer.outcome != "discarded":
            self.show_error(offer.outcome)


def offer_recovery(parent: QWidget, files, pending: list[PendingJournal],
                   show_error: Callable[[str], None]) -> RecoveryDialogs | None:
    """Offer the newest crashed conversation (older ones wait for later starts, unlocked)."""
    for older in pending[1:]:
        older.lock.release()
    if not pending:
        return None
    dialogs = RecoveryDialogs(parent, RecoveryOffer(files, pending[0], parent), show_error)
    dialogs.show()
    return dialogs
