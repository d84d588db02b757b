"""A conversation with a language model saved, journalled and continued, on the loop's thread with a
hand-driven bridge: the file holds what the microphone gave the speech to text and what the speaker
played, the messages the model was sent (its tool calls included), the address and model but never
the key; the crash journal follows each exchange and goes when the conversation ends; continued from
the file, the next request carries the saved history and the file grows from where it stopped."""

from __future__ import annotations

import time

import numpy as np
import pytest
import soundfile

import engine
from app.chat.client import ChatServer
from app.engine_thread.chat_record import AudioExported, Saved
from app.journals.saved_marker import read_mark
from engine import to_16_bit
from tests.test_chat_cli import voice_folder  # noqa: F401 - a fixture
from tests.test_chat_loop import recording, running_loop, talk_turn, wait_for

pytest.importorskip("pocket_tts")

KEY = "sk-do-not-store-0123456789"


def test_saved_mid_conversation_then_continued_from_the_file(voice_folder, tmp_path):  # noqa: F811
    from tests.bad_chat_server import PIECES, BadServer

    stt = engine.load_speech_to_text("demo-stt", device="cpu")
    path, journal = tmp_path / "chat.parley", tmp_path / "chat-now.chat-journal"
    pcm = recording("hello_24k.wav", 1.2)
    with BadServer("tool_call") as server:
        with running_loop(stt, voice_folder, server.url, api_key=KEY, tools=("clock",),
                          journal=str(journal)) as (loop, events, bridge, speaker, _ready):
            heard, answered, _said = talk_turn(loop, bridge, speaker, events, pcm)
            assert answered.text == "".join(PIECES) and answered.tool_calls
            deadline = time.monotonic() + 30
            while not journal.exists():  # written as the exchange ended, on the journal's thread
                assert time.monotonic() < deadline, "no journal"
                time.sleep(0.01)
            journalled = engine.read_chat_conversation(journal)
            loop.save(str(path))
            saved_event = wait_for(events, Saved, speaker)
            assert (saved_event.path, saved_event.exchanges, saved_event.problem) == (str(path), 1, "")
            assert read_mark(journal).frames == journalled.frames  # a crash now would offer nothing
            loop.export_audio(str(tmp_path / "both.wav"))
            assert wait_for(events, AudioExported, speaker).problem == ""
            messages = [dict(m) for m in loop.conversation.messages]
        assert not journal.exists() and read_mark(journal) is None  # ended by choice: nothing to recover
        saved = engine.read_chat_conversation(path)
        both, rate = soundfile.read(tmp_path / "both.wav", dtype="float32")
        assert rate == engine.SAMPLE_RATE and np.array_equal(both, np.stack([saved.user_audio,
                                                                            saved.assistant_audio], axis=1))
        assert KEY not in path.read_bytes().decode("latin-1")
        assert list(saved.messages) == messages and [m["role"] for m in messages] == [
            "user", "assistant", "tool", "assistant"]
        assert saved.side == engine.LanguageModelSide(ChatServer(server.url, "m").shown_url(), "m", "demo-stt", "", "")
        assert journalled.messages == saved.messages and journalled.frames == saved.frames
        # the person's side is what the microphone gave (whole frames), the assistant's what was played
        assert np.array_equal(saved.user_audio[:pcm.size], to_16_bit(pcm))
        played = speaker.audio()
        start = pcm.size
        assert np.abs(saved.assistant_audio[start:start + played.size] - to_16_bit(np.clip(played, -1, 1))).max() \
            <= 2 / 32768
        assert engine.read_conversation_info(path).caption_text == heard

        del server.requests[:]
        with running_loop(stt, voice_folder, server.url, resumed=saved, tools=("clock",),
                          journal=str(journal)) as (loop, events, bridge, speaker, _ready):
            talk_turn(loop, bridge, speaker, events, pcm)
            assert server.requests[0]["messages"][:len(messages)] == messages
            loop.save(str(path))
            assert wait_for(events, Saved, speaker).exchanges == 2
        grown = engine.read_chat_conversation(path)
        assert grown.frames > saved.frames and grown.transcript[:len(saved.transcript)] == saved.transcript
        assert list(grown.messages[:len(messages)]) == messages and len(grown.messages) > len(messages)


def test_a_save_that_cannot_be_written_says_why_and_the_conversation_goes_on(voice_folder, tmp_path):  # noqa: F811
    from tests.bad_chat_server import BadServer

    stt = engine.load_speech_to_text("demo-stt", device="cpu")
    with (BadServer("ok") as server,
          running_loop(stt, voice_folder, server.url) as (loop, events, bridge, speaker, _ready)):
        talk_turn(loop, bridge, speaker, events, recording("hello_24k.wav", 1.2))
        loop.save(str(tmp_path / "no such folder" / "chat.parley"))
        failed = wait_for(events, Saved, speaker)
        assert failed.problem and "\n" not in failed.problem and "chat.parley" in failed.problem
        _heard, answered, _said = talk_turn(loop, bridge, speaker, events, recording("hello_24k.wav", 1.2))
        assert answered.problem == ""


def test_a_crashed_conversations_journal_is_offered_unless_a_save_holds_all_of_it(tmp_path):
    from app.journals.pending import CHAT_SUFFIX, pending_journals_in_background
    from app.journals.saved_marker import mark_saved
    from tests.test_chat_conversation_file import MESSAGES, two_exchanges

    chat = two_exchanges().conversation(MESSAGES)
    crashed, saved, damaged = (tmp_path / f"{name}{CHAT_SUFFIX}" for name in ("crashed", "saved", "damaged"))
    for journal in (crashed, saved):
        engine.write_chat_conversation(journal, chat)
    engine.write_chat_conversation(tmp_path / "chat.parley", chat)
    mark_saved(saved, chat.frames, str(tmp_path / "chat.parley"))
    damaged.write_bytes(crashed.read_bytes()[:-100])
    pending = pending_journals_in_background(tmp_path, CHAT_SUFFIX).result(timeout=60)
    try:
        assert [(p.path, p.frames, bool(p.problem)) for p in pending] == [(crashed, chat.frames, False),
                                                                          (damaged, 0, True)]
        assert not saved.exists()
    finally:
        for p in pending:
            p.lock.release()
