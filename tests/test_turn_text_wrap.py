"""A turn's words stay inside its bubble: a word wider than the bubble (the demo babbles in long
runs of letters) wraps anywhere, while words wrap at their boundaries."""

from __future__ import annotations

from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QStyleOptionViewItem

from app.conversation.transcript import FrameObservation
from app.conversation.turn_list import TurnListModel
from app.conversation.view import ConversationView, wrapped_height


def test_a_word_wider_than_the_bubble_wraps_inside_it(qtbot):
    turns = TurnListModel()
    turns.add_frame(FrameObservation(0.0, False, -120.0, -20.0, " " + "babble" * 80))
    view = ConversationView()
    view.setModel(turns)
    qtbot.addWidget(view)
    view.resize(400, 300)
    view.show()
    qtbot.waitExposed(view)
    option = QStyleOptionViewItem()
    view.initViewItemOption(option)
    line = QFontMetrics(option.font).height()
    assert view.delegate.sizeHint(option, turns.index(0, 0)).height() > 6 * line  # many lines, not one


def test_words_wrap_at_their_boundaries(qapp):
    font = qapp.font()
    metrics = QFontMetrics(font)
    width = metrics.horizontalAdvance("hello world") + 2
    assert wrapped_height(font, "hello world hello world", width) <= 2 * metrics.height() + 2


def test_a_newline_starts_a_line_as_the_painter_draws_it(qapp):
    """An answer of several paragraphs (a language model's, a tool call and then the answer): the
    bubble is as tall as the painter's text, so nothing after a newline is cut off."""
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QImage, QPainter

    from app.conversation.view import WRAP

    font = qapp.font()
    for text in ("one", "first\nsecond", "first\n\nthird", "word " * 40 + "\nlast"):
        image = QImage(300, 2000, QImage.Format_ARGB32)
        painter = QPainter(image)
        painter.setFont(font)
        drawn = painter.boundingRect(QRectF(0, 0, 300, 2000), text, WRAP).height()
        painter.end()
        assert abs(wrapped_height(font, text, 300) - drawn) < 1, text
