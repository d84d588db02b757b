"""Where Parley keeps its files (platformdirs, so each OS gets its usual folders) and the log file.
Each folder and the log are readable by the user only: they hold conversations, their titles,
and the paths and names of a person's files."""

from __future__ import annotations

import logging
import logging.handlers
import os
from pathlib import Path

import platformdirs

from engine.atomic import PRIVATE_MODE
from engine.files.user_data import ensure_private_folder

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
    ensure_private_folder(path)
    return path


class _PrivateLogHandler(logging.handlers.RotatingFileHandler):
    """A rotating log whose every file, the first and each one after a rollover, is the user's only."""

    def _open(self):
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND, PRIVATE_MODE)
        os.chmod(self.baseFilename, PRIVATE_MODE)  # a log from before keeps its mode through O_CREAT
        return os.fdopen(fd, "a", encoding=self.encoding, errors=self.errors)


def setup_logging(verbose: bool = False) -> Path:
    """Log to a rotating file (always, DEBUG) and to stderr (warnings, or everything when verbose)."""
    path = log_file()
    root = logging.getLogger()
    root.setLevel(logging.DEBUG)
    if not any(isinstance(h, logging.handlers.RotatingFileHandler) for h in root.handlers):
        file_handler = _PrivateLogHandler(path, maxBytes=2_000_000, backupCount=3, encoding="utf-8")
        file_handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(threadName)s %(name)s: %(message)s"))
        root.addHandler(file_handler)
        console = logging.StreamHandler()
        console.setLevel(logging.DEBUG if verbose else logging.WARNING)
        console.setFormatter(logging.Formatter("parley: %(levelname)s: %(message)s"))
        root.addHandler(console)
    return path
