"""A conversation with your language model in the real window (offscreen Qt): real PortAudio through
the PulseAudio null sinks, a real llama.cpp server on a tiny random GGUF (tests/llama_server.py), the
demo speech to text and a random-weight Pocket TTS at the released English shapes found in the
Hugging Face cache. Talk is held while a recording plays into the microphone and released: the
person's words and the server's answer to them appear as turns, and the answer reaches the speaker.
With no server answering, the window says so in one sentence and nothing breaks."""

from __future__ import annotations

import time

import numpy as np
import pytest
import soundfile
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QDialog, QMessageBox

from app.conversation.status import Status
from app.conversation.transcript import ASSISTANT, YOU
from app.window.main_window import MainWindow
from tests import audio_server
from tests.bad_chat_server import free_port
from tests.conftest import SPEECH
from tests.llama_server import whole_answer
from tests.test_app_read_aloud import loud_windows, pocket_hub, use_hub  # noqa: F401 - pocket_hub: a fixture
from tests.test_app_window import conversations_dir

pytest.importorskip("pocket_tts")
pytest.importorskip("llama_cpp.server", reason="make test installs llama-cpp-python[server]")

MAX_TOKENS = 12


@pytest.fixture
def window(pulse_audio, qtbot, tmp_path, monkeypatch, pocket_hub):  # noqa: F811
    use_hub(monkeypatch, pocket_hub)
    store = QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)
    for stage in ("echo_cancellation", "noise_suppression", "high_pass_filter"):
        store.setValue(stage, False)  # the raw microphone: push-to-talk needs no echo canceller
    w = MainWindow(store, model_loader=lambda *args: pytest.fail("no speech-to-speech model is asked for"),
                   audio=True, conversations_dir=conversations_dir(tmp_path))
    w.show()
    yield w
    w.model.stop_chat()
    w.model.files.unsaved_frames = 0
    w.close()


def spoken_question(tmp_path) -> str:
    """Two seconds of the project's recording of a person speaking."""
    audio, rate = soundfile.read(SPEECH["hello_24k.wav"], dtype="float32")
    path = tmp_path / "question.wav"
    soundfile.write(path, audio[:int(2.0 * rate)], rate)
    return str(path)


def ask_holding_talk(window, qtbot, tmp_path) -> None:
    """Once the conversation with the server is ready: Talk held while the question plays into the
    microphone, then released."""
    chat = window.model.chat
    qtbot.waitUntil(lambda: chat.phase == "ready", timeout=180_000)
    qtbot.waitUntil(lambda: window.model.devices.audio.status.state == "running", timeout=30_000)
    window.press_talk("key")
    qtbot.waitUntil(lambda: chat.phase == "listening", timeout=10_000)
    player = audio_server.play_into_mic(spoken_question(tmp_path))
    try:
        assert player.wait(30) == 0
    finally:
        player.kill()
    window.release_talk("key")


