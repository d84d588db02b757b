"""Shared pytest setup: markers' behaviour and common fixtures."""

from __future__ import annotations

import gc
import os
import shutil
import sys
import tempfile

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("NO_TORCH_COMPILE", "1")  # the reference package: no compiler needed
os.environ.setdefault("NO_CUDA_GRAPH", "1")

# The project's speech recordings (different rates and channel counts on purpose): the 24 kHz one
# is also the sample `make run` plays without a display, so it lives in assets/.
_HERE = os.path.dirname(os.path.abspath(__file__))
SPEECH = {
    "hello_24k.wav": os.path.join(_HERE, "..", "assets", "hello_24k.wav"),
    "story_16k.wav": os.path.join(_HERE, "data", "story_16k.wav"),
    "interrupt_48k_stereo.wav": os.path.join(_HERE, "data", "interrupt_48k_stereo.wav"),
}

# One private cache for the whole run (the demo model is built once, into it): tests never touch
# the user's cache, and the subprocesses they start inherit it.
_TEST_CACHE = tempfile.mkdtemp(prefix="parley-test-cache-")
os.environ["PARLEY_CACHE_DIR"] = _TEST_CACHE
os.environ["PARLEY_VOICES_DIR"] = os.path.join(_TEST_CACHE, "voices")  # never the user's own voices
# Nor the user's desktop: a window would take its talk key (Ctrl+Alt+Space) there. The talk-key
# tests name the X server they start (tests/x_server.py).
for _desktop in ("DISPLAY", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE"):
    os.environ.pop(_desktop, None)


@pytest.fixture(autouse=True)
def own_personas(monkeypatch, tmp_path_factory):
    """Each test its own personas folder (empty: the shipped personas only), never the user's: an
    edit in one test (say "wait for me") must not change the conversations of the next."""
    folder = tmp_path_factory.mktemp("personas")
    monkeypatch.setenv("PARLEY_PERSONAS_DIR", str(folder))
    return folder


@pytest.fixture(autouse=True)
def windows_let_go():
    """After each test, the windows it closed are deleted, their C++ side too: a closed window's
    signals still hold the lambdas connected to them, which hold the window, so without this each
    one keeps its session, models and buffers for the rest of the run (about 55 MB a window, a
    caption model's 1 GB), and the run outgrows a 24 GB machine. A window whose engine thread still
    runs is left alone (deleting a running QThread aborts)."""
    yield
    if "PySide6.QtWidgets" not in sys.modules:  # an engine test: no Qt to clean up
        return
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        return
    for widget in app.topLevelWidgets():
        thread = getattr(getattr(widget, "model", None), "worker_thread", None)
        if widget.isVisible() or (thread is not None and thread.isRunning()):
            continue
        widget.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)
    gc.collect()


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(_TEST_CACHE, ignore_errors=True)


@pytest.fixture(scope="session")
def demo_model_dir():
    """The demo model's folder (hub layout), built once per run in the private cache."""
    from engine.files.demo import ensure_demo_model

    return ensure_demo_model()


def pytest_collection_modifyitems(config, items):
    import torch

    skip_gpu = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if "gpu" in item.keywords and not torch.cuda.is_available():
            item.add_marker(skip_gpu)


# ---- desktop app fixtures (tests/test_app_*.py, tests/test_audio_device.py) ----------------------


@pytest.fixture(scope="session")
def app_demo_model():
    """The real demo model, loaded once for all app tests (each test opens its own session)."""
    from engine import load_model

    return load_model("demo", device="cpu", precision="float32")


@pytest.fixture(scope="session")
def pulse_audio():
    """A running PulseAudio server with the test sinks (see tests/audio_server.py).

    Starts the server only when none answers, and on teardown removes only what it added.
    Yields whether this fixture started the server (tests that kill it need that).
    """
    import sys

    from tests import audio_server

    if not sys.platform.startswith("linux"):
        pytest.skip("the PulseAudio null-sink device exists on Linux only")
    if not audio_server.tools_available():
        pytest.fail("PulseAudio is missing: run tests/setup_system.sh (installs pulseaudio, pulseaudio-utils)")
    started = not audio_server.server_running()
    if started:
        audio_server.start_server()
    devices = audio_server.TestDevices()
    devices.load()
    yield audio_server.PulseHandle(started=started, devices=devices)
    if audio_server.server_running():
        devices.unload()
    if started:
        audio_server.kill_server()


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    """A real llama.cpp server on a tiny GGUF written here (``tests/llama_server.py``)."""
    from tests.llama_server import LlamaServer, write_tiny_llama

    folder = tmp_path_factory.mktemp("llama")
    server = LlamaServer(write_tiny_llama(folder / "tiny.gguf"), folder / "server.log")
    yield server
    server.close()
