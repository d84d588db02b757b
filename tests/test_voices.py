"""The user's voice library (engine/files/voices.py): private files, names, the cached prompt keyed by
the codec (equal to encoding afresh; re-made when damaged, never used), a damaged recording refused,
a voice by name equal to its recording as a file, and `parley voices`."""

from __future__ import annotations

import json
import os
import stat
import sys

import numpy as np
import pytest
import torch

import engine.files.voices as voices_module
import engine.lm.prompts as prompts
from app.cli.command import main as cli_main
from engine import (
    FRAME_SIZE,
    AudioFileError,
    ModelError,
    VoiceLibrary,
    VoiceLibraryError,
    assess_recording,
    load_model,
    open_conversation,
    record_frames,
    save_conversation,
)
from engine.atomic import write_atomically
from engine.audio import SAMPLE_RATE, write_wav
from engine.files.voices import codec_key, default_voices_dir
from engine.runtime.voices import load_voice
from engine.state import flatten
from tests.test_kernel_plan import needs_bf16_matmul
from tests.test_session import personaplex_folder  # noqa: F401 - a fixture
from tests.test_voice_recording import at_loudness, voice_like


def encoder(model):
    """What ``load_voice`` hands the library: the model's Mimi encoding of a recording."""
    return lambda pcm: prompts.encode_recording(model, pcm).codes


def a_voice(seconds: float = 11.0, seed: int = 0) -> np.ndarray:
    return at_loudness(voice_like(seconds, seed), -26.0)


def stored(library: VoiceLibrary, name: str, seed: int, seconds: float = 1.2):
    """A short voice written as the library writes one (``add`` asks for 10 s; encoding that
    many times would make these tests slow, and the library reads any length it finds)."""
    library.folder.mkdir(parents=True, exist_ok=True)
    write_atomically(library.folder / f"{name}.wav", voices_module.recording_bytes(a_voice(seconds, seed)))
    return library.get(name)


@pytest.fixture
def library(tmp_path, monkeypatch):
    folder = tmp_path / "voices"
    monkeypatch.setenv(voices_module.VOICES_DIR_ENV, str(folder))
    return VoiceLibrary()


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_the_default_folder_is_the_users_data_folder_unless_overridden(monkeypatch, tmp_path):
    monkeypatch.delenv(voices_module.VOICES_DIR_ENV)
    import platformdirs

    assert default_voices_dir() == default_voices_dir().parent / "voices"
    assert str(default_voices_dir()).startswith(platformdirs.user_data_dir("Parley", appauthor=False))
    monkeypatch.setenv(voices_module.VOICES_DIR_ENV, str(tmp_path))
    assert VoiceLibrary().folder == tmp_path


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_voices_are_private_and_can_be_renamed_and_removed(library, app_demo_model):
    voice = library.add("  Bea  ", a_voice())
    assert voice.name == "Bea" and voice.seconds == pytest.approx(11.0, abs=0.01)
    assert mode(library.folder) == 0o700 and mode(voice.path) == 0o600
    library.remove("Bea")
    stored(library, "Alice", seed=0)
    library.codes("alice", app_demo_model, encoder(app_demo_model))  # found case-insensitively; cached
    (cache,) = (library.folder / "prompts").iterdir()
    assert mode(cache) == 0o600 and mode(cache.parent) == 0o700
    assert cache.name == f"Alice.{codec_key(app_demo_model)[:16]}.safetensors"
    renamed = library.rename("Alice", "Alice at home")
    assert [v.name for v in library.voices()] == ["Alice at home"]
    assert [p.name for p in (library.folder / "prompts").iterdir()] == [cache.name.replace("Alice", "Alice at home")]
    assert np.array_equal(library.recording("alice at home"), library.recording(renamed.name))
    library.remove("ALICE AT HOME")
    assert library.voices() == [] and list((library.folder / "prompts").iterdir()) == []


@pytest.mark.parametrize("name, word", [("", "cannot name"), ("a/b", "cannot name"), ("x.wav", "cannot name"),
                                        ("NATF0", "reserved"), ("varm3", "reserved"), ("none", "reserved"),
                                        ("CON", "reserved"), ("n" * 41, "cannot name")])
def test_names_that_cannot_be_files_or_would_hide_a_shipped_voice_are_refused(library, name, word):
    with pytest.raises(VoiceLibraryError, match=word):
        library.add(name, a_voice())
    assert not library.folder.exists()  # nothing written


def test_a_second_voice_of_the_same_name_is_refused_and_the_first_kept(library):
    library.add("Bob", a_voice(seed=1))
    before = library.recording("Bob")
    with pytest.raises(VoiceLibraryError, match="already"):
        library.add("bob", a_voice(seed=2))
    library.add("Carol", a_voice(seed=3))
    with pytest.raises(VoiceLibraryError, match="already"):
        library.rename("Carol", "BOB")
    assert np.array_equal(library.recording("Bob"), before) and [v.name for v in library.voices()] == ["Bob", "Carol"]


