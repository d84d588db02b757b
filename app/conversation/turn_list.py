"""The turns of a ``Transcript`` as a Qt item model (no widgets): what the conversation view renders."""

from __future__ import annotations

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt

from app.conversation.sides import side_name
from app.conversation.transcript import FrameObservation, Transcript

TurnRole = Qt.UserRole + 1  # the Turn itself
OverlapRole = Qt.UserRole + 2  # whether it overlaps a turn of the other side


class TurnListModel(QAbstractListModel):
    def __init__(self, transcript: Transcript | None = None, parent=None) -> None:
        super().__init__(parent)
        self.transcript = transcript if transcript is not None else Transcript()
        self.interpreting = False  # an interpreter's turns: the original and the interpretation (set_interpreting)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.transcript.turns)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self.transcript.turns):
            return None
        turn = self.transcript.turns[index.row()]
        if role == TurnRole:
            return turn
        if role == OverlapRole:
            return self.transcript.overlapping(index.row())
        if role in (Qt.DisplayRole, Qt.AccessibleTextRole):
            return turn.text.strip() if turn.text else side_name(turn.speaker, self.interpreting)
        return None

    def set_interpreting(self, interpreting: bool) -> None:
        """Whether these are an interpreter's turns: each side's name follows (``app.conversation.sides``)."""
        if interpreting != self.interpreting:
            self.interpreting = interpreting
            if self.rowCount():
                self.dataChanged.emit(self.index(0), self.index(self.rowCount() - 1))

    def add_frame(self, frame: FrameObservation) -> None:
        before = len(self.transcript.turns)
        self._turns_changed(before, self.transcript.add_frame(frame))

    def add_captions(self, pieces, turn_ends=()) -> None:
        """The person's words ((seconds, text) pieces) and where their turn ended (``Transcript.add_captions``)."""
        before = len(self.transcript.turns)
        self._turns_changed(before, self.transcript.add_captions(pieces, turn_ends))

    def add_turn(self, speaker: str, start: float, end: float, text: str) -> int:
        """A whole turn (``Transcript.add_turn``); its row."""
        before = len(self.transcript.turns)
        row = self.transcript.add_turn(speaker, start, end, text)
        self._turns_changed(before, {row})
        return row

    def set_turn_text(self, row: int, text: str, end: float) -> None:
        """A turn's words grew (an answer spoken clause by clause), and it lasts until ``end`` seconds."""
        turn = self.transcript.turns[row]
        turn.text, turn.end = text, max(turn.end, end)
        self.dataChanged.emit(self.index(row), self.index(row))

    def _turns_changed(self, before: int, changed: set[int]) -> None:
        after = len(self.transcript.turns)
        if after > before:
            self.beginInsertRows(QModelIndex(), before, after - 1)
            self.endInsertRows()
        # An overlap marker can change on a neighbour too, so every open turn is repainted.
        for row in sorted(i for i in changed if i < before):
            self.dataChanged.emit(self.index(row), self.index(row))
        if after > before and before:
            self.dataChanged.emit(self.index(max(0, before - 2)), self.index(before - 1))

    def reset(self, entries=(), recording=(), captions=(), turn_ends=()) -> None:
        """Rebuild from a saved transcript, (if any) its recorded (user, assistant) audio, the
        person's captions and where the caption model said their turns ended."""
        self.beginResetModel()
        self.transcript.load(entries, *(recording or (None, None)), captions=captions, turn_ends=turn_ends)
        self.endResetModel()
