"""Files from anywhere: a corpus of crafted conversation files, compact files, journals, voices,
WAVs and model configs, generated here, run against every reader (listing, reading, restoring,
recovering, `parley offline`). Each gives its clear error (ConversationFileError, AudioFileError,
ModelError or ValueError with a message), never an OverflowError, RecursionError, MemoryError,
IndexError or a hang; nothing is allocated beyond a stated bound; no file of the user's changes."""

from __future__ import annotations

import io
import json
import os
import stat
import struct
import threading
import tracemalloc
import wave
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest
import soundfile
import torch

from engine import (
    FRAME_SIZE,
    SAMPLE_RATE,
    AudioFileError,
    ConversationFileError,
    ModelError,
    SamplingConfig,
    open_conversation,
    read_audio,
    read_conversation_info,
    read_journal,
    record_frames,
    recover,
    save_conversation,
)
from engine.atomic import write_atomically
from engine.files import compact, conversation, untrusted
from engine.files import journal as jf
from engine.files.conversation_info import LIST_HEADER_BYTES, LIST_TEXT_CHARS, read_conversation_summary
from engine.files.models import read_model_dir
from engine.lm.model import LMConfig
from engine.lm.personaplex import MAX_VOICE_FRAMES, load_voice_prompt
from engine.lm.prompts import VoiceNameFromFile
from engine.regular_files import is_regular_file
from engine.runtime.replay import journal_header
from engine.state import clone, flatten

FRAMES = 4
GOOD_META = {"version": 1, "kind": "full", "model": "demo", "fingerprint": "f" * 32, "frames": 5,
             "generator_steps": 5, "decoded_frames": 4, "sampling": {"temp": 0.8, "temp_text": 0.7, "top_k": 250,
                                                                      "top_k_text": 25},
             "seed": 1, "prompts": {"voice": None, "text": None}, "transcript": [[3, 0.24, " hi"]],
             "app_version": "t", "created": "2026-01-01T00:00:00+00:00"}


# ---- building crafted files ------------------------------------------------------------------

def raw_conversation(path: Path, inner: str | None = None, header: str | None = None, data: bytes = b"\0" * 4) -> Path:
    """A safetensors container whose header text (or whose Parley metadata text) is given verbatim,
    so that it can say what ``json.dumps`` never writes (1e400, NaN, nesting thousands deep)."""
    if header is None:
        inner = json.dumps({"format": conversation.FORMAT_NAME, **GOOD_META}) if inner is None else inner
        header = json.dumps({"__metadata__": {"parley": inner},
                             "x": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})
    body = header.encode()
    path.write_bytes(struct.pack("<Q", len(body)) + body + data)
    return path


def inner_with(**fields) -> str:
    """Parley metadata text with ``fields`` replaced by the given raw JSON texts."""
    text = json.dumps({"format": conversation.FORMAT_NAME, **GOOD_META})
    meta = {"format": conversation.FORMAT_NAME, **GOOD_META}
    for key, raw in fields.items():
        text = text.replace(f'"{key}": {json.dumps(meta[key])}', f'"{key}": {raw}')
    return text


