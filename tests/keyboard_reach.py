"""What Tab reaches in a window or dialog, with the real widgets: the keyboard-only person's view."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QHeaderView,
    QKeySequenceEdit,
    QLineEdit,
    QRadioButton,
    QScrollBar,
    QWidget,
)

CONTROLS = (QAbstractButton, QLineEdit, QComboBox, QAbstractSlider, QAbstractItemView, QAbstractSpinBox,
            QKeySequenceEdit)
FIELDS_WITH_PARTS = (QLineEdit, QComboBox, QAbstractSpinBox, QKeySequenceEdit)  # a clear button, a spin arrow


def operable_controls(top: QWidget) -> set[QWidget]:
    """The controls of ``top`` a person can see and use (not scroll bars or a table's header, which
    no keyboard reaches anywhere, nor a field's own parts)."""
    return {w for w in top.findChildren(QWidget)
            if isinstance(w, CONTROLS) and w.isVisible() and w.isEnabled() and w.window() is top
            and not isinstance(w, (QScrollBar, QHeaderView)) and not isinstance(w.parent(), FIELDS_WITH_PARTS)}


def tab_walk(qtbot, start: QWidget, presses: int) -> list[QWidget]:
    """The widgets focused from ``start`` on, one Tab after another."""
    start.setFocus(Qt.TabFocusReason)
    reached = []
    for _ in range(presses):
        reached.append(QApplication.focusWidget())
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key_Tab)
    return reached


def missed(wanted: set[QWidget], reached: list[QWidget]) -> list[str]:
    """The controls of ``wanted`` Tab did not reach, by name. Of a group of radio buttons Tab
    reaches the chosen one, the arrows the others, as everywhere: one reached is the group reached."""
    reached_groups = {radio_group(w) for w in reached if isinstance(w, QRadioButton)}
    return named(w for w in wanted - set(reached)
                 if not (isinstance(w, QRadioButton) and radio_group(w) in reached_groups))


def radio_group(radio: QRadioButton):
    return radio.group() or radio.parentWidget()


def named(widgets) -> list[str]:
    return sorted(f"{type(c).__name__} {getattr(c, 'text', lambda: '')()!r}" for c in widgets)
