"""The language model's client against a real llama.cpp server (``llama-cpp-python[server]``) on
a tiny random-weight GGUF model written here: the streamed answer is the server's own answer
without streaming, the same every time at temperature 0, and cut into the clauses of its text."""

from __future__ import annotations

import pytest

from app.chat.clauses import ClauseSplitter
from app.chat.client import ChatError, ChatServer, ReplyStream, list_models
from tests.llama_server import CONTEXT, whole_answer

pytest.importorskip("llama_cpp.server", reason="make test installs llama-cpp-python[server]")

MESSAGES = [{"role": "system", "content": "You are brief."},
            {"role": "user", "content": "hello there, what is the weather like"}]


def test_the_streamed_answer_is_the_servers_answer_and_the_same_every_time(llama):
    server = ChatServer(llama.url, "any", max_tokens=24, temperature=0.0)
    first = ReplyStream(server, MESSAGES)
    pieces = list(first)
    want = whole_answer(llama.url, MESSAGES, 24)
    assert len(pieces) > 5 and "".join(pieces) == first.text == want["message"]["content"]
    assert first.finish_reason == want["finish_reason"] == "length" and first.first_token_s > 0
    again = ReplyStream(server, MESSAGES)
    assert list(again) == pieces


def test_the_history_changes_the_answer(llama):
    server = ChatServer(llama.url, "any", max_tokens=24, temperature=0.0)
    one = ReplyStream(server, MESSAGES)
    list(one)
    history = [*MESSAGES, {"role": "assistant", "content": one.text}, {"role": "user", "content": "and tomorrow"}]
    two = ReplyStream(server, history)
    list(two)
    assert two.text == whole_answer(llama.url, history, 24)["message"]["content"] != one.text


def test_the_clauses_of_the_stream_are_the_clauses_of_its_text(llama):
    stream = ReplyStream(ChatServer(llama.url, "any", max_tokens=60, temperature=0.0), MESSAGES)
    streamed, splitter = [], ClauseSplitter()
    for piece in stream:
        streamed += splitter.feed(piece)
    streamed += splitter.flush()
    whole = ClauseSplitter()
    assert streamed == whole.feed(stream.text) + whole.flush() and len(streamed) > 1
    assert streamed[-1].end == len(stream.text)


def test_the_models_list_names_the_loaded_file(llama):
    assert [name.endswith("tiny.gguf") for name in list_models(ChatServer(llama.url, "any"))] == [True]


def test_an_unknown_path_on_a_real_server_says_to_check_the_address(llama):
    wrong = llama.url.removesuffix("/v1") + "/api"
    with pytest.raises(ChatError) as caught:
        list(ReplyStream(ChatServer(wrong, "any"), MESSAGES))
    assert caught.value.kind == "refused" and "HTTP 404" in str(caught.value) and "/v1" in str(caught.value)


def test_a_conversation_longer_than_the_context_says_where_to_look(llama):
    """llama.cpp's Python server starts the stream, then drops it: the sentence names the likely cause."""
    long = [{"role": "user", "content": "hello " * (CONTEXT + 10)}]
    with pytest.raises(ChatError) as caught:
        list(ReplyStream(ChatServer(llama.url, "any", max_tokens=4), long))
    assert caught.value.kind == "dropped" and "longer than the model's context" in str(caught.value)
    assert caught.value.received == ""
