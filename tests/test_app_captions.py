"""Captions of what you say, in the window (offscreen, the real engine thread and frame pump, the
demo speech-to-text model built for real): the person's words appear in their turns as frames of
speech are fed, come out of the exports, are saved, opened again, found by the library's search
and recovered from a crash journal."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import srt
import webvtt
from PySide6.QtCore import Qt

import engine
from app.conversation.transcript import YOU, Transcript
from app.conversation.transcript_formats import words
from tests.conftest import SPEECH
from tests.test_app_library import titles
from tests.test_app_window import Harness, conversations_dir


def captions_on(h: Harness) -> None:
    window, model = h.window, h.window.model
    action = window.menus.captions_action
    assert action.isEnabled() and not action.isChecked() and not model.preferences.settings.captions
    action.trigger()
    h.qtbot.waitUntil(lambda: model.captions.running == "demo-stt", timeout=120_000)
    assert action.isChecked() and model.preferences.settings.captions  # kept for the next start
    assert model.worker.controller.captions.model.has_voice_activity  # the demo STT has the 1B's heads


def speak(h: Harness, frames: int) -> None:
    """Hold Talk over ``frames`` frames of tone, then pause (which lets the last words out)."""
    window, model = h.window, h.window.model
    h.qtbot.keyPress(window, Qt.Key_Space)
    h.frames(frames)
    h.qtbot.keyRelease(window, Qt.Key_Space)
    h.frames(2)
    model.pause()
    h.qtbot.waitUntil(lambda: not model.live, timeout=10_000)  # the finished captioner's words came before


def your_turns(model) -> list:
    return [t for t in model.transcript.turns if t.speaker == YOU]


@pytest.fixture
def harness(qtbot, tmp_path, app_demo_model):
    h = Harness(qtbot, tmp_path, lambda *args: app_demo_model)
    yield h
    h.close()


def test_your_words_appear_in_your_turns_and_survive_save_open_search_and_exports(harness, qtbot, tmp_path):
    model = harness.window.model
    captions_on(harness)
    speak(harness, 20)
    session = model.worker.controller.session
    kept = session.captions
    assert kept and list(model.transcript.captions) == list(kept)  # every piece the engine kept, shown
    shown = " ".join(t.text for t in your_turns(model)).split()
    assert shown and shown == "".join(text for _, text in kept).split()
    shown_lines = harness.window.conversation_panel.view.as_text().splitlines()
    assert [f"You: {t.text.strip()}" for t in your_turns(model) if t.text.strip()] == \
        [line for line in shown_lines if line.startswith("You: ")]  # the view paints the words

    for suffix in (".srt", ".vtt", ".md"):
        model.files.export_transcript(str(tmp_path / f"talk{suffix}"))
    you = [words(t) for t in your_turns(model)]
    cues = list(srt.parse((tmp_path / "talk.srt").read_text(encoding="utf-8")))
    assert [c.content.removeprefix("You: ") for c in cues if c.content.startswith("You: ")] == you
    vtt = webvtt.read(str(tmp_path / "talk.vtt")).captions
    assert [c.text for c in vtt if c.voice == "You"] == you
    markdown = (tmp_path / "talk.md").read_text(encoding="utf-8")
    assert all("**You** " in markdown and text.split()[0] in markdown for text in you)

    path = conversations_dir(tmp_path) / "talk.parley"
    with qtbot.waitSignal(model.files.saved, timeout=30_000):
        model.files.save(str(path))
    info = engine.read_conversation_info(path)
    assert info.captions == kept

    # The library finds a word only the person said.
    assistant = f"{path.stem}\n{info.text}".lower()
    only_yours = [w for w in info.caption_text.lower().split() if w not in assistant and w.isalpha()]
    assert only_yours, "the demo said every word the caption model heard: no word to look for"
    panel = harness.window.library_panel
    qtbot.waitUntil(lambda: "talk" in " ".join(titles(panel)) or panel.filter.rowCount() == 1, timeout=20_000)
    panel.search.setText(only_yours[0])
    qtbot.waitUntil(lambda: not panel.filter.searching, timeout=20_000)
    assert panel.filter.rowCount() == 1

    before = [(round(t.start, 2), t.text) for t in your_turns(model)]
    model.new_conversation()
    qtbot.waitUntil(lambda: not model.transcript.captions, timeout=20_000)
    model.files.open_conversation(str(path))
    qtbot.waitUntil(lambda: model.files.conversation_path == str(path), timeout=30_000)
    assert list(model.transcript.captions) == list(kept)
    assert " ".join(t.text for t in your_turns(model)).split() == [w for _, w in before for w in w.split()]


def test_a_crash_journal_keeps_your_words_and_recovery_brings_them_back(qtbot, tmp_path, app_demo_model):
    journals, crashed = tmp_path / "journals", tmp_path / "crashed"
    journals.mkdir()
    crashed.mkdir()
    first = Harness(qtbot, tmp_path / "first", lambda *args: app_demo_model, journal_dir=journals)
    try:
        captions_on(first)
        speak(first, 12)
        kept = first.window.model.worker.controller.session.captions
        journal = first.window.model.worker.controller.journal_path
        assert kept
        qtbot.waitUntil(lambda: engine.read_journal(journal).captions == kept, timeout=10_000)
        shutil.copy(journal, crashed / journal.name)  # what a kill -9 now would leave behind
    finally:
        first.close()

    second = Harness(qtbot, tmp_path / "second", lambda *args: app_demo_model, journal_dir=crashed, start=False)
    try:
        model = second.window.model
        qtbot.waitUntil(lambda: second.window.dialogs.recovery is not None, timeout=20_000)
        dialogs = second.window.dialogs.recovery
        dialogs.recover_button.click()
        qtbot.waitUntil(lambda: dialogs.offer.outcome is not None, timeout=120_000)
        assert dialogs.offer.outcome == ""
        assert model.worker.controller.session.captions == kept
        assert list(model.transcript.captions) == list(kept)
        assert " ".join(t.text for t in your_turns(model)).split() == "".join(t for _, t in kept).split()
    finally:
        second.close()


def test_where_no_caption_model_is_here_the_item_is_greyed_out_and_says_what_to_download(harness):
    model, action = harness.window.model, harness.window.menus.captions_action
    assert action.isEnabled()  # the demo's: demo-stt
    model.captions.offer(conversation_is_demo=False, device="cpu")  # as a real model's load does; none downloaded
    assert not action.isEnabled()
    assert "No caption model is on this machine" in action.toolTip() and "stt-1b-en_fr" in action.toolTip()


def speak_twice(h: Harness) -> None:
    """Two stretches of tone on the open microphone with quiet between them, longer than the quiet that
    ends a turn by silence (with Talk held, the heads' ends inside it would not count)."""
    model = h.window.model
    model.set_open_mic(True)
    for _ in range(2):
        h.frames(14)
        h.frames(10, audio=lambda count: np.zeros(count * engine.FRAME_SIZE, np.float32))
    model.set_open_mic(False)
    model.pause()
    h.qtbot.waitUntil(lambda: not model.live, timeout=30_000)  # finishing the captioner: seconds on a busy machine


def turn_shapes(model) -> list:
    return [(round(t.start, 3), round(t.end, 3), sorted(t.heard), t.text) for t in your_turns(model)]


def reopened_turn_shapes(model, path, qtbot) -> list:
    """Save the conversation to ``path``, start a new one, reopen ``path``: its turns' shapes."""
    with qtbot.waitSignal(model.files.saved, timeout=30_000):
        model.files.save(str(path))
    model.new_conversation()
    qtbot.waitUntil(lambda: not model.transcript.turns, timeout=20_000)
    model.files.open_conversation(str(path))
    qtbot.waitUntil(lambda: model.files.conversation_path == str(path), timeout=30_000)
    return turn_shapes(model)


def split_by_silence(model) -> list:
    """The person's turns as a conversation stored without its turn ends opens (split by silence)."""
    session = model.worker.controller.session
    t = Transcript()
    t.load(session.progress().transcript, *session.audio(), captions=session.captions)
    return [(round(x.start, 3), round(x.end, 3), sorted(x.heard), x.text) for x in t.turns if x.speaker == YOU]


def test_an_opened_conversation_has_your_turns_as_the_voice_activity_heads_ended_them(harness, qtbot, tmp_path):
    model = harness.window.model
    captions_on(harness)
    speak_twice(harness)
    live = turn_shapes(model)
    assert model.worker.controller.session.turn_ends  # the demo's random heads end turns on the tone
    assert split_by_silence(model) != live  # what reopening did before the ends were stored

    path = conversations_dir(tmp_path) / "turns.parley"
    assert reopened_turn_shapes(model, path, qtbot) == live


def test_a_recovered_conversation_has_your_turns_as_the_voice_activity_heads_ended_them(qtbot, tmp_path,
                                                                                         app_demo_model):
    journals, crashed = tmp_path / "journals", tmp_path / "crashed"
    journals.mkdir()
    crashed.mkdir()
    first = Harness(qtbot, tmp_path / "first", lambda *args: app_demo_model, journal_dir=journals)
    try:
        captions_on(first)
        speak_twice(first)
        live = turn_shapes(first.window.model)
        controller = first.window.model.worker.controller
        session, journal = controller.session, controller.journal_path
        assert session.turn_ends and split_by_silence(first.window.model) != live
        qtbot.waitUntil(lambda: engine.read_journal(journal).turn_ends == session.turn_ends, timeout=10_000)
        shutil.copy(journal, crashed / journal.name)  # what a kill -9 now would leave behind
    finally:
        first.close()

    second = Harness(qtbot, tmp_path / "second", lambda *args: app_demo_model, journal_dir=crashed, start=False)
    try:
        qtbot.waitUntil(lambda: second.window.dialogs.recovery is not None, timeout=20_000)
        dialogs = second.window.dialogs.recovery
        dialogs.recover_button.click()
        qtbot.waitUntil(lambda: dialogs.offer.outcome is not None, timeout=120_000)
        assert dialogs.offer.outcome == ""
        assert turn_shapes(second.window.model) == live
    finally:
        second.close()


def test_one_utterance_held_on_talk_is_one_turn_with_only_the_words_said_while_it_was_held(harness, qtbot, tmp_path):
    """5 s of speech with Space held, then silence: the demo STT (random weights) writes words on the
    silence before and after too, and its random voice-activity heads end turns inside the held
    stretch; the person's turn is still the one stretch they held Talk for, and holds only words
    dated while it was held (the rest of a word begun then included), live and reopened."""
    model, window = harness.window.model, harness.window
    captions_on(harness)
    speech = engine.read_wav(SPEECH["story_16k.wav"])[:5 * engine.SAMPLE_RATE]
    fed = iter(range(0, len(speech), engine.FRAME_SIZE))

    def silence(count: int) -> np.ndarray:
        return np.zeros(count * engine.FRAME_SIZE, np.float32)

    def spoken(count: int) -> np.ndarray:
        start = next(fed)
        return speech[start:start + count * engine.FRAME_SIZE]

    harness.frames(3, audio=silence)
    qtbot.keyPress(window, Qt.Key_Space)
    pressed = harness.stats[-1].seconds + engine.FRAME_SECONDS
    harness.frames(len(speech) // engine.FRAME_SIZE, audio=spoken)
    qtbot.keyRelease(window, Qt.Key_Space)
    released = harness.stats[-1].seconds + engine.FRAME_SECONDS
    harness.frames(40, audio=silence)  # 3.2 s: the demo STT goes on writing words on it
    model.pause()
    qtbot.waitUntil(lambda: not model.live, timeout=10_000)

    live = turn_shapes(model)
    assert len(live) == 1, live
    start, end, _, text = live[0]
    assert (start, end) == (round(pressed, 3), round(released, 3)) and text
    session = model.worker.controller.session
    word_starts = [s for s, piece in session.captions if piece[:1].isspace()]
    assert word_starts and all(pressed - 0.08 - 1e-6 <= s < released + 0.08 for s in word_starts), word_starts
    assert list(model.transcript.captions) == list(session.captions)
    assert round(released, 3) in [round(e, 3) for e in session.turn_ends]  # letting go of Talk ended the turn

    path = conversations_dir(tmp_path) / "held.parley"
    assert reopened_turn_shapes(model, path, qtbot) == live