DEEP = "[" * 100_000 + "]" * 100_000
HOSTILE_FIELDS = {
    "frames_overflow": {"frames": "1e400"},
    "frames_nan": {"frames": "NaN"},
    "frames_float": {"frames": "2.5"},
    "frames_bool": {"frames": "true"},
    "frames_string": {"frames": '"5"'},
    "frames_negative": {"frames": "-1"},
    "frames_huge": {"frames": "1" + "0" * 5000},
    "seed_infinity": {"seed": "Infinity"},
    "deep_nesting": {"prompts": DEEP},
    "transcript_not_list": {"transcript": '{"a": 1}'},
    "transcript_bad_entry": {"transcript": "[[1, 2]]"},
    "transcript_inf_seconds": {"transcript": '[[1, 1e999, "x"]]'},
    "transcript_past_end": {"transcript": '[[99, 0.1, "x"]]'},
    "sampling_nan": {"sampling": '{"temp": NaN, "temp_text": 0.7, "top_k": 250, "top_k_text": 25}'},
    "sampling_top_k_float": {"sampling": '{"temp": 0.8, "temp_text": 0.7, "top_k": 2.5, "top_k_text": 25}'},
    "sampling_unknown": {"sampling": '{"temp": 0.8, "evil": 1}'},
    "voice_path": {"prompts": '{"voice": "/etc/passwd", "text": null}'},
    "voice_parent": {"prompts": '{"voice": "../../secret.pt", "text": null}'},
    "voice_home": {"prompts": '{"voice": "~/.ssh/id_rsa", "text": null}'},
    "voice_windows": {"prompts": '{"voice": "C:\\\\Users\\\\x\\\\v.wav", "text": null}'},
    "version_float": {"version": "1.0"},
    "kind_list": {"kind": "[]"},
}
HOSTILE_HEADERS = {
    "outer_deep": '{"__metadata__": {"parley": "{}"}, "x": ' + DEEP + "}",
    "outer_offsets_strings": json.dumps({"__metadata__": {"parley": inner_with()},
                                         "x": {"dtype": "F32", "shape": [1], "data_offsets": ["0", "4"]}}),
    "outer_shape_float": json.dumps({"__metadata__": {"parley": inner_with()},
                                     "x": {"dtype": "F32", "shape": [1.0], "data_offsets": [0, 4]}}),
    "outer_shape_huge": json.dumps({"__metadata__": {"parley": inner_with()},
                                    "x": {"dtype": "F32", "shape": [2**62, 2**62], "data_offsets": [0, 4]}}),
    "outer_entry_list": json.dumps({"__metadata__": {"parley": inner_with()}, "x": [1, 2]}),
    "outer_dtype_list": json.dumps({"__metadata__": {"parley": inner_with()},
                                    "x": {"dtype": ["F32"], "shape": [1], "data_offsets": [0, 4]}}),
    "outer_meta_not_string": json.dumps({"__metadata__": {"parley": {"a": 1}},
                                         "x": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}),
    "outer_nan": '{"__metadata__": {"parley": "{}"}, "x": {"dtype": "F32", "shape": [NaN], "data_offsets": [0, 4]}}',
}


def hostile_folder(folder: Path) -> dict[str, Path]:
    """Every crafted conversation file, in one folder as a user's library would hold them."""
    files = {name: raw_conversation(folder / f"{name}.parley", inner_with(**fields))
             for name, fields in HOSTILE_FIELDS.items()}
    files |= {name: raw_conversation(folder / f"{name}.parley", header=text) for name, text in HOSTILE_HEADERS.items()}
    good = raw_conversation(folder / "good.parley")
    files["truncated"] = folder / "truncated.parley"
    files["truncated"].write_bytes(good.read_bytes()[:100])
    files["zero_bytes"] = folder / "zero_bytes.parley"
    files["zero_bytes"].write_bytes(b"")
    files["header_past_end"] = folder / "header_past_end.parley"
    files["header_past_end"].write_bytes(struct.pack("<Q", 2**63) + b"{}")
    files["directory"] = folder / "directory.parley"
    files["directory"].mkdir()
    return files


# ---- 1. header parsing is total ----------------------------------------------------------------

def test_every_crafted_header_is_that_files_error_in_every_reader(tmp_path):
    files = hostile_folder(tmp_path)
    readers = (read_conversation_info, read_conversation_summary, conversation.read_header, conversation.file_kind)
    # What a list row does not use (the voice, sampling settings and kind are checked where a file is
    # opened, see test_restoring_checks_values...); everything else is refused by the list readers.
    unused_by_a_row = {"voice_path", "voice_parent", "voice_home", "voice_windows", "sampling_top_k_float",
                       "sampling_unknown", "kind_list"}
    before = {p: (p.read_bytes() if p.is_file() else None) for p in tmp_path.iterdir()}
    for name, path in files.items():
        for reader in readers:
            try:
                reader(path)
            except ConversationFileError as e:  # the file's own error, naming it; nothing else escapes
                assert path.name in str(e), (name, reader.__name__, str(e))
            else:
                assert reader in (conversation.read_header, conversation.file_kind) or name in unused_by_a_row, \
                    (name, reader.__name__)
    with pytest.raises(ConversationFileError, match="unknown kind"):
        conversation.file_kind(files["kind_list"])
    assert {p: (p.read_bytes() if p.is_file() else None) for p in tmp_path.iterdir()} == before
    with pytest.raises(ConversationFileError, match="out of range"):
        read_conversation_info(files["frames_overflow"])  # was an OverflowError past every handler
    with pytest.raises(ConversationFileError, match="nested too deeply"):
        read_conversation_info(files["deep_nesting"])  # was a RecursionError


