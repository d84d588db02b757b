"""The conversation's files, with no widgets: the file it is saved in, what the person said that no
file holds (``unsaved_frames``), the window title, saving, exporting, opening (a compact file's
rebuild reports ``opening``), the recent files, renames and removals in the library, and the
journals a crash left (offered for recovery once the first model loaded) and whether the running
conversation is journaled now (``crash_protection_problem``).

Questions to the user (file dialogs, "discard changes?") stay in the window: this part only acts on
the answers. Its worker events come through the conversation view-model's dispatch.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from app.conversation.preferences import Preferences
from app.conversation.transcript_formats import export_transcript
from app.conversation.turn_list import TurnListModel
from app.engine_thread import messages as m
from app.journals.pending import CHAT_SUFFIX, pending_journals_in_background


def same_file_name(a: str, b: str) -> bool:
    """Whether two paths name the same file, whether or not it exists (a removed file's old name)."""
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


class ConversationFiles(QObject):
    title_changed = Signal(str)
    saved = Signal(str)  # path
    message = Signal(str)  # a transient note for the status bar
    failed = Signal(str)  # a file could not be written, read or exported
    recovery_event = Signal(object)  # engine_messages.RecoveryProgress / RecoveryDone, after recover()
    opening = Signal(int, int)  # frames of a compact file rebuilt, of total (see opening_progress); (0, 0): done
    recovery_offered = Signal(object)  # [PendingJournal] a crashed run left, once the first model loaded
    crash_protection_changed = Signal(str)  # see crash_protection_problem
    chat_recovery = Signal(str)  # a conversation with your language model's journal to continue (see recover)

    def __init__(self, worker, preferences: Preferences, turns: TurnListModel, journal_dir: Path | None,
                 parent: QObject | None = None) -> None:
        """``journal_dir``: crash journals (offered for recovery at start); None: no journals."""
        super().__init__(parent)
        self.worker = worker
        self.preferences = preferences
        self.turns = turns
        self.conversation_path: str | None = None
        self.opening_progress: tuple[int, int] | None = None  # a compact file's rebuild: (frames, total)
        self._open_cancel = None  # threading.Event of the file being opened
        self.unsaved_frames = 0
        # Indexes of the frames the person was heard in that no file holds yet: only those are unsaved
        # work (what the assistant said alone, the demo's babble, is not); ``unsaved_frames`` counts them.
        self._spoken_frames: list[int] = []
        # Why the conversation is not journaled for crash recovery now (a full disk); "" when it is.
        self.crash_protection_problem = ""
        # Listed before the worker (or the chat) starts a journal of its own, read off the GUI thread.
        self._pending_journals = pending_journals_in_background(journal_dir) if journal_dir else None
        self._pending_chat_journals = pending_journals_in_background(journal_dir, CHAT_SUFFIX) if journal_dir else None
        QTimer.singleShot(0, self, self.offer_pending_chat_journals)
        self.worker.submit(m.SetSaveKind(preferences.settings.save_compact))

    def title(self, shown=None) -> str:
        """The window's title for the conversation ``shown`` (one with ``conversation_path`` and
        ``unsaved_frames``: the chat's while it runs; None: this one)."""
        shown = self if shown is None else shown
        path = shown.conversation_path
        name = Path(path).name if path else self.tr("Untitled conversation")
        return (self.tr("{name} * — Parley") if shown.unsaved_frames else self.tr("{name} — Parley")).format(name=name)

    def open_conversation(self, path: str) -> None:
        """Open ``path``; a compact file's rebuild reports ``opening`` and ``cancel_open`` stops it."""
        command = m.OpenConversation(path)
        self._open_cancel = command.cancel
        self.worker.submit(command)

    def cancel_open(self) -> None:
        """Stop the rebuild of the file being opened (the current conversation goes on)."""
        if self._open_cancel is not None:
            self._open_cancel.set()

    def on_open_progress(self, event: m.OpenProgress) -> None:
        self.opening_progress = (event.frames, event.total)
        self.opening.emit(event.frames, event.total)

    def on_open_cancelled(self, event: m.OpenCancelled) -> None:
        self._opening_ended()
        self.message.emit(self.tr("Opening {file} was cancelled; the current conversation goes on.").format(
            file=Path(event.path).name))

    def _opening_ended(self) -> None:
        self._open_cancel = None
        if self.opening_progress is not None:
            self.opening_progress = None
            self.opening.emit(0, 0)

    def save(self, path: str) -> None:
        self.worker.submit(m.SaveConversation(path))

    def export_audio(self, path: str) -> None:
        self.worker.submit(m.ExportAudio(path))

    def recover(self, journal: str) -> threading.Event:
        """Rebuild a crash journal's conversation (``recovery_event`` says how it goes); set the
        returned event to cancel it. A conversation with your language model's journal is a whole
        conversation file: ``chat_recovery`` hands it to the chat, which says how it went the same way."""
        if journal.endswith(CHAT_SUFFIX):
            self.chat_recovery.emit(journal)
            return threading.Event()
        command = m.RecoverJournal(journal)
        self.worker.submit(command)
        return command.cancel

    def export_transcript(self, path: str) -> None:
        """Write the transcript in the format ``path``'s suffix names (``transcript_formats.FORMATS``)."""
        title = Path(self.conversation_path).stem if self.conversation_path else "Untitled conversation"
        try:
            export_transcript(self.turns.transcript, path, title, interpreting=self.turns.interpreting)
        except (OSError, ValueError) as e:
            self.failed.emit(self.tr("Could not export the transcript: {problem}").format(problem=e))
            return
        self.message.emit(self.tr("Exported transcript: {path}").format(path=path))

    def forget_recent(self, path: str) -> None:
        settings = self.preferences.settings
        self.preferences.update(recent_files=tuple(p for p in settings.recent_files if p != path))

    def set_file_kind(self, kind: str) -> None:
        """File > Conversation files: the kind the next saves write (an AppSettings.file_kind)."""
        self.preferences.update(file_kind=kind)
        self.worker.submit(m.SetSaveKind(self.preferences.settings.save_compact))

    @property
    def journal_offer_pending(self) -> bool:
        """Whether the journals a crash left are yet to be offered: they are being read, or no model is loaded yet."""
        return self._pending_journals is not None

    def offer_pending_journals(self) -> None:
        """Once the first model of this run is loaded: offer what a crash left behind, when read."""
        self._pending_journals = self._offer_when_read(self._pending_journals, self.offer_pending_journals)

    def offer_pending_chat_journals(self) -> None:
        """As soon as they are read: the conversations with your language model a crash left (they
        need no speech model)."""
        self._pending_chat_journals = self._offer_when_read(self._pending_chat_journals,
                                                            self.offer_pending_chat_journals)

    def _offer_when_read(self, pending: Future | None, again) -> Future | None:
        """Offer the journals ``pending`` lists once it is done (then None); until then ``again`` runs shortly."""
        if pending is None:
            return None
        if not pending.done():
            QTimer.singleShot(50, self, again)
            return pending
        journals = [] if pending.exception() is not None else pending.result()
        if journals:
            self.recovery_offered.emit(journals)
        return None

    def conversation_opened(self, path: str, spoke: bool) -> None:
        """A new, opened or recovered conversation (``path`` "" where no file holds it) replaced the
        current one; ``spoke``: the person's words are in it. A recovered conversation holds them in
        no file: unsaved until it is saved."""
        if path:
            self._opening_ended()
        self.conversation_path = path or None
        self._spoken_frames = []
        self.unsaved_frames = 1 if spoke else 0
        if path:
            self.preferences.update(recent_files=self.preferences.settings.with_recent(path).recent_files)
        self.title_changed.emit(self.title())

    def heard(self, frame_index: int) -> None:
        """The person was heard in this frame, which no file holds yet."""
        self._spoken_frames.append(frame_index)
        self.unsaved_frames += 1
        if self.unsaved_frames == 1:
            self.title_changed.emit(self.title())

    def on_journal_state(self, event: m.JournalState) -> None:
        self.crash_protection_problem = event.problem
        self.crash_protection_changed.emit(event.problem)

    def file_renamed(self, old: str, new: str) -> None:
        """A file was renamed in the library: the conversation saved there follows it (Save writes
        the new name, never the old one again), and so does Open recent."""
        if self.conversation_path and same_file_name(self.conversation_path, old):
            self.conversation_path = new
            self.title_changed.emit(self.title())
        recent_files = self.preferences.settings.recent_files
        if any(same_file_name(p, old) for p in recent_files):
            self.preferences.update(recent_files=tuple(new if same_file_name(p, old) else p for p in recent_files))

    def file_removed(self, path: str) -> None:
        """A file was moved to the trash in the library: the conversation saved there is unsaved
        again (Save asks where, instead of writing the removed name back)."""
        if self.conversation_path and same_file_name(self.conversation_path, path):
            self.conversation_path = None
            self.unsaved_frames = max(self.unsaved_frames, 1)
            self.title_changed.emit(self.title())

    def on_file_done(self, event: m.FileDone) -> None:
        what = {"saved": self.tr("Saved: {path}"), "exported audio": self.tr("Exported audio: {path}")}
        self.message.emit(what.get(event.what, f"{event.what.capitalize()}: {{path}}").format(path=event.path))

    def on_conversation_saved(self, event: m.ConversationSaved) -> None:
        """Still unsaved: the frames the person spoke in that ran while the file was written (not in it)."""
        path = event.path
        self.conversation_path = path
        self._spoken_frames = [i for i in self._spoken_frames if i >= event.frames]
        self.unsaved_frames = len(self._spoken_frames)
        self.preferences.update(recent_files=self.preferences.settings.with_recent(path).recent_files)
        self.title_changed.emit(self.title())
        self.saved.emit(path)
        self.message.emit(self.tr("Saved: {path}").format(path=path))

    def on_file_failed(self, event: m.FileFailed) -> None:
        if event.what == "open":
            self._opening_ended()
        self.failed.emit(event.message)
