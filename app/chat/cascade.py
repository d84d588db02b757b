"""A spoken conversation with the person's language model, one turn per recording of their speech:
speech to text (flushed where their speech ends) → the model's answer, streamed → the voice, clause
by clause, so that it starts speaking before the model has finished its sentence.

The stream is read between clauses: the server keeps writing while a clause is spoken (its pieces
wait in the socket), so the first audio comes as early as with a reader thread. When the model
fails part-way, what it said is still spoken and kept, and the turn carries the error.

The person may speak over an answer (``Interruption``): the voice stops before its next frame, the
model's stream is closed, and the turn keeps only the words they heard, ending in ``CUT_MARK``."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from app.chat.clauses import ClauseRules, ClauseSplitter
from app.chat.client import ChatError, ChatServer, ReplyStream
from app.chat.history import HISTORY_CHARS, sent_messages
from app.chat.tools import Tool, ToolCall, run_call
from engine import SAMPLE_RATE

MAX_TOOL_ROUNDS = 3  # requests in one turn that may call tools; the next is asked to answer
CUT_MARK = "—"  # ends an answer the person spoke over, in the turn and in the model's history
# How long a clause the voice did not finish would have lasted, at least: conversational speech's
# pace (~150 words a minute), so that the words heard of it are not over-counted.
WORDS_PER_SECOND = 2.5


class Interruption:
    """The person spoke over an answer in progress (``interrupt``, from any thread): the voice stops
    before its next frame and the model's stream is closed at once, whether it is sending or silent
    (a server that has not yet sent its headers is waited for). ``heard_s``: how much of the voice
    handed out for playing they heard before it stopped (None: all of it)."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.heard_s: float | None = None
        self._reply: ReplyStream | None = None

    @property
    def interrupted(self) -> bool:
        return self.event.is_set()

    def interrupt(self, heard_s: float | None = None) -> None:
        self.heard_s = heard_s
        self.event.set()
        reply = self._reply
        if reply is not None:
            reply.close()

    def watch(self, reply: ReplyStream) -> None:
        """``reply`` is the answer's stream now: closed at once when interrupted already."""
        self._reply = reply
        if self.event.is_set():
            reply.close()


def heard_words(clauses: list[str], seconds: list[float], heard_s: float | None) -> str:
    """The words of the spoken ``clauses`` (each ``seconds`` long, the last one perhaps unfinished)
    that ``heard_s`` seconds of their voice held: the whole clauses, then the share of the next
    one's words that its heard share of audio is (the voice speaks at an even enough pace; an
    estimate, to the word)."""
    if heard_s is None:
        return " ".join(clauses)
    kept = []
    for clause, length in zip(clauses, seconds):
        if length <= 0:  # the voice made nothing of it
            continue
        if heard_s >= length:
            kept.append(clause)
            heard_s -= length
            continue
        words = clause.split()
        part = words[:int(len(words) * heard_s / length)]
        if part:
            kept.append(" ".join(part))
        break
    return " ".join(kept)


@dataclass(frozen=True)
class TurnTimes:
    """Milliseconds. "End of speech" is where the person's recording ends (None: did not happen)."""

    stt_flush: float  # end of speech → the speech to text's last words (its delay, flushed)
    first_token: float | None  # request → the model's first piece
    first_clause: float | None  # request → the first clause complete
    voice_first_frame: float | None  # the first clause given to the voice → its first frame
    first_audio: float | None  # end of speech → the voice's first frame
    total: float  # end of speech → the voice's last frame

    @property
    def parley_share(self) -> float | None:
        """End of speech → first audio, less the model's first token: what Parley itself spends."""
        if self.first_audio is None or self.first_token is None:
            return None
        return self.first_audio - self.first_token

    def parts(self) -> dict[str, float] | None:
        """End of speech → first audio in consecutive parts that add up to ``first_audio``: the STT
        flush, the model's first token, the wait for the rest of its first clause (the model's
        next tokens; Parley's share counts it), the voice's first frame, and the hand-offs between
        them (the words joined, the request built, the clause handed over). None: no audio."""
        if None in (self.first_audio, self.first_token, self.first_clause, self.voice_first_frame):
            return None
        return {"stt_flush": self.stt_flush, "model_first_token": self.first_token,
                "clause_wait": self.first_clause - self.first_token, "voice_first_frame": self.voice_first_frame,
                "handoffs": self.first_audio - self.stt_flush - self.first_clause - self.voice_first_frame}


