"""The clauses the voice speaks from a streamed answer: where they are cut, what is not read out,
and the same clauses however the text arrives in pieces."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.chat.clauses import Clause, ClauseRules, ClauseSplitter, speakable


def clauses(text: str, rules: ClauseRules = ClauseRules(), pieces: list[int] | None = None) -> list[str]:
    splitter, out, at = ClauseSplitter(rules), [], 0
    for size in pieces or [len(text)]:
        out += splitter.feed(text[at:at + size])
        at += size
    out += splitter.feed(text[at:]) + splitter.flush()
    return [c.text for c in out]


@pytest.mark.parametrize(("text", "want"), [
    ("Sure! The answer is 3.14, roughly.", ["Sure!", "The answer is 3.14,", "roughly."]),
    ("Yes, it is. No.", ["Yes, it is.", "No."]),  # "Yes," is too short to stand alone
    ("Well, I think so: it works at 10:30 today.", ["Well, I think so:", "it works at 10:30 today."]),
    ("He said \"stop.\" Then he left", ["He said \"stop.\"", "Then he left"]),
    ("Wait... what?! Fine", ["Wait...", "what?!", "Fine"]),
    ("one\ntwo three", ["one", "two three"]),
    ("**Bold** and `code` here.\n# Title\n- first item\n* second item", ["Bold and code here.", "Title",
                                                                        "first item", "second item"]),
    ("the snake_case stays, _this_ does not.", ["the snake_case stays,", "this does not."]),
    ("--- \n***\n...", []),  # nothing to say
    ("\u4f60\u597d\u3002\u6211\u5f88\u597d\uff01", ["\u4f60\u597d\u3002\u6211\u5f88\u597d\uff01"]),  # no space: one
])
def test_where_clauses_end(text, want):
    assert clauses(text) == want


def test_a_long_stretch_without_a_mark_is_cut_after_max_words():
    words = " ".join(f"w{i}" for i in range(30))
    assert clauses(words, ClauseRules(min_words=3, max_words=12)) == [
        " ".join(f"w{i}" for i in range(12)), " ".join(f"w{i}" for i in range(12, 24)),
        " ".join(f"w{i}" for i in range(24, 30))]


def test_the_first_words_are_given_before_the_sentence_ends():
    splitter = ClauseSplitter()
    assert splitter.feed("Well, the weather") == []
    assert splitter.feed(" today is fine,") == []  # the mark's clause is known at the next piece
    assert splitter.feed(" and") == [Clause("Well, the weather today is fine,", 33)]  # with its space
    assert splitter.feed(" tomorrow") == []
    assert splitter.flush() == [Clause("and tomorrow", 45)]


def test_a_decimal_point_across_pieces_does_not_end_a_clause():
    splitter = ClauseSplitter()
    assert splitter.feed("It costs 3.") == []
    assert splitter.feed("50 euros. Then") == [Clause("It costs 3.50 euros.", 21)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["Hello", " there", ",", ".", "!", " ", "\n", "3.5", " **big**", "word",
                                 " and", "\u2014", "?", "\"", "x"]), max_size=40),
       st.lists(st.integers(0, 7), max_size=40))
def test_the_same_clauses_however_the_text_arrives(parts, sizes):
    text = "".join(parts)
    whole = ClauseSplitter()
    want = whole.feed(text) + whole.flush()
    pieces, streamed = ClauseSplitter(), []
    at = 0
    for size in sizes:
        streamed += pieces.feed(text[at:at + size])
        at += size
    streamed += pieces.feed(text[at:]) + pieces.flush()
    assert streamed == want
    assert all(c.text == speakable(c.text) and c.text for c in streamed)
    assert [c.end for c in streamed] == sorted(c.end for c in streamed) and all(c.end <= len(text) for c in streamed)


def test_rules_that_cannot_hold_are_refused():
    with pytest.raises(ValueError):
        ClauseRules(min_words=5, max_words=4)
