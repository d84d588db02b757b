"""Recording a voice through the app's own audio path, and playing one back: a widget-free QObject.

While the voice dialogs are open the conversation lends its audio devices to the recorder
(``DevicesModel.lend``): the engine worker lets go of the ``AudioBridge`` (the
conversation pauses) and the recorder reads the same input ring, through the same resampling to
24 kHz mono (``FrameAssembler``), that the worker reads for the model; playback goes into the same
output ring. The dialogs render the recorder's state (``state``, ``seconds``, ``level_db``,
``problems``) on its ``changed`` signal; ``poll`` runs on a timer of its own, in the GUI thread
(copying from the rings is cheap; nothing here touches the model).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject, QTimer, Signal

from app.audio.bridge import AudioBridge
from app.audio.levels import level_db
from app.audio.resample import FrameAssembler, OutputConverter
from engine import FRAME_SIZE, SAMPLE_RATE, VOICE_MAX_SECONDS, assess_recording

POLL_MS = 40
ASSESS_EVERY_S = 0.5  # live warnings are re-assessed this often (loudness over all that was recorded)
PLAYBACK_AHEAD_S = 0.2  # how much audio playback keeps queued for the output callback
MAX_FRAMES = int(VOICE_MAX_SECONDS * SAMPLE_RATE) // FRAME_SIZE
# What ``error`` says (translated when set).
NO_DEVICE = QT_TRANSLATE_NOOP("VoiceRecorder", "No audio device is open: check the microphone and speaker in the main "
                              "window.")
DEVICE_CHANGED = QT_TRANSLATE_NOOP("VoiceRecorder", "The audio device changed while recording: record again.")


class VoiceRecorder(QObject):
    """States: ``idle`` (nothing recorded), ``recording``, ``recorded``, ``playing``."""

    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = "idle"
        self.seconds = 0.0
        self.level_db = level_db(np.zeros(0, np.float32))
        self.problems: tuple[str, ...] = ()  # plain words: too quiet, clipped, too short
        self.error = ""
        self._bridge: AudioBridge | None = None
        self._frames: list[np.ndarray] = []
        self._assembler: FrameAssembler | None = None
        self._recording_from: AudioBridge | None = None  # the device a take started on
        self._scratch = np.zeros((0, 1), np.float32)
        self._assessed_at = 0.0
        self._playback: np.ndarray | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self.poll)

    # -- the devices (DevicesModel.lend; may come from the audio control thread) ----
    def set_bridge(self, bridge: AudioBridge | None) -> None:
        self._bridge = bridge

    # -- commands ----------------------------------------------------------------------------
    def record(self) -> None:
        bridge = self._bridge
        if bridge is None:
            self._set_error(NO_DEVICE)
            return
        self._stop_playback()
        bridge.input.read = bridge.input.written  # the consumer skips what was said before Record
        self._scratch = np.zeros((bridge.input.capacity, bridge.input.channels), np.float32)
        self._assembler = FrameAssembler(bridge.input_rate)
        self._recording_from = bridge
        self._frames, self.seconds, self.problems, self.error = [], 0.0, (), ""
        self._assessed_at = 0.0
        self.state = "recording"
        self._timer.start()
        self.changed.emit()

    def stop(self) -> None:
        if self.state == "recording" and self._bridge is not None and self._bridge is self._recording_from:
            self._take_input()  # the end of the take
        self._finish()

    def _finish(self) -> None:
        if self.state == "recording":
            self.state = "recorded" if self._frames else "idle"
            self.problems = assess_recording(self.recording()).problems() if self._frames else ()
        self._stop_playback()
        self._timer.stop()
        self.changed.emit()

    def discard(self) -> None:
        self.stop()
        self._frames, self.seconds, self.problems, self.state = [], 0.0, (), "idle"
        self.level_db = level_db(np.zeros(0, np.float32))
        self.changed.emit()

    def play(self, pcm: np.ndarray | None = None) -> None:
        """Play ``pcm`` (24 kHz mono; default: what was recorded) on the speaker."""
        bridge = self._bridge
        if bridge is None:
            self._set_error(NO_DEVICE)
            return
        if self.state == "recording":
            self.stop()
        pcm = self.recording() if pcm is None else np.asarray(pcm, np.float32)
        converter = OutputConverter(bridge.output_rate)
        self._playback = converter.convert(np.concatenate([pcm, np.zeros(FRAME_SIZE, np.float32)]))
        self.error = ""
        self.state = "playing"
        self._timer.start()
        self.changed.emit()

    def recording(self) -> np.ndarray:
        return np.concatenate(self._frames) if self._frames else np.zeros(0, np.float32)

    # -- the timer ---------------------------------------------------------------------------
    def poll(self) -> None:
        if self.state == "recording":
            self._take_input()
        elif self.state == "playing":
            self._feed_output()

    def _take_input(self) -> None:
        bridge, assembler = self._bridge, self._assembler
        if bridge is None or assembler is None or bridge is not self._recording_from:
            self._finish()
            self._set_error(DEVICE_CHANGED if bridge is not None else NO_DEVICE)
            return
        got = bridge.input.read_into(self._scratch[: bridge.input.available()])
        if got:
            assembler.push(self._scratch[:got])
        newest = []
        while assembler.pending_frames():
            newest.append(assembler.pop_frame())
        if not newest:
            return
        self._frames = (self._frames + newest)[:MAX_FRAMES]
        self.level_db = level_db(newest[-1])
        self.seconds = len(self._frames) * FRAME_SIZE / SAMPLE_RATE
        if self.seconds - self._assessed_at >= ASSESS_EVERY_S:
            self._assessed_at = self.seconds
            self.problems = assess_recording(self.recording()).problems(finished=False)
        if self.seconds >= VOICE_MAX_SECONDS:
            self._finish()
            return
        self.changed.emit()

    def _feed_output(self) -> None:
        bridge, pending = self._bridge, self._playback
        if bridge is None or pending is None:
            self._stop_playback()
            self.changed.emit()
            return
        room = int(PLAYBACK_AHEAD_S * bridge.output_rate) - bridge.output.available()
        if room > 0 and pending.size:
            written = bridge.output.write(pending[:room])
            self._playback = pending[written:]
        elif not pending.size and bridge.output.available() == 0:
            self._stop_playback()
            self.changed.emit()

    def _stop_playback(self) -> None:
        if self.state == "playing":
            self.state = "recorded" if self._frames else "idle"
        if self._playback is not None and self._bridge is not None:
            self._bridge.output.request_mute()
        self._playback = None

    def _set_error(self, message: str) -> None:
        self.error = self.tr(message)
        self.changed.emit()
