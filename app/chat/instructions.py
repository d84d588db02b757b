"""What the person's language model is told about the conversation (the system prompt of the
window's conversations): who it is, from the chosen persona's role, and that it is heard, not read.
A model left to itself writes lists, headings and emoji, which a voice reads out or skips."""

from __future__ import annotations

SPOKEN = ("You are talking with the person by voice: their words come from a speech to text, and yours "
          "are read aloud as you write them. Answer in short spoken sentences, without lists, tables, "
          "headings, markdown or emoji.")


def system_prompt(role: str) -> str:
    """The persona's ``role`` ("" for none), then how to speak."""
    role = role.strip()
    return f"{role}\n\n{SPOKEN}" if role else SPOKEN
