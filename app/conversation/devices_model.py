"""The audio devices as the window shows them, with no widgets: the streams (``AudioIO``, open only
while a conversation runs or a borrower has them: ``follow_conversation``, ``lend``), their status
as last polled, why no microphone can be heard, the audio path's health (dropped frames, xruns,
output gaps), who has the devices: the engine worker, or a borrower such as the voice recorder
(``lend``), and the microphone processing (echo cancellation etc.) wanted and whether it can run
here, with the Interpreter mode's echo rule (``app.conversation.interpreter_mode``).

The conversation view-model polls it on its timer (PortAudio threads must not emit Qt signals) and
reads ``no_microphone`` for whether Talk can work.
"""

from __future__ import annotations

from dataclasses import asdict

from PySide6.QtCore import QObject, Signal

from app.audio.streams import AudioIO, DeviceStatus
from app.conversation.interpreter_mode import Listening, interpreter_note, processing_for
from app.conversation.preferences import Preferences
from app.conversation.push_to_talk import open_mic_note
from app.engine_thread import messages as m
from app.i18n import number_text
from app.settings import processing_from


class DevicesModel(QObject):
    devices_changed = Signal(object)  # DeviceStatus
    microphone_changed = Signal()  # no_microphone
    health_changed = Signal(str)  # dropped frames, xruns, output gaps
    processing_changed = Signal()  # echo cancellation etc.: the settings or whether they can run
    message = Signal(str)  # a transient note for the status bar

    def __init__(self, worker, preferences: Preferences, audio: bool = True, parent: QObject | None = None) -> None:
        """``worker``: the engine worker, which has the devices unless they are lent; ``audio``:
        False runs no device at all (tests, screenshots feed the worker a bridge of their own)."""
        super().__init__(parent)
        self.worker = worker
        self.preferences = preferences
        self.processing_problem = ""  # why echo cancellation etc. cannot run here ("" when they can)
        self.processing = processing_from(preferences.settings)  # microphone processing wanted (Audio menu)
        self.interpreting = False  # the loaded model interprets: the echo rule applies (set_interpreting)
        self.worker.submit(m.SetProcessing(self.processing))
        self.status = DeviceStatus()
        # Why no microphone can be heard ("" when one can): the device layer's reason. Kept while
        # the devices are opened again (every few seconds), so that it does not flicker.
        self.no_microphone = ""
        self.health = ""
        self._borrower = None  # has the devices instead of the worker (see lend)
        self._conversation_runs = False  # the streams are open while it runs (follow_conversation)
        self.audio = AudioIO(self._bridge_opened) if audio else None

    def open(self, input_label: str, output_label: str) -> None:
        """Use the devices with these labels (as the pickers show them; "" = the system default): their
        streams are open while they are needed, and until then the devices are only looked up."""
        if self.audio is not None:
            self.audio.use(input_label or None, output_label or None)

    def follow_conversation(self, runs: bool) -> None:
        """The conversation's frames run (or stopped): the streams open (or close, unless lent)."""
        self._conversation_runs = runs
        self._keep_open()

    def _keep_open(self) -> None:
        if self.audio is not None:
            self.audio.set_active(self._conversation_runs or self._borrower is not None)

    def choose(self, input_label: str, output_label: str) -> None:
        """Device labels as the pickers show them; "" = the system default."""
        self.preferences.update(input_device=input_label, output_device=output_label)
        self.open(input_label, output_label)
        self.apply_echo_rule()

    def refresh(self) -> None:
        if self.audio is not None:
            self.audio.refresh_devices()

    def lend(self, borrower) -> None:
        """Give the devices to ``borrower`` (an object with ``set_bridge(bridge | None)``, e.g. the
        voice recorder) until ``take_back``: the worker lets go of them, so the conversation
        pauses, and only one side reads the input ring."""
        self._borrower = borrower
        self.worker.set_bridge(None)
        borrower.set_bridge(self.audio.bridge if self.audio is not None else None)
        self._keep_open()

    def take_back(self) -> None:
        borrower, self._borrower = self._borrower, None
        if borrower is not None:
            borrower.set_bridge(None)
        self.worker.set_bridge(self.audio.bridge if self.audio is not None else None)
        self._keep_open()

    def _bridge_opened(self, bridge) -> None:
        """A device (re)opened or closed, in the audio control thread: it goes to whoever has the devices."""
        (self._borrower or self.worker).set_bridge(bridge)

    def poll(self, dropped_frames: int) -> bool:
        """Read the devices' status and health (``dropped_frames``: the engine's count); returns
        whether they run. Only where there is ``audio``."""
        status = self.audio.poll()
        if status != self.status:
            self.status = status
            self.devices_changed.emit(status)
            self.apply_echo_rule()
            problem = self.no_microphone
            if status.state in ("running", "ready"):
                problem = ""
            elif status.state in ("lost", "error"):
                problem = status.message or (self.tr("the audio devices stopped responding") if status.state == "lost"
                                                else self.tr("the audio devices failed"))
            if problem != self.no_microphone:
                self.no_microphone = problem
                self.microphone_changed.emit()
        bridge = self.audio.bridge
        xruns = (bridge.input_overflows + bridge.output_underflows) if bridge else 0
        starved = bridge.output_starved_samples / bridge.output_rate if bridge else 0.0
        health = self.tr("%n frames dropped · {xruns} xruns · {gaps} s output gaps", "", dropped_frames).format(
            xruns=number_text(xruns), gaps=number_text(starved, 1))
        if health != self.health:
            self.health = health
            self.health_changed.emit(health)
        return status.state == "running"

    def set_processing(self, processing) -> None:
        """An app.audio.echo.ProcessingSettings chosen in the Audio menu: applied at once and persisted."""
        self.processing = processing
        self.preferences.update(**asdict(processing))
        self.apply_echo_rule()

    def set_interpreting(self, interpreting: bool) -> None:
        """The loaded model interprets (or no longer does): the echo rule follows."""
        self.interpreting = interpreting
        self.apply_echo_rule()

    def listening(self) -> Listening:
        settings = self.preferences.settings
        return Listening.of(settings.input_device, settings.output_device, self.status.playback)

    def processing_in_use(self):
        """The chosen processing, with echo cancellation where an interpreter's own voice comes back."""
        return processing_for(self.listening(), self.processing) if self.interpreting else self.processing

    def apply_echo_rule(self) -> None:
        """Send the worker the processing to run (``processing_in_use``): again whenever the model,
        the devices or what they are can change it."""
        self.worker.submit(m.SetProcessing(self.processing_in_use()))
        self.processing_changed.emit()

    def on_processing_unavailable(self, event: m.ProcessingUnavailable) -> None:
        self.processing_problem = event.message
        self.processing_changed.emit()
        self.message.emit(event.message)

    def open_mic_note(self) -> tuple[str, bool]:
        """(the note under the open-mic switch, or in Interpreter mode what it listens to, whether it is a warning)."""
        if self.interpreting:
            return interpreter_note(self.listening(), self.processing, self.processing_problem, self.status.playback)
        return open_mic_note(self.processing, self.processing_problem)

    def stop(self, timeout: float) -> None:
        if self.audio is not None:
            self.audio.stop(timeout=timeout)
