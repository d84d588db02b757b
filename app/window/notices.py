"""Desktop notifications for work that ends while the window is hidden (in the tray, or minimised):
a model download and a crash recovery. Widget-free: ``notice`` carries what to say; the tray shows
it (``QSystemTrayIcon.showMessage``). While the window is shown, the window itself says it."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject, Signal

from app.engine_thread.messages import RecoveryDone

RECOVERED_TEXT = QT_TRANSLATE_NOOP("Notices", "The conversation is back in Parley's window; save it to keep it.")


class Notices(QObject):
    notice = Signal(str, str)  # (title, text)

    def __init__(self, window_hidden: Callable[[], bool], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.window_hidden = window_hidden

    def recovery_event(self, event) -> None:
        """A ``ConversationFiles.recovery_event``: only its end is news."""
        if isinstance(event, RecoveryDone):
            title = (self.tr("Parley: conversation recovered") if not event.problem
                     else self.tr("Parley: recovery stopped"))
            self._say(title, event.problem or self.tr(RECOVERED_TEXT))

    def download_finished(self, text: str) -> None:
        """A ``ModelManagerDialog.finished``: what the download (or the update check) came to."""
        self._say(self.tr("Parley: model download"), text)

    def _say(self, title: str, text: str) -> None:
        if self.window_hidden():
            self.notice.emit(title, text)
