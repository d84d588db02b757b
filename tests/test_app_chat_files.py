"""A conversation with your language model saved, listed, reopened and recovered in the real window
(offscreen Qt, real PortAudio through the PulseAudio null sinks, the demo speech to text and a
random-weight Pocket TTS at the released English shapes): Save writes it where the person chose and
the title says so; the library lists it and reopening it continues it with the same server, model,
voice and history, its turns as they were; a crash's journal is offered at the next start and the
conversation goes on from it, unsaved; Stop with turns unsaved asks first."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox

import engine
from app.conversation.read_aloud import chosen_voice, installed_voices
from app.conversation.transcript import ASSISTANT, YOU
from app.journals.pending import CHAT_SUFFIX
from app.settings import AppSettings
from app.window.main_window import MainWindow
from tests.test_app_chat import ask_holding_talk
from tests.test_app_read_aloud import pocket_hub, use_hub  # noqa: F401 - pocket_hub: a fixture
from tests.test_app_window import conversations_dir

pytest.importorskip("pocket_tts")


@pytest.fixture
def open_window(pulse_audio, qtbot, tmp_path, monkeypatch, pocket_hub):  # noqa: F811
    """Makes windows as the app does (settings, a library, a journal folder), closed after."""
    use_hub(monkeypatch, pocket_hub)
    made = []

    def make() -> MainWindow:
        store = QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)
        for stage in ("echo_cancellation", "noise_suppression", "high_pass_filter"):
            store.setValue(stage, False)
        w = MainWindow(store, model_loader=lambda *args: pytest.fail("no speech-to-speech model is asked for"),
                       audio=True, conversations_dir=conversations_dir(tmp_path), journal_dir=tmp_path / "journals")
        w.show()
        made.append(w)
        return w

    (tmp_path / "journals").mkdir()
    yield make
    for w in made:
        w.model.stop_chat()
        w.model.chat.unsaved_frames = w.model.files.unsaved_frames = 0
        w.close()


def shown(window) -> list[tuple[str, str]]:
    return [(turn.speaker, turn.text.strip()) for turn in window.model.transcript.turns]


def test_saved_listed_reopened_and_continued_with_the_same_history(open_window, qtbot, tmp_path, monkeypatch):
    from tests.bad_chat_server import PIECES, BadServer

    window = open_window()
    model, chat = window.model, window.model.chat
    path = window.library.folder / "with my model.parley"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(path), ""))
    with BadServer("ok") as server:
        assert model.start_chat(server.url, "m")
        ask_holding_talk(window, qtbot, tmp_path)
        qtbot.waitUntil(lambda: len(model.transcript.turns) == 2 and chat.phase == "ready", timeout=180_000)
        turns = shown(window)
        assert turns[1] == (ASSISTANT, "".join(PIECES)) and turns[0][0] == YOU
        assert window.windowTitle() == "Untitled conversation * — Parley"
        journals = tmp_path / "journals"  # each exchange is journaled
        qtbot.waitUntil(lambda: any(journals.glob("*" + CHAT_SUFFIX)), timeout=30_000)
        journal = next(journals.glob("*" + CHAT_SUFFIX))
        assert engine.read_chat_conversation(journal).frames > 0

        qtbot.keyClick(window.conversation_panel.talk_button, Qt.Key_S, Qt.ControlModifier)  # Save: no file
        # yet, so where the person chooses
        qtbot.waitUntil(lambda: chat.conversation_path == str(path), timeout=30_000)
        assert window.windowTitle() == "with my model.parley — Parley" and chat.unsaved_frames == 0
        messages = chat.conversation_messages()
        assert engine.read_chat_conversation(path).messages == tuple(messages)
        assert window.library.current == path  # the library marks it as the one open
        qtbot.waitUntil(lambda: window.library.row_of(path) is not None, timeout=30_000)  # the folder is watched
        assert window.library_panel.rename(window.library.entries[window.library.row_of(path)], "my model")
        path = path.with_name("my model.parley")  # the chat follows its file: Save writes the new name
        assert chat.conversation_path == str(path) and window.windowTitle() == "my model.parley — Parley"

        window.files.stop_chat()  # nothing unsaved: no question
        assert not chat.active and not journal.exists()
        assert window.windowTitle() == "Untitled conversation — Parley"  # the speech model's, which has none
        qtbot.waitUntil(lambda: window.library.row_of(path) is not None, timeout=30_000)
        entry = window.library.entries[window.library.row_of(path)]
        assert entry.info.kind == engine.CHAT_CONVERSATION and entry.preview == "".join(PIECES)

        del server.requests[:]
        window.files.open_entry(entry)  # the library's Open: the chat goes on with its server and history
        qtbot.waitUntil(lambda: chat.phase == "ready", timeout=180_000)
        assert shown(window) == turns and chat.conversation_path == str(path)
        assert window.windowTitle() == "my model.parley — Parley"
        assert chat.model_name == "m" and chat.conversation_messages() == messages
        ask_holding_talk(window, qtbot, tmp_path)
        qtbot.waitUntil(lambda: len(model.transcript.turns) == 4 and chat.phase == "ready", timeout=180_000)
        assert server.requests[-1]["messages"][:len(messages)] == messages
        assert window.windowTitle() == "my model.parley * — Parley"

        asked = []
        monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.Cancel)
        window.files.stop_chat()  # unsaved: asked first; Cancel keeps it running
        assert asked == ["Save the current conversation before it is closed?"] and chat.active

        four = shown(window)
        qtbot.keyClick(window.conversation_panel.talk_button, Qt.Key_S, Qt.ControlModifier)  # into its file
        qtbot.waitUntil(lambda: chat.unsaved_frames == 0, timeout=30_000)
        window.files.stop_chat()
        assert not chat.active and len(asked) == 1
        monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
        qtbot.keyClick(window.conversation_panel.talk_button, Qt.Key_O, Qt.ControlModifier)  # File, Open
        qtbot.waitUntil(lambda: chat.phase == "ready", timeout=180_000)
        assert shown(window) == four and len(chat.conversation_messages()) == len(messages) + 2


def test_a_crashed_conversation_is_offered_at_the_next_start_and_goes_on_unsaved(open_window, qtbot, tmp_path,
                                                                                  monkeypatch):
    from tests.bad_chat_server import BadServer
    from tests.test_chat_conversation_file import MESSAGES, two_exchanges

    name, voice = chosen_voice(AppSettings(), installed_voices())
    with BadServer("ok") as server:
        timeline = two_exchanges()
        side = engine.LanguageModelSide(server.url, "m", "demo-stt", name, voice)
        journal = tmp_path / "journals" / f"conversation-crashed{CHAT_SUFFIX}"
        engine.write_chat_conversation(journal, type(timeline)(side, timeline.conversation(MESSAGES))
                                       .conversation(MESSAGES))
        answers = []
        monkeypatch.setattr(QMessageBox, "open", lambda box: answers.append(box.text()) or box.buttonClicked.emit(
            next(b for b in box.buttons() if b.text() == "Recover")))
        window = open_window()
        chat = window.model.chat
        qtbot.waitUntil(lambda: chat.active, timeout=30_000)
        assert answers and answers[0].startswith("Parley did not close properly. Recover the conversation")
        qtbot.waitUntil(lambda: chat.phase == "ready", timeout=180_000)
        assert [speaker for speaker, _text in shown(window)] == [YOU, ASSISTANT, YOU, ASSISTANT]
        assert chat.conversation_messages() == list(MESSAGES) and chat.conversation_path is None
        assert window.windowTitle() == "Untitled conversation * — Parley"  # recovered: in no file yet
        ask_holding_talk(window, qtbot, tmp_path)
        qtbot.waitUntil(lambda: len(window.model.transcript.turns) == 6 and chat.phase == "ready", timeout=180_000)
        assert server.requests[-1]["messages"][:len(MESSAGES)] == list(MESSAGES)
        qtbot.waitUntil(lambda: len(engine.read_chat_conversation(journal).turn_ends) == 3,  # it goes on
                        timeout=30_000)  # writing the same journal
