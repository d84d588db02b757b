"""A conversation with your language model, as the window shows it, widget-free: the third kind of
conversation beside the speech-to-speech models and the interpreter.

The person gives their server's address and model (kept in the settings; a key, where one is
needed, in the system's keyring: ``app.chat.keys``) and the speech to text (by default the demo's
demo-stt with the demo, else stt-1b-en_fr; kept as ``chat_stt_model``); the voice is the chosen
Pocket TTS voice (the one Read aloud uses), or where it does not speak the interface's language
and a model here does, that model's (``language``; the instruction asks for it too). Starting lends
the audio devices to an ``app.engine_thread.chat_loop.ChatLoop`` (the speech-to-speech conversation
pauses) and stopping takes them back. Talk held: the microphone goes to the speech to text;
released: the person's turn and then the assistant's, growing clause by clause as it is spoken, go
into the turns. Talk pressed while it speaks stops it (barge-in: ``chat_loop``); its turn keeps the
words heard, cut.

Its file (``engine.ChatConversation``): Save writes the conversation so far (after an answer in
progress) through the loop; an opened one (``resume``) continues with the same server, model, speech
to text, voice and history, its turns shown as the file has them. While it runs, each exchange is
also written to a crash journal in ``journal_dir`` (``*.chat-journal``), which goes when it ends.

The loop reports through a queue that a GUI timer reads (no signals from foreign threads).
"""

from __future__ import annotations

import logging
import queue
import secrets
import time
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

import engine
from app.chat.instructions import ENGLISH, LANGUAGES
from app.conversation.chat_latency import first_audio_text
from app.conversation.files_model import same_file_name
from app.conversation.read_aloud import chosen_voice, installed_voices
from app.conversation.status import Status
from app.conversation.transcript import ASSISTANT, YOU
from app.engine_thread import chat_loop as c
from app.engine_thread.chat_record import AudioExported, JournalState, Saved
from app.i18n import interface_locale
from app.journals.lock import JournalLock
from app.journals.pending import CHAT_SUFFIX

log = logging.getLogger(__name__)

POLL_MS = 40
CALL_RESULT_CHARS = 160  # of a tool call's result, in the turn
OFF, LOADING, READY, LISTENING, ANSWERING = "off", "loading", "ready", "listening", "answering"
STATUS = {LOADING: Status.LOADING, READY: Status.READY, LISTENING: Status.LISTENING, ANSWERING: Status.SPEAKING}


def _journal_lock(path: Path) -> JournalLock | None:
    """The lock of a new journal (None: its folder cannot take one; the conversation runs unjournaled)."""
    try:
        return JournalLock.try_acquire(path)
    except OSError as e:
        log.warning("no crash journal for this conversation: %s", e)
        return None


def server_key(url: str) -> str | None:
    """The key the keyring keeps for ``url`` (None: none, or no keyring answers)."""
    from app.chat.keys import saved_key

    try:
        return saved_key(url)
    except Exception as e:  # noqa: BLE001 - a keyring that fails is no key, not a failed start
        log.warning("the keyring did not answer: %s", e)
        return None


