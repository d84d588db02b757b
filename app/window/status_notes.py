"""The lasting notes in the window's status bar: crash protection stopped (a full disk), and the
desktop-wide talk key not working. Each is one line, whole in its tooltip, so that it never
changes the window's minimum size."""

from __future__ import annotations

from PySide6.QtWidgets import QStatusBar

from app.i18n import translate
from app.widgets.colours import scheme_for
from app.widgets.elided_label import ElidedLabel


class StatusNotes:
    def __init__(self, bar: QStatusBar, files, talk_key) -> None:
        """``files``: the view-model's ``ConversationFiles``; ``talk_key``: the ``DesktopTalkKey``."""
        self.files, self.talk_key = files, talk_key
        self.crash_protection_label = ElidedLabel()
        self.crash_protection_label.setStyleSheet(f"color: {scheme_for(bar.palette()).error}; font-weight: bold;")
        bar.addPermanentWidget(self.crash_protection_label, 1)
        self.talk_key_label = ElidedLabel()
        bar.addPermanentWidget(self.talk_key_label, 1)
        files.crash_protection_changed.connect(self.render_crash_protection)
        talk_key.changed.connect(self.render_talk_key)
        self.render_crash_protection(files.crash_protection_problem)
        self.render_talk_key()

    def render_crash_protection(self, problem: str) -> None:
        self.crash_protection_label.setText(translate(
            "MainWindow", "Crash protection stopped: {problem}. Parley keeps trying and resumes it once the disk "
            "has room; save the conversation to keep it.").format(problem=problem) if problem else "")
        self.crash_protection_label.setVisible(bool(problem))

    def render_talk_key(self) -> None:
        self.talk_key_label.setText(self.talk_key.note)
        self.talk_key_label.setVisible(bool(self.talk_key.note))
