"""Finding the person's language model server for the window, widget-free: a running Ollama or LM
Studio at its usual address (``app.chat.discovery``), asked off the GUI thread (up to a second when
none runs), and what the window says about what it found, in one sentence."""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, QTimer, Signal

from app.chat.discovery import USUAL_SERVERS, FoundServer, find_servers
from app.i18n import translate

POLL_MS = 50


def found_note(found: list[FoundServer]) -> str:
    """One sentence: the first server found and its models, or what to install or start."""
    if not found:
        where = translate("ChatServers", " or ").join(f"{k.name} ({k.url})" for k in USUAL_SERVERS)
        return translate("ChatServers", "No language model server is running here: start {where}, for example "
                         "with `ollama serve` and `ollama pull llama3.2`, or give the address of your llama-server "
                         "or vLLM.").format(where=where)
    first = found[0]
    if not first.models:
        return translate("ChatServers", "{name} runs at {url} but offers no model: pull or load one (for example "
                         "`ollama pull llama3.2`).").format(name=first.name, url=first.url)
    return translate("ChatServers", "{name} runs at {url}: choose one of its models.").format(name=first.name,
                                                                                               url=first.url)


class ServerSearch(QObject):
    finished = Signal(list)  # the FoundServers, in the usual servers' order

    def __init__(self, parent: QObject | None = None, finder=find_servers) -> None:
        super().__init__(parent)
        self._find = finder
        self._result: list | None = None
        self._thread: threading.Thread | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self._poll)

    @property
    def busy(self) -> bool:
        return self._thread is not None

    def search(self) -> None:
        if self._thread is not None:
            return
        self._result = None
        self._thread = threading.Thread(target=self._run, name="parley-llm-search", daemon=True)
        self._thread.start()
        self._timer.start()

    def _run(self) -> None:
        try:
            self._result = self._find()
        except Exception:  # noqa: BLE001 - a search that fails found nothing
            self._result = []

    def _poll(self) -> None:
        if self._thread is None or self._thread.is_alive():
            return
        self._thread = None
        self._timer.stop()
        self.finished.emit(self._result or [])