def test_held_talk_is_heard_answered_by_the_server_and_spoken_to_the_speaker(window, llama, qtbot, tmp_path,
                                                                              monkeypatch):
    from app.chat.instructions import SPOKEN
    from engine import Persona

    model, chat = window.model, window.model.chat
    model.models.choose_persona(Persona("Teacher", role="You are a patient teacher of geography."))
    assert model.start_chat(llama.url, "tiny", max_tokens=MAX_TOKENS, temperature=0)
    assert model.preferences.settings.llm_url == llama.url and model.preferences.settings.llm_model == "tiny"
    qtbot.waitUntil(lambda: chat.phase == "ready", timeout=180_000)
    assert chat.message.startswith("Talking with tiny at ") and model.talk_available() == (True, "")
    assert model.status is Status.READY  # not "Idle, no model loaded": no speech-to-speech model is needed
    assert window.header.model_label.text() == f"Your language model: tiny at {llama.url}"
    panel = window.conversation_panel  # no speech-to-speech model: Talk and open mic work, Start does not
    assert panel.talk_button.isEnabled() and panel.open_mic_box.isEnabled()  # demo-stt has the heads
    assert not panel.start_button.isEnabled()
    qtbot.waitUntil(lambda: model.devices.audio.status.state == "running", timeout=30_000)

    speaker = audio_server.SinkRecorder(str(tmp_path / "speaker.f32"))
    window.press_talk("key")
    qtbot.waitUntil(lambda: chat.phase == "listening", timeout=10_000)
    assert model.status is Status.LISTENING
    player = audio_server.play_into_mic(spoken_question(tmp_path))
    try:
        assert player.wait(30) == 0
        time.sleep(0.3)  # what the server still delivers
    finally:
        player.kill()
    window.release_talk("key")
    qtbot.waitUntil(lambda: chat.phase == "answering" or chat.phase == "ready", timeout=60_000)
    qtbot.waitUntil(lambda: chat.phase == "ready", timeout=180_000)
    time.sleep(0.5)  # the end of the voice, played
    heard = np.frombuffer(speaker.stop(), np.float32)

    turns = model.transcript.turns
    assert [t.speaker for t in turns] == [YOU, ASSISTANT], chat.message
    question = turns[0].text
    assert question and not window.error_box.isVisible()
    # who it is, from the persona's role, and that it is heard
    system = {"role": "system", "content": f"You are a patient teacher of geography.\n\n{SPOKEN}"}
    want = whole_answer(llama.url, [system, {"role": "user", "content": question}], MAX_TOKENS)["message"]["content"]
    assert turns[1].text == want.strip() != ""
    assert chat.conversation_messages() == [system, {"role": "user", "content": question},
                                            {"role": "assistant", "content": want}]
    assert loud_windows(heard).sum() * 0.02 > 0.3, "the answer did not reach the speaker"
    assert chat.message.startswith("Hold Talk to answer. The voice began ")
    delay = window.meters_panel.delay_label.text()  # the health panel: the split over the answers
    assert delay.startswith(chat.message.removeprefix("Hold Talk to answer. The voice began ").split(" after")[0])
    assert delay.endswith(" s") and "the median of the answers so far; 95th percentile" in delay
    answer = turns[1].text
    for suffix in (".md", ".srt", ".vtt"):  # File, Export transcript: both sides' words, as shown
        window.model.files.export_transcript(str(tmp_path / f"chat{suffix}"))
        exported = (tmp_path / f"chat{suffix}").read_text(encoding="utf-8")
        assert question in exported and " ".join(answer.split()[:3]) in exported, suffix
    asked = []  # File, New: unsaved, so asked first; Discard: the turns and the model's history start afresh
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.Discard)
    window.files.new_conversation()
    assert asked == ["Save the current conversation before it is closed?"]
    qtbot.waitUntil(lambda: chat.conversation_messages() == [system], timeout=10_000)
    assert model.transcript.turns == [] and chat.phase == "ready"
    print(f"heard {question!r}; answered {answer!r}; {loud_windows(heard).sum() * 0.02:.2f} s loud")


def test_talk_pressed_over_the_answer_stops_it_keeps_what_was_said_cut_and_listens(window, qtbot, tmp_path):
    """The server sends a clause and then nothing for a minute: Talk pressed meanwhile ends the answer
    at once (the stream is closed), its turn keeps the words spoken, cut, and the window listens."""
    from app.chat.cascade import CUT_MARK
    from tests.bad_chat_server import PIECES, BadServer

    model, chat = window.model, window.model.chat
    with BadServer("pause", stall=60.0) as server:
        assert model.start_chat(server.url, "m")
        ask_holding_talk(window, qtbot, tmp_path)
        said = "".join(PIECES)
        qtbot.waitUntil(lambda: [t.text for t in model.transcript.turns[1:]] == [said], timeout=60_000)
        time.sleep(1.0)  # the clause is spoken (in part); the server says nothing more
        assert chat.phase == "answering" and model.status is Status.SPEAKING
        pressed = time.monotonic()
        window.press_talk("key")
        qtbot.waitUntil(lambda: chat.phase == "listening", timeout=10_000)
        assert time.monotonic() - pressed < 5.0  # not the minute the server stalls
        time.sleep(0.3)  # what the sound server had taken before the press
        speaker = audio_server.SinkRecorder(str(tmp_path / "speaker.f32"))
        time.sleep(1.0)
        assert loud_windows(np.frombuffer(speaker.stop(), np.float32)).sum() == 0  # the voice is silent
        turns = model.transcript.turns
        assert [t.speaker for t in turns] == [YOU, ASSISTANT] and turns[1].text.endswith(f" {CUT_MARK}")
        words = turns[1].text.removesuffix(CUT_MARK).split()  # what the speaker had played of it
        assert words and words == said.split()[:len(words)]
        assert chat.conversation_messages()[-1] == {"role": "assistant", "content": turns[1].text}
        assert not window.error_box.isVisible()


