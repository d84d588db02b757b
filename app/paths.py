"""Where Parley keeps its files (platformdirs, so each OS gets its usual folders) and the log file.
Each folder and the log are readable by the user only: they hold conversations, their titles,
and the paths and names of a person's files."""

from __future__ import annotations

import logging
import logging.handlers
import os
from collections.abc import Callable
from pathlib import Path

import platformdirs

from engine import PRIVATE_MODE, ensure_private_folder

APP_NAME = "Parley"


class FolderProblem(OSError):
    """A folder Parley keeps files in cannot be made or used (a file in its place, no permission);
    the message names the folder and what to do. ``path``: the folder."""

    def __init__(self, message: str, path: Path):
        super().__init__(message)
        self.path = path


def conversations_dir() -> Path:
    return _ensure(Path(platformdirs.user_documents_dir()) / APP_NAME / "Conversations", "conversations")


def journal_dir() -> Path:
    """Crash journals of running conversations (see app.journals.pending)."""
    return _ensure(Path(platformdirs.user_state_dir(APP_NAME, appauthor=False)) / "journals", "crash journals")


def log_dir() -> Path:
    return _ensure(Path(platformdirs.user_log_dir(APP_NAME, appauthor=False)), "log")


def log_file() -> Path:
    return log_dir() / "parley.log"


def usable(folder: Callable[[], Path]) -> tuple[Path, str]:
    """(the folder ``folder()`` makes, "") or (the folder, the ``FolderProblem`` it raised): for the
    app's start, which goes on without a folder it cannot use and says why."""
    try:
        return folder(), ""
    except FolderProblem as e:
        return e.path, str(e)


def folder_problem(path: Path, what: str, error: OSError) -> str:
    """One sentence: why the folder of ``what`` at ``path`` cannot be used, and what to do."""
    if path.exists() and not path.is_dir():
        return (f"Parley keeps its {what} in {path}, but a file is in its place: move or rename that file "
                "(Parley then makes the folder).")
    if isinstance(error, PermissionError):
        return (f"Parley cannot use its {what} folder {path}: permission denied. Give your user access to it "
                f"(for example: chmod u+rwx '{path}').")
    return f"Parley cannot use its {what} folder {path}: {error.strerror or error}."


def _ensure(path: Path, what: str) -> Path:
    try:
        ensure_private_folder(path)
    except OSError as e:  # a file where a folder belongs (or in a parent's place), no permission
        raise FolderProblem(folder_problem(path, what, e), path) from None
    return path


class _PrivateLogHandler(logging.handlers.RotatingFileHandler):
    """A rotating log whose every file, the first and each one after a rollover, is the user's only."""

    def _open(self):
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND, PRIVATE_MODE)
        os.chmod(self.baseFilename, PRIVATE_MODE)  # a log from before keeps its mode through O_CREAT
        return os.fdopen(fd, "a", encoding=self.encoding, errors=self.errors)


class _Console(logging.StreamHandler):
    """Parley's log on stderr."""


_log_state: tuple[Path | None, str] = (None, "")  # what setup_logging set up: (log file or None, why not)


def setup_logging(verbose: bool = False) -> tuple[Path | None, str]:
    """Log to a rotating file (always, DEBUG) and to stderr (warnings, or everything when verbose).
    Returns (the log file, "") or, where the log cannot be written, (None, why): stderr only then."""
    global _log_state
    root = logging.getLogger()
    root.setLevel(logging.DEBUG)
    if any(isinstance(h, _Console) for h in root.handlers):
        return _log_state
    console = _Console()
    console.setLevel(logging.DEBUG if verbose else logging.WARNING)
    console.setFormatter(logging.Formatter("parley: %(levelname)s: %(message)s"))
    root.addHandler(console)
    try:
        path = log_file()
        file_handler = _PrivateLogHandler(path, maxBytes=2_000_000, backupCount=3, encoding="utf-8")
    except OSError as e:  # a FolderProblem, or the log file itself a folder: the app runs without it
        _log_state = None, str(e) if isinstance(e, FolderProblem) else f"the log {e.filename} cannot be written: " \
                                                                      f"{e.strerror or e}"
        return _log_state
    file_handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(threadName)s %(name)s: %(message)s"))
    root.addHandler(file_handler)
    _log_state = path, ""
    return _log_state
