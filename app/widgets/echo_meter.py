"""A meter for the microphone processing: level before and after, and the estimated ERLE."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from app.audio.echo import EchoReading
from app.widgets.meters import LevelMeter

OFF_TEXT = "Echo cancellation: off"


def erle_text(reading: EchoReading | None) -> str:
    if reading is None:
        return OFF_TEXT
    if reading.erle_db is None:
        return "Echo suppression: waiting for the assistant to speak"
    text = f"Echo suppression (ERLE, est.): {reading.erle_db:.0f} dB"
    if reading.echo_lag_ms is not None:  # where the echo was found, against what the speaker played
        text += f" · echo {reading.echo_lag_ms:.0f} ms behind the speaker"
    return text


class EchoMeter(QWidget):
    """``set_reading`` on every frame; None when processing is off."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.before = LevelMeter("Mic, raw")
        self.after = LevelMeter("Mic, processed")
        self.erle_label = QLabel(OFF_TEXT)
        self.erle_label.setAccessibleName("echo suppression")
        for widget in (self.before, self.after, self.erle_label):
            layout.addWidget(widget)
        self.set_reading(None)

    def set_reading(self, reading: EchoReading | None) -> None:
        self.before.setVisible(reading is not None)
        self.after.setVisible(reading is not None)
        if reading is not None:
            self.before.set_level(reading.before_db)
            self.after.set_level(reading.after_db)
        self.erle_label.setText(erle_text(reading))
