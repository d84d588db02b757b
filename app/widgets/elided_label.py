"""A one-line label that fits any width: its text elided at the end, whole in its tooltip.

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
    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(text)

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())

    def paintEvent(self, _event) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().color(QPalette.WindowText))
        room = self.contentsRect()
        painter.drawText(room, Qt.AlignLeft | Qt.AlignVCenter,
                         self.fontMetrics().elidedText(self.text(), Qt.ElideRight, room.width()))
