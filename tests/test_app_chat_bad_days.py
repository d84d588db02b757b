"""The language model server's bad days in the real window (offscreen Qt, real PortAudio through the
PulseAudio null sinks): a dropped connection, an error, a server that is not OpenAI-compatible, an
endless line. Each is one sentence in the window's error box; the person's turn and what the model
said before are kept, shown and saved; the next Talk works."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QFileDialog

import engine
from app.conversation.transcript import ASSISTANT, YOU
from tests.test_app_chat import ask_holding_talk
from tests.test_app_chat_files import open_window, shown  # noqa: F401 - open_window: a fixture
from tests.test_app_read_aloud import pocket_hub  # noqa: F401 - a fixture

pytest.importorskip("pocket_tts")


@pytest.mark.parametrize("behaviour, says, kept", [
    ("drop", "The connection to the language model was lost", True),
    ("error-500", "the model ran out of memory", False),
    ("html", "text/html", False),
    ("huge-line", "MB", True),
])
def test_each_bad_day_is_one_sentence_and_loses_nothing(open_window, qtbot, tmp_path, monkeypatch,  # noqa: F811
                                                        behaviour, says, kept):
    from tests.bad_chat_server import PIECES, BadServer

    window = open_window()
    model, chat = window.model, window.model.chat
    with BadServer(behaviour) as server:
        assert model.start_chat(server.url, "m")
        ask_holding_talk(window, qtbot, tmp_path)
        qtbot.waitUntil(lambda: window.error_box.isVisible(), timeout=180_000)
        qtbot.waitUntil(lambda: chat.phase == "ready", timeout=60_000)
        problem = window.error_box.message
        assert says in problem and "\n" not in problem and "Traceback" not in problem, problem
        turns = shown(window)
        assert turns[0][0] == YOU and turns[0][1]  # the person's words stay
        assert turns[1:] == ([(ASSISTANT, "".join(PIECES))] if kept else [])  # and what the model said
        assert model.talk_available() == (True, "")  # the next Talk works

        path = tmp_path / "bad day.parley"
        monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(path), ""))
        assert window.files.save()
        qtbot.waitUntil(lambda: chat.conversation_path == str(path), timeout=30_000)
        saved = engine.read_chat_conversation(path)
        assert [m["role"] for m in saved.messages if m["role"] != "system"] == ["user"] + (["assistant"] if kept
                                                                                          else [])
        assert engine.read_conversation_info(path).caption_text == turns[0][1]
