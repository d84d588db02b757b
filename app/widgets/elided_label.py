"""A one-line label that fits any width: its text elided (at the end, or where asked), whole in its tooltip.

A wrapping label in the status bar grew to several lines on a narrow window and raised the
window's minimum height; a plain one-line label raised its minimum width. This one asks for
one line and no width: the window keeps its minimum size whatever the text. Shown as written,
never as HTML (``PlainLabel``).
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPalette

from app.widgets.plain_text import PlainLabel


class ElidedLabel(PlainLabel):
    def __init__(self, text: str = "", elide: Qt.TextElideMode = Qt.ElideRight, parent=None) -> None:
        """``elide``: where the text is cut (``Qt.ElideMiddle`` keeps the end of titles that differ there)."""
        super().__init__(text, parent)
        self.elide = elide
        self.setToolTip(text)

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(text)

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())

    def shown_text(self) -> str:
        """The text as it is painted at the label's width."""
        return self.fontMetrics().elidedText(self.text(), self.elide, self.contentsRect().width())

    def paintEvent(self, _event) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().color(QPalette.WindowText))
        painter.drawText(self.contentsRect(), Qt.AlignLeft | Qt.AlignVCenter, self.shown_text())