def test_json_fields_are_real_integers_and_finite_numbers():
    with pytest.raises(ValueError, match="NaN"):
        untrusted.parse_json_object('{"a": NaN}')
    with pytest.raises(ValueError, match="out of range"):
        untrusted.parse_json_object('{"a": -1e400}')
    meta = untrusted.parse_json_object('{"a": 2.0, "b": true, "c": 7}')
    for key in ("a", "b"):
        with pytest.raises(ValueError, match=f"'{key}' is .*expected an integer"):
            untrusted.integer(meta, key, 0, 10)
    assert untrusted.integer(meta, "c", 0, 10) == 7


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_or_a_link_to_one_is_never_opened(tmp_path):
    fifo = tmp_path / "pipe.parley"
    os.mkfifo(fifo)
    link = tmp_path / "link.parley"
    link.symlink_to(fifo)
    assert not is_regular_file(fifo) and not is_regular_file(link)
    assert is_regular_file(raw_conversation(tmp_path / "good.parley"))
    outcomes = []

    def read_all():
        for path in (fifo, link):
            for reader in (read_conversation_summary, read_conversation_info, read_journal):
                try:
                    reader(path)
                except ConversationFileError as e:
                    outcomes.append(str(e))

    reader = threading.Thread(target=read_all, daemon=True)  # a blocked open would hang here forever
    reader.start()
    reader.join(10)
    assert not reader.is_alive(), "a reader blocked opening a FIFO"
    assert len(outcomes) == 6 and all("not a regular file" in why for why in outcomes)


def long_conversation(path: Path, pieces: int = 40_000) -> Path:
    meta = {**GOOD_META, "frames": 2 * pieces, "generator_steps": 2 * pieces, "decoded_frames": 2 * pieces - 1,
            "prompts": {"voice": "NATF0", "text": "a role with \"quotes\", a \\ and é"},
            "transcript": [[2 * i, round(2 * i * 0.08, 2), f" wörd{i}"] for i in range(pieces)]}
    conversation.write_conversation(path, {"x": torch.zeros(1)}, meta)
    return path


def test_a_list_row_reads_a_bounded_start_of_the_header(tmp_path):
    path = long_conversation(tmp_path / "long.parley")
    assert path.stat().st_size > 20 * LIST_HEADER_BYTES
    tracemalloc.start()
    row = read_conversation_summary(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    full = read_conversation_info(path)
    assert (row.frames, row.model, row.fingerprint, row.created) == (full.frames, full.model, full.fingerprint,
                                                                     full.created)
    assert row.text == full.text[:LIST_TEXT_CHARS] and not row.text_complete
    assert peak < 16 * LIST_HEADER_BYTES, peak  # the full read holds the whole transcript
    short = read_conversation_summary(raw_conversation(tmp_path / "short.parley"))
    assert short.text == "hi" and short.text_complete and short.frames == 5


def test_a_list_row_of_an_old_file_whose_date_follows_a_long_transcript(tmp_path):
    meta = {"format": conversation.FORMAT_NAME, **GOOD_META,
            "transcript": [[i, round(i * 0.08, 2), " w"] for i in range(20_000)], "frames": 20_000,
            "created": "2025-05-05T00:00:00+00:00"}
    meta["generator_steps"], meta["decoded_frames"] = 20_000, 19_999
    path = raw_conversation(tmp_path / "old.parley", json.dumps(meta))  # "created" after the transcript
    row = read_conversation_summary(path)
    assert row.frames == 20_000 and row.created.startswith("20") and row.created != meta["created"]


# ---- 2. bounded decoding -----------------------------------------------------------------------

def wav_bytes(rate: int, samples: np.ndarray, channels: int = 1) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples.astype("<i2").tobytes())
    return out.getvalue()


