"""The history sent to the language model: the newest exchanges within the character budget, the
system prompt always, starting at a person's turn, the last message even alone. Against a real
llama.cpp server (context 4,096 tokens), a conversation past its context is refused untrimmed and
answered trimmed."""

from __future__ import annotations

import pytest

from app.chat.client import ChatError, ChatServer, ReplyStream
from app.chat.history import sent_messages
from tests.llama_server import WORDS

pytest.importorskip("llama_cpp.server", reason="make test installs llama-cpp-python[server]")

SYSTEM = {"role": "system", "content": "You answer briefly."}


def words(start: int, chars: int) -> str:
    """Words of the test model's vocabulary (a token each), ``chars`` characters of them."""
    return " ".join(WORDS[(start + i) % len(WORDS)] for i in range(chars))[:chars]


def exchange(n: int, chars: int) -> list[dict]:
    return [{"role": "user", "content": words(n, chars)}, {"role": "assistant", "content": words(n + 7, chars)}]


def test_the_newest_turns_within_the_budget_are_sent_from_a_persons_turn():
    history = [SYSTEM] + [m for n in range(10) for m in exchange(n, 100)] + [{"role": "user", "content": "and?"}]
    sent = sent_messages(history, max_chars=len(SYSTEM["content"]) + 350 + 4)
    assert sent[0] == SYSTEM and sent[-1] == history[-1]
    # "and?" and three messages of 100 fit; the first of them, an answer whose question does not, is dropped.
    assert sent[1:] == history[-3:] and sent[1]["role"] == "user"
    assert sent_messages(history, max_chars=10**6) == history


def test_the_last_message_is_sent_even_alone_over_the_budget():
    long = {"role": "user", "content": "x" * 5000}
    assert sent_messages([SYSTEM, *exchange(0, 100), long], max_chars=1000) == [SYSTEM, long]


def answer(llama, messages) -> str:
    server = ChatServer(llama.url, "tiny", max_tokens=4, temperature=0)
    return "".join(ReplyStream(server, messages))


def test_a_conversation_past_the_servers_context_is_answered_when_trimmed(llama):
    history = [SYSTEM] + [m for n in range(40) for m in exchange(n, 600)] + [{"role": "user", "content": "hello"}]
    with pytest.raises(ChatError):  # 48,000 characters: past the context, the server refuses
        answer(llama, history)
    # This model's vocabulary spells most text a character a token: 3,000 characters fit its context.
    assert answer(llama, sent_messages(history, max_chars=3000)).strip()
