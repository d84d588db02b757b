"""Personas: who the assistant is in a conversation (name, voice, role, sampling, "wait for me").

One JSON object is both a persona file and a header's ``persona`` field (whose voice is never a
path). An edit of a shipped persona overrides it until reset; an unreadable file is listed, never used.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..atomic import write_atomically
from ..errors import PersonaLibraryError
from ..lm.generate import SamplingConfig
from ..regular_files import open_regular
from . import untrusted
from .user_data import ensure_private_folder, user_data_folder
from .voices import check_name

PERSONAS_DIR_ENV = "PARLEY_PERSONAS_DIR"  # overrides the platform's user data folder (tests use it)
FORMAT_NAME = "parley.persona"
FORMAT_VERSION = 1
SUFFIX = ".json"
MAX_FILE_BYTES = 256 * 1024  # a role text of untrusted.MAX_TEXT_CHARS and a little more
MAX_VOICE_CHARS = 1024  # a voice's name, or a recording's path in the user's own persona


@dataclass(frozen=True)
class Persona:
    name: str
    voice: str = ""  # "" = the model's default voice; "none" = no voice prompt; a shipped or user voice name
    role: str = ""  # "" = the model's default role
    sampling: SamplingConfig = field(default_factory=SamplingConfig)
    wait_for_user: bool = False  # the assistant stays silent until the user first speaks

    def applies(self, takes_prompts: bool) -> tuple[str | None, str | None]:
        """(voice prompt, role text) for a model that ``takes_prompts`` (None = its default); else neither."""
        if not takes_prompts:
            return None, None
        return self.voice or None, self.role or None

    def as_json(self) -> dict:
        return {"name": self.name, "voice": self.voice, "role": self.role, "sampling": asdict(self.sampling),
                "wait_for_user": self.wait_for_user}

    @classmethod
    def from_json(cls, obj: Any, from_a_header: bool = False) -> Persona:
        """A persona from its JSON object, every field checked; ``from_a_header``: the voice is only a name."""
        if not isinstance(obj, dict):
            raise ValueError("a persona is not a JSON object")
        voice = untrusted.text(obj, "voice", MAX_VOICE_CHARS, default="")
        wait = obj.get("wait_for_user", False)
        if not isinstance(wait, bool):
            raise ValueError(f"'wait_for_user' is {wait!r}, expected true or false")
        return cls(name=untrusted.text(obj, "name", untrusted.MAX_NAME_CHARS),
                   voice=(untrusted.voice_name(voice) or "") if from_a_header else voice,
                   role=untrusted.text(obj, "role", default=""), sampling=untrusted.sampling(obj),
                   wait_for_user=wait)


def persona_field(persona: Persona | None) -> dict:
    """A header's ``persona`` field, or none at all (the file then reads as one from before personas)."""
    return {} if persona is None else {"persona": persona.as_json()}


def read_header_persona(meta: dict) -> Persona | None:
    """The persona a conversation header (or a journal's) names; None for files from before personas."""
    stored = meta.get("persona")
    return None if stored is None else Persona.from_json(stored, from_a_header=True)


SHIPPED = (
    Persona("General assistant",
            role="You are a helpful and friendly assistant. Answer questions clearly and briefly, and ask "
                 "when something is unclear."),
    Persona("Language partner", voice="NATF2",
            role="You are a patient language practice partner. Speak slowly and simply, let the learner finish "
                 "before you answer, gently correct mistakes by saying the right form, and ask short questions "
                 "to keep them talking.",
            sampling=SamplingConfig(temp=0.7, temp_text=0.6), wait_for_user=True),
    Persona("Casual chat", voice="NATM1",
            role="You enjoy having a good conversation. Be relaxed, curious and warm, and keep your turns short.",
            sampling=SamplingConfig(temp=0.8, temp_text=0.8)),
)
DEFAULT = SHIPPED[0]


def default_personas_dir() -> Path:
    return user_data_folder("personas", PERSONAS_DIR_ENV)


@dataclass(frozen=True)
class PersonaEntry:
    """One row of the persona list: ``kind`` "shipped", "edited" or "user"; ``persona`` None when damaged."""

    name: str
    kind: str
    persona: Persona | None
    problem: str = ""

    def as_json(self) -> dict:
        body = self.persona.as_json() if self.persona is not None else {"name": self.name}
        return {**body, "kind": self.kind, **({"error": self.problem} if self.problem else {})}


