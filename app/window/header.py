"""The window's header: the status pill, the model, the Personas button and the persona's line, each
rendered from the conversation view-model."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from app.conversation.status import Status, status_label
from app.i18n import translate
from app.widgets.colours import scheme_for, status_colour
from app.widgets.plain_text import PlainLabel


class Header(QWidget):
    def __init__(self, model, parent: QWidget | None = None) -> None:
        """``model``: the ``ConversationModel`` rendered."""
        super().__init__(parent)
        self.model = model
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        self.status_label = PlainLabel()
        self.status_label.setObjectName("status")
        self.status_label.setAlignment(Qt.AlignCenter)
        self.status_label.setMinimumWidth(120)
        self.model_label = PlainLabel()
        self.model_label.setWordWrap(True)  # a long model name wraps instead of widening the window
        self.model_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.persona_button = QPushButton(translate("MainWindow", "Personas..."))
        self.persona_button.setToolTip(
            translate("MainWindow", "Choose who the assistant is (a new conversation), or edit the personas."))
        top.addWidget(self.status_label)
        top.addWidget(self.model_label, 1)
        top.addWidget(self.persona_button)
        column.addLayout(top)
        self.persona_label = PlainLabel()
        self.persona_label.setWordWrap(True)
        self.persona_label.setObjectName("persona")
        self.persona_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        column.addWidget(self.persona_label)
        model.status_changed.connect(self.render_status)
        model.models.model_changed.connect(self.render_model)
        model.chat.changed.connect(self.render_model)
        model.models.persona_changed.connect(self.render_persona)
        self.render_status(model.status)
        self.render_model()

    def render_status(self, status: Status) -> None:
        self.status_label.setText(status_label(status))
        scheme = scheme_for(self.palette())
        self.status_label.setStyleSheet(
            f"#status {{ background: {status_colour(scheme, status.value)}; color: {scheme.pill_text}; "
            "font-weight: bold; border-radius: 10px; padding: 4px 12px; }")

    def render_model(self) -> None:
        chat = self.model.chat
        text, tip = (chat.model_line(), "") if chat.active else self.model.models.model_text()
        self.model_label.setText(text)
        self.model_label.setToolTip(tip)
        self.render_persona()

    def render_persona(self) -> None:
        text, tip = self.model.models.persona_text()
        self.persona_label.setText(text)
        self.persona_label.setToolTip(tip)
