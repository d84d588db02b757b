"""Focus a person can see and reach: a check box shows its focus and its tick; the transcript takes
the focus with its newest turn chosen, and Enter plays the person's turn there."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage, QPalette
from PySide6.QtWidgets import QCheckBox, QVBoxLayout, QWidget

from app.conversation.transcript import FrameObservation
from app.conversation.turn_list import TurnListModel
from app.conversation.view import ConversationView
from app.widgets.colours import checkbox_style, dark_palette, scheme_for
from engine import FRAME_SECONDS


def boxes(qtbot) -> tuple[QWidget, QCheckBox, QCheckBox]:
    top = QWidget()
    top.setPalette(dark_palette())
    top.setStyleSheet(checkbox_style(scheme_for(top.palette())))
    first, second = QCheckBox("Open mic"), QCheckBox("Advanced")
    layout = QVBoxLayout(top)
    layout.addWidget(first)
    layout.addWidget(second)
    qtbot.addWidget(top)
    top.show()
    qtbot.waitExposed(top)
    return top, first, second


def marks_in_fill(image: QImage, fill: QColor) -> int:
    """How many pixels inside the box filled with ``fill`` are not that colour (a tick's)."""
    def distance(x: int, y: int) -> int:
        return sum(abs(a - b) for a, b in zip(image.pixelColor(x, y).getRgb()[:3], fill.getRgb()[:3]))

    filled = [(x, y) for y in range(image.height()) for x in range(image.width()) if distance(x, y) < 20]
    assert filled, "no filled box"
    xs, ys = [x for x, _ in filled], [y for _, y in filled]
    return sum(1 for y in range(min(ys) + 2, max(ys) - 1) for x in range(min(xs) + 2, max(xs) - 1)
               if distance(x, y) > 150)


def test_a_focused_check_box_looks_different_from_an_unfocused_one(qtbot):
    top, first, second = boxes(qtbot)
    second.setFocus(Qt.TabFocusReason)
    qtbot.waitUntil(second.hasFocus)
    unfocused = first.grab().toImage()
    first.setFocus(Qt.TabFocusReason)
    qtbot.waitUntil(first.hasFocus)
    assert first.grab().toImage() != unfocused


def test_a_ticked_box_shows_a_tick(qtbot):
    top, first, _second = boxes(qtbot)
    first.setChecked(True)
    assert marks_in_fill(first.grab().toImage(), first.palette().color(QPalette.Highlight)) > 4


def test_the_transcript_takes_the_focus_on_its_newest_turn_and_enter_plays_the_persons_turn(qtbot):
    turns = TurnListModel()
    for i in range(20):
        turns.add_frame(FrameObservation(i * FRAME_SECONDS, i < 8, -20.0 if i < 8 else -120.0,
                                         -20.0 if i >= 10 else -120.0, " hi" if i == 12 else ""))
    view = ConversationView()
    view.setModel(turns)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    played = []
    view.play_requested.connect(played.append)
    view.setFocus(Qt.TabFocusReason)
    qtbot.waitUntil(view.hasFocus)
    assert view.currentIndex().row() == turns.rowCount() - 1 and view.selectionModel().isSelected(view.currentIndex())
    qtbot.keyClick(view, Qt.Key_Return)  # the assistant's turn: nothing to play
    qtbot.keyClick(view, Qt.Key_Up)
    qtbot.keyClick(view, Qt.Key_Return)
    assert played == [0]