class ChatMode(QObject):
    changed = Signal()  # phase or message
    answered = Signal(object)  # an answer's app.chat.cascade.TurnTimes
    failed = Signal(str)  # one sentence for the window's error box
    file_changed = Signal()  # conversation_path or unsaved_frames
    saved = Signal(str)  # path
    note = Signal(str)  # a transient note for the status bar

    def __init__(self, devices, preferences, turns, parent: QObject | None = None, loader=c.load_models,
                 journal_dir: Path | None = None) -> None:
        """``devices``: ``DevicesModel`` (lent to the loop while it runs); ``turns``: ``TurnListModel``;
        ``journal_dir``: where its crash journals go (None: none)."""
        super().__init__(parent)
        self.devices, self.preferences, self.turns, self._loader = devices, preferences, turns, loader
        self.journal_dir = journal_dir
        self.conversation_path: str | None = None  # the file it was opened from or saved to
        self.unsaved_frames = 0  # the person's turns since (named as ``ConversationFiles``' count)
        self._exchanges = 0  # the person's turns answered in this conversation (an opened one's included)
        self._journal = ""  # the running conversation's crash journal ("": none)
        self._journal_lock: JournalLock | None = None
        self.phase = OFF
        self.message = ""  # one sentence: what it does now, or why it cannot
        self.model_name = self.url = ""
        self._loop: c.ChatLoop | None = None
        self._events: queue.Queue = queue.Queue()
        self._began = time.monotonic()  # the conversation's clock (its turns' times)
        self._talk_from = 0.0
        self._answer_row: int | None = None
        self._said: list[str] = []
        self.turn_ends = False  # its speech to text says where turns end: open mic works
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self._poll)

    @property
    def active(self) -> bool:
        return self.phase != OFF

    @property
    def ready(self) -> bool:
        return self.phase in (READY, LISTENING, ANSWERING)

    @property
    def status(self) -> Status | None:
        """The window's status while it runs (None: off)."""
        return STATUS.get(self.phase)

    def model_line(self) -> str:
        """The window's model line while it runs."""
        return self.tr("Your language model: {model} at {url}").format(model=self.model_name, url=self.url)

    def language(self) -> str:
        """The conversation's language: the interface's (an ``app.chat.instructions.LANGUAGES`` code;
        English for one it lacks). The instruction asks for it and the voice speaks it where one here does."""
        code = interface_locale(self.preferences.settings.language).name().split("_")[0]
        return code if code in LANGUAGES else ENGLISH

    def stt_model(self) -> str:
        settings = self.preferences.settings
        return settings.chat_stt_model or ("demo-stt" if settings.model == "demo" else "stt-1b-en_fr")

    # -- commands ----------------------------------------------------------------------------
    def start(self, url: str, model: str, system: str | None = None, tools: tuple[str, ...] | None = None,
              conversations_folder: Path | None = None, stt_model: str | None = None, api_key: str | None = None,
              **sampling) -> bool:
        """Talk with ``model`` at ``url`` (remembered for next time); False with ``message`` said
        where it cannot start. ``tools``: the ones it may call (``app.chat.tools.TOOL_NAMES``;
        None: as last chosen), the conversations' search searching ``conversations_folder``;
        ``stt_model``: the speech to text (remembered; None: as last chosen); ``api_key``: the
        server's key, kept in the system's keyring (None: the one kept there). ``sampling``:
        ``max_tokens``, ``temperature`` (default: the server's)."""
        url, model = url.strip(), model.strip()
        tools = self.preferences.settings.llm_tools if tools is None else tuple(tools)
        self.preferences.update(llm_url=url, llm_model=model, llm_tools=tools)
        if stt_model:
            self.preferences.update(chat_stt_model=stt_model)
        installed = installed_voices()
        chosen = chosen_voice(self.preferences.settings, installed, LANGUAGES[self.language()].voice_row)
        if not url or not model:
            return self._refuse(self.tr("Give your language model server's address and the model's name."))
        if chosen is None:
            return self._refuse(self.tr("A conversation with your language model needs a Pocket TTS voice: download "
                                        "one in the model manager (Model menu, Model manager)."))
        name, voice = chosen
        folder, row, _voices = installed[name]
        if api_key:
            self._keep_key(url, api_key)
        self._run(c.ChatSetup(url, model, self.stt_model(), str(folder), row, voice, device=self._device(),
                              system=system, api_key=api_key or server_key(url), tools=tools,
                              conversations_folder=str(conversations_folder or ""), voice_model=name, **sampling))
        self._set_file(None, 0)
        return True

    def resume(self, path: str, conversations_folder: Path | None = None, recovered: bool = False) -> bool:
        """Continue the conversation saved in ``path``: the same server, model, speech to text, voice
        and history, its turns shown; False with ``message`` said where it cannot. ``recovered``:
        ``path`` is the crash journal it was having, which it goes on writing (``lock_journal``), unsaved."""
        try:
            saved = engine.read_chat_conversation(path)
        except engine.ConversationFileError as e:
            return self._refuse(str(e))
        side = saved.side
        installed = installed_voices()
        if side.voice_model not in installed or side.voice not in installed[side.voice_model][2]:
            return self._refuse(self.tr(
                "{file} was spoken with the voice {voice} of {voice_model}, which is not on this machine: download "
                "it in the model manager (Model menu, Model manager), then open the conversation again.").format(
                    file=Path(path).name, voice=side.voice, voice_model=side.voice_model))
        folder, row, _voices = installed[side.voice_model]
        tools = self.preferences.settings.llm_tools
        self._run(c.ChatSetup(side.server, side.model, side.speech_to_text, str(folder), row, side.voice,
                              device=self._device(), api_key=server_key(side.server), tools=tools,
                              conversations_folder=str(conversations_folder or ""), voice_model=side.voice_model,
                              resumed=saved, journal=path if recovered else ""))
        self.turns.reset(saved.transcript, (saved.user_audio, saved.assistant_audio), saved.captions,
                         saved.turn_ends)
        self._began -= saved.frames * engine.FRAME_SECONDS  # its new turns come after the saved ones
        self._exchanges = len(saved.turn_ends)
        if recovered:
            self._set_file(None, 1)
            return True
        self._set_file(path, 0)
        self.preferences.update(recent_files=self.preferences.settings.with_recent(path).recent_files)
        return True

    def lock_journal(self) -> None:
        """Hold the lock of the journal it writes (one it continues was locked by the recovery offer)."""
        if self._journal and self._journal_lock is None:
            self._journal_lock = _journal_lock(Path(self._journal))

    def _keep_key(self, url: str, key: str) -> None:
        """Into the system's keyring; where none keeps it, the key serves this run only, and the note says so."""
        from app.chat.keys import KeyringUnavailable, save_key

        try:
            save_key(url, key)
        except KeyringUnavailable as e:
            self.note.emit(str(e))

    def save(self, path: str) -> None:
        """Write the conversation so far to ``path`` (after an answer in progress); ``saved`` or ``failed`` says how."""
        if self._loop is not None:
            self._loop.save(path)

    def export_audio(self, path: str) -> None:
        """Both sides' audio as a stereo WAV (after an answer in progress)."""
        if self._loop is not None:
            self._loop.export_audio(path)

    def file_renamed(self, old: str, new: str) -> None:
        """Its file was renamed in the library: Save writes the new name, never the old one again."""
        if self.conversation_path and same_file_name(self.conversation_path, old):
            self._set_file(new, self.unsaved_frames)

    def file_removed(self, path: str) -> None:
        """Its file went to the trash: unsaved again (Save asks where)."""
        if self.conversation_path and same_file_name(self.conversation_path, path):
            self._set_file(None, max(self.unsaved_frames, 1))

    def _device(self) -> str:
        return "cuda" if self.preferences.settings.device == "cuda" else "cpu"

    def _run(self, setup: c.ChatSetup) -> None:
        """A new loop for ``setup``, lent the devices, with a crash journal: ``setup``'s (continued
        after a crash), else one of its own under a new name and lock."""
        self.stop()
        journal = setup.journal
        if not journal and self.journal_dir is not None:
            stamp = f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"
            path = self.journal_dir / f"conversation-{stamp}{CHAT_SUFFIX}"
            self._journal_lock = _journal_lock(path)
            journal = str(path) if self._journal_lock is not None else ""
        self._journal = journal
        self._events = queue.Queue()
        self._loop = c.ChatLoop(self._events.put, self._loader)
        self.devices.lend(self._loop)
        self._loop.start(replace(setup, journal=journal))
        self._began, self._answer_row, self._said, self._exchanges = time.monotonic(), None, [], 0
        self.model_name, self.url, self.turn_ends = setup.model, setup.url, False
        self._set(LOADING, self.tr("Loading the speech models and asking {url} for {model}...").format(
            url=setup.url, model=setup.model))
        self._timer.start()

    def _set_file(self, path: str | None, unsaved: int) -> None:
        self.conversation_path, self.unsaved_frames = path, unsaved
        self.file_changed.emit()

    def stop(self) -> bool:
        """Back to the speech-to-speech model: the devices go back to it; the turns stay shown.
        Whether the loop's thread ended (a model load or a silent server is not cut off)."""
        loop, self._loop = self._loop, None
        if loop is None:
            return True
        self._timer.stop()
        self.devices.take_back()
        ended = loop.close(timeout=5.0)  # the loop removes its journal as it ends
        if not ended:
            log.warning("the chat loop is still busy; it ends on its own")
        lock, self._journal_lock, self._journal = self._journal_lock, None, ""
        if lock is not None:
            lock.release()
        self._set(OFF, "")
        return ended

    def new_conversation(self) -> None:
        """The turns and the model's history start afresh (the server and the models stay)."""
        if self._loop is not None:
            self._loop.forget()
        self.turns.reset()
        self._began, self._answer_row, self._said, self._exchanges = time.monotonic(), None, [], 0
        self._set_file(None, 0)

    @property
    def open_mic(self) -> bool:
        """Open mic listens in this conversation (chosen, and its speech to text ends turns)."""
        return self.turn_ends and self.preferences.settings.open_mic

    def set_open_mic(self, on: bool) -> None:
        """Follows the open mic box (the settings keep the choice)."""
        if self._loop is not None and self.turn_ends:
            self._loop.set_open_mic(on)

    def press_talk(self) -> None:
        if self._loop is not None and self.ready:
            self._loop.talk(True)

    def release_talk(self) -> None:
        if self._loop is not None and self.ready:
            self._loop.talk(False)

    def conversation_messages(self) -> list[dict]:
        """What the language model was sent and said so far (read between turns)."""
        conversation = self._loop.conversation if self._loop is not None else None
        return [dict(m) for m in conversation.messages] if conversation is not None else []

    # -- the loop's events -------------------------------------------------------------------
    def _now(self) -> float:
        return time.monotonic() - self._began

    def _poll(self) -> None:
        while True:
            try:
                event = self._events.get_nowait()
            except queue.Empty:
                return
            self._on(event)

    def _on(self, event) -> None:
        if isinstance(event, c.ChatReady):
            self.turn_ends = event.turn_ends
            self._set(READY, self.tr("Talking with {model} at {server}: hold Talk while you speak.").format(
                model=event.model, server=event.server))
            self.set_open_mic(self.preferences.settings.open_mic)
        elif isinstance(event, c.ChatFailed):
            if self.phase == LOADING:
                self.stop()
            else:
                self.phase = READY
            self._refuse(event.sentence)
        elif isinstance(event, c.Listening):
            self._talk_from = self._now()
            self._set(LISTENING, self.tr("Listening: your turn ends when you pause, or when you release Talk.")
                      if self.open_mic else self.tr("Listening: release Talk when you are done."))
        elif isinstance(event, c.StoppedListening):
            self._set(READY, self.tr("Hold Talk while you speak."))
        elif isinstance(event, c.Heard):
            if not event.text:
                self._set(READY, self.tr("Nothing was heard: hold Talk while you speak."))
                return
            self.turns.add_turn(YOU, self._talk_from, self._now(), event.text)
            self._answer_row, self._said = None, []
            self._set(ANSWERING, self.tr("{model} answers...").format(model=self.model_name))
        elif isinstance(event, c.Said):
            self._said.append(event.text)
            self._show_answer(" ".join(self._said))
        elif isinstance(event, Saved):
            self._on_saved(event)
        elif isinstance(event, AudioExported):
            if event.problem:
                self.failed.emit(event.problem)
            else:
                self.note.emit(self.tr("Exported audio: {path}").format(path=event.path))
        elif isinstance(event, JournalState):
            if event.problem:
                self.note.emit(event.problem)
        elif isinstance(event, c.Answered):
            self._exchanges += 1
            self._set_file(self.conversation_path, self.unsaved_frames + 1)
            if event.times is not None:
                self.answered.emit(event.times)
            text = "\n".join([*(self._call_line(call) for call in event.tool_calls), event.text.strip()]).strip()
            if text:
                self._show_answer(text)
            self._answer_row = None
            if event.problem:
                self.phase = READY
                self._refuse(event.problem)
            elif event.cut:
                self._set(READY, self.tr("You spoke over the answer: it stopped, and keeps the words you heard."))
            else:
                self._set(READY, self._answered_text(event.times))

    def _on_saved(self, event: Saved) -> None:
        if event.problem:
            self.failed.emit(event.problem)
            return
        self._set_file(event.path, self._exchanges - event.exchanges)  # answered while it was written: unsaved
        self.preferences.update(recent_files=self.preferences.settings.with_recent(event.path).recent_files)
        self.saved.emit(event.path)
        self.note.emit(self.tr("Saved: {path}").format(path=event.path))

    def _call_line(self, call) -> str:
        """One of the model's tool calls as its turn shows it: which tool, and what it got back."""
        result = " ".join(call.result.split())
        result = result if len(result) <= CALL_RESULT_CHARS else result[:CALL_RESULT_CHARS - 1] + "\u2026"
        if call.name == "clock":
            return self.tr("[It read the clock: {result}]").format(result=result)
        if call.name == "search_conversations":
            return self.tr("[It searched your conversations: {result}]").format(result=result)
        return self.tr("[It asked for a tool Parley does not have ({name}): {result}]").format(
            name=call.name, result=result)

    def _answered_text(self, times) -> str:
        if times is None or times.parts() is None:
            return self.tr("Hold Talk to answer.")
        return self.tr("Hold Talk to answer. The voice began {latency} after you let go of Talk.").format(
            latency=first_audio_text(times))

    def _show_answer(self, text: str) -> None:
        if self._answer_row is None:
            self._answer_row = self.turns.add_turn(ASSISTANT, self._now(), self._now(), text)
        else:
            self.turns.set_turn_text(self._answer_row, text, self._now())

    def _set(self, phase: str, message: str) -> None:
        self.phase, self.message = phase, message
        self.changed.emit()

    def _refuse(self, sentence: str) -> bool:
        self.message = sentence
        self.changed.emit()
        self.failed.emit(sentence)
        return False