@pytest.mark.parametrize("rate, seconds, channels, why", [
    (1, 1000, 1, "sample rate of 1 Hz"),  # 2 KB at 1 Hz: 96 MB at 24 kHz
    (300_000, 0.01, 1, "sample rate of 300000 Hz"),
    (8000, 2.0, 1, "at most 1 s"),
    (8000, 0.01, 12, "12 channels"),
])
def test_a_wav_is_checked_from_its_header_before_decoding(tmp_path, rate, seconds, channels, why):
    path = tmp_path / "x.wav"
    path.write_bytes(wav_bytes(rate, np.zeros(int(rate * seconds) * channels, np.int16), channels))
    tracemalloc.start()
    with pytest.raises(AudioFileError, match=why):
        read_audio(path, max_seconds=1.0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 3 * path.stat().st_size + (1 << 20)  # the file's bytes, never its decoded samples


def forged_flac(samples: int, declared: int) -> bytes:
    """A FLAC stream of ``samples`` silent samples whose STREAMINFO declares ``declared``."""
    out = io.BytesIO()
    soundfile.write(out, np.zeros(samples, np.int16), SAMPLE_RATE, format="FLAC", subtype="PCM_16")
    data = bytearray(out.getvalue())
    assert data[:4] == b"fLaC"
    (packed,) = struct.unpack(">Q", data[18:26])  # rate 20 bits, channels 3, bits 5, total samples 36
    struct.pack_into(">Q", data, 18, (packed & ~((1 << 36) - 1)) | declared)
    return bytes(data)


def test_a_flac_in_a_libsndfile_file_is_checked_from_its_header(tmp_path):
    path = tmp_path / "x.flac"
    path.write_bytes(forged_flac(2000, 2**36 - 1))  # 33 days declared
    with pytest.raises(AudioFileError, match="at most 3600 s"):
        read_audio(path)


# ---- the model's files: compact files, journals, full files ------------------------------------

@pytest.fixture
def model(app_demo_model):
    return app_demo_model


@pytest.fixture(scope="module")
def saved(app_demo_model, tmp_path_factory):
    """(full file, compact file, journal) of one short real conversation on the demo model (the
    tests only read them)."""
    model, tmp_path = app_demo_model, tmp_path_factory.mktemp("saved")
    session = model.new_session(SamplingConfig(), seed=3)
    recorder = record_frames(session, tmp_path / "talk.journal")
    pcm = np.random.default_rng(0).uniform(-0.3, 0.3, FRAMES * FRAME_SIZE).astype(np.float32)
    for i in range(FRAMES):
        session.step(np.round(pcm[i * FRAME_SIZE:(i + 1) * FRAME_SIZE] * 32768) / 32768)
    recorder.close()
    save_conversation(session, tmp_path / "talk.parley", compact=False)
    save_conversation(session, tmp_path / "talk-compact.parley", compact=True)
    return tmp_path / "talk.parley", tmp_path / "talk-compact.parley", tmp_path / "talk.journal"


def rewrite(source: Path, target: Path, tensors=None, **meta) -> Path:
    """``source`` with tensors and metadata changed, and a valid checksum: a forged file that
    passes every shape check."""
    stored = conversation.read_conversation(source)
    tensors = {**stored.tensors, **(tensors or {})}
    fields = {k: v for k, v in {**stored.meta, **meta}.items() if k not in ("format", "checksum")}
    conversation.write_conversation(target, tensors, fields)
    return target


def test_restoring_checks_values_and_changes_nothing_when_it_refuses(model, saved, tmp_path):
    full = saved[0]
    stored = conversation.read_conversation(full).tensors
    cache = stored["gen.tokens.cache"].clone()
    cache[0, 0, 0] = 10**9  # a text token id the model does not have: an IndexError at the first frame
    state = next(n for n, t in stored.items() if n.startswith("mimi.") and t.is_floating_point() and t.numel())
    nan = stored[state].clone()
    nan.view(-1)[0] = float("nan")
    forged = {
        "token id": rewrite(full, tmp_path / "token.parley", {"gen.tokens.cache": cache}),
        "NaN state": rewrite(full, tmp_path / "nan.parley", {state: nan}),
        "counters": rewrite(full, tmp_path / "counters.parley", generator_steps=1),
        "offset": rewrite(full, tmp_path / "offset.parley", {"gen.lm.temporal.offset": torch.tensor([10**12])}),
        "NaN sampling": raw_meta_copy(full, tmp_path / "sampling.parley", '"temp": 0.8', '"temp": NaN'),
        "frames 1e400": raw_meta_copy(full, tmp_path / "frames.parley", '"frames": 4', '"frames": 1e400'),
        "voice path": rewrite(full, tmp_path / "voice.parley", prompts={"voice": "/etc/passwd", "text": None}),
    }
    session = model.new_session(SamplingConfig(), seed=5)
    session.step(np.zeros(FRAME_SIZE, np.float32))
    before, counters = clone(session.state), (session.frames, session.generator_steps, session.seed)
    for why, path in forged.items():
        with pytest.raises(ConversationFileError) as e:
            session.restore(path)
        assert path.name in str(e.value), why
    assert all(torch.equal(a, b) for a, b in zip(flatten(before).values(), flatten(session.state).values()))
    assert (session.frames, session.generator_steps, session.seed) == counters
    with pytest.raises(ConversationFileError, match="out of range"):
        open_conversation(model, forged["frames 1e400"])  # `parley offline --resume`, the app's Open
    session.restore(full)  # the genuine file still opens
    assert session.frames == FRAMES


def raw_meta_copy(source: Path, target: Path, old: str, new: str) -> Path:
    """``source`` with one text of its metadata replaced in the raw header (same length or not)."""
    data = source.read_bytes()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    inner = header["__metadata__"]["parley"]
    assert old in inner
    header["__metadata__"]["parley"] = inner.replace(old, new)
    body = json.dumps(header).encode()
    target.write_bytes(struct.pack("<Q", len(body)) + body + data[8 + n:])
    return target


def test_a_compact_files_flac_is_checked_before_it_is_decoded(model, saved, tmp_path):
    source = saved[1]
    frames = conversation.read_header(source)[1]["frames"]
    cases = {  # 10 minutes of silence declared and present (a small file), and a forged sample count
        "long": forged_flac(10 * 60 * SAMPLE_RATE, 10 * 60 * SAMPLE_RATE),
        "forged": forged_flac(frames * FRAME_SIZE, 2**36 - 1),
    }
    for name, flac in cases.items():
        path = rewrite(source, tmp_path / f"{name}.parley", {compact._FLAC: torch.frombuffer(bytearray(flac),
                                                                                              dtype=torch.uint8)})
        tracemalloc.start()
        with pytest.raises(ConversationFileError, match="user audio is .* samples"):
            compact.read_compact(path, model.info.fingerprint)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 4 * path.stat().st_size + (2 << 20), (name, peak)  # never the 29 MB of samples


def journal_with(header: bytes, frames: bytes = b"") -> bytes:
    return jf.MAGIC + jf._record(jf._HEADER, header) + frames


def test_crafted_journals_are_refused_or_cut_clearly(model, saved, tmp_path):
    good = jf.encode_start(journal_header(model.new_session()))[len(jf.MAGIC):]
    meta_text = good[jf._PREFIX.size:-jf._CRC.size].decode()
    meta = json.loads(meta_text)

    def variant(**raw) -> bytes:
        text = meta_text
        for key, value in raw.items():
            text = text.replace(f'"{key}": {json.dumps(meta[key])}', f'"{key}": {value}')
        return text.encode()

    crafted = {
        "seed_overflow": variant(seed="1e400"), "streams_float": variant(user_streams="8.0"),
        "threads_huge": variant(threads="10000000"), "nested": variant(prompts=DEEP),
        "voice_path": variant(prompts='{"voice": "/home/someone/.ssh/id_rsa", "text": null}'),
        "sampling_nan": variant(sampling='{"temp": NaN, "temp_text": 0.7, "top_k": 250, "top_k_text": 25}'),
        "top_k_float": variant(sampling='{"temp": 0.8, "temp_text": 0.7, "top_k": 2.5, "top_k_text": 25}'),
        "not_utf8": b"\xff" * 40, "not_object": b"[1, 2]",
    }
    for name, header in crafted.items():
        path = tmp_path / f"{name}.journal"
        path.write_bytes(journal_with(header))
        with pytest.raises(ConversationFileError, match=path.name):
            read_journal(path)
        with pytest.raises(ConversationFileError):
            recover(model, path)
        assert path.read_bytes() == journal_with(header)  # never changed
    header = journal_header(model.new_session())
    nan_frame = np.full(FRAME_SIZE, np.nan, np.float32)
    path = tmp_path / "nan.journal"
    with np.errstate(invalid="ignore"):  # the writer tries 16 bits first
        path.write_bytes(jf.encode_start(header) + jf.encode_frame(0, np.zeros(8), np.zeros(9), np.zeros(FRAME_SIZE))
                         + jf.encode_frame(1, np.zeros(8), np.zeros(9), nan_frame))
    read = read_journal(path)
    assert read.frames == 1 and "NaN" in read.damage


def test_a_voice_named_by_a_file_is_a_shipped_or_own_voice_never_a_path(model, saved, tmp_path):
    assert isinstance(untrusted.voice_name("NATF2"), VoiceNameFromFile)
    for path_like in ("/etc/passwd", "../x.pt", "~/v.wav", "C:\\v.wav", "a/b", ".hidden", "v.wav"):
        with pytest.raises(ValueError, match="not the name of a voice"):
            untrusted.voice_name(path_like)
    source = saved[1]
    victim = tmp_path / "private.wav"
    victim.write_bytes(wav_bytes(SAMPLE_RATE, np.zeros(SAMPLE_RATE, np.int16)))
    forged = rewrite(source, tmp_path / "voice.parley", prompts={"voice": str(victim), "text": None})
    with pytest.raises(ConversationFileError, match="not the name of a voice"):
        open_conversation(model, forged)
    # The persona a header holds names its voice by the same rule (it opened /dev/zero as a voice).
    persona = {"name": "Anyone", "voice": "/dev/zero", "role": "", "sampling": asdict(SamplingConfig()),
               "wait_for_user": False}
    for kind, file in (("full", saved[0]), ("compact", saved[1])):
        forged = rewrite(file, tmp_path / f"persona-{kind}.parley", persona=persona)
        with pytest.raises(ConversationFileError, match="not the name of a voice"):
            open_conversation(model, forged)
        with pytest.raises(ConversationFileError, match="not the name of a voice"):
            read_conversation_info(forged)  # the library lists it as damaged


# ---- 3. values: sampling settings, model configs, voices ---------------------------------------

@pytest.mark.parametrize("settings, why", [
    ({"temp": float("nan")}, "temp must be a number"), ({"temp_text": float("inf")}, "temp_text"),
    ({"top_k": 2.5}, "top_k must be an integer"), ({"top_k_text": True}, "top_k_text"),
    ({"temp": -1}, "temp"), ({"top_k": 10**12}, "top_k"), ({"temp": "0.8"}, "temp"),
])
def test_sampling_settings_are_checked_at_construction(settings, why):
    with pytest.raises(ValueError, match=why):
        SamplingConfig(**settings)


@pytest.mark.parametrize("change, field, file_says", [
    ({"context": 1e8}, "context", "'context' is 100000000.0"),  # asked for 153.6 GB at session start
    ({"context": 10**8}, "context", "'context' is 100000000"), ({"dim": 2.5}, "dim", "'dim'"),
    ({"num_layers": True}, "num_layers", "'num_layers'"), ({"delays": "abc"}, "delays", "'delays'"),
    ({"delays": [float("inf")] * 17}, "delays", "Infinity is not a number"),
    ({"hidden_scale": float("nan")}, "hidden_scale", "NaN is not a number"),
])
def test_a_model_config_out_of_bounds_is_refused_naming_the_field(demo_model_dir, tmp_path, change, field,
                                                                    file_says):
    folder = tmp_path / "model"
    folder.mkdir()
    for item in Path(demo_model_dir).iterdir():
        if item.name != "config.json":
            (folder / item.name).symlink_to(item)
    config = json.loads((Path(demo_model_dir) / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, **change}))
    with pytest.raises(ModelError, match=file_says):
        read_model_dir(folder)
    with pytest.raises(ValueError, match=f"'{field}'"):
        LMConfig.from_hub_config({**config, **change})


