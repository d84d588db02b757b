"""Push-to-talk as explicit state: which inputs hold the microphone open, and the open-mic setting."""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class TalkState:
    held_by: frozenset[str] = frozenset()  # "key", "button": each can hold independently
    open_mic: bool = False  # hands-free: the microphone is always open

    @property
    def mic_open(self) -> bool:
        return self.open_mic or bool(self.held_by)

    def press(self, source: str) -> TalkState:
        return replace(self, held_by=self.held_by | {source})

    def release(self, source: str) -> TalkState:
        return replace(self, held_by=self.held_by - {source})