def test_a_tool_ticked_in_the_dialog_is_offered_its_call_runs_and_shows_in_the_turn(window, qtbot, tmp_path):
    """Only the ticked tool is offered (kept for next time); the server calls it, gets its result and
    answers; the assistant's turn shows the call and then the answer."""
    from app.settings import load_settings
    from tests.bad_chat_server import PIECES, BadServer

    model, chat = window.model, window.model.chat
    with BadServer("tool-call") as server:
        dialog = window.dialogs.open_chat_dialog()
        assert not any(box.isChecked() for box in dialog.tool_boxes.values())  # none until the person ticks one
        dialog.url_edit.setText(server.url)
        dialog.model_combo.setEditText("m")
        dialog.tool_boxes["clock"].setChecked(True)
        dialog.talk_button.click()
        ask_holding_talk(window, qtbot, tmp_path)
        qtbot.waitUntil(lambda: len(server.requests) == 2 and chat.phase == "ready", timeout=120_000)
        assert [t["function"]["name"] for t in server.requests[0]["tools"]] == ["clock"]
        call, answer = model.transcript.turns[1].text.split("\n")
        assert call.startswith("[It read the clock: ") and answer == "".join(PIECES)
        tool_message = server.requests[1]["messages"][-1]
        assert tool_message["role"] == "tool" and call == f"[It read the clock: {tool_message['content']}]"
        stored = load_settings(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat))
        assert stored.llm_tools == ("clock",)
        again = window.dialogs.open_chat_dialog()
        assert [name for name, box in again.tool_boxes.items() if box.isChecked()] == ["clock"]
        again.reject()


def test_with_open_mic_the_person_s_turn_ends_when_they_pause_and_it_is_answered(window, qtbot, tmp_path):
    """Open mic ticked: nothing is held, the recording plays into the microphone, the speech to
    text's voice-activity heads end the turn, the server answers, and it listens again."""
    from tests.bad_chat_server import PIECES, BadServer

    model, chat = window.model, window.model.chat
    with BadServer("ok") as server:
        assert model.start_chat(server.url, "m")
        qtbot.waitUntil(lambda: chat.phase == "ready", timeout=180_000)
        qtbot.waitUntil(lambda: model.devices.audio.status.state == "running", timeout=30_000)
        window.conversation_panel.open_mic_box.click()
        assert model.preferences.settings.open_mic
        qtbot.waitUntil(lambda: chat.phase == "listening", timeout=10_000)
        assert chat.message == "Listening: your turn ends when you pause, or when you release Talk."
        def answered():
            return [t.speaker for t in model.transcript.turns][-2:] == [YOU, ASSISTANT] and chat.phase == "listening"

        for _ in range(3):  # the demo's random heads decide where a turn ends: the recording again if not yet
            player = audio_server.play_into_mic(SPEECH["hello_24k.wav"])
            try:
                assert player.wait(30) == 0
            finally:
                player.kill()
            if answered():
                break
        qtbot.waitUntil(answered, timeout=60_000)
        assert model.transcript.turns[-1].text == "".join(PIECES) and model.talk.held_by == frozenset()
        assert chat.conversation_messages()[-1] == {"role": "assistant", "content": "".join(PIECES)}
        window.conversation_panel.open_mic_box.click()  # off: it stops listening
        qtbot.waitUntil(lambda: chat.phase == "ready", timeout=10_000)
        assert chat.message == "Hold Talk while you speak."


def test_with_no_server_answering_the_window_says_so_in_one_sentence(window, qtbot):
    model, chat = window.model, window.model.chat
    url = f"http://127.0.0.1:{free_port()}/v1"
    assert model.start_chat(url, "tiny")
    qtbot.waitUntil(lambda: not chat.active, timeout=30_000)
    assert chat.message.startswith(f"No language model server answers at {url}")
    assert window.error_box.isVisible() and window.error_box.message == chat.message
    assert model.talk_available()[0] is False or model.models.model_info is None
    window.press_talk("key")  # nothing to talk with: nothing happens, nothing breaks
    window.release_talk("key")
    assert model.transcript.turns == []