def test_a_voice_file_is_checked_for_values_and_sizes(tmp_path):
    cache = torch.zeros(1, 17, 4, dtype=torch.long)
    nan = tmp_path / "nan.pt"
    torch.save({"embeddings": torch.full((3, 1, 1, 8), float("nan")), "cache": cache}, nan)
    with pytest.raises(ValueError, match="NaN"):
        load_voice_prompt(nan, cache_dir=tmp_path / "cache")
    long = tmp_path / "long.pt"
    torch.save({"embeddings": torch.zeros(MAX_VOICE_FRAMES + 1, 1, 1, 8), "cache": cache}, long)
    with pytest.raises(ValueError, match="at most"):
        load_voice_prompt(long, cache_dir=tmp_path / "cache")


def test_voice_conversion_writes_only_into_the_cache_and_survives_an_unwritable_one(tmp_path):
    voices = tmp_path / "model" / "voices"
    voices.mkdir(parents=True)
    pt = voices / "NATF9.pt"
    torch.save({"embeddings": torch.zeros(3, 1, 1, 8), "cache": torch.zeros(1, 17, 4, dtype=torch.long)}, pt)
    cache = tmp_path / "cache"
    assert load_voice_prompt(pt, cache_dir=cache).embeddings.shape == (3, 1, 1, 8)
    written = list(cache.iterdir())
    assert len(written) == 1 and written[0].suffix == ".safetensors" and os.listdir(voices) == ["NATF9.pt"]
    blocked = tmp_path / "a-file"
    blocked.write_bytes(b"")  # a cache folder that cannot be made: the voice is usable all the same
    assert load_voice_prompt(pt, cache_dir=blocked / "voices").embeddings.shape == (3, 1, 1, 8)
    assert os.listdir(voices) == ["NATF9.pt"]