@dataclass(frozen=True)
class Hearing:
    """What the speech to text heard of one turn of the person's: its words, timed from the start of
    the turn's audio (``engine.Word``), when their speech ended (perf_counter) and the flush (ms)."""

    words: tuple = ()
    end_of_speech: float = 0.0
    flush_ms: float = 0.0

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)


@dataclass
class Turn:
    heard: str  # what the speech to text wrote
    words: tuple = ()  # the same, as timed ``engine.Word``s
    answer: str = ""  # the model's text, as received
    clauses: list[str] = field(default_factory=list)  # what the voice said, in order
    clause_seconds: list[float] = field(default_factory=list)  # the voice's audio of each clause
    audio: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    finish_reason: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)  # the model's calls of Parley's tools, in order
    error: ChatError | None = None
    times: TurnTimes | None = None
    cut: bool = False  # the person spoke over it: ``answer`` is what they heard, ending in CUT_MARK


class Conversation:
    """The history (system prompt, then the person's and the model's turns; each request sends the
    newest that fit ``history_chars``), the three models, and the tools the person enabled.
    ``speech_to_text``: an engine ``SpeechToText``; ``voice``: an engine ``PocketSpeaker``."""

    def __init__(self, speech_to_text, server: ChatServer, voice, system: str | None = None,
                 rules: ClauseRules = ClauseRules(), history_chars: int = HISTORY_CHARS,
                 tools: dict[str, Tool] | None = None):
        self.stt, self.server, self.voice, self.rules = speech_to_text, server, voice, rules
        self.history_chars, self.tools = history_chars, tools or {}
        self.messages: list[dict] = [{"role": "system", "content": system}] if system else []
        self._client = None  # one connection pool for every turn
        self._on_frame = self._on_clause = None  # the current answer's listeners (see answer)
        self._interruption = Interruption()  # the current answer's

    def close(self) -> None:
        if self._client is not None:
            self._client.close()

    def hear(self, pcm: np.ndarray) -> Hearing:
        """What the speech to text hears of ``pcm``: the recording is fed as the live audio would
        be, then its delay is flushed."""
        stream = self.stt.new_stream()
        return self.finish_hearing(stream, stream.feed(pcm))

    @staticmethod
    def finish_hearing(stream, steps: list) -> Hearing:
        """The words of a speech to text ``stream`` that gave ``steps`` so far, its speech ended now:
        its delay is flushed, the last words come out."""
        from engine import words

        end_of_speech = time.perf_counter()
        steps = [*steps, *stream.finish(live=True)]
        return Hearing(tuple(words(steps)), end_of_speech, 1000 * (time.perf_counter() - end_of_speech))

    def turn(self, pcm: np.ndarray) -> Turn:
        """One exchange: the person's speech in ``pcm`` (float32 mono, 24 kHz), the spoken answer."""
        return self.answer(self.hear(pcm))

    def answer(self, hearing: Hearing, on_frame: Callable[[np.ndarray], None] | None = None,
               on_clause: Callable[[str], None] | None = None,
               interruption: Interruption | None = None) -> Turn:
        """The model's spoken answer to what the speech to text heard. ``on_frame`` gets each frame
        of the voice as it is made (a speaker plays it), ``on_clause`` each clause before it is
        spoken (a window shows it); ``interruption``, set by whoever hears the person speak over it,
        cuts it short."""
        heard, end_of_speech, flush = hearing.text, hearing.end_of_speech, hearing.flush_ms
        turn = Turn(heard, hearing.words)
        if not heard:
            now = 1000 * (time.perf_counter() - end_of_speech)
            turn.times = TurnTimes(flush, None, None, None, None, now)
            return turn
        self.messages.append({"role": "user", "content": heard})
        frames: list[np.ndarray] = []
        marks: dict[str, float] = {}
        asked = time.perf_counter()
        self._on_frame, self._on_clause = on_frame, on_clause
        self._interruption = interruption or Interruption()
        last = self._answer(turn, frames, marks)
        done = time.perf_counter()
        if self._interruption.interrupted:
            turn.cut = True
            heard_s = self._interruption.heard_s
            words = heard_words(turn.clauses, turn.clause_seconds, heard_s)
            turn.answer = last = f"{words} {CUT_MARK}" if words else CUT_MARK
            if heard_s is not None and frames:
                frames = [np.concatenate(frames)[:int(heard_s * SAMPLE_RATE)]]
        if last:
            self.messages.append({"role": "assistant", "content": last})
        turn.audio = np.concatenate(frames) if frames else turn.audio

        def since(start: float, key: str) -> float | None:
            return 1000 * (marks[key] - start) if key in marks else None

        turn.times = TurnTimes(
            stt_flush=flush,
            first_token=since(asked, "first_piece"),
            first_clause=since(asked, "first_clause"),
            voice_first_frame=since(marks.get("first_given", 0.0), "first_frame"),
            first_audio=since(end_of_speech, "first_frame"),
            total=1000 * (done - end_of_speech))
        return turn

    def _answer(self, turn: Turn, frames: list, marks: dict) -> str:
        """Stream the model's answer into the voice, running the tool calls it makes on the way
        (then asking again, at most ``MAX_TOOL_ROUNDS`` times); the last request's text."""
        splitter = ClauseSplitter(self.rules)
        for round_ in range(MAX_TOOL_ROUNDS + 1):
            specs = [t.spec() for t in self.tools.values()] if round_ < MAX_TOOL_ROUNDS else []
            stream = ReplyStream(self.server, sent_messages(self.messages, self.history_chars), self._client, specs)
            self._interruption.watch(stream)
            try:
                for piece in stream:
                    if self._interruption.interrupted:
                        break
                    marks.setdefault("first_piece", time.perf_counter())
                    for clause in splitter.feed(piece):
                        marks.setdefault("first_clause", time.perf_counter())
                        self._speak(clause.text, turn, frames, marks)
            except ChatError as e:
                turn.error = e
            self._client = stream.client
            if self._interruption.interrupted:
                return stream.text
            turn.answer += stream.text
            turn.finish_reason = stream.finish_reason
            if turn.error is not None or not stream.tool_calls:
                break
            calls = [run_call(self.tools, call) for call in stream.tool_calls]
            turn.tool_calls += calls
            self.messages.append({"role": "assistant", "content": stream.text,
                                  "tool_calls": [c.as_request() for c in calls]})
            self.messages += [c.as_message() for c in calls]
        for clause in splitter.flush():  # the end of the answer, or what came before a failure
            marks.setdefault("first_clause", time.perf_counter())
            self._speak(clause.text, turn, frames, marks)
        return stream.text

    def _speak(self, text: str, turn: Turn, frames: list, marks: dict) -> None:
        stop = self._interruption.event
        if stop.is_set():
            return
        turn.clauses.append(text)
        turn.clause_seconds.append(0.0)
        if self._on_clause is not None:
            self._on_clause(text)
        marks.setdefault("first_given", time.perf_counter())
        for frame in self.voice.speak(text, stop=stop):
            marks.setdefault("first_frame", time.perf_counter())
            frames.append(frame.audio)
            turn.clause_seconds[-1] += len(frame.audio) / SAMPLE_RATE
            if self._on_frame is not None:
                self._on_frame(frame.audio)
        if stop.is_set():  # cut before its end: as long as speech's pace makes it, at least
            turn.clause_seconds[-1] = max(turn.clause_seconds[-1], len(text.split()) / WORDS_PER_SECOND)
