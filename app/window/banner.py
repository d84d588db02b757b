"""The message banner under the window's header: one plain sentence and what can be done about
it; the rest of a long message (paths, commands, numbers) behind "Details...", with "Copy details"
for a bug report or a forum post."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QApplication, QFrame, QHBoxLayout, QMessageBox, QPushButton, QWidget

from app.widgets.colours import scheme_for
from app.widgets.plain_text import PlainLabel

SUMMARY_CHARS = 120  # a first line longer than this is cut at its first sentence


def summary_of(message: str) -> str:
    """The message's first line, or its first sentence where that line runs long."""
    first = message.strip().split("\n", 1)[0].strip()
    if len(first) > SUMMARY_CHARS and ". " in first:
        first = first.split(". ", 1)[0] + "."
    return first


class Banner(QFrame):
    """``show_message(text, resumable)``; Resume (when the conversation can go on) and Dismiss."""

    resume_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorBox")
        scheme = scheme_for(self.palette())
        self.setStyleSheet(f"#errorBox {{ background: {scheme.banner}; border-radius: 4px; }}"
                           f"#errorBox QLabel {{ color: {scheme.banner_text}; }}")
        self.message = ""
        self.details: QMessageBox | None = None  # the details shown last
        layout = QHBoxLayout(self)
        self.label = PlainLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.resume_button = QPushButton(self.tr("Resume"))
        self.resume_button.clicked.connect(self.resume_requested)
        self.details_button = QPushButton(self.tr("Details..."))
        self.details_button.setToolTip(self.tr("The whole message, to read or to copy"))
        self.details_button.clicked.connect(self.show_details)
        self.dismiss_button = QPushButton(self.tr("Dismiss"))
        self.dismiss_button.setToolTip(self.tr("Hide this message (Esc)"))
        self.dismiss_button.clicked.connect(self.hide)
        layout.addWidget(self.label, 1)
        for button in (self.resume_button, self.details_button, self.dismiss_button):
            layout.addWidget(button)
        self.hide()

    def tab_chain(self) -> list[QWidget]:
        return [self.resume_button, self.details_button, self.dismiss_button]

    def show_message(self, message: str, resumable: bool = False) -> None:
        self.message = message
        summary = summary_of(message)
        self.label.setText(summary)
        self.label.setToolTip("")
        self.details_button.setVisible(summary != message.strip())
        self.resume_button.setVisible(resumable)
        self.show()

    def show_details(self) -> QMessageBox:
        box = QMessageBox(QMessageBox.Information, self.tr("Details"), summary_of(self.message), QMessageBox.Close,
                          self)
        box.setTextFormat(Qt.PlainText)
        box.setDetailedText(self.message)
        copy = box.addButton(self.tr("Copy details"), QMessageBox.ActionRole)
        copy.clicked.disconnect()  # an action button closes the box; copying leaves it open
        copy.clicked.connect(self.copy_details)
        if self.details is not None:
            self.details.deleteLater()  # the one shown before
        self.details = box
        box.open()
        return box

    def copy_details(self) -> None:
        QApplication.clipboard().setText(self.message)
