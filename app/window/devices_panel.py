"""Microphone and speaker pickers and the audio line: renders the view-model's device status."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt
from PySide6.QtWidgets import QComboBox, QGridLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.audio.streams import DeviceStatus
from app.conversation.devices_model import DevicesModel
from app.conversation.interpreter_mode import input_title
from app.i18n import translate
from app.widgets.plain_text import PlainLabel

SYSTEM_DEFAULT = QT_TRANSLATE_NOOP("DevicesPanel", "System default")  # shown translated
# DeviceStatus.state -> what the audio line says
STATES = {"stopped": QT_TRANSLATE_NOOP("DevicesPanel", "stopped"),
          "starting": QT_TRANSLATE_NOOP("DevicesPanel", "starting"),
          "lost": QT_TRANSLATE_NOOP("DevicesPanel", "lost"),
          "error": QT_TRANSLATE_NOOP("DevicesPanel", "error")}


def describe_audio(status: DeviceStatus) -> str:
    if status.state == "running":
        text = translate("DevicesPanel", "Audio: {input} ({input_rate} Hz) → {output} ({output_rate} Hz)").format(
            input=status.input_name, input_rate=status.input_rate, output=status.output_name,
            output_rate=status.output_rate)
        return text + (f" · {status.message}" if status.message else "")
    if status.state == "ready":  # found; opened while a conversation runs
        return translate("DevicesPanel", "Audio: {input} → {output} (opened while a conversation runs)").format(
            input=status.input_name, output=status.output_name)
    state = translate("DevicesPanel", STATES[status.state]) if status.state in STATES else status.state
    return translate("DevicesPanel", "Audio: {state}").format(state=state) + (
        f" · {status.message}" if status.message else "")


class DevicesPanel(QWidget):
    def __init__(self, devices: DevicesModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.devices = devices
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        grid = QGridLayout()
        self.input_combo = QComboBox()
        self.output_combo = QComboBox()
        for combo in (self.input_combo, self.output_combo):
            combo.setMinimumContentsLength(10)
            combo.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)  # a long name elides
            combo.activated.connect(self._chosen)
        self.refresh_button = QPushButton(self.tr("Refresh devices"))
        self.refresh_button.setToolTip(self.tr("Look again for microphones and speakers (F5)"))
        self.refresh_button.clicked.connect(devices.refresh)
        self.input_title = QLabel(input_title(False))
        for row, (label, combo) in enumerate(((self.input_title, self.input_combo),
                                                  (QLabel(self.tr("Speaker")), self.output_combo))):
            label.setBuddy(combo)  # the label names the picker for screen readers
            grid.addWidget(label, row, 0)
            grid.addWidget(combo, row, 1)
        grid.addWidget(self.refresh_button, 2, 1, Qt.AlignRight)
        grid.setColumnStretch(1, 1)
        layout.addLayout(grid)
        self.device_label = PlainLabel(self.tr("Audio: not started"))
        self.device_label.setWordWrap(True)
        layout.addWidget(self.device_label)
        devices.devices_changed.connect(self.render)

    def tab_chain(self) -> list[QWidget]:
        return [self.input_combo, self.output_combo, self.refresh_button]

    def render_mode(self, interpreting: bool) -> None:
        """The input's name: "Listen to" for an interpreter, which may listen to what the computer plays."""
        self.input_title.setText(input_title(interpreting))

    def render(self, status: DeviceStatus) -> None:
        text = describe_audio(status)
        if self.device_label.text() != text:
            self.device_label.setText(text)
        # (shown, kept in the settings): a device's label is its own name; what this computer plays
        # (the interpreter's input) is shown translated and kept by a key the same in every language.
        default = [(self.tr(SYSTEM_DEFAULT), "")]
        inputs = default + [(d.label, d.label) for d in status.devices if d.max_input_channels > 0] + [
            (s.label, s.key) for s in status.playback.sources]
        outputs = default + [(d.label, d.label) for d in status.devices if d.max_output_channels > 0]
        settings = self.devices.preferences.settings
        chosen_input = status.playback.named(settings.input_device)
        for combo, items, chosen in ((self.input_combo, inputs, chosen_input.key if chosen_input
                                      else settings.input_device),
                                     (self.output_combo, outputs, settings.output_device)):
            if [(combo.itemText(i), combo.itemData(i)) for i in range(combo.count())] != items:
                combo.clear()
                for shown, kept in items:
                    combo.addItem(shown, kept)
            kept = [k for _, k in items]
            combo.setCurrentIndex(kept.index(chosen) if chosen in kept else 0)

    def _chosen(self) -> None:
        self.devices.choose(self.input_combo.currentData() or "", self.output_combo.currentData() or "")
