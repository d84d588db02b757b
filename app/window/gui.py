"""`parley` with no sub-command: the desktop app."""

from __future__ import annotations

import logging
import os
import sys

from PySide6.QtWidgets import QApplication

from app import paths
from app.window.qt_libraries import display_problem

log = logging.getLogger(__name__)

# PySide6 6.12.0 drops a reference to None on every call of a void method (and to True on every
# Signal.emit) under Python < 3.12, where those objects are not immortal: the interpreter aborts
# with "none_dealloc" after a few thousand widget updates. Measured here; 6.11.3 is fine.
BROKEN_PYSIDE = {"6.12.0"}


def pyside_problem() -> str | None:
    """A message for the user when the installed PySide6 is known to crash Parley, else None."""
    import PySide6

    if PySide6.__version__ in BROKEN_PYSIDE and sys.version_info < (3, 12):
        return (f"PySide6 {PySide6.__version__} has a reference-counting bug on Python "
                f"{sys.version_info.major}.{sys.version_info.minor} that crashes the app after a few "
                "minutes. Install another version: pip install 'PySide6-Essentials==6.11.3'")
    return None


def run_gui(args) -> int:
    """Open the main window and load the model named by ``args`` (model, device, precision)."""
    log_path, log_problem = paths.setup_logging(verbose=getattr(args, "verbose", False))
    problem = pyside_problem() or display_problem()
    if problem:
        log.error("%s", problem)
        return 2
    share_cores_with_the_gui()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName(paths.APP_NAME)
    app.setOrganizationName(paths.APP_NAME)
    _log_uncaught_exceptions()

    window = open_window(args, [log_problem] if log_problem else [])
    log.info("Parley started; log file %s", log_path or "none (see above)")
    code = app.exec()
    if not window.shut_down_cleanly:
        # The worker is stuck in an uninterruptible call (a model load); destroying its QThread
        # would abort the process, so leave without running destructors.
        log.warning("quitting while the engine worker is busy")
        logging.shutdown()
        os._exit(code)
    return code


def open_window(args, problems: list[str]):
    """The main window, shown, loading the model ``args`` names (else the remembered one). Every file
    and folder the app keeps is checked first: a problem (with ``problems`` found before) is logged
    and shown in the window, and the app goes on without that file or folder."""
    from app.i18n import install_translators
    from app.settings import load_settings, open_settings_store
    from app.window.main_window import MainWindow

    store, settings_problem = open_settings_store(paths.APP_NAME)
    install_translators(QApplication.instance(), load_settings(store).language)
    journals, journals_problem = paths.usable(paths.journal_dir)
    conversations, conversations_problem = paths.usable(paths.conversations_dir)
    problems = [p for p in (*problems, settings_problem, journals_problem, conversations_problem) if p]
    window = MainWindow(store, cuda_graph=not getattr(args, "no_cuda_graph", False),
                        conversations_dir=conversations, journal_dir=None if journals_problem else journals)
    for problem in problems:
        log.error("%s", problem)
    if problems:
        window.show_error("\n\n".join(problems))
    model = getattr(args, "model", None) or window.model.preferences.settings.model
    device = getattr(args, "device", None) or window.model.preferences.settings.device
    precision = getattr(args, "precision", None) or window.model.preferences.settings.precision
    window.load_model(model, device, precision)
    window.show()
    return window


def share_cores_with_the_gui() -> None:
    """Start with ``starting_threads()``: loading a model (and its kernel plan) runs with this; the
    engine worker then measures the count the model's frames run fastest with
    (``LoadedModel.use_best_threads``)."""
    import engine

    engine.use_threads(engine.starting_threads())


def _log_uncaught_exceptions() -> None:
    """A bug in a slot must reach the log instead of vanishing (PySide prints and continues)."""
    previous = sys.excepthook

    def hook(kind, value, tb):
        log.critical("uncaught exception", exc_info=(kind, value, tb))
        previous(kind, value, tb)

    sys.excepthook = hook
