"""Text from files and devices shown as written. Qt renders a string that looks like HTML as HTML
in labels, message boxes and tooltips, so a model name, a persona, a title or a device name from
elsewhere could show a link, a local image, or in a message box a link that opens in the browser.
Our own markup (the model manager's links) stays rich; what others wrote goes through here."""

from __future__ import annotations

import html

from PySide6.QtGui import Qt
from PySide6.QtWidgets import QLabel, QWidget


def as_written(text: str) -> str:
    """``text`` for a place whose format Qt guesses (the static ``QMessageBox`` questions, tooltips):
    as it is where Qt would show it as plain text anyway, else rich text that shows it literally."""
    return Qt.convertFromPlainText(text, Qt.WhiteSpaceNormal) if Qt.mightBeRichText(text) else text


def escaped(text: str) -> str:
    """``text`` to put inside our own rich text (the model manager's description)."""
    return html.escape(text, quote=False)


class PlainLabel(QLabel):
    """A label whose text and tooltip are shown as written, never as HTML."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setTextFormat(Qt.PlainText)

    def setToolTip(self, tip: str) -> None:
        super().setToolTip(as_written(tip))
