"""Screen readers: every control a keyboard reaches in the window and its dialogs has an accessible
name (controls with the same name in one window differ by their description), read through Qt's
accessibility interfaces offscreen; the live transcript's turns are announced once each has ended."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import QWidget

from app.audio.headless import SignalRecorder
from app.conversation.announcer import turn_announcement
from app.conversation.transcript import ASSISTANT, YOU, Turn
from app.i18n import install_translators, remove_translators
from app.widgets.announce import announce
from app.window.main_window import MainWindow
from tests.test_app_window import Harness, conversations_dir, settings_without_processing


def keyboard_controls(window: QWidget) -> list[QWidget]:
    """The widgets of ``window`` that Tab reaches; a part Qt built into a control (named "qt_...":
    a spin box's or a key editor's line edit) is that control, named by it."""
    controls = {}
    for widget in window.findChildren(QWidget):
        if widget.window() is window and widget.focusPolicy() & Qt.TabFocus:
            control = widget.parentWidget() if widget.objectName().startswith("qt_") else widget
            controls[id(control)] = control
    return list(controls.values())


def accessible(widget: QWidget) -> tuple[str, str]:
    interface = QAccessible.queryAccessibleInterface(widget)
    return interface.text(QAccessible.Name).strip(), interface.text(QAccessible.Description).strip()


def unnamed_and_ambiguous(window: QWidget) -> tuple[list[str], list[str]]:
    """(controls without a name, or named like code (an identifier is not words); names shared by
    controls that no description tells apart)."""
    unnamed, seen = [], {}
    for widget in keyboard_controls(window):
        name, description = accessible(widget)
        if not name or "_" in name:
            unnamed.append(f"{type(widget).__name__} in {type(widget.parentWidget()).__name__}")
        seen.setdefault(name, []).append(description)
    ambiguous = [name for name, descriptions in seen.items()
                 if name and len(descriptions) > 1 and len(set(descriptions)) < len(descriptions)]
    return unnamed, ambiguous


@pytest.fixture
def window(qtbot, tmp_path):
    w = MainWindow(settings_without_processing(tmp_path / "settings.ini"), audio=False,
                   conversations_dir=conversations_dir(tmp_path))
    w.show()
    yield w
    w.model.files.unsaved_frames = 0
    w.close()


@pytest.mark.parametrize("dialog", [None, "open_persona_dialog", "open_voices_dialog", "open_model_manager",
                                    "open_talk_key_dialog"])
def test_every_control_has_an_accessible_name_and_same_names_differ_by_description(window, dialog):
    top = window if dialog is None else getattr(window.dialogs, dialog)()
    try:
        controls = keyboard_controls(top)
        assert len(controls) >= (10 if dialog is None else 3)  # the walk reached the controls
        assert unnamed_and_ambiguous(top) == ([], [])
    finally:
        if top is not window:
            top.close()  # a dialog outlives its window's close: later tests must not find it open


def test_the_walk_finds_an_unnamed_control(window):
    """The rule above is not vacuous: a picker without its label is caught."""
    label = next(w for w in window.devices_panel.findChildren(QWidget) if getattr(w, "buddy", None)
                 and w.buddy() is window.devices_panel.input_combo)
    label.setBuddy(None)
    assert unnamed_and_ambiguous(window)[0] == ["QComboBox in DevicesPanel"]


def test_a_turn_is_said_in_plain_words(qapp):
    translators = install_translators(qapp, "en")  # English's plurals ("1 second"), as the app installs them
    try:
        assert turn_announcement(Turn(YOU, 1.0, 3.2)) == "You spoke for 2 seconds."
        assert turn_announcement(Turn(ASSISTANT, 0.0, 0.4)) == "The assistant spoke for 1 second."
        assert turn_announcement(Turn(ASSISTANT, 0.0, 2.0, text=" Hello there ")) == "Assistant: Hello there"
    finally:
        remove_translators(qapp, translators)


def test_the_live_transcript_announces_each_turn_once_after_it_ended(qtbot, tmp_path, app_demo_model):
    h = Harness(qtbot, tmp_path, lambda *args: app_demo_model)
    try:
        w = h.window
        said = SignalRecorder()
        w.announcer.announce.connect(said.record)
        h.frames(2)
        w.press_talk("key")
        h.frames(10)
        w.release_talk("key")
        spoken = [t for t in w.model.transcript.turns if t.speaker == YOU]
        assert len(spoken) == 1
        assert "You spoke" not in " ".join(text for (text,) in said.calls)  # not before the turn has ended
        h.frames(12)  # 0.96 s of quiet: more than the gap that ends a turn of yours
        texts = [text for (text,) in said.calls]
        assert texts.count(turn_announcement(spoken[0])) == 1
        w.model.pause()
        qtbot.waitUntil(lambda: not w.model.live, timeout=10_000)
        texts = [text for (text,) in said.calls]
        assert sorted(texts) == sorted(turn_announcement(t) for t in w.model.transcript.turns)  # all, once each
        assert announce(w.conversation_panel.view, texts[0])  # this Qt has the polite announcement event
    finally:
        h.close()
