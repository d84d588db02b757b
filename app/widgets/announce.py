"""Text said by screen readers without moving the focus (Qt 6.8's announcement event, polite: after
what the reader is saying). Older Qt versions have no such event; there nothing is said."""

from __future__ import annotations

from PySide6 import QtGui
from PySide6.QtWidgets import QWidget

ANNOUNCEMENT_EVENT = getattr(QtGui, "QAccessibleAnnouncementEvent", None)


def announce(widget: QWidget, text: str) -> bool:
    """Whether this Qt could announce ``text`` (from ``widget``'s place in the window)."""
    if ANNOUNCEMENT_EVENT is None:
        return False
    event = ANNOUNCEMENT_EVENT(widget, text)
    event.setPoliteness(QtGui.QAccessible.AnnouncementPoliteness.Polite)
    QtGui.QAccessible.updateAccessibility(event)
    return True
