"""Microphone and speaker pickers and the audio line: renders the view-model's device status."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QGridLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.audio.streams import DeviceStatus
from app.conversation.view_model import ConversationModel

SYSTEM_DEFAULT = "System default"


def describe_audio(status: DeviceStatus) -> str:
    if status.state == "running":
        text = (f"Audio: {status.input_name} ({status.input_rate} Hz) → "
                f"{status.output_name} ({status.output_rate} Hz)")
        return text + (f" · {status.message}" if status.message else "")
    return f"Audio: {status.state}" + (f" · {status.message}" if status.message else "")


class DevicesPanel(QWidget):
    def __init__(self, model: ConversationModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        grid = QGridLayout()
        self.input_combo = QComboBox()
        self.output_combo = QComboBox()
        for combo in (self.input_combo, self.output_combo):
            combo.setMinimumContentsLength(10)
            combo.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)  # a long name elides
            combo.activated.connect(self._chosen)
        self.refresh_button = QPushButton("Refresh devices")
        self.refresh_button.setToolTip("Look again for microphones and speakers (F5)")
        self.refresh_button.clicked.connect(model.devices.refresh)
        for row, (text, combo) in enumerate((("Microphone", self.input_combo), ("Speaker", self.output_combo))):
            label = QLabel(text)
            label.setBuddy(combo)  # the label names the picker for screen readers
            grid.addWidget(label, row, 0)
            grid.addWidget(combo, row, 1)
        grid.addWidget(self.refresh_button, 2, 1, Qt.AlignRight)
        grid.setColumnStretch(1, 1)
        layout.addLayout(grid)
        self.device_label = QLabel("Audio: not started")
        self.device_label.setWordWrap(True)
        layout.addWidget(self.device_label)
        model.devices.devices_changed.connect(self.render)

    def tab_chain(self) -> list[QWidget]:
        return [self.input_combo, self.output_combo, self.refresh_button]

    def render(self, status: DeviceStatus) -> None:
        text = describe_audio(status)
        if self.device_label.text() != text:
            self.device_label.setText(text)
        inputs = [SYSTEM_DEFAULT] + [d.label for d in status.devices if d.max_input_channels > 0]
        outputs = [SYSTEM_DEFAULT] + [d.label for d in status.devices if d.max_output_channels > 0]
        settings = self.model.settings
        for combo, names, chosen in ((self.input_combo, inputs, settings.input_device),
                                     (self.output_combo, outputs, settings.output_device)):
            if [combo.itemText(i) for i in range(combo.count())] != names:
                combo.clear()
                combo.addItems(names)
            combo.setCurrentIndex(names.index(chosen) if chosen in names else 0)

    def _chosen(self) -> None:
        def label(combo: QComboBox) -> str:
            return "" if combo.currentIndex() <= 0 else combo.currentText()

        self.model.choose_devices(label(self.input_combo), label(self.output_combo))
