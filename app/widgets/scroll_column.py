"""A column that scrolls up and down instead of raising the window's minimum height."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QStyle, QWidget


class ScrollColumn(QScrollArea):
    """Shows ``content`` at the column's full width; taller content scrolls. Its minimum width is
    the content's, so nothing in it is squeezed sideways (a column never scrolls sideways)."""

    def __init__(self, content: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidget(content)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)

    def minimumSizeHint(self) -> QSize:
        bar = self.style().pixelMetric(QStyle.PM_ScrollBarExtent, None, self)
        return QSize(self.widget().minimumSizeHint().width() + bar, 80)

    def sizeHint(self) -> QSize:
        bar = self.style().pixelMetric(QStyle.PM_ScrollBarExtent, None, self)
        hint = self.widget().sizeHint()
        return QSize(hint.width() + bar, hint.height())
