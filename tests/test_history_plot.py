"""The latency history plot: where its line lands, what it keeps and what it leaves out; and that the
widgets painted every frame paint all of themselves."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage, QPalette
from PySide6.QtWidgets import QVBoxLayout, QWidget

from app.widgets.history_plot import SERIES_COLOURS, HistoryPlot
from app.widgets.meters import LevelMeter

LENGTH = 50


@pytest.fixture
def plot(qtbot):
    widget = HistoryPlot(("compute",), "ms", reference=80.0, reference_label="", top=160.0, length=LENGTH)
    qtbot.addWidget(widget)
    widget.resize(300, 160)
    return widget


def plot_rows(plot: HistoryPlot, image: QImage, x: int) -> list[int]:
    """Rows of column ``x`` down to the plot area's bottom (the legend below is drawn in the series
    colour too) painted in (a blend of) the series colour: blue well above red."""
    colour = SERIES_COLOURS[0]
    rows = []
    for y in range(int(plot.plot_area().bottom()) + 2):
        pixel = QColor(image.pixel(x, y))
        if pixel.blue() - pixel.red() > (colour.blue() - colour.red()) // 3:
            rows.append(y)
    return rows


def value_row(plot: HistoryPlot, value: float) -> float:
    area = plot.plot_area()
    return area.bottom() - area.height() * value / plot.scale_top()


def test_a_steady_value_is_drawn_at_its_height_across_the_last_frames(plot):
    for _ in range(LENGTH + 20):
        plot.append(60.0)
    image = plot.grab().toImage()
    area = plot.plot_area()
    expected = value_row(plot, 60.0)
    for x in (int(area.left()) + 2, int(area.center().x()), int(area.right()) - 2):
        rows = plot_rows(plot, image, x)
        assert rows and all(abs(y - expected) <= 2 for y in rows), (x, rows, expected)


def test_only_the_newest_frames_are_kept_the_newest_at_the_right_edge(plot):
    for _ in range(LENGTH):
        plot.append(30.0)
    for _ in range(LENGTH // 2):
        plot.append(90.0)  # the newer half of the plot
    image = plot.grab().toImage()
    area = plot.plot_area()
    assert list(plot.series[0]) == [30.0] * (LENGTH - LENGTH // 2) + [90.0] * (LENGTH // 2)
    left, right = plot_rows(plot, image, int(area.left()) + 2), plot_rows(plot, image, int(area.right()) - 2)
    assert left and all(abs(y - value_row(plot, 30.0)) <= 2 for y in left), left
    assert right and all(abs(y - value_row(plot, 90.0)) <= 2 for y in right), right


def test_a_spike_runs_off_the_top_of_the_plot_not_over_its_labels(plot):
    for _ in range(LENGTH):
        plot.append(60.0)
    plot.append(5_000.0)  # a stall: far above the scale, which stays where the budget reads
    assert plot.scale_top() == 160.0
    image = plot.grab().toImage()
    area = plot.plot_area()
    columns = range(int(area.left()), int(area.right()) + 1)
    assert all(min(plot_rows(plot, image, x), default=image.height()) >= int(area.top()) - 1 for x in columns)
    # the last stretch climbs to the plot's top edge and is cut there
    assert min(min(plot_rows(plot, image, x), default=image.height()) for x in columns) <= int(area.top()) + 1


def test_clear_leaves_an_empty_plot(plot):
    for _ in range(10):
        plot.append(60.0)
    plot.clear()
    assert not plot.series[0]
    image = plot.grab().toImage()
    area = plot.plot_area()
    assert not plot_rows(plot, image, int(area.center().x()))
    plot.append(40.0)
    plot.append(40.0)  # and it draws again, from the right edge
    rows = plot_rows(plot, plot.grab().toImage(), int(area.right()) - 2)
    assert rows and all(abs(y - value_row(plot, 40.0)) <= 2 for y in rows), rows


@pytest.mark.parametrize("make", [lambda: LevelMeter("Mic"), lambda: HistoryPlot(("compute",), "ms", 80.0, "", 160.0)])
def test_a_widget_marked_opaque_paints_every_pixel_of_its_rectangle(qtbot, make):
    """Qt does not paint the parent under a widget with WA_OpaquePaintEvent: a pixel the widget
    left unpainted would show whatever was there before."""
    parent = QWidget()
    qtbot.addWidget(parent)
    palette = parent.palette()
    palette.setColor(QPalette.Window, QColor(255, 0, 0))
    parent.setPalette(palette)
    parent.setAutoFillBackground(True)
    widget = make()
    QVBoxLayout(parent).addWidget(widget)
    parent.resize(300, 200)
    parent.show()
    assert widget.testAttribute(Qt.WA_OpaquePaintEvent)
    image = parent.grab().toImage()
    box = widget.geometry()
    red = [(x, y) for x in range(box.left(), box.right() + 1) for y in range(box.top(), box.bottom() + 1)
           if QColor(image.pixel(x, y)) == QColor(255, 0, 0)]
    assert not red, red[:5]
