"""Model downloads (and the hub questions a person asks) in a child process, so that Cancel can kill them at once.

The child resolves a preset with ``engine.files.models.resolve_model(download=True)`` (at the
commit in use), or moves it to another commit with ``use_revision``, or only asks the hub which
commit its ``main`` is at (``hub_revision``), and reports through a multiprocessing queue as plain
tuples: ``("progress", done_bytes, total_bytes, description)``, then ``("done", path or commit)`` or
``("failed", message)``. The parent polls the queue from a GUI timer (no threads, no signals
from foreign threads).
"""

from __future__ import annotations

import multiprocessing as mp
import queue
from dataclasses import dataclass


class _Discard:
    """A file for tqdm that shows nothing (the dialog draws the progress)."""

    def write(self, text: str) -> None:
        pass

    def flush(self) -> None:
        pass


def _child(name: str, revision: str | None, check: bool, messages) -> None:
    from tqdm.auto import tqdm

    class QueueProgress(tqdm):
        """huggingface_hub drives one of these per file; it forwards its counters to the parent."""

        def __init__(self, *args, **kwargs):
            kwargs["disable"] = False
            kwargs["file"] = _Discard()
            super().__init__(*args, **kwargs)

        def update(self, n=1):
            result = super().update(n)
            if self.unit == "B":  # bytes; not a snapshot's count of files, which the dialog would show as GB
                messages.put(("progress", int(self.n), int(self.total or 0), str(self.desc or "")))
            return result

    try:
        import engine

        if check:
            messages.put(("done", engine.hub_revision(name)))
            return
        if name in engine.SPEECH_PRESETS:
            messages.put(("done", str(engine.fetch_speech_model(name, progress=QueueProgress))))
            return
        if revision is None:
            files = engine.resolve_model(name, download=True, progress=QueueProgress)
        else:
            files = engine.use_revision(name, revision, progress=QueueProgress)
        messages.put(("done", str(files.lm_path.parent)))
    except Exception as e:  # everything goes back to the dialog as a message
        messages.put(("failed", str(e)))


@dataclass(frozen=True)
class DownloadUpdate:
    kind: str  # "progress" | "done" | "failed"
    done_bytes: int = 0
    total_bytes: int = 0
    text: str = ""


class ModelDownload:
    """One download of one preset (at ``revision``: move it there; None: the commit in use), or with
    ``check`` only the question which commit the hub's main is at (``done``'s text is that commit);
    ``poll()`` it from a timer, ``cancel()`` kills the child."""

    def __init__(self, name: str, revision: str | None = None, check: bool = False) -> None:
        self.name, self.check = name, check
        context = mp.get_context("spawn")  # the same on every OS; no forked Qt or torch state
        self._messages = context.Queue()
        self._process = context.Process(target=_child, args=(name, revision, check, self._messages), daemon=True,
                                        name=f"parley-download-{name}")
        self._process.start()
        self.finished = False

    def poll(self) -> list[DownloadUpdate]:
        updates = []
        while True:
            try:
                kind, *rest = self._messages.get_nowait()
            except queue.Empty:
                break
            if kind == "progress":
                updates.append(DownloadUpdate("progress", rest[0], rest[1], rest[2]))
            else:
                self.finished = True
                updates.append(DownloadUpdate(kind, text=rest[0]))
        if not self.finished and not self._process.is_alive():
            self.finished = True
            updates.append(DownloadUpdate("failed", text=f"the download process ended unexpectedly "
                                                         f"(exit code {self._process.exitcode})"))
        return updates

    def is_running(self) -> bool:
        return self._process.is_alive()

    def cancel(self) -> None:
        if self._process.is_alive():
            self._process.kill()
            self._process.join(5)
        self.finished = True
