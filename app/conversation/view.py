"""The conversation as turns: a list view that paints each turn of a ``TurnListModel`` as a bubble.

Assistant turns sit on the left with their words, user turns on the right with a level strip and
a play button, and under it their words where a caption model heard them; a turn that overlaps one
of the other side says so. The view follows new text while the reader is at the bottom and stays
put once they scroll up. A new turn shows at once; the turns that grow (by a frame's duration,
level and words) are redrawn a few times a second (``app.widgets.throttle``), not with every frame:
the words reach the speaker a few frames later anyway.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, QModelIndex, QPointF, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QPainter,
    QPainterPath,
    QPalette,
    QPolygonF,
    QTextLayout,
    QTextOption,
)
from PySide6.QtWidgets import QAbstractItemView, QListView, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from app.audio.levels import DISPLAY_FLOOR_DB
from app.conversation.sides import side_name
from app.conversation.transcript import YOU, Turn, clock
from app.conversation.turn_list import OverlapRole, TurnRole
from app.i18n import number_text, translate
from app.widgets.colours import BUBBLE_ALPHA, scheme_for
from app.widgets.throttle import Throttle

MARGIN = 8
PADDING = 10
HEADER_GAP = 4
STRIP_HEIGHT = 26
PLAY_SIZE = 22
ASSISTANT_WIDTH = 0.78  # of the view's width
USER_WIDTH = 0.46
OVERLAP_TAG = QT_TRANSLATE_NOOP("ConversationView", "overlaps")  # translated where shown
WORDLESS = QT_TRANSLATE_NOOP("ConversationView", "(speech without words)")
FOLLOW_SLACK_PX = 4
ELISION_SLACK_PX = 2  # advances are rounded to pixels; elision measures finer and may want one more


def speaker_colour(palette: QPalette, speaker: str) -> QColor:
    """The speaker's colour: their header's text, their bubble at ``BUBBLE_ALPHA``."""
    scheme = scheme_for(palette)
    return QColor(scheme.you if speaker == YOU else scheme.assistant)


def header_text(turn: Turn, interpreting: bool) -> str:
    """A turn's header: its side's name (``app.conversation.sides``), when it began, how long it is."""
    return translate("ConversationView", "{who}  ·  {time}  ·  {seconds} s").format(
        who=side_name(turn.speaker, interpreting), time=clock(turn.start), seconds=number_text(turn.duration, 1))


def header_font(option) -> QFont:
    font = QFont(option.font)
    font.setBold(True)
    return font


def fitted_header(header: str, tag: str, metrics: QFontMetrics, width: int) -> str:
    """``header``, elided where it would run into the right-aligned ``tag`` (or past ``width``):
    a narrow bubble shortens its header instead of painting the two over each other."""
    room = width - (metrics.horizontalAdvance(tag) + PADDING if tag else 0)
    return metrics.elidedText(header, Qt.ElideRight, max(0, room))


def wrap_option() -> QTextOption:
    """Words wrap at their boundaries, and a word wider than the bubble (a babbling demo's) anywhere."""
    option = QTextOption(Qt.AlignLeft | Qt.AlignTop)
    option.setWrapMode(QTextOption.WrapAtWordBoundaryOrAnywhere)
    return option


WRAP = wrap_option()


def wrapped_height(font: QFont, text: str, width: int) -> int:
    """The height of ``text`` wrapped as ``WRAP`` wraps it in ``width`` pixels, a newline starting a
    new line as it does where the text is drawn (one layout of the whole text would not break there,
    and the lines after it would be cut off)."""
    height = 0.0
    for paragraph in text.split("\n"):
        layout = QTextLayout(paragraph, font)
        layout.setTextOption(WRAP)
        layout.beginLayout()
        while (line := layout.createLine()).isValid():
            line.setLineWidth(width)
            line.setPosition(QPointF(0, height))
            height += line.height()
        layout.endLayout()
    return math.ceil(height)


def strip_bar_heights(levels: list[float], bars: int) -> np.ndarray:
    """Pixel heights of a level strip's ``bars`` bars: each the loudest of its share of the
    frames' ``levels`` (dBFS), at least 5% and 2 px. The strip of the turn being spoken is
    repainted every frame, so this is one numpy pass, not a Python loop over the bars."""
    db = np.asarray(levels or [DISPLAY_FLOOR_DB], dtype=np.float64)
    starts = np.arange(bars) * len(db) // bars  # a bar with fewer frames than bars repeats one
    loudest = np.maximum.reduceat(db, starts)
    fraction = np.clip((loudest - DISPLAY_FLOOR_DB) / -DISPLAY_FLOOR_DB, 0.05, 1.0)
    return np.maximum(2, (STRIP_HEIGHT * fraction).astype(np.int64))


class TurnDelegate(QStyledItemDelegate):
    play_requested = Signal(int)  # row

    def __init__(self, view: QListView) -> None:
        super().__init__(view)
        self.view = view
        # row -> (what its size was measured from, the size). A layout pass asks every row for its
        # size, and an hour of talk has ~2000 turns: measuring wrapped text each time made the
        # window's cost per frame grow from ~1 ms to ~40 ms over an hour.
        self._sizes: dict[int, tuple[tuple, QSize]] = {}

    @property
    def interpreting(self) -> bool:
        """Whether the turns shown are an interpreter's (their sides' names say so)."""
        return self.view.model().interpreting

    # -- geometry ----------------------------------------------------------------------------
    def _bubble(self, option, turn: Turn) -> QRect:
        """A turn's bubble in its row. A user turn's is ``USER_WIDTH`` of the view, or as wide as its
        header and the overlap tag need (it has no words to wrap), within the view."""
        rect = option.rect
        width = int(rect.width() * (USER_WIDTH if turn.speaker == YOU else ASSISTANT_WIDTH))
        if turn.speaker == YOU:
            metrics = QFontMetrics(header_font(option))
            tag = translate("ConversationView", OVERLAP_TAG)
            need = (metrics.horizontalAdvance(header_text(turn, self.interpreting)) + metrics.horizontalAdvance(tag)
                    + 3 * PADDING + ELISION_SLACK_PX)
            width = min(max(width, need), rect.width() - 2 * MARGIN)
        left = rect.right() - MARGIN - width if turn.speaker == YOU else rect.left() + MARGIN
        return QRect(left, rect.top() + MARGIN // 2, width, rect.height() - MARGIN)

    def _body_height(self, option, turn: Turn, width: int) -> int:
        if turn.speaker == YOU:  # the strip, and the caption model's words under it
            words = turn.text.strip()
            return STRIP_HEIGHT + (HEADER_GAP + self._text_height(option, words, width) if words else 0)
        return self._text_height(option, turn.text.strip() or translate("ConversationView", WORDLESS), width)

    @staticmethod
    def _text_height(option, text: str, width: int) -> int:
        return wrapped_height(option.font, text, width)

    def sizeHint(self, option, index: QModelIndex) -> QSize:
        turn: Turn = index.data(TurnRole)
        full = self.view.viewport().width()
        metrics = option.fontMetrics
        key = (turn.speaker, turn.text, full, metrics.height(), metrics.averageCharWidth())
        cached = self._sizes.get(index.row())
        if cached is not None and cached[0] == key:
            return cached[1]
        width = int(full * (USER_WIDTH if turn.speaker == YOU else ASSISTANT_WIDTH)) - 2 * PADDING
        height = metrics.height() + HEADER_GAP + self._body_height(option, turn, max(40, width))
        size = QSize(full, height + 2 * PADDING + MARGIN)
        self._sizes[index.row()] = (key, size)
        return size

    def size_changed(self, option, index: QModelIndex) -> bool:
        """Whether the row's size differs from the one it was last laid out with."""
        before = self._sizes.get(index.row())
        return before is None or self.sizeHint(option, index) != before[1]

    def _play_rect(self, bubble: QRect, option) -> QRect:
        top = bubble.top() + PADDING + option.fontMetrics.height() + HEADER_GAP
        return QRect(bubble.left() + PADDING, top + (STRIP_HEIGHT - PLAY_SIZE) // 2, PLAY_SIZE, PLAY_SIZE)

    # -- painting ----------------------------------------------------------------------------
    def paint(self, painter: QPainter, option, index: QModelIndex) -> None:
        turn: Turn = index.data(TurnRole)
        palette = option.palette
        bubble = self._bubble(option, turn)
        colour = speaker_colour(palette, turn.speaker)
        painter.save()
        painter.setRenderHint(QPainter.Antialiasing)
        fill = QColor(colour)
        fill.setAlpha(BUBBLE_ALPHA)
        path = QPainterPath()
        path.addRoundedRect(QRectF(bubble), 10, 10)
        painter.fillPath(path, fill)
        if option.state & QStyle.State_Selected:  # the turn replay is playing, or the one clicked
            painter.setPen(colour)
            painter.drawPath(path)

        inner = bubble.adjusted(PADDING, PADDING, -PADDING, -PADDING)
        bold = header_font(option)
        painter.setFont(bold)
        painter.setPen(colour)
        header = header_text(turn, self.interpreting)
        tag = translate("ConversationView", OVERLAP_TAG) if index.data(OverlapRole) else ""
        header_metrics = QFontMetrics(bold)
        painter.drawText(inner, Qt.AlignLeft | Qt.AlignTop, fitted_header(header, tag, header_metrics, inner.width()))
        if tag:
            painter.setPen(QColor(scheme_for(palette).muted))
            painter.drawText(inner, Qt.AlignRight | Qt.AlignTop, tag)
        painter.setFont(option.font)

        body_top = inner.top() + option.fontMetrics.height() + HEADER_GAP
        if turn.speaker == YOU:
            self._paint_strip(painter, option, bubble, body_top, turn, colour)
            text, body_top = turn.text.strip(), body_top + STRIP_HEIGHT + HEADER_GAP
        else:
            text = turn.text.strip() or translate("ConversationView", WORDLESS)
        if text:
            painter.setPen(palette.color(QPalette.Text))
            painter.drawText(QRectF(inner.left(), body_top, inner.width(), inner.bottom() - body_top + 1), text, WRAP)
        painter.restore()

    def _paint_strip(self, painter: QPainter, option, bubble: QRect, top: int, turn: Turn, colour: QColor) -> None:
        play = self._play_rect(bubble, option)
        painter.setPen(Qt.NoPen)
        painter.setBrush(colour)
        painter.drawEllipse(play)
        painter.setBrush(QColor("white"))
        c = QPointF(play.center())
        painter.drawPolygon(QPolygonF([c + QPointF(-3, -6), c + QPointF(-3, 6), c + QPointF(6, 0)]))
        left = play.right() + PADDING
        bars = max(1, (bubble.right() - PADDING - left) // 3)
        painter.setBrush(colour)
        painter.drawRects([QRect(left + 3 * i, top + (STRIP_HEIGHT - h) // 2, 2, h)
                           for i, h in enumerate(strip_bar_heights(turn.levels, bars).tolist())])

    def editorEvent(self, event, model, option, index) -> bool:
        if event.type() == QEvent.MouseButtonRelease and event.button() == Qt.LeftButton:
            turn: Turn = index.data(TurnRole)
            if turn.speaker == YOU and self._play_rect(self._bubble(option, turn), option).contains(
                    event.position().toPoint()):
                self.play_requested.emit(index.row())
                return True
        return super().editorEvent(event, model, option, index)


class ConversationView(QListView):
    """Turns, newest at the bottom; ``follow`` is whether new text scrolls the view."""

    play_requested = Signal(int)  # row of a user turn whose play button was clicked

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.follow = True
        self.delegate = TurnDelegate(self)
        self.delegate.play_requested.connect(self.play_requested)
        self.setItemDelegate(self.delegate)
        self.setResizeMode(QListView.Adjust)
        self.setVerticalScrollMode(QAbstractItemView.ScrollPerPixel)
        self.setSelectionMode(QAbstractItemView.SingleSelection)
        self.setUniformItemSizes(False)
        self.setWordWrap(True)
        self.setAccessibleName("conversation")
        self._grown_rows: set[int] = set()  # rows that changed since they were last drawn
        self._grown_redraw = Throttle(self, self._redraw_grown_rows)
        bar = self.verticalScrollBar()
        bar.valueChanged.connect(self._scrolled)
        bar.rangeChanged.connect(self._range_changed)

    def focusInEvent(self, event) -> None:
        """Reached by Tab: the newest turn is the current one, drawn as chosen, so that the focus shows
        and the arrows move from there."""
        model = self.model()
        if model is not None and model.rowCount() and not self.currentIndex().isValid():
            self.setCurrentIndex(model.index(model.rowCount() - 1, 0))  # before Qt makes it the first
        super().focusInEvent(event)

    def keyPressEvent(self, event) -> None:
        """Enter on one of the person's turns plays it, as its play button does."""
        index = self.currentIndex()
        if event.key() in (Qt.Key_Return, Qt.Key_Enter) and index.isValid() \
                and index.data(TurnRole).speaker == YOU:
            self.play_requested.emit(index.row())
            return
        super().keyPressEvent(event)

    def _scrolled(self, value: int) -> None:
        self.follow = value >= self.verticalScrollBar().maximum() - FOLLOW_SLACK_PX

    def _range_changed(self, _minimum: int, maximum: int) -> None:
        if self.follow:
            self.verticalScrollBar().setValue(maximum)

    def setModel(self, model) -> None:
        super().setModel(model)
        self.follow = True
        model.modelReset.connect(self._grown_rows.clear)

    def dataChanged(self, top_left: QModelIndex, bottom_right: QModelIndex, roles=()) -> None:
        """The open turns change every frame; they are redrawn when the throttle says so."""
        self._grown_rows.update(range(top_left.row(), bottom_right.row() + 1))
        self._grown_redraw.request()

    def _redraw_grown_rows(self) -> None:
        """QListView answers any change with a layout pass, which asks every row for its size: with
        the ~2000 turns of an hour, each time. Most changes extend a turn that keeps its size (a
        level, the duration): those rows are repainted, and only a size change is laid out."""
        model = self.model()
        rows = [model.index(row, 0) for row in sorted(self._grown_rows) if row < model.rowCount()]
        self._grown_rows.clear()
        if not rows:
            return
        option = QStyleOptionViewItem()
        self.initViewItemOption(option)
        if any(self.delegate.size_changed(option, index) for index in rows):
            super().dataChanged(rows[0], rows[-1])
            self.scheduleDelayedItemsLayout()
        else:
            for index in rows:
                self.update(index)

    def as_text(self) -> str:
        """What the view shows, as plain text (for tests and accessibility checks)."""
        model = self.model()
        lines = []
        for row in range(model.rowCount()):
            turn: Turn = model.index(row, 0).data(TurnRole)
            who, words = side_name(turn.speaker, model.interpreting), turn.text.strip()
            lines.append(f"{who}: {words}" if words or turn.speaker != YOU else who)
        return "\n".join(lines)
