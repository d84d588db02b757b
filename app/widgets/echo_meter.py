"""A meter for the microphone processing: level before and after, and the estimated ERLE."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from app.audio.echo import EchoReading
from app.i18n import number_text, translate
from app.widgets.meters import LevelMeter

OFF_TEXT = QT_TRANSLATE_NOOP("EchoMeter", "Echo cancellation: off")  # translated where shown


def erle_text(reading: EchoReading | None) -> str:
    if reading is None:
        return translate("EchoMeter", OFF_TEXT)
    if reading.erle_db is None:
        return translate("EchoMeter", "Echo suppression: waiting for the assistant to speak")
    text = translate("EchoMeter", "Echo suppression (ERLE, est.): {db} dB").format(db=number_text(reading.erle_db))
    if reading.echo_lag_ms is not None:  # where the echo was found, against what the speaker played
        text += translate("EchoMeter", " · echo {ms} ms behind the speaker").format(ms=number_text(reading.echo_lag_ms))
    return text


class EchoMeter(QWidget):
    """``set_reading`` on every frame; None when processing is off."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.before = LevelMeter(self.tr("Mic, raw"))
        self.after = LevelMeter(self.tr("Mic, processed"))
        self.erle_label = QLabel(self.tr(OFF_TEXT))
        self.erle_label.setAccessibleName(self.tr("echo suppression"))
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
