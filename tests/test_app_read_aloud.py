"""Read aloud in the real window: a turn read with a Pocket TTS voice found in the Hugging Face cache
(a random-weight model at the released English shapes, in the released layout, built with kyutai's
package), played through PortAudio into the PulseAudio null sink, stopped by Esc; without a model,
the turn's menu says where to get one."""

from __future__ import annotations

import shutil
import time

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication, QMenu

from app.conversation.transcript import FrameObservation
from bench.pocket_reference import ROW, VOICE, build
from engine import pocket_default_voice
from engine.pocket_tts.releases import REPOSITORY_WITHOUT_CLONING, package_dict, revisions
from tests.test_app_window import Harness

pytest.importorskip("pocket_tts")

SENTENCE = "Hello there, my friend."
LONG = " ".join([SENTENCE] * 40)  # far longer than the test listens


@pytest.fixture(scope="module")
def pocket_hub(tmp_path_factory):
    """A Hugging Face home whose cache holds the English Pocket TTS row at its pinned commit."""
    home = tmp_path_factory.mktemp("hf")
    repo = "models--" + REPOSITORY_WITHOUT_CLONING.replace("/", "--")
    snapshot = home / "hub" / repo / "snapshots" / revisions(ROW)[1]
    build(snapshot, package_dict(ROW))
    voices = snapshot / "languages" / ROW / "embeddings"
    shutil.copy(voices / f"{VOICE}.safetensors", voices / f"{pocket_default_voice(ROW)}.safetensors")
    return home


def use_hub(monkeypatch, home) -> None:
    monkeypatch.setenv("HF_HOME", str(home))
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_ENDPOINT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # reading aloud never downloads


@pytest.fixture
def window(qtbot, tmp_path, app_demo_model):
    h = Harness(qtbot, tmp_path, lambda *args: app_demo_model, start=False)
    yield h.window
    h.window.read_aloud.stop()
    assert h.window.read_aloud.wait(30)
    h.close()


def turn(window, seconds: float, words: str) -> int:
    """A turn of the person's (a frame they spoke in) with the caption model's ``words``; its row.
    Captions alone make no turn: they wait for the person's first one."""
    window.model.turns.add_frame(FrameObservation(seconds, True, -20.0, -80.0, ""))
    window.model.turns.add_captions([(seconds, words)])
    return window.model.turns.rowCount() - 1


def assistant_turn(window, seconds: float, words: str) -> int:
    """A turn of the assistant's that says ``words``; its row."""
    window.model.turns.add_frame(FrameObservation(seconds, False, -80.0, -20.0, words))
    return window.model.turns.rowCount() - 1


