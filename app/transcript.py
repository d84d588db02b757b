"""The transcript as the window shows and exports it: lines grouped from the model's text pieces."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from engine import write_atomically

LINE_GAP_S = 1.5  # a pause longer than this starts a new line


@dataclass
class Line:
    seconds: float  # conversation time of the line's first piece
    speaker: str  # "assistant" | "you"
    text: str
    last_seconds: float


class Transcript:
    def __init__(self) -> None:
        self.lines: list[Line] = []
        self.pieces: list[tuple[float, str]] = []  # every text piece of the assistant, with its time

    def load(self, entries) -> None:
        """Rebuild from the engine's transcript: (frame_index, seconds, text) tuples."""
        self.lines.clear()
        self.pieces.clear()
        for _frame, seconds, text in entries:
            self.add(seconds, text)

    def mark_user_turn(self, seconds: float) -> None:
        """The user starts talking at ``seconds``; the assistant's next words start a new line.

        The models do not transcribe the user, so a user turn is shown as a marker line.
        """
        if not (self.lines and self.lines[-1].speaker == "you"):
            self.lines.append(Line(seconds, "you", "(speaking)", seconds))

    def add(self, seconds: float, text: str) -> None:
        self.pieces.append((seconds, text))
        last = self.lines[-1] if self.lines else None
        if last is not None and last.speaker == "assistant" and seconds - last.last_seconds <= LINE_GAP_S:
            last.text += text
            last.last_seconds = seconds
        else:
            self.lines.append(Line(seconds, "assistant", text.lstrip(), seconds))

    def as_text(self) -> str:
        return "\n".join(f"[{_clock(line.seconds)}] {'You' if line.speaker == 'you' else 'Assistant'}: "
                         f"{line.text.strip()}" for line in self.lines)

    def to_json(self) -> dict:
        return {"lines": [asdict(line) for line in self.lines],
                "pieces": [{"seconds": s, "text": t} for s, t in self.pieces]}

    def export(self, path: str) -> None:
        """Write .json (structured) or plain text, atomically (a failed write leaves no broken file)."""
        target = Path(path)
        data = json.dumps(self.to_json(), indent=2) if target.suffix.lower() == ".json" else self.as_text() + "\n"
        write_atomically(target, data.encode("utf-8"))


def _clock(seconds: float) -> str:
    minutes, rest = divmod(seconds, 60.0)
    return f"{int(minutes):02d}:{rest:04.1f}"
