"""The words of an answer the person spoke over: what the speaker had played of the voice, clause
by clause (``app.chat.cascade.heard_words``)."""

from __future__ import annotations

import pytest

from app.chat.cascade import heard_words

CLAUSES = ["Hello there, my friend.", "The weather is fine today, and warm."]
SECONDS = [2.0, 3.5]


@pytest.mark.parametrize("heard_s, want", [
    (0.0, ""),
    (0.49, ""),  # a quarter of the first clause's four words: none whole
    (0.5, "Hello"),
    (1.5, "Hello there, my"),
    (2.0, "Hello there, my friend."),
    (2.0 + 3.5 / 7 * 3, "Hello there, my friend. The weather is"),
    (5.5, "Hello there, my friend. The weather is fine today, and warm."),
    (60.0, "Hello there, my friend. The weather is fine today, and warm."),
    (None, "Hello there, my friend. The weather is fine today, and warm."),  # not measured: all of it
])
def test_the_words_heard_are_the_whole_clauses_then_the_heard_share_of_the_next(heard_s, want):
    assert heard_words(CLAUSES, SECONDS, heard_s) == want


def test_nothing_spoken_is_nothing_heard():
    assert heard_words([], [], 3.0) == ""
    assert heard_words(["Hello there."], [0.0], 0.0) == ""