def test_recordings_are_assessed_in_plain_words(library):
    assert assess_recording(a_voice()).problems() == ()
    short = assess_recording(a_voice(4.0))
    assert len(short.problems()) == 1 and short.problems()[0].startswith("Too short: 4 s")
    assert short.problems(finished=False) == ()  # still recording
    assert assess_recording(a_voice() * np.float32(0.005)).problems()[0].startswith("Too quiet")
    assert assess_recording(np.zeros(SAMPLE_RATE * 12, np.float32)).problems()[0].startswith("Too quiet")
    clipped = np.clip(a_voice() * 40, -1, 1)
    assert assess_recording(clipped).problems()[0].startswith("Clipped")
    with pytest.raises(VoiceLibraryError, match="Too short"):
        library.add("Short", a_voice(3.0))
    long = library.add("Long", a_voice(40.0))
    assert long.seconds == 30.0  # the first 30 s kept


def test_the_cached_prompt_equals_encoding_afresh_and_is_read_not_encoded(library, app_demo_model, monkeypatch):
    stored(library, "Dana", seed=4)
    first = load_voice(app_demo_model, "Dana")  # by name: encodes and caches
    fresh = load_voice(app_demo_model, str(library.get("Dana").path))  # the recording as a file: never cached
    assert torch.equal(first.codes, fresh.codes) and first.codes.shape == (15, 8)

    def no_encoding(*args):
        raise AssertionError("a valid cache must not be encoded again")

    monkeypatch.setattr(prompts, "encode_recording", no_encoding)
    assert torch.equal(load_voice(app_demo_model, "dana").codes, fresh.codes)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "out of range", "a code changed", "other recording",
                                    "other codec"])
def test_a_damaged_cache_is_made_again_never_used(library, app_demo_model, damage, caplog):
    stored(library, "Eve", seed=5)
    stored(library, "Fay", seed=6)
    expected = library.codes("Eve", app_demo_model, encoder(app_demo_model))
    cache = library.prompt_path("Eve", app_demo_model)
    if damage == "garbage":
        cache.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json" + b"x" * 100)
    elif damage == "truncated":
        cache.write_bytes(cache.read_bytes()[:-100])
    elif damage == "out of range":
        data = bytearray(cache.read_bytes())
        data[-8:] = (4096).to_bytes(8, "little")  # out of the codebook
        cache.write_bytes(bytes(data))
    elif damage == "a code changed":  # still a valid code: only the checksum tells
        data = bytearray(cache.read_bytes())
        data[-8] ^= 0x01
        cache.write_bytes(bytes(data))
    elif damage == "other recording":
        library.codes("Fay", app_demo_model, encoder(app_demo_model))
        cache.write_bytes(library.prompt_path("Fay", app_demo_model).read_bytes())
    else:
        from safetensors import safe_open
        from safetensors.torch import load_file, save_file

        with safe_open(str(cache), framework="pt") as f:
            meta = f.metadata()
        save_file(load_file(str(cache)), str(cache), metadata={**meta, "codec": "0" * 32})
    got = library.codes("Eve", app_demo_model, encoder(app_demo_model))
    assert torch.equal(got, expected)
    assert "is not used and is made again" in caplog.text
    assert torch.equal(voices_module.read_prompt_cache(cache, codec_key(app_demo_model),
                                                       voices_module.read_recording(library.get("Eve").path)[1],
                                                       expected.shape[0], 2048), expected)  # re-made


