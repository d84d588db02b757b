"""Reading a turn of the conversation aloud with a Pocket TTS voice, widget-free: the voice models
and voices on this machine, the one chosen (the settings' ``read_aloud_model`` and
``read_aloud_voice``), the turn being read, and one sentence where it cannot be.

The speech is generated on a thread of its own, as ``parley say`` generates it (``engine.PocketSpeaker``),
and played through the app's speech output (``app.audio.speech_out``: its ring, on the window's
speaker). ``stop`` silences the speaker at once (no PortAudio call on the GUI thread) and the
generator ends before its next frame. The thread reports through a queue that a GUI timer reads, as
the model downloads do (no signals from foreign threads). A loaded model is kept for the next turn.
"""

from __future__ import annotations

import logging
import queue
import threading

from PySide6.QtCore import QObject, QTimer, Signal

import engine
from app.audio.speech_out import SpeechOutput

log = logging.getLogger(__name__)

POLL_MS = 50
IDLE, LOADING, READING = "idle", "loading", "reading"


def installed_voices() -> dict[str, tuple]:
    """name -> (folder, row, voices) of each Pocket TTS model on this machine."""
    found = {}
    for name in engine.pocket_tts_presets():
        try:
            here = engine.installed_pocket_tts(name)
        except (engine.ModelError, OSError) as e:
            log.warning("cannot tell whether %s is here: %s", name, e)
            continue
        if here is not None and here[2]:
            found[name] = here
    return found


def chosen_voice(settings, installed: dict[str, tuple], language: str | None = None) -> tuple[str, str] | None:
    """(model, voice) the app speaks with: the chosen ones (the settings' ``read_aloud_model`` and
    ``read_aloud_voice``) where they are here, else the first model here and its default voice;
    None: no Pocket TTS model is here. ``language``: a Pocket TTS language the voice should speak
    (``engine.pocket_language``): where the chosen model does not and another here does, that one
    with its default voice."""
    if not installed:
        return None
    speaking = [name for name, (_folder, row, _voices) in installed.items() if engine.pocket_language(row) == language]
    if speaking and settings.read_aloud_model not in speaking:
        name = speaking[0]
    else:
        name = settings.read_aloud_model if settings.read_aloud_model in installed else next(iter(installed))
    _folder, row, voices = installed[name]
    if settings.read_aloud_voice in voices and name == settings.read_aloud_model:
        return name, settings.read_aloud_voice
    default = engine.pocket_default_voice(row)
    return name, default if default in voices else voices[0]


class ReadAloud(QObject):
    changed = Signal()  # phase, row or message

    def __init__(self, preferences, parent: QObject | None = None) -> None:
        """``preferences``: ``app.conversation.preferences.Preferences`` (the voice, the speaker)."""
        super().__init__(parent)
        self.preferences = preferences
        self.phase = IDLE
        self.row: int | None = None  # the turn being read (its row in the shown turns)
        self.message = ""  # one sentence: why a turn could not be read, or what is read
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._output: SpeechOutput | None = None
        self._events: queue.Queue = queue.Queue()
        self._models: dict[tuple[str, str], object] = {}  # (folder, row) -> the Pocket TTS loaded last
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self._poll)

    # -- what can be read with -------------------------------------------------------------
    def installed(self) -> dict[str, tuple]:
        """name -> (folder, row, voices) of each Pocket TTS model on this machine."""
        return installed_voices()

    def choice(self, installed: dict[str, tuple] | None = None) -> tuple[str, str] | None:
        """(model, voice) a turn is read with (``chosen_voice``); None: no Pocket TTS model is here."""
        return chosen_voice(self.preferences.settings, self.installed() if installed is None else installed)

    def choose(self, name: str, voice: str) -> None:
        self.preferences.update(read_aloud_model=name, read_aloud_voice=voice)

    def no_model_text(self) -> str:
        return self.tr("Read aloud needs a Pocket TTS voice model: download one in the model manager (Model menu, "
                       "Model manager).")

    # -- commands ----------------------------------------------------------------------------
    def read(self, row: int, text: str) -> bool:
        """Read ``text`` (the turn at ``row``) aloud; False with ``message`` said where it cannot be."""
        text = " ".join(text.split())
        installed = self.installed()
        chosen = self.choice(installed)
        if not text or chosen is None:
            self.message = self.no_model_text() if chosen is None else self.tr("This turn has no words to read.")
            self.changed.emit()
            return False
        self.stop()
        name, voice = chosen
        folder, model_row, _voices = installed[name]
        self._stop = threading.Event()
        previous, self._events = self._thread, queue.Queue()
        self._thread = threading.Thread(target=self._run, name="parley-read-aloud", daemon=True,
                                        args=(previous, str(folder), model_row, voice, text, self._stop,
                                              self._events, self.preferences.settings.output_device or None))
        self.phase, self.row = LOADING, row
        self.message = self.tr("Reading aloud with {voice} ({model}); Esc stops.").format(voice=voice, model=name)
        self._thread.start()
        self._timer.start()
        self.changed.emit()
        return True

    def stop(self) -> None:
        """Silent at once; the generator ends before its next frame."""
        self._stop.set()
        output = self._output
        if output is not None:
            output.silence()
        if self.phase != IDLE:
            self.phase, self.row, self.message = IDLE, None, ""
            self.changed.emit()

    @property
    def busy(self) -> bool:
        return self.phase != IDLE

    def wait(self, timeout: float) -> bool:
        """For a shutdown (and tests): whether the reading thread ended within ``timeout`` s."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return thread is None or not thread.is_alive()

    # -- the reading thread ------------------------------------------------------------------
    def _run(self, previous, folder, row, voice, text, stop, events, device) -> None:
        output = None
        try:
            if previous is not None:
                previous.join()  # one voice at a time on the speaker
            model = self._models.get((folder, row))
            if model is None:  # one model kept at a time (the English one holds ~0.5 GB)
                self._models = {}
                model = self._models[(folder, row)] = engine.load_pocket_tts(folder, row)
            voice_state = engine.read_pocket_voice(model, engine.pocket_voice_file(model, voice))
            speaker = engine.PocketSpeaker(model, voice_state)
            if stop.is_set():
                return
            output = self._output = SpeechOutput(device)
            if stop.is_set():
                output.silence()
            frames = 0
            for frame in speaker.speak(text, engine.SpeechRun(), stop):
                output.play(frame.audio)
                frames += 1
                if frames == 1:
                    events.put(("reading",))
            if stop.is_set():
                output.stop()
            else:
                output.drain()
            events.put(("done", frames))
        except Exception as e:  # noqa: BLE001 - any failure is this reading's, said in one sentence
            log.warning("reading aloud failed: %s", e)
            if output is not None:
                output.stop()
            events.put(("failed", str(e)))
        finally:
            if self._output is output:
                self._output = None

    def _poll(self) -> None:
        while True:
            try:
                kind, *rest = self._events.get_nowait()
            except queue.Empty:
                break
            if kind == "reading" and self.phase == LOADING:
                self.phase = READING
            elif kind == "failed":
                self.phase, self.row = IDLE, None
                self.message = self.tr("Reading aloud failed: {problem}").format(problem=rest[0])
            elif kind == "done":
                self.phase, self.row, self.message = IDLE, None, ""
            self.changed.emit()
        if self._thread is None or not self._thread.is_alive():
            self._timer.stop()
