"""The language model's client on the protocol's bad days, over real sockets: each failure is one
``ChatError`` of its kind, a sentence a person can act on, with every piece received before it."""

from __future__ import annotations

import threading
import time

import pytest

from app.chat.client import ChatError, ChatServer, ReplyStream
from tests.bad_chat_server import PIECES, BadServer, free_port

MESSAGES = [{"role": "user", "content": "Hi"}]
SAID = "".join(PIECES)


def ask(url: str, **options) -> tuple[list[str], ReplyStream]:
    stream = ReplyStream(ChatServer(url, "m", **options), MESSAGES)
    return list(stream), stream


def failure(url: str, **options) -> ChatError:
    got: list[str] = []
    stream = ReplyStream(ChatServer(url, "m", **options), MESSAGES)
    with pytest.raises(ChatError) as caught:
        for piece in stream:
            got.append(piece)
    e = caught.value
    assert e.received == "".join(got) == stream.text  # what was given out is what the error keeps
    sentence = str(e)
    assert sentence[0].isupper() and sentence.endswith(".") and "\n" not in sentence and len(sentence) < 400
    return e


def test_a_streamed_answer_and_what_was_asked():
    with BadServer("ok") as server:
        pieces, stream = ask(server.url, max_tokens=20, temperature=0.0)
        assert pieces == PIECES and stream.text == SAID and stream.finish_reason == "stop"
        assert 0 < stream.first_token_s < 5
        sent = server.requests[0]
        assert sent["stream"] is True and sent["model"] == "m" and sent["messages"] == MESSAGES
        assert sent["max_tokens"] == 20 and sent["temperature"] == 0.0


@pytest.mark.parametrize(("url", "base"), [
    ("http://localhost:11434", "http://localhost:11434/v1"),
    ("http://localhost:8080/v1/", "http://localhost:8080/v1"),
    ("https://llm.example.org/api/v1", "https://llm.example.org/api/v1"),
])
def test_an_address_without_a_path_gets_v1(url, base):
    assert ChatServer(url, "m").base_url() == base


def test_a_password_in_the_address_is_never_shown():
    server = ChatServer("http://me:secret@127.0.0.1:9/", "m")
    assert server.base_url() == "http://me:secret@127.0.0.1:9/v1" and server.shown_url() == "http://127.0.0.1:9/v1"
    e = failure(server.url)
    assert "secret" not in str(e) and "http://127.0.0.1:9/v1" in str(e)


@pytest.mark.parametrize("url", ["localhost:8080", "ftp://host/v1", "http://", "http://host:port/v1", ""])
def test_a_bad_address_is_said_before_anything_is_sent(url):
    e = failure(url)
    assert e.kind == "address" and e.received == ""


def test_no_server_says_what_to_start():
    e = failure(f"http://127.0.0.1:{free_port()}/v1")
    assert e.kind == "no-server" and "ollama serve" in str(e) and "llama-server" in str(e)


def test_a_connection_dropped_mid_stream_keeps_the_pieces():
    e = failure(BadServer("drop").url)
    assert e.kind == "dropped" and e.received == SAID and "kept" in str(e)


def test_a_stream_that_ends_without_finishing_is_a_dropped_one():
    e = failure(BadServer("unfinished").url)
    assert e.kind == "dropped" and e.received == SAID


def test_the_answer_ends_at_its_finish_reason_without_waiting_for_done():
    start = time.perf_counter()
    pieces, stream = ask(BadServer("finish-then-stall", stall=3).url, wait_seconds=1.0)
    assert pieces == PIECES and stream.finish_reason == "stop" and time.perf_counter() - start < 1.0


def test_a_slow_first_token_is_a_timeout_that_says_the_model_may_be_loading():
    start = time.perf_counter()
    e = failure(BadServer("slow-start", stall=3).url, wait_seconds=0.3)
    assert e.kind == "timeout" and e.received == "" and "loading" in str(e) and "0.3 s" in str(e)
    assert time.perf_counter() - start < 2.5


def test_a_model_that_goes_silent_mid_answer_keeps_what_it_said():
    e = failure(BadServer("slow-middle", stall=3).url, wait_seconds=0.3)
    assert e.kind == "timeout" and e.received == SAID and "kept" in str(e)


@pytest.mark.parametrize(("behaviour", "words"), [
    ("error-500", ["HTTP 500", "the model ran out of memory"]),
    ("ollama-404", ["HTTP 404", 'model "nope" not found', "model's name"]),
    ("key-401", ["HTTP 401", "Invalid API key", "key"]),
])
def test_an_error_body_is_quoted_with_what_to_do(behaviour, words):
    e = failure(BadServer(behaviour).url)
    assert e.kind == "refused" and all(w in str(e) for w in words)


def test_an_error_in_the_middle_of_the_stream_keeps_the_pieces():
    e = failure(BadServer("error-event").url)
    assert e.kind == "refused" and e.received == SAID and "context length exceeded" in str(e)


@pytest.mark.parametrize("behaviour", ["html", "html-404", "not-json"])
def test_a_server_that_is_not_openai_compatible_says_to_check_the_address(behaviour):
    e = failure(BadServer(behaviour).url)
    assert e.kind == "not-openai" and "/v1" in str(e)
    assert e.received == (SAID if behaviour == "not-json" else "")


def test_a_10_mb_answer_is_cut_and_its_beginning_kept():
    e = failure(BadServer("huge").url, max_reply_chars=50_000)
    assert e.kind == "too-long" and len(e.received) == 50_000 and e.received.startswith(SAID + "word word")


def test_a_10_mb_line_is_cut_at_the_byte_bound_and_the_pieces_before_kept():
    start = time.perf_counter()
    e = failure(BadServer("huge-line").url, max_reply_bytes=1 << 20)
    assert e.kind == "too-long" and e.received == SAID and "1 MB" in str(e)
    assert time.perf_counter() - start < 10


def test_close_from_another_thread_ends_the_stream_at_the_next_piece_without_an_error():
    with BadServer("huge") as server:
        stream = ReplyStream(ChatServer(server.url, "m"), MESSAGES)
        got = []
        for piece in stream:
            got.append(piece)
            if len(got) == len(PIECES):
                threading.Thread(target=stream.close).start()
                time.sleep(0.2)
        assert "".join(got) == stream.text and len(got) <= len(PIECES) + 1 and stream.text.startswith(SAID)
