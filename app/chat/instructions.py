"""What the person's language model is told about the conversation (the system prompt of the
window's conversations): who it is, from the chosen persona's role, that it is heard, not read, and
in which language (the person's: the interface's, which the voice speaks too). A model left to
itself writes lists, headings and emoji, which a voice reads out or skips, and answers in English.

``LANGUAGES``: each interface language (``app.i18n.LANGUAGES``) as a language model understands its
name, and the Pocket TTS row that speaks it (``engine.pocket_tts.releases.LANGUAGES``)."""

from __future__ import annotations

from dataclasses import dataclass

SPOKEN = ("You are talking with the person by voice: their words come from a speech to text, and yours "
          "are read aloud as you write them. Answer in short spoken sentences, without lists, tables, "
          "headings, markdown or emoji.")


@dataclass(frozen=True)
class SpokenLanguage:
    name: str  # in English, as the instruction names it
    voice_row: str  # the Pocket TTS row that speaks it


LANGUAGES = {"en": SpokenLanguage("English", "english"), "fr": SpokenLanguage("French", "french"),
             "de": SpokenLanguage("German", "german"), "es": SpokenLanguage("Spanish", "spanish")}
ENGLISH = "en"


def system_prompt(role: str, language: str = ENGLISH) -> str:
    """The persona's ``role`` ("" for none), then how to speak, then (other than English) in which
    language: ``language`` is an interface language's code."""
    spoken = LANGUAGES.get(language)
    parts = [role.strip(), SPOKEN]
    if spoken is not None and language != ENGLISH:
        parts.append(f"Always answer in {spoken.name}: the person speaks {spoken.name}, and a {spoken.name} "
                     "voice speaks your words.")
    return "\n\n".join(part for part in parts if part)
