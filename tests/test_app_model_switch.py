"""Switching models on a GPU: the old model and its conversation are released before the new one
loads (two 7B models do not fit on a 24 GB card), and a failed load offers the old one back.

No GPU here: the real demo model runs, seen as a CUDA model (its info says "cuda"); the order of
operations is what is tested, through the controller's real command path (it has no Qt, so it
runs here in the test's thread).
"""

from __future__ import annotations

import dataclasses
import weakref

import pytest

from app.engine_thread.controller import ConversationController
from app.engine_thread.messages import LoadModel, ModelFailed, ModelLoaded, PreviousModelOffered
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


def controller_with(loader) -> tuple[ConversationController, list]:
    events: list = []
    return ConversationController(events.append, post=lambda command: None, model_loader=loader, seed=1), events


@pytest.mark.parametrize("device", ["cuda", "cuda:0"])
def test_on_a_gpu_the_old_model_is_released_before_the_new_one_loads(app_demo_model, device):
    log: list = []
    controller, events = controller_with(make_loader(app_demo_model, device, log, fail={"broken"}))
    controller.execute(LoadModel("first", "cuda", "bfloat16"))
    assert controller.session is not None
    controller.execute(LoadModel("second", "cuda", "bfloat16"))
    assert log == [("first", 0), ("second", 0)]  # nothing of "first" was left when "second" loaded

    controller.execute(LoadModel("broken", "auto", "int8"))
    assert log[-1] == ("broken", 0)
    assert controller.model is None and controller.session is None
    failed, offered = events[-2:]
    assert isinstance(failed, ModelFailed) and "previous model (second) was unloaded" in failed.message
    assert offered == PreviousModelOffered("second", "cuda", "bfloat16")

    controller.execute(LoadModel("second", "cuda", "bfloat16"))  # what the window does on "yes"
    loaded = [e for e in events if isinstance(e, ModelLoaded)]
    assert controller.session is not None and loaded[-1].info.device == device


def test_on_the_cpu_the_old_model_keeps_running_until_the_new_one_is_ready(app_demo_model):
    log: list = []
    controller, events = controller_with(make_loader(app_demo_model, "cpu", log, fail={"broken"}))
    controller.execute(LoadModel("first", "cpu", "float32"))
    session = controller.session
    controller.execute(LoadModel("broken", "cpu", "float32"))
    assert log[-1] == ("broken", 2)  # the first model and its conversation were alive during the load
    assert controller.session is session  # and still runs the conversation
    assert isinstance(events[-1], ModelFailed) and "unloaded" not in events[-1].message
    assert not any(isinstance(e, PreviousModelOffered) for e in events)
