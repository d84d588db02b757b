"""What a conversation with the language model keeps for its file, on the chat loop's thread: the
timeline of its exchanges (``app.chat.recording``), Save and Export audio, and its crash journal:
the whole conversation file written again after each exchange (atomically, on a thread of its own),
noted as saved beside it when Save wrote everything it holds (a crash then offers nothing), removed
when the conversation ends by the person's choice or is forgotten. What happens goes out as the
events below."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import engine
from app.chat.recording import ChatTimeline
from app.journals.saved_marker import mark_saved, remove_mark

log = logging.getLogger(__name__)

NOT_STARTED = "The conversation has not started yet: there is nothing to write."


@dataclass(frozen=True)
class Saved:
    """The conversation so far was written to ``path`` (``exchanges``: the person's turns in it), or
    could not be (``problem``: one sentence)."""

    path: str
    exchanges: int
    problem: str = ""


@dataclass(frozen=True)
class AudioExported:
    """Both sides' audio was written to ``path`` as a WAV (left: the person, right: the assistant),
    or could not be (``problem``)."""

    path: str
    problem: str = ""


@dataclass(frozen=True)
class JournalState:
    """Why the crash journal was not written after the last exchange ("": it was)."""

    problem: str


def not_started(what: str, path: str):
    """The event that says a write (``ChatRecord``'s ``what``) found no conversation yet."""
    return Saved(path, 0, NOT_STARTED) if what == "save" else AudioExported(path, NOT_STARTED)


def why_not_written(e: Exception) -> str:
    """A failed write in one sentence: Parley's own errors say the file and what to do; the system's, why."""
    if isinstance(e, (engine.WriteError, engine.ConversationFileError)) or not getattr(e, "strerror", None):
        return str(e)
    return f"{getattr(e, 'filename', None) or 'the file'} could not be written: {e.strerror}."


class ChatRecord:
    def __init__(self, emit: Callable[[object], None], side: engine.LanguageModelSide,
                 resumed: engine.ChatConversation | None = None, journal: str = "") -> None:
        """``resumed``: the saved conversation it continues; ``journal``: its crash journal ("": none)."""
        self.emit = emit
        self.timeline = ChatTimeline(side, resumed)
        self.journal = Path(journal) if journal else None
        self._journal_problem = ""
        # The journal is written off the loop's thread, one write at a time: an hour of conversation
        # is ~330 MB, ~2 s to write, which the next turn must not wait for.
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="parley-chat-journal")

    def add_exchange(self, person: np.ndarray, turn, messages) -> None:
        """The person's turn (its audio) and the model's ``app.chat.cascade.Turn``; ``messages`` now."""
        self.timeline.add_exchange(person, turn.words, turn.audio, turn.answer)
        if self.journal is not None:
            self._writer.submit(self._write_journal, self.timeline.conversation(messages))

    def _write_journal(self, contents: engine.ChatConversation) -> None:
        """On the writer's thread."""
        problem = ""
        try:
            engine.write_chat_conversation(self.journal, contents)
        except (OSError, engine.ConversationFileError) as e:
            problem = f"No crash journal for this conversation: {why_not_written(e)}"
            log.warning("%s", problem)
        if problem != self._journal_problem:
            self._journal_problem = problem
            self.emit(JournalState(problem))

    def _journal_written(self) -> None:
        """Wait for the journal writes asked for so far (the writer takes them in order)."""
        self._writer.submit(lambda: None).result()

    def save(self, path: str, messages) -> None:
        try:
            engine.write_chat_conversation(path, self.timeline.conversation(messages))
        except (OSError, engine.ConversationFileError) as e:
            self.emit(Saved(path, 0, why_not_written(e)))
            return
        if self.journal is not None:  # a crash now leaves nothing the file lacks: it is not offered
            try:
                mark_saved(self.journal, self.timeline.frames, path)
            except OSError as e:
                log.warning("could not note the save beside the journal: %s", e)
        self.emit(Saved(path, self.timeline.exchanges))

    def export_audio(self, path: str, _messages=()) -> None:
        chat = self.timeline.conversation(())
        try:
            engine.write_wav(path, np.stack([chat.user_audio, chat.assistant_audio], axis=1))
        except OSError as e:
            self.emit(AudioExported(path, why_not_written(e)))
            return
        self.emit(AudioExported(path))

    def forget(self) -> None:
        """A new conversation: the timeline starts again, the journal of the old one goes."""
        self.timeline = ChatTimeline(self.timeline.side)
        self._journal_written()
        self._remove_journal()

    def end(self) -> None:
        """The conversation ended by the person's choice: once any write in progress is done, its journal goes."""
        self._writer.shutdown(wait=True)
        self._remove_journal()

    def _remove_journal(self) -> None:
        if self.journal is not None:
            self.journal.unlink(missing_ok=True)
            remove_mark(self.journal)
