"""The engine's error types, in one module so every part can raise them without import cycles.
Each message says what is wrong and what the person can do about it."""

from __future__ import annotations


class ModelError(Exception):
    """A model cannot be found, fetched or read."""


class ConversationFileError(ValueError):
    """A conversation file (or journal) cannot be used."""


class AudioFileError(ValueError):
    """A file that cannot be used as audio."""


class VoiceLibraryError(ValueError):
    """A voice of the user's library cannot be added, found, renamed or removed."""


class PersonaLibraryError(ValueError):
    """A persona cannot be saved, found, renamed or removed, or its file cannot be read."""


class RecoveryCancelled(Exception):
    """The person cancelled rebuilding a conversation (the partly rebuilt session is discarded)."""
