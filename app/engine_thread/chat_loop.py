"""A conversation with the person's language model, live, on a thread of its own beside the window.
While Talk is held the microphone's frames (the devices lent to it, as to the voice recorder:
``DevicesModel.lend``) go into the speech to text's stream; Talk's release flushes it (the turn
ends at once), and the words go to the person's server through ``app.chat.cascade``, the same turn
as ``parley chat``: the answer streamed, spoken clause by clause into the speaker's ring as it
comes, the history kept across turns.

With open mic the stream listens without Talk, and the person's turn ends where the speech to
text's voice-activity heads say it did (``engine.TurnEnds``, kyutai's rule) once it has written a
word, frame by frame; Talk held meanwhile keeps the turn open until its release. Between the end of
a turn and the end of its answer the microphone is not listened to (its speaker would be heard:
speaking over the voice by voice needs the echo canceller, not here yet); the next turn starts from
the answer's end.

Each exchange (the turn's audio the speech to text was given, and the answer as it was played) goes
into the conversation's ``ChatRecord``, which saves it, exports its audio and journals it.

No Qt and no sounddevice here: commands come in through a queue (``start``, ``talk``, ``save``, ``close``),
what happens goes out as the typed events below through ``emit`` (any thread may read them).

Talk pressed while an answer is spoken is the person speaking over it (barge-in): at the press, on
the pressing thread, the speaker's queue is muted (the voice is silent from the next output
callback), the model's stream is closed and the voice stops before its next frame; the answer keeps
the words the speaker had played (``app.chat.cascade.Interruption``), and the person's new turn
starts with what the microphone caught from the press on.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import engine
from app.audio.bridge import AudioBridge
from app.audio.resample import FrameAssembler, OutputConverter
from app.chat.cascade import Interruption
from app.engine_thread.chat_record import ChatRecord, not_started
from engine import TurnEnds

log = logging.getLogger(__name__)

POLL_S = 0.02  # how often held Talk's input is taken
AHEAD_S = 0.3  # the voice queued ahead of the speaker (under the bridge's output backlog, 0.4 s)


@dataclass(frozen=True)
class ChatSetup:
    """What a conversation with a language model is made of (no key here: ``api_key`` is handed
    in from the keyring, never stored)."""

    url: str
    model: str
    stt_model: str
    voice_folder: str
    voice_row: str
    voice: str
    device: str = "cpu"  # the speech to text's (the voice runs on the CPU)
    system: str | None = None
    api_key: str | None = None
    wait_seconds: float = 60.0
    max_tokens: int | None = None  # None: the server's
    temperature: float | None = None
    tools: tuple[str, ...] = ()  # app.chat.tools.TOOL_NAMES, as the person enabled them
    conversations_folder: str = ""  # the library the conversations tool searches
    voice_model: str = ""  # the name the voice's model is installed under (``voice_folder``'s)
    resumed: engine.ChatConversation | None = None  # a saved conversation this one continues
    journal: str = ""  # where each exchange is written as it ends, for a crash to leave ("": nowhere)


@dataclass(frozen=True)
class ChatLoading:
    """The models are loading and the server is asked whether it answers."""


@dataclass(frozen=True)
class ChatReady:
    """Talk works: the server answered and the models are loaded."""

    server: str  # the address as shown (no password)
    model: str
    turn_ends: bool = False  # the speech to text says where turns end: open mic works


@dataclass(frozen=True)
class ChatFailed:
    """One sentence: the conversation could not start, or a turn could not be heard."""

    sentence: str


@dataclass(frozen=True)
class Listening:
    """Talk is held: the microphone goes to the speech to text."""


@dataclass(frozen=True)
class StoppedListening:
    """Open mic was turned off with nothing held: the microphone is not listened to."""


@dataclass(frozen=True)
class Heard:
    """Talk was released: the person's words ("" when none were heard)."""

    text: str


@dataclass(frozen=True)
class Said:
    """A clause the voice is about to speak (the assistant's words so far grow by it)."""

    text: str


