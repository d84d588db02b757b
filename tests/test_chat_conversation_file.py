"""A conversation with a language model as a file: what the timeline keeps, read back whole, listed,
searched and replayed like any conversation, rebuilt into the same turns, and refused with one
sentence where it is damaged, newer, or handed to a speech model."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest

import engine
from app.chat.recording import PAUSE_FRAMES, ChatTimeline
from app.conversation.transcript import ASSISTANT, ASSISTANT_GAP_S, YOU, Transcript
from engine import FRAME_SECONDS, FRAME_SIZE, SAMPLE_RATE, ConversationFileError, Word, read_audio

DATA = Path(__file__).parent / "data"
SIDE = engine.LanguageModelSide("http://localhost:11434/v1", "llama3.2", "demo-stt", "pocket-tts", "alba")
MESSAGES = (
    {"role": "system", "content": "You are Parley."},
    {"role": "user", "content": "what time is it"},
    {"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "clock", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "Monday 7 December 2026, 23:50"},
    {"role": "assistant", "content": "It is ten to midnight."},
    {"role": "user", "content": "thank you"},
    {"role": "assistant", "content": "You are welcome, good night —"},
)


def speech(seconds: float, start: float = 0.0) -> np.ndarray:
    pcm = read_audio(DATA / "story_16k.wav")
    return pcm[int(start * SAMPLE_RATE):int((start + seconds) * SAMPLE_RATE)]


def two_exchanges() -> ChatTimeline:
    timeline = ChatTimeline(SIDE)
    timeline.add_exchange(speech(2.0), [Word("what", 0.3, 0.6), Word("time", 0.6, 0.9), Word("is", 0.9, 1.0),
                                        Word("it", 1.0, 2.5)],  # the flush's last word, after the audio
                          0.5 * speech(1.5, 3.0), "It is ten to midnight.")
    quiet_start = np.concatenate([np.zeros(int(0.4 * SAMPLE_RATE), np.float32), speech(0.7, 5.0)])
    timeline.add_exchange(quiet_start, [Word("thank", 0.0, 0.3), Word("you", 0.3, 0.5)],  # dated before the voice
                          np.zeros(0, np.float32), "You are welcome, good night —")  # no sound: cut at once
    return timeline


def test_a_saved_conversation_reads_back_whole_and_lists_searches_and_replays_as_any_other(tmp_path):
    path = tmp_path / "chat.parley"
    saved = two_exchanges().conversation(MESSAGES)
    engine.write_chat_conversation(path, saved)
    got = engine.read_chat_conversation(path)
    assert got.side == SIDE and got.messages == MESSAGES and got.frames == saved.frames
    assert (got.transcript, got.captions, got.turn_ends) == (saved.transcript, saved.captions, saved.turn_ends)
    assert np.array_equal(got.user_audio, saved.user_audio) and np.array_equal(got.assistant_audio,
                                                                              saved.assistant_audio)
    assert got.user_audio.size == got.frames * FRAME_SIZE
    assert engine.conversation_kind(path) == engine.CHAT_CONVERSATION

    info = engine.read_conversation_info(path)
    assert info.kind == engine.CHAT_CONVERSATION and info.model == "llama3.2" and info.has_audio
    assert info.text == "It is ten to midnight. You are welcome, good night —"
    assert info.caption_text == "what time is it thank you"
    summary = engine.read_conversation_summary(path)
    assert summary.kind == engine.CHAT_CONVERSATION and summary.text == info.text and summary.text_complete
    user, assistant = engine.read_conversation_audio(path)
    assert user.size == assistant.size == saved.frames * FRAME_SIZE
    assert np.abs(assistant).max() > 0.01 and np.abs(user).max() > 0.01


def test_a_list_row_reads_the_text_before_the_messages_however_many_there_are(tmp_path):
    path = tmp_path / "long.parley"
    many = MESSAGES + tuple({"role": "user", "content": "x" * 4000} for _ in range(40))  # 160 kB of history
    engine.write_chat_conversation(path, two_exchanges().conversation(many))
    summary = engine.read_conversation_summary(path)
    assert summary.text == "It is ten to midnight. You are welcome, good night —"
    assert engine.read_chat_conversation(path).messages == many


def test_reopened_it_has_the_turns_it_had_each_answer_its_own_after_a_short_turn(tmp_path):
    path = tmp_path / "chat.parley"
    engine.write_chat_conversation(path, two_exchanges().conversation(MESSAGES))
    got = engine.read_chat_conversation(path)
    transcript = Transcript()
    transcript.load(got.transcript, got.user_audio, got.assistant_audio,
                    captions=got.captions, turn_ends=got.turn_ends)
    shown = [(turn.speaker, turn.text.strip()) for turn in transcript.turns]
    assert PAUSE_FRAMES * FRAME_SECONDS > ASSISTANT_GAP_S + FRAME_SECONDS  # what keeps the answers apart
    assert shown == [(YOU, "what time is it"), (ASSISTANT, "It is ten to midnight."),
                     (YOU, "thank you"), (ASSISTANT, "You are welcome, good night —")]


def test_a_resumed_timeline_grows_from_the_saved_one(tmp_path):
    first = two_exchanges().conversation(MESSAGES)
    resumed = ChatTimeline(SIDE, first)
    resumed.add_exchange(speech(1.0), [Word("bye", 0.2, 0.4)], speech(1.0, 2.0), "Bye.")
    grown = resumed.conversation(MESSAGES)
    assert resumed.exchanges == 3 and grown.frames > first.frames + PAUSE_FRAMES
    assert np.array_equal(grown.user_audio[:first.user_audio.size], first.user_audio)
    assert grown.transcript[:len(first.transcript)] == first.transcript
    assert grown.transcript[-1][2] == " Bye." and grown.captions[-1][1] == " bye"


def _rewritten(path: Path, change) -> None:
    """``path`` with its Parley metadata changed by ``change`` (the checksum still holds: it covers the tensors)."""
    data = path.read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    meta = json.loads(header["__metadata__"]["parley"])
    change(meta)
    header["__metadata__"]["parley"] = json.dumps(meta)
    body = json.dumps(header).encode()
    body += b" " * (-len(body) % 8)
    path.write_bytes(struct.pack("<Q", len(body)) + body + data[8 + n:])


@pytest.mark.parametrize("change, says", [
    (lambda m: m["chat"]["messages"].append({"role": "root", "content": "x"}), "has the role 'root'"),
    (lambda m: m["chat"]["messages"][2]["tool_calls"][0].update(type="shell"), "is not a function's"),
    (lambda m: m["chat"].update(version=2), "made by a newer Parley"),
    (lambda m: m.update(frames=m["frames"] + 1), "do not hold"),
    (lambda m: m["chat"].pop("voice"), "'voice'"),
])
def test_a_damaged_or_newer_file_is_refused_in_one_sentence_and_left_as_it_is(tmp_path, change, says):
    path = tmp_path / "chat.parley"
    engine.write_chat_conversation(path, two_exchanges().conversation(MESSAGES))
    _rewritten(path, change)
    before = path.read_bytes()
    with pytest.raises(ConversationFileError, match=says) as caught:
        engine.read_chat_conversation(path)
    assert "\n" not in str(caught.value) and path.read_bytes() == before


def test_a_speech_model_refuses_it_and_says_where_it_opens(tmp_path):
    from engine.files.conversation import read_session_file

    path = tmp_path / "chat.parley"
    engine.write_chat_conversation(path, two_exchanges().conversation(MESSAGES))
    with pytest.raises(ConversationFileError, match="conversation with your language model"):
        read_session_file(path, "fingerprint", {})
    demo = engine.load_model("demo", device="cpu")
    with pytest.raises(ConversationFileError, match="conversation with your language model"):
        engine.open_conversation(demo, path)
