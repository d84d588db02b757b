"""Personas (engine/files/personas.py): the library (shipped, edited and reset, the user's own made,
renamed and deleted; private files; a damaged file a row with its problem, never a crash), and the
persona kept with a conversation through every file kind (full, compact, journal) and its list row."""

from __future__ import annotations

import json
import os
import stat
from dataclasses import replace

import numpy as np
import pytest

from engine import (
    DEFAULT_PERSONA,
    Persona,
    PersonaLibrary,
    PersonaLibraryError,
    SamplingConfig,
    open_conversation,
    read_conversation_info,
    read_conversation_summary,
    record_frames,
    recover,
    save_conversation,
)
from engine.files.personas import SHIPPED, read_persona_file
from engine.lm.prompts import VoiceNameFromFile

PIRATE = Persona("Pirate", voice="none", role="You are a pirate. Speak briefly.",
                 sampling=SamplingConfig(temp=0.5, temp_text=0.4, top_k=100, top_k_text=10), wait_for_user=True)


@pytest.fixture
def library(own_personas):
    return PersonaLibrary()


@pytest.fixture
def model(app_demo_model):
    return app_demo_model


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def speech(frames: int, seed: int = 0) -> np.ndarray:
    return (0.1 * np.random.default_rng(seed).standard_normal(frames * 1920)).astype(np.float32)


def test_the_shipped_personas_are_listed_first_and_an_edit_is_the_users_copy_until_reset(library):
    names = [e.name for e in library.entries()]
    assert names == [p.name for p in SHIPPED] == ["General assistant", "Language partner", "Casual chat"]
    assert all(e.kind == "shipped" and e.persona.role for e in library.entries())
    assert library.get("language PARTNER").wait_for_user  # found whatever the case

    edited = Persona("Language partner", voice="NATF1", role="Speak French only.")
    library.save(edited, replacing="Language partner")
    entry = library.find("Language partner")
    assert entry.kind == "edited" and entry.persona == edited
    assert mode(library.folder) == 0o700 and mode(library.folder / "Language partner.json") == 0o600
    with pytest.raises(PersonaLibraryError, match="keeps its name"):
        library.save(Persona("Parler", role="x"), replacing="Language partner")
    with pytest.raises(PersonaLibraryError, match="cannot be deleted"):
        library.remove("Casual chat")
    library.remove("Language partner")  # the reset
    assert library.find("Language partner").kind == "shipped"
    assert library.get("Language partner") == SHIPPED[1]


def test_the_users_personas_are_made_renamed_and_deleted_by_name(library):
    library.save(PIRATE)
    assert [e.name for e in library.entries()][3:] == ["Pirate"] and library.get("pirate") == PIRATE
    with pytest.raises(PersonaLibraryError, match="already is a persona called 'Pirate'"):
        library.save(Persona("PIRATE"))
    with pytest.raises(PersonaLibraryError, match="already is a persona called 'Casual chat'"):
        library.save(Persona("Casual chat"), replacing="Pirate")
    with pytest.raises(PersonaLibraryError, match="cannot name a persona"):
        library.save(Persona("../evil"))
    library.save(Persona("Captain", role=PIRATE.role), replacing="Pirate")  # renamed, and changed
    assert library.find("Pirate") is None and library.get("Captain").role == PIRATE.role
    library.save(Persona("captain", role="lower"), replacing="Captain")  # only the case changes
    assert [e.name for e in library.entries()][3:] == ["captain"] and library.get("Captain").role == "lower"
    library.remove("captain")
    assert [e.name for e in library.entries()] == [p.name for p in SHIPPED]
    with pytest.raises(PersonaLibraryError, match="no persona called 'Nobody'.*General assistant"):
        library.get("Nobody")


@pytest.mark.parametrize("content, why", [
    (b"{not json", "not valid JSON"),
    (b'{"format": "parley.persona", "version": 1, "name": "x", "sampling": {"temp": NaN, "temp_text": 0.7, '
     b'"top_k": 250, "top_k_text": 25}}', "NaN"),
    (b'{"format": "parley.persona", "version": 1, "name": "x", "sampling": {"temp": 0.8, "temp_text": 0.7, '
     b'"top_k": 2.5, "top_k_text": 25}}', "top_k"),
    (b'{"format": "parley.persona", "version": 1, "name": "x", "sampling": {}, "wait_for_user": "yes"}',
     "wait_for_user"),
    (b'{"format": "parley.persona", "version": 9, "name": "x"}', "version 9"),
    (b'{"format": "something else"}', "not a Parley persona"),
    (b"[" * 100_000, "nested too deeply"),
    (b" " * 300_000, "larger than"),
])
def test_a_damaged_persona_file_is_a_row_with_its_problem_and_refused_by_name(library, content, why):
    library.folder.mkdir(parents=True, exist_ok=True)
    (library.folder / "Broken.json").write_bytes(content)
    entry = library.find("Broken")
    assert entry.persona is None and why in entry.problem and "delete it" in entry.problem
    assert "error" in entry.as_json()
    with pytest.raises(PersonaLibraryError, match="cannot be used"):
        library.get("Broken")
    assert library.get("General assistant") == DEFAULT_PERSONA  # the rest still lists and works


