"""A level meter painted with QPainter: RMS bar in dBFS with a slowly falling peak marker."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QSizePolicy, QWidget

from app.audio.levels import DISPLAY_FLOOR_DB
from app.i18n import number_text
from app.widgets.colours import Scheme, scheme_for

PEAK_FALL_DB_PER_UPDATE = 1.5


class LevelMeter(QWidget):
    """Horizontal meter; ``set_level(db)`` on every frame, the widget repaints itself."""

    def __init__(self, label: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = label
        self.level_db = DISPLAY_FLOOR_DB
        self.peak_db = DISPLAY_FLOOR_DB
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        self.setAccessibleName(self.tr("{meter} level").format(meter=label))
        self.setAttribute(Qt.WA_OpaquePaintEvent)  # paints every pixel: Qt need not paint the parent under it

    def sizeHint(self) -> QSize:
        return QSize(220, 22)

    def minimumSizeHint(self) -> QSize:
        return QSize(120, 18)

    def set_level(self, db: float) -> None:
        self.level_db = max(DISPLAY_FLOOR_DB, min(0.0, db))
        self.peak_db = max(self.level_db, self.peak_db - PEAK_FALL_DB_PER_UPDATE)
        self.setAccessibleDescription(self.tr("{db} dBFS").format(db=number_text(self.level_db)))
        self.update()

    def clear(self) -> None:
        """Nothing is measured now (no frames run): silent, with no peak."""
        self.peak_db = DISPLAY_FLOOR_DB
        self.set_level(DISPLAY_FLOOR_DB)

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing, False)
        rect = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        palette = self.palette()
        p.fillRect(rect, palette.base())
        fraction = (self.level_db - DISPLAY_FLOOR_DB) / -DISPLAY_FLOOR_DB
        bar = QRectF(rect.left(), rect.top(), rect.width() * fraction, rect.height())
        p.fillRect(bar, bar_colour(scheme_for(palette), self.level_db))
        peak_x = rect.left() + rect.width() * (self.peak_db - DISPLAY_FLOOR_DB) / -DISPLAY_FLOOR_DB
        p.setPen(palette.text().color())
        p.drawLine(int(peak_x), int(rect.top()), int(peak_x), int(rect.bottom()))
        p.setPen(palette.mid().color())
        p.drawRect(rect)
        p.setPen(palette.text().color())
        text = (self.tr("{meter}  {db} dB").format(meter=self.label, db=number_text(self.level_db))
                if self.level_db > DISPLAY_FLOOR_DB else self.tr("{meter}  silent").format(meter=self.label))
        p.drawText(rect.adjusted(6, 0, -6, 0), Qt.AlignVCenter | Qt.AlignLeft, text)


def bar_colour(scheme: Scheme, db: float) -> QColor:
    """The bar's colour at ``db``: quiet, loud, clipping (the palette's text is drawn over it)."""
    quiet, loud, clipping = scheme.meter_bars
    return QColor(clipping if db > -6 else loud if db > -18 else quiet)
