"""The audio devices as the window shows them, with no widgets: the streams (``AudioIO``), their
status as last polled, why no microphone can be heard, the audio path's health (dropped frames,
xruns, output gaps), and who has the devices: the engine worker, or a borrower such as the voice
recorder (``lend``).

The conversation view-model polls it on its timer (PortAudio threads must not emit Qt signals) and
reads ``no_microphone`` for whether Talk can work.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from app.audio.streams import AudioIO, DeviceStatus
from app.i18n import number_text


class DevicesModel(QObject):
    devices_changed = Signal(object)  # DeviceStatus
    microphone_changed = Signal()  # no_microphone
    health_changed = Signal(str)  # dropped frames, xruns, output gaps

    def __init__(self, worker, audio: bool = True, parent: QObject | None = None) -> None:
        """``worker``: the engine worker, which has the devices unless they are lent; ``audio``:
        False runs no device at all (tests, screenshots feed the worker a bridge of their own)."""
        super().__init__(parent)
        self.worker = worker
        self.status = DeviceStatus()
        # Why no microphone can be heard ("" when one can): the device layer's reason. Kept while
        # the devices are opened again (every few seconds), so that it does not flicker.
        self.no_microphone = ""
        self.health = ""
        self._borrower = None  # has the devices instead of the worker (see lend)
        self.audio = AudioIO(self._bridge_opened) if audio else None

    def open(self, input_label: str, output_label: str) -> None:
        """Open the devices with these labels (as the pickers show them; "" = the system default)."""
        if self.audio is not None:
            self.audio.start(input_label or None, output_label or None)

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

    def take_back(self) -> None:
        borrower, self._borrower = self._borrower, None
        if borrower is not None:
            borrower.set_bridge(None)
        self.worker.set_bridge(self.audio.bridge if self.audio is not None else None)

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
            problem = self.no_microphone
            if status.state == "running":
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

    def stop(self, timeout: float) -> None:
        if self.audio is not None:
            self.audio.stop(timeout=timeout)
