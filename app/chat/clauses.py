"""A language model's streamed text cut into clauses to speak, so that the voice starts before the
model has finished its sentence: a clause ends at a sentence mark (. ! ? …), at a newline, at a
weak mark (, ; : dashes) once it holds ``min_words`` words, or after ``max_words`` words without
one. A mark counts only once the next character is known to be a space (3.14 is not cut), so a
clause is given out one piece after its mark. Markdown's emphasis, code ticks, headings and
bullets are not read out; a clause with no letter or digit is not spoken."""

from __future__ import annotations

import re
from dataclasses import dataclass

TERMINAL = ".!?\u2026\u3002\uff01\uff1f"
WEAK = ",;:\u2013\u2014\uff0c\u3001"
CLOSERS = "\"')]}\u00bb\u201d\u2019"
_MARKUP = re.compile(r"\*+|`+|(?<!\w)_{1,3}|_{1,3}(?!\w)|^\s*#+\s*|^\s*[-*+\u2022]\s+", re.MULTILINE)


@dataclass(frozen=True)
class ClauseRules:
    min_words: int = 3  # the fewest words before a weak mark that end a clause
    max_words: int = 24  # the most words a clause holds without a mark

    def __post_init__(self):
        if not 1 <= self.min_words <= self.max_words:
            raise ValueError("a clause's rules need 1 <= min_words <= max_words")


@dataclass(frozen=True)
class Clause:
    text: str  # what the voice says
    end: int  # where it ends in the whole streamed text (characters): what a cut keeps


def speakable(text: str) -> str:
    """``text`` without markup, its spaces collapsed; "" when nothing in it can be said."""
    text = " ".join(_MARKUP.sub(" ", text).split())
    return text if any(ch.isalnum() for ch in text) else ""


class ClauseSplitter:
    """``feed`` each streamed piece and speak the clauses it returns; ``flush`` at the stream's end."""

    def __init__(self, rules: ClauseRules = ClauseRules()):
        self.rules = rules
        self._pending = ""
        self._start = 0  # where _pending starts in the whole text

    def feed(self, piece: str) -> list[Clause]:
        self._pending += piece
        out = []
        while (cut := self._next_cut()) is not None:
            out.extend(self._take(cut))
        return out

    def flush(self) -> list[Clause]:
        """What is left at the end of the stream (or when it failed: nothing received is lost)."""
        return self._take(len(self._pending))

    def _take(self, cut: int) -> list[Clause]:
        text, self._pending = self._pending[:cut], self._pending[cut:]
        self._start += cut
        said = speakable(text)
        return [Clause(said, self._start)] if said else []

    def _next_cut(self) -> int | None:
        """The end of the first complete clause in the pending text (None: not yet known)."""
        text, words, in_word, i = self._pending, 0, False, 0
        while i < len(text):
            ch = text[i]
            if ch == "\n":
                return i + 1
            if ch.isspace():
                words, in_word = words + in_word, False
                if words >= self.rules.max_words:
                    return i + 1
            elif ch in TERMINAL or ch in WEAK:
                j = i
                while j < len(text) and (text[j] in TERMINAL or text[j] in WEAK or text[j] in CLOSERS):
                    j += 1
                if j == len(text):
                    return None  # the next piece says whether this mark ends the clause
                if text[j].isspace() and (any(c in TERMINAL for c in text[i:j])
                                          or words + in_word >= self.rules.min_words):
                    return j + 1
                i, in_word = j, True
                continue
            else:
                in_word = True
            i += 1
        return None
