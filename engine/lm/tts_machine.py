"""Kyutai TTS's text state machine, on the host (the reference's ``moshi.models.tts.StateMachine``):
the model asks for the next word by sampling ``NEW_WORD_TOKEN``; its tokens are then given on the
text stream one a step while the model is made to pad, and the tokens of the word ``ahead`` words
later on the second text stream, multiplexed as ``(second + 1) * rows + first``. ``choices`` says
before a step what the text stream gets either way, ``advance`` takes what the model asked."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from ..families.kyutai_tts import (
    INITIAL_PADDING,
    MAIN_SPEAKER_TOKEN,
    MAX_PADDING,
    NEW_WORD_TOKEN,
    OTHER_SPEAKER_TOKEN,
    PAD_TOKEN,
)

ZERO = -1  # "no token": an exact zero embedding
_EVENT = re.compile(r"(?:<break\s+time=\"([0-9]+(?:.[0-9]*)?)s\"\s*/?>)|(?:\s+)")


@dataclass(frozen=True)
class Entry:
    """One word's tokens (none: a pause), and ``padding`` steps forced after it starts."""

    tokens: tuple[int, ...]
    text: str
    padding: int = 0


def script_entries(encode: Callable[[str], list[int]], script: Sequence[str], frame_rate: float,
                   multi_speaker: bool = True, padding_between: int = 0) -> list[Entry]:
    """The words of ``script`` (one string a turn, the main speaker first) as the reference splits
    them: ``<break time="0.5s"/>`` is a pause, a turn's first word carries its speaker's token."""
    speakers, last, entries = (MAIN_SPEAKER_TOKEN, OTHER_SPEAKER_TOKEN), None, []
    for turn, line in enumerate(script):
        first = True
        for item in _events(line, frame_rate):
            if isinstance(item, Entry):
                entries.append(item)
                continue
            tokens = list(encode(item))
            if first:
                if multi_speaker and last != turn % 2:
                    last = turn % 2
                    tokens.insert(0, speakers[last])
                first = False
            padding = max(0, padding_between + len(tokens) - 1) if padding_between > 0 else 0
            entries.append(Entry(tuple(tokens), item, padding))
    return entries


def _events(line: str, frame_rate: float) -> Iterator[str | Entry]:
    """A turn's words and pauses, in order."""
    line = line.replace("’", "'").replace(":", " ").replace("(", "").replace(")", "")
    while line:
        match = _EVENT.search(line)
        if match is None:
            break
        word, line = line[:match.start()], line[match.end():]
        if word:
            yield word
        if match.group(1):
            yield Entry((), "", int(round(float(match.group(1)) * frame_rate)))
    if line:
        yield line


@dataclass
class _State:
    entries: deque[Entry]
    remaining_padding: int
    forced_padding: int
    queued: deque[int] = field(default_factory=deque)
    lookahead: deque[int] = field(default_factory=deque)
    end_step: int | None = None
    transcript: list[tuple[str, int]] = field(default_factory=list)

    def copy(self) -> _State:
        """A copy ``_process`` may change without changing this one (entries are immutable)."""
        return _State(deque(self.entries), self.remaining_padding, self.forced_padding, deque(self.queued),
                      deque(self.lookahead), self.end_step, list(self.transcript))


class TextMachine:
    """One voice's text stream. ``rows``: the text table's rows (text_card + 1); ``ahead``: the
    second stream's lookahead in words (0: none). Words may be added while it runs (``add``); once
    ``close`` is called, asking for a word past the last one ends the text (``end_step``)."""

    def __init__(self, rows: int, ahead: int = 0, entries: Iterable[Entry] = (), closed: bool = True,
                 max_padding: int = MAX_PADDING, initial_padding: int = INITIAL_PADDING):
        self.rows, self.ahead, self.max_padding, self.closed = rows, ahead, max_padding, closed
        self.state = _State(deque(entries), initial_padding, initial_padding)

    @property
    def end_step(self) -> int | None:
        return self.state.end_step

    @property
    def transcript(self) -> list[tuple[str, int]]:
        """(word, step at which its first token was given)."""
        return self.state.transcript

    def add(self, entries: Iterable[Entry]) -> None:
        if self.closed:
            raise ValueError("the text was closed: no word can follow its end")
        self.state.entries.extend(entries)

    @property
    def pending_words(self) -> int:
        """Words given but not started yet (pauses not counted)."""
        return sum(1 for e in self.state.entries if e.tokens)

    def close(self) -> None:
        self.closed = True

    def choices(self, step: int) -> tuple[int, int]:
        """The text token step ``step`` writes if the model asks for a new word, and if it does not."""
        return tuple(_process(self.state.copy(), self, step, asked) for asked in (True, False))

    def advance(self, step: int, asked_word: bool) -> int:
        """Take the model's answer at step ``step``; returns the token written."""
        return _process(self.state, self, step, asked_word)


def _process(s: _State, m: TextMachine, step: int, asked_word: bool) -> int:
    """The reference's ``StateMachine.process`` on ``s`` (a sampled token other than NEW_WORD is a pad)."""
    word = asked_word and not s.queued and s.forced_padding <= 0 or \
        (not s.queued and s.forced_padding <= 0 and s.remaining_padding <= 0)
    if word:
        if s.entries:
            entry = s.entries.popleft()
            if entry.tokens:
                s.transcript.append((entry.text, step))
                s.queued.extend(entry.tokens)
                if m.ahead:
                    s.lookahead.extend(_tokens_ahead(s.entries, m.ahead))
                s.remaining_padding = m.max_padding
            else:
                word = False  # a pause
            s.forced_padding = entry.padding
        elif m.closed:
            word = bool(m.ahead) and s.end_step is None
            if s.end_step is None:
                s.end_step = step
        else:
            word = False  # the next word has not arrived: wait
    if word:
        output = NEW_WORD_TOKEN
    else:
        if s.remaining_padding > 0:
            s.remaining_padding -= 1
        if s.forced_padding > 0:
            s.forced_padding -= 1
        output = s.queued.popleft() if s.queued else PAD_TOKEN
    if not m.ahead:
        return output
    second = ZERO
    if output == NEW_WORD_TOKEN:
        second = NEW_WORD_TOKEN
        output = s.queued.popleft() if s.queued else PAD_TOKEN
    elif s.lookahead:
        second = s.lookahead.popleft()
    return (second + 1) * m.rows + output


def _tokens_ahead(entries: deque[Entry], ahead: int) -> tuple[int, ...]:
    for entry in entries:
        if entry.tokens:
            ahead -= 1
            if ahead == 0:
                return entry.tokens
    return ()
