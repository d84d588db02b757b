"""A container whose minimum size leaves its banners out: a banner that appears takes room from
what can give it (the conversation, the scrolling columns) instead of growing the window."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QVBoxLayout, QWidget


class SteadyMinimum(QWidget):
    """A column laid out top to bottom; widgets added with ``add_banner`` do not count towards
    its minimum height while shown (it is the same with and without them)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.column = QVBoxLayout(self)
        self._banners: list[QWidget] = []

    def add_banner(self, banner: QWidget) -> None:
        self._banners.append(banner)
        self.column.addWidget(banner)

    def minimumSizeHint(self) -> QSize:
        hint = self.column.minimumSize()
        shown = [b for b in self._banners if not b.isHidden()]
        item_height = [self.column.itemAt(self.column.indexOf(b)).minimumSize().height() for b in shown]
        taken = sum(height + self.column.spacing() for height in item_height)
        return QSize(hint.width(), hint.height() - taken)