@pytest.mark.parametrize("damage", ["flipped sample", "truncated", "not ours"])
def test_a_damaged_recording_is_a_clear_error_and_its_cache_is_not_used(library, app_demo_model, damage):
    voice = stored(library, "Gus", seed=7)
    library.codes("Gus", app_demo_model, encoder(app_demo_model))
    data = bytearray(voice.path.read_bytes())
    if damage == "flipped sample":
        data[1000] ^= 0x40
    elif damage == "truncated":
        data = data[: len(data) // 2]
    else:
        write_wav(voice.path, a_voice(1.2, seed=7))  # a plain WAV: no digest
        data = bytearray(voice.path.read_bytes())
    voice.path.write_bytes(bytes(data))
    with pytest.raises(AudioFileError, match="record or import the voice again"):
        load_voice(app_demo_model, "Gus")
    (listed,) = library.voices()
    assert listed.name == "Gus" and "damaged" in listed.problem  # still listed, so it can be removed
    library.remove("Gus")


def test_an_unknown_name_lists_the_users_voices(library, app_demo_model):
    library.add("Hal", a_voice(seed=8))
    with pytest.raises(ModelError, match=r"one of your voices \(Hal\)"):
        load_voice(app_demo_model, "Ida")


def test_a_personaplex_session_with_a_voice_by_name_equals_one_with_its_recording(
        library, personaplex_folder, monkeypatch):  # noqa: F811 - the fixture
    monkeypatch.setenv("PARLEY_KERNELS", "aten")  # an exact kernel, not measured: this is about prompts
    model = load_model(str(personaplex_folder), device="cpu")
    stored(library, "June", seed=9)
    by_name = model.new_session(seed=3, voice_prompt="June", text_prompt="Be brief.")
    by_file = model.new_session(seed=3, voice_prompt=str(library.get("June").path), text_prompt="Be brief.")
    a, b = flatten(by_name.state["gen"]), flatten(by_file.state["gen"])
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert by_name.prompts["voice"] == "June"


def plan_mimi_on(model, kernel: str) -> None:
    """Put every matmul of ``model``'s Mimi on ``kernel``, as a kernel plan measured again may."""
    from engine.kernels.packed import pack_linears

    pack_linears(model.mimi, kernel)


@pytest.mark.parametrize("precision", [pytest.param("bfloat16", marks=needs_bf16_matmul), "float32"])
def test_a_voice_by_name_equals_its_recording_as_a_file_at_every_precision_and_plan(
        library, personaplex_folder, monkeypatch, precision):  # noqa: F811 - the fixture
    """A voice's codes are the reference's float32 Mimi's, whatever the precision or the kernels: the
    library's cached codes, made under one plan, equal the recording encoded as a file under another."""
    monkeypatch.setenv("PARLEY_KERNELS", "bf16" if precision == "bfloat16" else "aten")
    model = load_model(str(personaplex_folder), device="cpu", precision=precision)
    assert model.info.precision.value == precision
    stored(library, "June", seed=9, seconds=4.0)
    path = str(library.get("June").path)
    with torch.inference_mode():
        by_name = load_voice(model, "June").codes  # encoded now and cached
        plan_mimi_on(model, "onednn")  # the kernels measured again (another thread count, another start)
        again, by_file = load_voice(model, "June").codes, load_voice(model, path).codes
    assert torch.equal(by_name, again) and torch.equal(again, by_file)
    monkeypatch.setenv("PARLEY_KERNELS", "aten")
    float32 = load_model(str(personaplex_folder), device="cpu", precision="float32")
    with torch.inference_mode():
        assert torch.equal(load_voice(float32, path).codes, by_file)
    by_name_session = model.new_session(seed=3, voice_prompt="June", text_prompt="Be brief.")
    by_file_session = model.new_session(seed=3, voice_prompt=path, text_prompt="Be brief.")
    a, b = flatten(by_name_session.state["gen"]), flatten(by_file_session.state["gen"])
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_a_compact_conversation_with_ones_own_voice_reopens_bit_for_bit(
        library, personaplex_folder, monkeypatch, tmp_path):  # noqa: F811 - the fixture
    """A file names the voice (never a path); the user's own voice of that name is used to rebuild."""
    monkeypatch.setenv("PARLEY_KERNELS", "aten")
    model = load_model(str(personaplex_folder), device="cpu")
    stored(library, "June", seed=9)
    session = model.new_session(seed=3, voice_prompt="June", text_prompt="Be brief.")
    recorder = record_frames(session)
    rng = np.random.default_rng(1)
    for _ in range(3):
        session.step((0.1 * rng.standard_normal(FRAME_SIZE)).astype(np.float32))
    save_conversation(session, tmp_path / "june.parley", compact=True)
    recorder.close()
    reopened = open_conversation(model, tmp_path / "june.parley")
    a, b = flatten(session.state), flatten(reopened.state)
    assert reopened.frames == 3 and a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    library.remove("June")  # gone from this machine: said plainly
    with pytest.raises(ModelError, match="not one of your voices"):
        open_conversation(model, tmp_path / "june.parley")


def test_the_voices_command_adds_lists_renames_and_removes(library, tmp_path, capsys):
    src = tmp_path / "me.flac"
    import soundfile

    soundfile.write(src, a_voice(12.0, seed=10), SAMPLE_RATE, format="FLAC")
    assert cli_main(["voices", "add", "Kim", str(src)]) == 0
    assert cli_main(["voices", "add", "Kim", str(src)]) == 1
    assert "already" in capsys.readouterr().err
    assert cli_main(["voices", "--json", "--model", str(tmp_path / "no-model")]) == 0
    out = capsys.readouterr()
    (entry,) = [json.loads(line) for line in out.out.splitlines()]
    assert entry["name"] == "Kim" and entry["kind"] == "user" and entry["seconds"] > 5
    assert cli_main(["voices", "rename", "kim", "Kim B"]) == 0
    assert cli_main(["voices", "remove", "Kim B"]) == 0
    assert library.voices() == []
    assert cli_main(["voices", "add", "Lee", str(tmp_path / "missing.wav")]) == 1
    assert "cannot read" in capsys.readouterr().err