# ---- 4. names and permissions ------------------------------------------------------------------

def test_a_name_of_250_bytes_saves(tmp_path):
    path = tmp_path / ("n" * 243 + ".parley")
    assert len(path.name.encode()) == 250
    write_atomically(path, b"data")
    assert path.read_bytes() == b"data" and os.listdir(tmp_path) == [path.name]


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_conversations_and_journals_are_readable_by_the_user_only(model, saved):
    for path in saved:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name


# ---- 5. `parley offline` with crafted inputs -----------------------------------------------------

def test_parley_offline_gives_one_line_errors_for_crafted_inputs(tmp_path, capsys):
    """The inputs `parley offline` reads before the model (a crafted --resume file is open_conversation's,
    tested above with the model)."""
    from app.cli.command import build_parser
    from app.cli.offline import run_offline

    wav, flac = tmp_path / "in.wav", tmp_path / "in.flac"
    wav.write_bytes(wav_bytes(1, np.zeros(1000, np.int16)))
    flac.write_bytes(forged_flac(2000, 2**36 - 1))
    for path, why in ((wav, "sample rate of 1 Hz"), (flac, "at most 3600 s")):
        args = build_parser().parse_args(["offline", "--input", str(path), "--output", str(tmp_path / "out.wav"),
                                          "--model", "demo", "--device", "cpu"])
        assert run_offline(args) == 2
        err = capsys.readouterr().err.strip()
        assert why in err and len(err.splitlines()) == 1 and "--verbose" not in err
    assert not (tmp_path / "out.wav").exists()


def test_a_voices_token_cache_is_checked_against_the_models_cards():
    from engine.lm.generate import PersonaPlexGenerator
    from engine.lm.personaplex import VoicePrompt, run_prompt_phases
    from tests.test_personaplex import tiny_personaplex_lm

    lm = tiny_personaplex_lm()
    gen = PersonaPlexGenerator(lm, SamplingConfig.greedy())
    state = gen.init_state(1)
    cache = state["tokens"]["cache"].clone()
    cache[0, 3, 0] = 10**9  # an audio id past the card: an IndexError (a device assert on CUDA) at the next step
    voice = VoicePrompt(embeddings=torch.zeros(2, 1, 1, lm.config.dim), cache=cache)
    before = state["tokens"]["cache"].clone()
    with pytest.raises(ValueError, match="outside this model's cards"):
        run_prompt_phases(gen, state, voice, [], silence_frames=0)
    assert torch.equal(state["tokens"]["cache"], before) and int(state["tokens"]["offset"]) == 1