def loud_windows(samples: np.ndarray, window_s: float = 0.02) -> np.ndarray:
    size = int(24000 * window_s)
    frames = samples[:samples.size // size * size].reshape(-1, size)
    return np.sqrt((frames.astype(np.float64) ** 2).mean(axis=1)) > 0.01


def test_without_a_voice_model_the_turns_menu_says_where_to_get_one(window, qtbot, tmp_path, monkeypatch):
    use_hub(monkeypatch, tmp_path / "empty-hf")
    row = turn(window, 0.5, SENTENCE)
    controls = window.read_aloud_controls
    menu = controls.menu_for(row)
    texts = [a.text() for a in menu.actions()]
    assert texts == ["Read aloud needs a Pocket TTS voice model: download one in the model manager (Model menu, "
                     "Model manager).", "Model manager..."]
    assert not menu.actions()[0].isEnabled() and menu.actions()[1].isEnabled()
    view = window.conversation_panel.view
    view.setFocus()
    view.setCurrentIndex(view.model().index(row, 0))
    # The menu key on the chosen turn opens its menu.
    point = view.visualRect(view.currentIndex()).center()
    QApplication.sendEvent(view, QContextMenuEvent(QContextMenuEvent.Keyboard, point, view.mapToGlobal(point)))
    shown = next(w for w in QApplication.topLevelWidgets() if isinstance(w, QMenu) and w.isVisible())
    assert [a.text() for a in shown.actions()] == texts
    shown.close()
    qtbot.keyClick(view, Qt.Key_R, Qt.ControlModifier)  # the keyboard's way: the same sentence, no crash
    assert not window.read_aloud.busy and window.read_aloud.message == texts[0]
    assert controls.strip.isVisible() and controls.label.text() == texts[0] and not controls.stop_button.isVisible()


def test_a_turn_is_read_aloud_into_the_speaker_and_esc_stops_it_within_a_frame(pulse_audio, window, qtbot, tmp_path,
                                                                              monkeypatch, pocket_hub):
    from tests.audio_server import SinkRecorder

    use_hub(monkeypatch, pocket_hub)
    short, long = turn(window, 0.5, SENTENCE), assistant_turn(window, 30.0, LONG)
    assert short != long
    controls, read_aloud = window.read_aloud_controls, window.read_aloud
    menu = controls.menu_for(short)
    read = next(a for a in menu.actions() if a.text() == "Read aloud with alba")
    voices = next(a for a in menu.actions() if a.text() == "Voice").menu()
    assert sorted(a.text() for a in voices.actions()) == ["alba", VOICE]
    assert next(a for a in voices.actions() if a.text() == "alba").isChecked()

    recorder = SinkRecorder(str(tmp_path / "short.raw"))
    read.trigger()
    assert read_aloud.busy and read_aloud.row == short
    assert controls.label.text() == "Reading aloud with alba (pocket-tts); Esc stops."
    assert controls.stop_button.isVisible()
    qtbot.waitUntil(lambda: not read_aloud.busy, timeout=180_000)
    time.sleep(0.3)  # what the server still plays
    heard = np.frombuffer(recorder.stop(), np.float32)
    assert read_aloud.message == "", read_aloud.message
    assert loud_windows(heard).sum() * 0.02 > 0.5  # most of the ~1.5 s of speech reached the speaker
    assert not controls.strip.isVisible()
    voices = next(a for a in controls.menu_for(short).actions() if a.text() == "Voice").menu()
    next(a for a in voices.actions() if a.text() == VOICE).trigger()  # kept: the next turn is read with it
    assert read_aloud.choice() == ("pocket-tts", VOICE)
    assert window.model.preferences.settings.read_aloud_voice == VOICE

    # A long turn, chosen by the keyboard; Esc while it speaks: silent at once, the generator ends.
    view = window.conversation_panel.view
    view.setFocus()
    view.setCurrentIndex(view.model().index(long, 0))
    recorder = SinkRecorder(str(tmp_path / "long.raw"))
    qtbot.keyClick(view, Qt.Key_R, Qt.ControlModifier)
    qtbot.waitUntil(lambda: read_aloud.phase == "reading", timeout=120_000)
    assert read_aloud.message.startswith(f"Reading aloud with {VOICE} (pocket-tts)")
    time.sleep(1.0)  # it speaks
    qtbot.keyClick(window, Qt.Key_Escape)
    stopped = time.monotonic()
    assert not read_aloud.busy and not controls.stop_button.isVisible()
    assert read_aloud.wait(1.0)  # the frame in hand, then no more
    ended = time.monotonic() - stopped
    time.sleep(1.5)
    heard = np.frombuffer(recorder.stop(), np.float32)
    silent_tail = (heard.size - np.flatnonzero(loud_windows(heard)).max() * 480) / 24000 if loud_windows(
        heard).any() else 0.0
    assert loud_windows(heard).any(), "nothing of the long turn was heard"
    # Silence came within a frame and the server's latency of Esc (the recording ends ~1.5 s after it).
    print(f"read aloud: generator ended {ended * 1000:.0f} ms after Esc, silent tail {silent_tail:.2f} s of 1.5 s")
    assert silent_tail > 1.5 - 0.35, (silent_tail, ended)
