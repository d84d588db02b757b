"""Switching models on a GPU: the old model and its conversation are released before the new one
loads (two 7B models do not fit on a 24 GB card), and a failed load offers the old one back.

No GPU here: the real demo model runs, seen as a CUDA model (its info says "cuda"); the order of
operations is what is tested, through the worker's real command path.
"""

from __future__ import annotations

import dataclasses
import weakref

import pytest

from app.engine_worker import EngineWorker
from engine import ModelError


class _SeenOn:
    """The real demo model, reporting ``device`` in its info (what the worker looks at)."""

    def __init__(self, model, device: str, refs: list) -> None:
        self._model, self.files, self._refs = model, model.files, refs
        self.info = dataclasses.replace(model.info, device=device)

    def new_session(self, **kwargs):
        session = self._model.new_session(**kwargs)
        self._refs.append(weakref.ref(session))
        return session


class Recorder:
    def __init__(self, worker: EngineWorker) -> None:
        self.events: list[tuple] = []
        worker.model_loaded.connect(lambda info: self.events.append(("loaded", info.device)))
        worker.model_failed.connect(lambda message: self.events.append(("failed", message)))
        worker.previous_model_offered.connect(lambda *load: self.events.append(("offered", load)))


def make_loader(app_demo_model, device: str, log: list, fail: set):
    """A loader that logs (name, how many of the models and sessions made earlier are still alive)."""
    refs: list[weakref.ref] = []

    def load(name, device_asked, precision, cuda_graph):
        log.append((name, sum(ref() is not None for ref in refs)))
        if name in fail:
            raise ModelError(f"CUDA out of memory loading {name}")
        model = _SeenOn(app_demo_model, device, refs)
        refs.append(weakref.ref(model))
        return model
    return load


@pytest.mark.parametrize("device", ["cuda", "cuda:0"])
def test_on_a_gpu_the_old_model_is_released_before_the_new_one_loads(qtbot, app_demo_model, device):
    log: list = []
    worker = EngineWorker(make_loader(app_demo_model, device, log, fail={"broken"}), seed=1)
    events = Recorder(worker).events
    worker._execute(("load", "first", "cuda", "bfloat16", None, None))
    assert worker._session is not None
    worker._execute(("load", "second", "cuda", "bfloat16", None, None))
    assert log == [("first", 0), ("second", 0)]  # nothing of "first" was left when "second" loaded

    worker._execute(("load", "broken", "auto", "int8", None, None))
    assert log[-1] == ("broken", 0)
    assert worker._model is None and worker._session is None
    assert events[-2][0] == "failed" and "previous model (second) was unloaded" in events[-2][1]
    assert events[-1] == ("offered", ("second", "cuda", "bfloat16"))

    worker._execute(("load", "second", "cuda", "bfloat16", None, None))  # what the window does on "yes"
    assert worker._session is not None and events[-1] == ("loaded", device)


def test_on_the_cpu_the_old_model_keeps_running_until_the_new_one_is_ready(qtbot, app_demo_model):
    log: list = []
    worker = EngineWorker(make_loader(app_demo_model, "cpu", log, fail={"broken"}), seed=1)
    events = Recorder(worker).events
    worker._execute(("load", "first", "cpu", "float32", None, None))
    session = worker._session
    worker._execute(("load", "broken", "cpu", "float32", None, None))
    assert log[-1] == ("broken", 2)  # the first model and its conversation were alive during the load
    assert worker._session is session  # and still runs the conversation
    assert events[-1][0] == "failed" and "unloaded" not in events[-1][1]
    assert not any(kind == "offered" for kind, _ in events)
