"""What of a conversation is sent to the language model: the system prompt and the newest turns
that fit a budget in characters (a server's context is counted in its own tokens, which Parley
cannot count; a character budget well under the usual contexts keeps every request inside them).
The conversation itself keeps every turn: only the request is trimmed, from its oldest exchange."""

from __future__ import annotations

from collections.abc import Sequence

# ~3,000 tokens of English: inside Ollama's default context (4,096 tokens) with room for the answer.
HISTORY_CHARS = 12_000


def sent_messages(messages: Sequence[dict], max_chars: int = HISTORY_CHARS) -> list[dict]:
    """The system messages, then the newest others within ``max_chars`` (content characters, the
    system's included), starting at a person's turn. The last message is always sent, even alone
    over the budget: the server then says what its context holds."""
    system = [m for m in messages if m["role"] == "system"]
    turns = [m for m in messages if m["role"] != "system"]
    room = max_chars - sum(len(m["content"]) for m in system)
    kept: list[dict] = []
    for message in reversed(turns):
        if kept and len(message["content"]) > room:
            break
        kept.append(message)
        room -= len(message["content"])
    kept.reverse()
    while len(kept) > 1 and kept[0]["role"] != "user":  # an answer without its question confuses models
        kept.pop(0)
    return system + kept