@dataclass(frozen=True)
class Answered:
    """The answer ended: its text, why it stopped early (one sentence, "" when it did not), and
    its ``app.chat.cascade.TurnTimes``."""

    text: str
    problem: str
    times: object
    tool_calls: tuple = ()  # the app.chat.tools.ToolCall's the model made, in order
    cut: bool = False  # the person spoke over it: ``text`` is what they heard, ending in cascade.CUT_MARK


@dataclass(frozen=True)
class _Write:
    path: str
    what: str  # the ChatRecord method: "save" or "export_audio"


@dataclass(frozen=True)
class _Speaking:
    """An answer being spoken into ``bridge``'s speaker from ring position ``start`` on."""

    interruption: Interruption
    bridge: AudioBridge
    start: int


class _Closed(Exception):
    pass


@dataclass(frozen=True)
class _OpenMic:
    on: bool


_FORGET = "forget"


def load_models(setup: ChatSetup):
    """(the speech to text, the voice) of ``setup``: slow, on the loop's thread."""
    stt = engine.load_speech_to_text(setup.stt_model, device=setup.device)
    model = engine.load_pocket_tts(setup.voice_folder, setup.voice_row)
    state = engine.read_pocket_voice(model, engine.pocket_voice_file(model, setup.voice))
    return stt, engine.PocketSpeaker(model, state)


