"""The banner shown while no microphone can be heard: what is wrong, and Choose / Retry.

It renders the devices' ``no_microphone`` (the device layer's own reason); Talk says the
same in its tooltip. Choose opens the microphone picker, Retry looks for devices again (one
plugged in since the start, say).
"""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QHBoxLayout, QPushButton, QWidget

from app.conversation.view_model import ConversationModel
from app.widgets.plain_text import PlainLabel


class MicrophoneBanner(QFrame):
    def __init__(self, model: ConversationModel, choose, parent: QWidget | None = None) -> None:
        """``choose()``: show the person the microphone picker."""
        super().__init__(parent)
        self.model = model
        self.setObjectName("microphoneBanner")
        self.setFrameShape(QFrame.StyledPanel)
        layout = QHBoxLayout(self)
        self.label = PlainLabel()
        self.label.setWordWrap(True)
        self.choose_button = QPushButton(self.tr("Choose microphone..."))
        self.choose_button.clicked.connect(choose)
        self.retry_button = QPushButton(self.tr("Retry"))
        self.retry_button.setToolTip(self.tr("Look for audio devices again (one plugged in since Parley started)."))
        self.retry_button.clicked.connect(model.devices.refresh)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.choose_button)
        layout.addWidget(self.retry_button)
        model.talk_available_changed.connect(self.render)
        self.render()

    def tab_chain(self) -> list[QWidget]:
        return [self.choose_button, self.retry_button]

    def render(self) -> None:
        problem = self.model.devices.no_microphone
        self.label.setText(self.tr("No microphone: Parley cannot hear you, so Talk is off. {problem}").format(
            problem=problem) if problem else "")
        self.setVisible(bool(problem))
