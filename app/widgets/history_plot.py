"""A scrolling plot of recent per-frame values (latency history), painted with QPainter."""

from __future__ import annotations

from collections import deque

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPolygonF, QTransform
from PySide6.QtWidgets import QSizePolicy, QWidget

SERIES_COLOURS = (QColor(80, 160, 255), QColor(255, 150, 60), QColor(120, 200, 120))
# A series is two 1 px strokes 0.6 px apart: to the eye a 1.6 px line, but a pen up to 1 px wide takes
# the raster engine's thin-line fast path where a wider one takes the general stroker. Painted every
# frame: 0.7 ms against 6.4 ms per paint of two 250-point series (Intel Xeon, offscreen, antialiased).
LINE_OFFSETS = (0.0, 0.6)
PLOT_MARGINS = (40, 8, 8, 20)  # left, top, right, bottom: room for the scale and the legend


class HistoryPlot(QWidget):
    """Up to three named series over the last ``length`` frames, with a dashed reference line.

    Each series is kept as a polygon in data coordinates (frame number, value) that gains one
    point per frame; a paint maps it onto the widget with a transform. Rebuilding the points in
    Python on every paint cost ~1.5 ms per frame on the GUI thread, which the engine's worker
    shares the cores and the interpreter with."""

    def __init__(self, names: tuple[str, ...], unit: str, reference: float, reference_label: str, top: float,
                 length: int = 250, parent: QWidget | None = None) -> None:
        """``top``: the value at the top of the plot. It is fixed, so the reference line stays in one
        place and a value reads against it; rare spikes (warm-up, a stall) run off the top. A scale
        that followed the data put a 1000 ms spike's scale on the plot and flattened the rest."""
        super().__init__(parent)
        self.top = top
        self.names = names
        self.unit = unit
        self.reference = reference
        self.reference_label = reference_label
        self.series = tuple(deque(maxlen=length) for _ in names)  # the values, for the scale and readers
        self._lines = tuple(QPolygonF() for _ in names)  # the same values as points, for painting
        self._next_x = 0  # frame number of the next value
        self.length = length
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)
        self.setAccessibleName(self.tr("latency history"))
        self.setAttribute(Qt.WA_OpaquePaintEvent)  # paints every pixel: Qt need not paint the parent under it

    def sizeHint(self) -> QSize:
        return QSize(360, 140)

    def minimumSizeHint(self) -> QSize:
        return QSize(200, 90)

    def append(self, *values: float) -> None:
        for series, line, value in zip(self.series, self._lines, values, strict=True):
            series.append(value)
            line.append(QPointF(self._next_x, value))
            if line.size() > self.length:
                line.remove(0)
        self._next_x += 1
        self.update()

    def clear(self) -> None:
        for series, line in zip(self.series, self._lines, strict=True):
            series.clear()
            line.clear()
        self._next_x = 0
        self.update()

    def plot_area(self) -> QRectF:
        left, top, right, bottom = PLOT_MARGINS
        return QRectF(self.rect()).adjusted(left, top, -right, -bottom)

    def scale_top(self) -> float:
        return self.top

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing, True)
        palette = self.palette()
        p.fillRect(self.rect(), palette.base())
        area = self.plot_area()
        top = self.scale_top()
        reference_y = area.bottom() - area.height() * min(self.reference, top) / top
        p.setPen(QPen(palette.mid().color(), 1))
        p.drawRect(area)
        p.setPen(palette.text().color())
        p.drawText(QRectF(0, area.top() - 6, 36, 14), Qt.AlignRight, f"{top:.0f}")
        p.drawText(QRectF(0, area.bottom() - 8, 36, 14), Qt.AlignRight, "0")
        p.setPen(QPen(palette.text().color(), 1, Qt.DashLine))
        p.drawLine(QPointF(area.left(), reference_y), QPointF(area.right(), reference_y))
        p.drawText(QPointF(area.left() + 4, reference_y - 3), self.reference_label)
        self._paint_series(p, area, top)
        legend_x = area.left()
        for name, colour in zip(self.names, SERIES_COLOURS, strict=False):
            p.setPen(QPen(colour, 3))
            p.drawLine(QPointF(legend_x, self.height() - 8), QPointF(legend_x + 14, self.height() - 8))
            p.setPen(palette.text().color())
            label = f"{name} ({self.unit})"
            p.drawText(QPointF(legend_x + 18, self.height() - 4), label)
            legend_x += 26 + p.fontMetrics().horizontalAdvance(label)

    def _paint_series(self, p: QPainter, area: QRectF, top: float) -> None:
        """The newest value at the right edge, ``length`` frames across, 0..``top`` bottom to top."""
        step = area.width() / max(1, self.length - 1)
        to_widget = QTransform(step, 0.0, 0.0, -area.height() / top,
                               area.right() - step * (self._next_x - 1), area.bottom())
        p.save()
        p.setClipRect(area)
        for line, colour in zip(self._lines, SERIES_COLOURS, strict=False):
            if line.size() < 2:
                continue
            pen = QPen(colour, 1.0)
            pen.setCosmetic(True)  # 1 px on screen whatever the transform's scale
            p.setPen(pen)
            for offset in LINE_OFFSETS:
                p.setTransform(to_widget * QTransform.fromTranslate(0.0, offset))
                p.drawPolyline(line)
        p.restore()