class ChatLoop:
    def __init__(self, emit: Callable[[object], None],
                 loader: Callable[[ChatSetup], tuple] = load_models) -> None:
        self.emit, self._load = emit, loader
        self._commands: queue.SimpleQueue = queue.SimpleQueue()
        self._bridge: AudioBridge | None = None
        self._closing = threading.Event()
        self.conversation = None  # an app.chat.cascade.Conversation once started
        self.record: ChatRecord | None = None  # what its file keeps, once started
        self._person: list[np.ndarray] = []  # the turn's audio the speech to text was given
        self._stream = None  # the speech to text's stream while Talk is held
        self._steps: list = []
        self._assembler: FrameAssembler | None = None
        self._heard_from: AudioBridge | None = None  # the bridge the assembler and scratch are for
        self._scratch = np.zeros((0, 1), np.float32)
        self._pressed: tuple[AudioBridge, int] | None = None  # the microphone ring's position at the last press
        self._speaking: _Speaking | None = None
        self._open_mic = False  # listen without Talk (only with a speech to text that ends turns)
        self._held = False  # Talk is held (this thread's view)
        self._turn_ends = TurnEnds()
        self._thread = threading.Thread(target=self._run, name="parley-chat", daemon=True)
        self._thread.start()

    # -- any thread --------------------------------------------------------------------------
    def set_bridge(self, bridge: AudioBridge | None) -> None:
        """The devices (``DevicesModel.lend``; may come from the audio control thread)."""
        self._bridge = bridge

    def start(self, setup: ChatSetup) -> None:
        self._commands.put(setup)

    def talk(self, held: bool) -> None:
        """Talk pressed or released. A press while an answer is spoken stops it here and now."""
        if held:
            bridge = self._bridge
            self._pressed = (bridge, bridge.input.written) if bridge is not None else None
            speaking = self._speaking
            if speaking is not None:
                self._speak_over(speaking, bridge)
        self._commands.put(held)

    @staticmethod
    def _speak_over(speaking: _Speaking, bridge: AudioBridge | None) -> None:
        heard_s = None  # the devices changed under the answer: count all it gave as heard
        if bridge is speaking.bridge:
            heard_s = max(0, bridge.output.read - speaking.start) / bridge.output_rate
        speaking.bridge.output.request_mute()
        if bridge is not None and bridge is not speaking.bridge:
            bridge.output.request_mute()
        speaking.interruption.interrupt(heard_s)

    def set_open_mic(self, on: bool) -> None:
        """Listen without Talk (where the speech to text ends turns; else ignored), or stop."""
        self._commands.put(_OpenMic(on))

    def save(self, path: str) -> None:
        """Write the conversation to ``path`` (after an answer in progress); ``Saved`` says how it went."""
        self._commands.put(_Write(path, "save"))

    def export_audio(self, path: str) -> None:
        """Write both sides' audio as a stereo WAV (after an answer in progress); ``AudioExported`` says how."""
        self._commands.put(_Write(path, "export_audio"))

    def forget(self) -> None:
        """A new conversation: the history goes (the system prompt stays), after an answer in progress."""
        self._commands.put(_FORGET)

    def close(self, timeout: float = 5.0) -> bool:
        """Stop: an answer in progress ends at once (its stream closed, sending or silent; a server
        that has not yet sent its headers is waited for); whether the thread ended in time."""
        self._closing.set()
        self._commands.put(None)
        speaking = self._speaking
        if speaking is not None:
            speaking.interruption.interrupt()
        self._thread.join(timeout)
        return not self._thread.is_alive()

    # -- the loop's thread -------------------------------------------------------------------
    def _run(self) -> None:
        try:
            while not self._closing.is_set():
                try:
                    command = self._commands.get(timeout=POLL_S)
                except queue.Empty:
                    command = ()
                if command is None:
                    break
                try:
                    self._execute(command)
                except _Closed:
                    raise
                except Exception as e:  # noqa: BLE001 - this turn's failure, said; the loop goes on
                    log.exception("the conversation with the language model failed")
                    self._stream = None
                    self.emit(ChatFailed(f"The turn failed: {type(e).__name__}: {e}"))
        except _Closed:
            pass
        finally:
            if self.conversation is not None:
                self.conversation.close()
            if self.record is not None:
                self.record.end()

    def _execute(self, command) -> None:
        if isinstance(command, ChatSetup):
            self._start(command)
        elif command is True:
            self._press()
        elif command is False:
            self._release()
        elif isinstance(command, _OpenMic):
            self._set_open_mic(command.on)
        elif isinstance(command, _Write):
            if self.record is None:
                self.emit(not_started(command.what, command.path))
            else:
                getattr(self.record, command.what)(command.path, self.conversation.messages)
        elif command == _FORGET and self.conversation is not None:
            messages = self.conversation.messages
            messages[:] = [m for m in messages if m["role"] == "system"]
            self.record.forget()
        if command == () and self._open_mic and self._stream is None and self._devices_free():
            self._listen(None)  # in an idle poll: a press waiting in the queue starts the turn instead
        if self._stream is not None:
            self._take_input()

    def _start(self, setup: ChatSetup) -> None:
        from app.chat.cascade import Conversation
        from app.chat.client import ChatError, ChatServer, list_models
        from app.chat.tools import offered_tools

        self.emit(ChatLoading())
        try:
            server = ChatServer(setup.url, setup.model, api_key=setup.api_key, wait_seconds=setup.wait_seconds,
                                max_tokens=setup.max_tokens, temperature=setup.temperature)
            offered = list_models(server)  # before the models load: is anyone there?
        except ChatError as e:
            self.emit(ChatFailed(str(e)))
            return
        if setup.model not in offered and offered:
            log.info("the server offers %s, not %s: asked anyway (some accept any name)", offered, setup.model)
        try:
            stt, voice = self._load(setup)
        except Exception as e:  # noqa: BLE001 - said in one sentence, whatever it is
            log.exception("loading the chat's models failed")
            self.emit(ChatFailed(f"The speech models could not load: {e}"))
            return
        if self.conversation is not None:
            self.conversation.close()
        folder = Path(setup.conversations_folder) if setup.conversations_folder else None
        self.conversation = Conversation(stt, server, voice, setup.system, tools=offered_tools(setup.tools, folder))
        if setup.resumed is not None:
            self.conversation.messages[:] = [dict(m) for m in setup.resumed.messages]
        side = engine.LanguageModelSide(server.shown_url(), setup.model, setup.stt_model, setup.voice_model,
                                        setup.voice)
        self.record = ChatRecord(self.emit, side, setup.resumed, setup.journal)
        self.emit(ChatReady(server.shown_url(), setup.model, bool(stt.has_voice_activity)))

    def _set_open_mic(self, on: bool) -> None:
        self._open_mic = on and self.conversation is not None and bool(self.conversation.stt.has_voice_activity)
        if not self._open_mic and not self._held and self._stream is not None:
            self._stream = None  # what it heard so far is no one's turn
            self.emit(StoppedListening())

    def _devices_free(self) -> bool:
        """The devices are lent (they may come after the models) and the last answer's voice has left
        the speaker's queue (open mic would hear it)."""
        bridge = self._bridge
        return bridge is not None and bridge.output.available() == 0

    def _press(self) -> None:
        if self.conversation is None:
            return
        self._held = True
        if self._stream is None:  # else open mic listens already: the turn goes on until the release
            self._listen(self._pressed)

    def _listen(self, pressed: tuple[AudioBridge, int] | None) -> None:
        """A new turn of the person's, from the microphone ring's position ``pressed`` (None: now)."""
        bridge = self._bridge
        if bridge is None:
            self._held = False
            self._open_mic = False
            self.emit(ChatFailed("No microphone is open: check the microphone in the main window."))
            return
        # What was said before Talk is not this turn's; what came since the press is (an answer
        # being spoken over may have kept this thread from the press for a frame).
        ring = bridge.input
        start = pressed[1] if pressed is not None and pressed[0] is bridge else ring.written
        ring.read = max(ring.read, start, ring.written - ring.capacity)
        self._attach(bridge)
        self._stream, self._steps, self._turn_ends = self.conversation.stt.new_stream(), [], TurnEnds()
        self._person = []
        self.emit(Listening())

    def _attach(self, bridge: AudioBridge) -> None:
        self._heard_from = bridge
        self._scratch = np.zeros((bridge.input.capacity, bridge.input.channels), np.float32)
        self._assembler = FrameAssembler(bridge.input_rate)

    def _take_input(self) -> None:
        bridge = self._bridge
        if bridge is None:
            return
        if bridge is not self._heard_from:  # the device reopened (or changed) while Talk was held
            self._attach(bridge)
        assembler = self._assembler
        got = bridge.input.read_into(self._scratch[: bridge.input.available()])
        if got:
            assembler.push(self._scratch[:got])
        frames = [assembler.pop_frame() for _ in range(assembler.pending_frames())]
        if not frames:
            return
        if self._held or not self._open_mic:  # at once: the stream reads its tokens back once per call
            self._person += frames
            self._steps += self._stream.feed(np.concatenate(frames))
            return
        for frame in frames:  # open mic: the turn ends at the frame the heads say (the rest is dropped)
            self._person.append(frame)
            steps = self._stream.feed(frame)
            self._steps += steps
            ended = [self._turn_ends.observe(step.voice_activity) for step in steps]
            if any(ended) and any(step.text for step in self._steps):
                self._end_turn()
                return

    def _release(self) -> None:
        self._held = False
        if self._stream is None:
            return
        self._take_input()  # the end of the turn (with open mic, the heads may have ended it there)
        if self._stream is not None:
            self._end_turn()

    def _end_turn(self) -> None:
        stream, self._stream = self._stream, None
        hearing = self.conversation.finish_hearing(stream, self._steps)
        self.emit(Heard(hearing.text))
        if not hearing.text:
            return
        bridge = self._bridge
        converter = OutputConverter(bridge.output_rate if bridge is not None else engine.SAMPLE_RATE)
        interruption = Interruption()
        if bridge is not None:
            self._speaking = _Speaking(interruption, bridge, bridge.output.written)
        try:
            turn = self.conversation.answer(hearing, on_frame=lambda f: self._play(converter, f, interruption),
                                            on_clause=lambda text: self.emit(Said(text)), interruption=interruption)
        finally:
            self._speaking = None
        person = np.concatenate(self._person) if self._person else np.zeros(0, np.float32)
        self.record.add_exchange(person.reshape(-1), turn, self.conversation.messages)
        self.emit(Answered(turn.answer, "" if turn.error is None else str(turn.error), turn.times,
                           tuple(turn.tool_calls), turn.cut))

    def _play(self, converter: OutputConverter, frame: np.ndarray, interruption: Interruption) -> None:
        """One frame of the voice into the speaker's ring, kept ``AHEAD_S`` ahead of it (none once
        the person spoke over the answer)."""
        samples = converter.convert(frame)
        while not interruption.interrupted:
            if self._closing.is_set():
                raise _Closed()
            bridge = self._bridge
            if bridge is None:
                return  # no speaker now: the words are still shown and kept
            if bridge.output.available() + samples.size <= AHEAD_S * bridge.output_rate:
                bridge.output.write(samples)
                return
            time.sleep(POLL_S / 2)