def test_a_persona_file_is_read_as_it_was_written(library):
    library.save(PIRATE)
    body = json.loads((library.folder / "Pirate.json").read_text())
    assert body["format"] == "parley.persona" and body["version"] == 1
    assert read_persona_file(library.folder / "Pirate.json", "Pirate") == PIRATE


def test_the_persona_is_kept_with_a_full_conversation_and_shown_in_its_list_row(model, tmp_path):
    session = model.new_session(PIRATE.sampling, seed=3, persona=PIRATE)
    session.process(speech(3))
    session.save(tmp_path / "full.parley")
    reopened = open_conversation(model, tmp_path / "full.parley")
    assert reopened.persona.as_json() == PIRATE.as_json() and reopened.sampling == PIRATE.sampling
    assert isinstance(reopened.persona.voice, VoiceNameFromFile)  # a file names only shipped voices
    assert read_conversation_info(tmp_path / "full.parley").persona == "Pirate"
    assert read_conversation_summary(tmp_path / "full.parley").persona == "Pirate"

    plain = model.new_session(seed=3)  # without a persona: no field, as files from before personas
    plain.process(speech(2))
    plain.save(tmp_path / "plain.parley")
    assert read_conversation_info(tmp_path / "plain.parley").persona == ""
    assert open_conversation(model, tmp_path / "plain.parley").persona is None


def test_the_persona_is_kept_through_compact_files_and_crash_journals(model, tmp_path):
    session = model.new_session(PIRATE.sampling, seed=4, persona=PIRATE)
    recorder = record_frames(session, tmp_path / "talk.journal")
    session.process(speech(3))
    recorder.close()
    save_conversation(session, tmp_path / "compact.parley", compact=True)
    assert open_conversation(model, tmp_path / "compact.parley").persona.as_json() == PIRATE.as_json()
    assert read_conversation_summary(tmp_path / "compact.parley").persona == "Pirate"
    assert recover(model, tmp_path / "talk.journal").session.persona.as_json() == PIRATE.as_json()


def test_a_damaged_persona_in_a_header_makes_the_file_refused_not_a_crash(model, tmp_path):
    from safetensors.torch import load_file

    from engine import ConversationFileError
    from engine.files.conversation import read_header, write_conversation

    session = model.new_session(seed=5, persona=PIRATE)
    session.process(speech(1))
    session.save(tmp_path / "good.parley")
    _, meta = read_header(tmp_path / "good.parley")
    meta = {k: v for k, v in meta.items() if k not in ("format", "version", "checksum")}
    meta["version"] = 1
    meta["persona"] = {**PIRATE.as_json(), "wait_for_user": 1}
    write_conversation(tmp_path / "bad.parley", load_file(tmp_path / "good.parley"), meta)
    with pytest.raises(ConversationFileError, match="wait_for_user"):
        read_conversation_info(tmp_path / "bad.parley")
    with pytest.raises(ConversationFileError, match="wait_for_user"):
        open_conversation(model, tmp_path / "bad.parley")


def test_the_personas_command_lists_them_and_offline_starts_as_one(library, model, tmp_path, capsys):
    from app.cli.command import main as cli_main
    from engine import write_wav

    library.save(PIRATE)
    (library.folder / "Broken.json").write_bytes(b"{")
    assert cli_main(["personas", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["name"], r["kind"]) for r in rows] == [
        ("General assistant", "shipped"), ("Language partner", "shipped"), ("Casual chat", "shipped"),
        ("Broken", "user"), ("Pirate", "user")]
    assert rows[4]["role"] == PIRATE.role and rows[4]["sampling"]["temp"] == 0.5 and "error" in rows[3]
    assert cli_main(["personas"]) == 0
    assert "Pirate\tuser\tnone\twaits for you\tYou are a pirate." in capsys.readouterr().out

    write_wav(tmp_path / "in.wav", speech(3))
    out = ["--input", str(tmp_path / "in.wav"), "--output", str(tmp_path / "out.wav")]
    assert cli_main(["offline", *out, "--persona", "pirate", "--top-k", "7",
                     "--save-state", str(tmp_path / "pirate.parley")]) == 0
    saved = open_conversation(model, tmp_path / "pirate.parley")
    assert saved.persona.name == "Pirate" and saved.sampling == replace(PIRATE.sampling, top_k=7)
    assert saved.prompts == {"voice": None, "text": None}  # the demo model takes no voice or role
    assert cli_main(["offline", *out, "--persona", "Nobody"]) == 2
    assert "no persona called 'Nobody'" in capsys.readouterr().err
