"""`parley` with no sub-command: the desktop app."""

from __future__ import annotations

import logging
import sys

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from app import paths

log = logging.getLogger(__name__)


def run_gui(args) -> int:
    """Open the main window and load the model named by ``args`` (model, device, dtype)."""
    log_path = paths.setup_logging(verbose=getattr(args, "verbose", False))
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName(paths.APP_NAME)
    app.setOrganizationName(paths.APP_NAME)
    _log_uncaught_exceptions()

    from app.main_window import MainWindow

    window = MainWindow(QSettings())
    log.info("Parley started; log file %s", log_path)
    model = getattr(args, "model", None) or window.settings.model
    device = getattr(args, "device", None) or window.settings.device
    dtype = getattr(args, "dtype", None) or window.settings.dtype
    window.load_model(model, device, dtype)
    window.show()
    return app.exec()


def _log_uncaught_exceptions() -> None:
    """A bug in a slot must reach the log instead of vanishing (PySide prints and continues)."""
    previous = sys.excepthook

    def hook(kind, value, tb):
        log.critical("uncaught exception", exc_info=(kind, value, tb))
        previous(kind, value, tb)

    sys.excepthook = hook