class PersonaLibrary:
    """The shipped personas and the user's, in ``folder`` (default: the user's data folder)."""

    def __init__(self, folder: str | os.PathLike | None = None) -> None:
        self.folder = Path(folder) if folder is not None else default_personas_dir()

    # -- reading -----------------------------------------------------------------------------
    def entries(self) -> list[PersonaEntry]:
        """The shipped personas (an edited one as the user's copy), then the user's by name."""
        own = {entry.name.lower(): entry for entry in self._own()}
        rows = []
        for persona in SHIPPED:
            mine = own.pop(persona.name.lower(), None)
            rows.append(PersonaEntry(persona.name, "shipped", persona) if mine is None
                        else PersonaEntry(persona.name, "edited", mine.persona, mine.problem))
        return rows + sorted(own.values(), key=lambda e: e.name.lower())

    def find(self, name: str) -> PersonaEntry | None:
        wanted = name.strip().lower() if isinstance(name, str) else ""
        return next((e for e in self.entries() if e.name.lower() == wanted), None)

    def get(self, name: str) -> Persona:
        """The persona called ``name`` (case-insensitive); ``PersonaLibraryError`` if none or damaged."""
        entry = self.find(name)
        if entry is None:
            known = ", ".join(e.name for e in self.entries())
            raise PersonaLibraryError(f"there is no persona called {name!r} (the personas: {known})")
        if entry.persona is None:
            raise PersonaLibraryError(entry.problem)
        return entry.persona

    # -- changing ----------------------------------------------------------------------------
    def save(self, persona: Persona, replacing: str | None = None) -> Persona:
        """Save ``persona``, new or an edit of ``replacing`` (renamed if its name changed)."""
        name = check_name(persona.name, "a persona", PersonaLibraryError)
        persona = Persona(name, persona.voice, persona.role, persona.sampling, persona.wait_for_user)
        old = self.find(replacing) if replacing else None
        if old is not None and old.kind != "user" and name.lower() != old.name.lower():
            raise PersonaLibraryError(f"{old.name!r} comes with Parley and keeps its name: save your changes "
                                      "under it, or make a new persona")
        same = self.find(name)
        if same is not None and (old is None or same.name.lower() != old.name.lower()):
            raise PersonaLibraryError(f"there already is a persona called {same.name!r}: choose another name")
        ensure_private_folder(self.folder)
        body = {"format": FORMAT_NAME, "version": FORMAT_VERSION, **persona.as_json()}
        write_atomically(self._path(name), json.dumps(body, indent=1).encode("utf-8"), private=True)
        if old is not None and old.kind == "user" and old.name != name:
            self._path(old.name).unlink(missing_ok=True)  # renamed (or its case changed: same file elsewhere)
            if not self._path(name).exists():
                write_atomically(self._path(name), json.dumps(body, indent=1).encode("utf-8"), private=True)
        return persona

    def remove(self, name: str) -> None:
        """Delete one of the user's personas, or reset an edited shipped one."""
        entry = self.find(name)
        if entry is None or entry.kind == "shipped":
            raise PersonaLibraryError(f"{name!r} is not one of your personas" if entry is None
                                      else f"{entry.name!r} comes with Parley and cannot be deleted")
        self._path(entry.name).unlink(missing_ok=True)

    # -- files -------------------------------------------------------------------------------
    def _path(self, name: str) -> Path:
        return self.folder / f"{name}{SUFFIX}"

    def _own(self) -> list[PersonaEntry]:
        if not self.folder.is_dir():
            return []
        return [self._read(path) for path in self.folder.glob(f"*{SUFFIX}")]

    def _read(self, path: Path) -> PersonaEntry:
        name = path.name[:-len(SUFFIX)]
        try:
            return PersonaEntry(name, "user", read_persona_file(path, name))
        except (OSError, ValueError) as e:
            why = getattr(e, "strerror", None) or e
            return PersonaEntry(name, "user", None, f"the persona file {path.name} cannot be used ({why}): "
                                                    "delete it, or save the persona again")


def read_persona_file(path: Path, name: str) -> Persona:
    """A persona file, checked; its name is the file's. ``ValueError`` or ``OSError`` says what is wrong."""
    with open_regular(path) as f:
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"larger than {MAX_FILE_BYTES // 1024} KB")
    obj = untrusted.parse_json_object(data)
    if obj.get("format") != FORMAT_NAME:
        raise ValueError("not a Parley persona")
    version = obj.get("version")
    if type(version) is not int or not 1 <= version <= FORMAT_VERSION:
        raise ValueError(f"format version {str(version)[:20]}; this Parley reads up to {FORMAT_VERSION}")
    persona = Persona.from_json(obj)
    return Persona(name, persona.voice, persona.role, persona.sampling, persona.wait_for_user)
