"""Where Parley keeps its files (platformdirs, so each OS gets its usual folders) and the log file."""

from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

import platformdirs

APP_NAME = "Parley"


def conversations_dir() -> Path:
    return _ensure(Path(platformdirs.user_documents_dir()) / APP_NAME / "Conversations")


def journal_dir() -> Path:
    """Crash journals of running conversations (see app.journals.pending)."""
    return _ensure(Path(platformdirs.user_state_dir(APP_NAME, appauthor=False)) / "journals")


def log_dir() -> Path:
    return _ensure(Path(platformdirs.user_log_dir(APP_NAME, appauthor=False)))


def log_file() -> Path:
    return log_dir() / "parley.log"


def _ensure(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def setup_logging(verbose: bool = False) -> Path:
    """Log to a rotating file (always, DEBUG) and to stderr (warnings, or everything when verbose)."""
    path = log_file()
    root = logging.getLogger()
    root.setLevel(logging.DEBUG)
    if not any(isinstance(h, logging.handlers.RotatingFileHandler) for h in root.handlers):
        file_handler = logging.handlers.RotatingFileHandler(path, maxBytes=2_000_000, backupCount=3,
                                                            encoding="utf-8")
        file_handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(threadName)s %(name)s: %(message)s"))
        root.addHandler(file_handler)
        console = logging.StreamHandler()
        console.setLevel(logging.DEBUG if verbose else logging.WARNING)
        console.setFormatter(logging.Formatter("parley: %(levelname)s: %(message)s"))
        root.addHandler(console)
    return path