def test_the_model_manager_leads_to_your_language_model_which_says_what_to_start_when_none_runs(window, qtbot):
    from app.chat.discovery import KnownServer, find_servers
    from app.window.chat_dialog import ChatDialog

    nobody = KnownServer("Ollama", f"http://127.0.0.1:{free_port()}/v1")  # the usual address, where none runs
    window.dialogs.server_finder = lambda: find_servers((nobody,))
    manager = window.dialogs.open_model_manager()
    manager.chat_button.click()
    dialog = next(w for w in window.findChildren(ChatDialog))
    assert not manager.isVisible() and dialog.isVisible()
    qtbot.waitUntil(lambda: dialog.find_button.isEnabled(), timeout=10_000)  # searched at once: no address yet
    assert dialog.note.text().startswith("No language model server is running here: start Ollama "
                                         "(http://127.0.0.1:11434/v1) or LM Studio (http://127.0.0.1:1234/v1)")
    dialog.talk_button.click()  # nothing given: one sentence, nothing started
    assert not window.model.chat.active and dialog.isVisible()
    assert dialog.note.text() == "Give your language model server's address and the model's name."


def test_a_running_server_fills_in_the_dialog_and_the_choice_is_kept_without_the_key(window, llama, qtbot, tmp_path):
    from app.chat.discovery import KnownServer, find_servers
    from app.settings import load_settings

    window.dialogs.server_finder = lambda: find_servers((KnownServer("Ollama", llama.url),))
    dialog = window.dialogs.open_chat_dialog()
    qtbot.waitUntil(lambda: dialog.find_button.isEnabled(), timeout=10_000)
    offered = [dialog.model_combo.itemText(i) for i in range(dialog.model_combo.count())]
    assert dialog.url_edit.text() == llama.url and offered and dialog.model_combo.currentText() == offered[0]
    assert dialog.note.text() == f"Ollama runs at {llama.url}: choose one of its models."
    dialog.model_combo.setEditText("tiny")
    dialog.talk_button.click()
    assert dialog.result() == QDialog.Accepted and window.model.chat.active
    assert window.chat_strip.widget.isVisible() and "tiny" in window.chat_strip.label.text()
    qtbot.waitUntil(lambda: window.model.chat.phase == "ready", timeout=180_000)
    store = QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)
    stored = load_settings(store)
    assert (stored.llm_url, stored.llm_model) == (llama.url, "tiny")
    assert sorted(k for k in store.allKeys() if "llm" in k or "key" in k) == [  # a server key is never here
        "llm_model", "llm_tools", "llm_url", "talk_key", "talk_key_mode"]
    window.chat_strip.stop_button.click()  # back to the speech-to-speech model: the devices go back too
    assert not window.model.chat.active and not window.chat_strip.widget.isVisible()
    assert window.model.devices._borrower is None


def test_the_dialog_s_key_is_used_and_never_stored_in_a_file_and_its_speech_to_text_kept(window, qtbot, tmp_path):
    """Where no keyring keeps the key (keyring's own "fail" backend), the window says it serves this
    run only, and it does: every request carries it; the settings never hold it."""
    import keyring
    from keyring.backends import fail

    from app.settings import load_settings
    from tests.bad_chat_server import BadServer

    key = "sk-typed-in-the-dialog-7"
    before = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    notes = []
    window.model.chat.note.connect(notes.append)
    try:
        with BadServer("ok") as server:
            window.dialogs.server_finder = lambda: []
            dialog = window.dialogs.open_chat_dialog()
            dialog.url_edit.setText(server.url)
            dialog.model_combo.setEditText("m")
            dialog.key_edit.setText(key)
            assert dialog.key_edit.echoMode() == dialog.key_edit.EchoMode.Password
            assert [dialog.stt_combo.itemText(i) for i in range(dialog.stt_combo.count())] == [
                "demo-stt", "stt-1b-en_fr", "stt-2.6b-en"]
            dialog.stt_combo.setCurrentText("demo-stt")
            dialog.talk_button.click()
            assert notes and notes[0].startswith("This system has no keyring to keep the key in")
            ask_holding_talk(window, qtbot, tmp_path)
            qtbot.waitUntil(lambda: window.model.chat.phase == "ready" and len(window.model.transcript.turns) == 2,
                            timeout=180_000)
            assert server.keys and set(server.keys) == {f"Bearer {key}"}
    finally:
        keyring.set_keyring(before)
    stored = load_settings(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat))
    assert stored.chat_stt_model == "demo-stt"
    assert key not in (tmp_path / "settings.ini").read_text()
