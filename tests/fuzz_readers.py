"""Property-based fuzzing of every reader of untrusted bytes (hypothesis): each reader, given a
valid file of its kind mutated (bytes flipped, set, cut, repeated; header fields replaced with any
JSON value) or plain random bytes, returns a value or raises its own clear error, within a time
and a memory budget proportional to the input's size, and changes no file but its own scratch
file.

``tests/test_fuzz_readers.py`` runs it briefly and deterministically in the normal suite;
``make fuzz`` runs it long (``PARLEY_FUZZ_EXAMPLES`` inputs per reader, randomised).
"""

from __future__ import annotations

import io
import json
import struct
import time
import tracemalloc
import wave
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np
from hypothesis import strategies as st

from engine.audio import SAMPLE_RATE, read_audio
from engine.errors import AudioFileError, ConversationFileError, ModelError
from engine.files import chat_conversation, compact, conversation, personas, untrusted
from engine.files import journal as jf
from engine.files import voices as voice_files
from engine.files.captions import FIELD, captions_field, read_captions, read_turn_ends
from engine.files.conversation_info import read_conversation_audio, read_conversation_info, read_conversation_summary
from engine.files.models import read_model_dir
from engine.files.subtitles import INVISIBLE
from engine.lm.generate import SamplingConfig

FINGERPRINT = "f" * 32
CAPTIONS = ((0.08, " hel"), (0.16, "lo\u202e"), (0.3, " w\x1bo"))  # a reordering mark and an escape: never exported
MAX_SECONDS = 30.0  # audio is read as a voice is: the bound of what its result may be
# A reader's budget for an input of n bytes: this much traced memory and time, at most.
BYTES_PER_INPUT_BYTE, BASE_BYTES = 64, 48 * 2**20
SECONDS_PER_MB, BASE_SECONDS = 2.0, 5.0


@dataclass(frozen=True)
class Reader:
    """One reader of untrusted bytes: ``read(path)`` of a file holding them, the errors it may raise
    (its own, each with a message), and valid files of its kind to mutate."""

    name: str
    file_name: str  # where the input is written, in a scratch folder
    read: Callable[[Path], object]
    errors: tuple[type[BaseException], ...]
    seeds: Callable[[], list[bytes]]


# ---- valid files of each kind -----------------------------------------------------------------

def _header() -> jf.JournalHeader:
    return jf.JournalHeader(model="demo", fingerprint=FINGERPRINT, sampling=SamplingConfig(), seed=7,
                            prompts={"voice": None, "text": None}, user_streams=8, token_streams=9, threads=2,
                            persona=personas.Persona("Tutor", voice="NATF2", role="a patient tutor"))


def _frames(n: int):
    rng = np.random.default_rng(3)
    return (rng.integers(0, 2048, (n, 8)), rng.integers(0, 2048, (n, 9)),
            (rng.integers(-3000, 3000, (n, 1920)) / 32768).astype(np.float32))


def _file_bytes(write: Callable[[Path], None]) -> bytes:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "seed"
        write(path)
        return path.read_bytes()


def full_seeds() -> list[bytes]:
    import torch

    meta = {"version": 1, "kind": "full", "model": "demo", "fingerprint": FINGERPRINT, "frames": 5,
            "generator_steps": 5, "decoded_frames": 4, "sampling": {"temp": 0.8, "temp_text": 0.7, "top_k": 250,
                                                                     "top_k_text": 25},
            "seed": 1, "prompts": {"voice": "NATF2", "text": "hi"}, "persona": _header().persona.as_json(),
            "transcript": [[3, 0.24, " hi"], [4, 0.32, " there"]], "app_version": "t",
            "created": "2026-01-01T00:00:00+00:00"}
    tensors = {"gen.offset": torch.tensor([5]), "audio.user": torch.zeros(64, dtype=torch.int16),
               "audio.assistant": torch.arange(64, dtype=torch.int16)}
    # Without captions, with a version 1 captions field, and with a version 2 one (turn ends).
    metas = [meta, {**meta, **captions_field(CAPTIONS, (), 5)}, {**meta, **captions_field(CAPTIONS, (0.2, 0.3), 5)}]
    return [_file_bytes(lambda p, m=m: conversation.write_conversation(p, tensors, m)) for m in metas]


def captions_seeds() -> list[bytes]:
    """The captions field alone, as JSON (every field of it is changed by ``json_field_changed``)."""
    return [json.dumps(captions_field(CAPTIONS, ends, 5)[FIELD]).encode() for ends in ((), (0.2, 0.3))]


def _read_captions_field(path: Path) -> object:
    """A captions field as a conversation's metadata holds it, read for a conversation of 5 frames."""
    try:
        meta = {FIELD: untrusted.parse_json(path.read_bytes())}
        return read_captions(meta, 5), read_turn_ends(meta, 5)
    except ValueError as e:
        raise ConversationFileError(f"captions: {e}") from e


def _exported(path: Path) -> object:
    """A conversation as the window shows it (``Transcript.load``) and every export of it: each
    export's text holds no control or reordering character but its own line breaks."""
    from app.conversation.transcript import Transcript
    from app.conversation.transcript_formats import FORMATS

    info = read_conversation_info(path)
    user, assistant = read_conversation_audio(path) if info.has_audio else (None, None)
    transcript = Transcript()
    transcript.load(info.transcript, user, assistant, captions=info.captions)
    for fmt in FORMATS:
        text = fmt.write(transcript.turns, transcript.pieces, info.model, datetime(2026, 1, 1), False)
        if fmt.suffix == ".json":
            text = json.dumps(json.loads(text), ensure_ascii=False)
        assert not INVISIBLE.search(text.replace("\n", "")), f"{fmt.suffix}: {text[:200]!r}"
    return transcript


def compact_seeds() -> list[bytes]:
    user, tokens, pcm = _frames(3)
    seeds = []
    for samples in (pcm, pcm + np.float32(1e-6)):  # 16-bit samples (FLAC), and float ones (PCM)
        tensors, meta = compact.compact_contents(_header(), user, tokens, samples.reshape(-1), [(1, 0.08, " a")])
        seeds.append(_file_bytes(lambda p, t=tensors, m=meta: conversation.write_conversation(p, t, m)))
    return seeds


def chat_seeds() -> list[bytes]:
    """A conversation with a language model: two frames, a tool call among its messages."""
    side = chat_conversation.LanguageModelSide("http://localhost:11434/v1", "llama3.2", "stt-1b-en_fr",
                                               "pocket-tts", "alba")
    messages = ({"role": "system", "content": "Be brief."}, {"role": "user", "content": "time?"},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "clock", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "noon"}, {"role": "assistant", "content": "Noon."})
    audio = (np.arange(2 * 1920) % 64 / 32768).astype(np.float32)
    conversation_of = chat_conversation.ChatConversation(side, messages, 2, ((1, 0.08, " Noon."),), CAPTIONS[:1],
                                                         (0.05,), audio, audio)
    return [_file_bytes(lambda p: chat_conversation.write_chat_conversation(p, conversation_of))]


def journal_seeds() -> list[bytes]:
    """Frames only; and frames with caption (C) and turn-end (E) records between them (version 4)."""
    user, tokens, pcm = _frames(3)
    start = jf.encode_start(_header())
    frames = [jf.encode_frame(i, user[i], tokens[i], pcm[i]) for i in range(3)]
    sides = [jf.encode_caption_record(CAPTIONS[0]) + jf.encode_turn_end_record(0.05),
             jf.encode_caption_record(CAPTIONS[1]), jf.encode_turn_end_record(0.2)]
    return [start + b"".join(frames), start + b"".join(f + side for f, side in zip(frames, sides))]


def persona_seeds() -> list[bytes]:
    return [json.dumps({"format": personas.FORMAT_NAME, "version": personas.FORMAT_VERSION,
                        **_header().persona.as_json()}).encode()]


def voice_seeds() -> list[bytes]:
    t = np.arange(SAMPLE_RATE // 2) / SAMPLE_RATE
    return [voice_files.recording_bytes((0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32))]


def wav_seeds() -> list[bytes]:
    seeds = []
    for rate, channels, width in ((44_100, 2, 2), (8_000, 1, 1), (48_000, 1, 3)):
        out = io.BytesIO()
        with wave.open(out, "wb") as w:
            w.setnchannels(channels)
            w.setsampwidth(width)
            w.setframerate(rate)
            w.writeframes(np.random.default_rng(rate).integers(0, 255, rate // 20 * channels * width,
                                                               dtype=np.uint8).tobytes())
        seeds.append(out.getvalue())
    return seeds


def libsndfile_seeds() -> list[bytes]:
    import soundfile

    seeds = []
    pcm = (0.3 * np.sin(np.arange(4800) / 7)).astype(np.float32)
    for fmt, subtype in (("FLAC", "PCM_16"), ("OGG", "VORBIS"), ("MP3", "MPEG_LAYER_III")):
        out = io.BytesIO()
        try:
            soundfile.write(out, pcm, SAMPLE_RATE, format=fmt, subtype=subtype)
        except (soundfile.LibsndfileError, ValueError, TypeError):  # a libsndfile built without it
            continue
        seeds.append(out.getvalue())
    return seeds


def model_config_seeds() -> list[bytes]:
    from engine.files.demo import load_recipe

    return [json.dumps(load_recipe()["config"]).encode()]


def prompt_cache_seeds() -> list[bytes]:
    import torch
    from safetensors.torch import save

    codes = torch.arange(32, dtype=torch.long).view(4, 8)
    return [save({"codes": codes}, metadata={"format": voice_files.PROMPT_FORMAT, "codec": "k" * 32,
                                             "recording": "d" * 64, "checksum": voice_files._checksum(codes)})]


def settings_seeds() -> list[bytes]:
    return [b"[General]\nmodel=demo\ndevice=cpu\nopen_mic=true\nrecent_files=/a.parley, /b.parley\n"
            b"persona=Tutor\nfile_kind=compact\n"]


# ---- how each reader is called ------------------------------------------------------------------

def _read_settings(path: Path) -> object:
    """As the app opens its settings: looked at first (``settings_problem``: a pipe, a device, a
    folder or an oversized file is named, never read), then read by QSettings."""
    from PySide6.QtCore import QSettings

    from app.settings import load_settings, settings_problem

    return settings_problem(path) or load_settings(QSettings(str(path), QSettings.IniFormat))


def _read_prompt_cache(path: Path) -> object:
    return voice_files.read_prompt_cache(path, "k" * 32, "d" * 64, 4, 2048)


READERS = (
    Reader("conversation (full)", "c.parley", lambda p: conversation.read_conversation(p), (ConversationFileError,),
           full_seeds),
    Reader("conversation list row", "c.parley", read_conversation_summary, (ConversationFileError,), full_seeds),
    Reader("conversation info", "c.parley", read_conversation_info, (ConversationFileError,), full_seeds),
    Reader("chat conversation", "c.parley", chat_conversation.read_chat_conversation, (ConversationFileError,),
           chat_seeds),
    Reader("compact conversation", "c.parley", lambda p: compact.read_compact(p, FINGERPRINT), (ConversationFileError,),
           compact_seeds),
    Reader("journal", "j.journal", jf.read_journal, (ConversationFileError,), journal_seeds),
    Reader("journal scan", "j.journal", jf.scan_journal, (ConversationFileError,), journal_seeds),
    Reader("captions field", "captions.json", _read_captions_field, (ConversationFileError,), captions_seeds),
    Reader("exports", "c.parley", _exported, (ConversationFileError,), full_seeds),
    Reader("persona", "Tutor.persona.json", lambda p: personas.read_persona_file(p, "Tutor"), (ValueError,),
           persona_seeds),
    Reader("voice recording", "Voice.wav", voice_files.read_recording, (AudioFileError,), voice_seeds),
    Reader("voice prompt cache", "Voice.k.safetensors", _read_prompt_cache, (ValueError,),
           prompt_cache_seeds),
    Reader("WAV", "in.wav", lambda p: read_audio(p, max_seconds=MAX_SECONDS), (AudioFileError,), wav_seeds),
    Reader("FLAC/Ogg/MP3", "in.audio", lambda p: read_audio(p, max_seconds=MAX_SECONDS), (AudioFileError,),
           libsndfile_seeds),
    Reader("model config", "model/config.json", lambda p: read_model_dir(p.parent), (ModelError,),
           model_config_seeds),
    Reader("settings", "settings.ini", _read_settings, (), settings_seeds),
)


# ---- inputs -------------------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40) | st.sampled_from(["1e400", "NaN", "-Infinity", "[" * 3000, "/dev/zero", "../x"]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=5),
    max_leaves=20)


@st.composite
def mutated(draw, seeds: list[bytes]) -> bytes:
    """A seed with a few byte-level changes: set, flip, cut short, cut out, repeated, inserted."""
    data = bytearray(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, max(0, len(data) - 1)))
        kind = draw(st.sampled_from(["set", "flip", "truncate", "delete", "repeat", "insert", "number"]))
        if kind == "set" and data:
            data[at] = draw(st.integers(0, 255))
        elif kind == "flip" and data:
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "truncate":
            del data[at:]
        elif kind == "delete":
            del data[at:at + draw(st.integers(1, 64))]
        elif kind == "repeat":
            data[at:at] = data[at:at + draw(st.integers(1, 256))] * draw(st.integers(1, 8))
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=32))
        elif kind == "number" and len(data) >= at + 4:  # a length or count field: the values that break readers
            value = draw(st.sampled_from([0, 1, 2**31 - 1, 2**31, 2**32 - 1, 0x7FFFFFFF, len(data), len(data) + 1]))
            data[at:at + 4] = struct.pack("<I", value)
    return bytes(data)


@st.composite
def json_field_changed(draw, seeds: list[bytes]) -> bytes:
    """A seed whose JSON (a safetensors header's Parley metadata, a journal's header record, a
    JSON file) has one field replaced, or added, with any JSON value or raw text."""
    seed = draw(st.sampled_from(seeds))
    located = _json_of(seed)
    if located is None:
        return seed
    start, end, text, wrap = located
    try:
        obj = json.loads(text)
    except ValueError:
        return seed
    if not isinstance(obj, dict):
        return seed
    key = draw(st.sampled_from(sorted(obj)) | st.text(max_size=10))
    value = draw(JSON_VALUES)
    raw = value if isinstance(value, str) and value[:1] in "[1N-/." and draw(st.booleans()) else json.dumps(value)
    fields = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in obj.items() if k != key] + [f"{json.dumps(key)}: {raw}"]
    return wrap(seed, start, end, "{" + ", ".join(fields) + "}")


def _json_of(data: bytes):
    """Where the JSON to change lies in a file: (start, end, text, rebuild(seed, start, end, text))."""
    if data[:1] == b"{" or data[:1] == b"[":
        return 0, len(data), data.decode("utf-8", "replace"), lambda seed, s, e, t: t.encode()
    if data.startswith(jf.MAGIC):
        n = struct.unpack("<I", data[len(jf.MAGIC):len(jf.MAGIC) + 4])[0]
        start = len(jf.MAGIC) + jf._PREFIX.size

        def journal(seed, s, e, text):
            return seed[:len(jf.MAGIC)] + jf._record(jf._HEADER, text.encode()) + seed[e + jf._CRC.size:]
        return start, start + n, data[start:start + n].decode("utf-8", "replace"), journal
    if len(data) > 8:
        n = struct.unpack("<Q", data[:8])[0]
        try:
            outer = json.loads(data[8:8 + n])
            inner = outer["__metadata__"]["parley"]
        except (ValueError, KeyError, TypeError):
            return None

        def container(seed, s, e, text):
            header = json.loads(seed[8:8 + n])
            header["__metadata__"]["parley"] = text
            body = json.dumps(header).encode()
            return struct.pack("<Q", len(body)) + body + seed[8 + n:]
        return 0, 0, inner, container
    return None


def inputs(reader: Reader) -> st.SearchStrategy[bytes]:
    seeds = reader.seeds()
    random = st.binary(max_size=4096)
    if not seeds:
        return random
    return st.one_of(mutated(seeds), json_field_changed(seeds), random)


# ---- the contract ---------------------------------------------------------------------------------

def check(reader: Reader, data: bytes, folder: Path) -> str:
    """Run ``reader`` on ``data``; assert the contract; returns "ok" or the error type's name."""
    path = folder / reader.file_name
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data)
    before = sorted(p.relative_to(folder) for p in folder.rglob("*"))
    tracemalloc.start()
    started = time.perf_counter()
    try:
        reader.read(path)
        outcome = "ok"
    except reader.errors as e:
        assert str(e).strip(), f"{reader.name}: {type(e).__name__} without a message"
        outcome = type(e).__name__
    finally:
        seconds = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    size = len(data)
    assert peak <= BYTES_PER_INPUT_BYTE * size + BASE_BYTES, f"{reader.name}: {peak} bytes traced for {size}"
    assert seconds <= SECONDS_PER_MB * size / 2**20 + BASE_SECONDS, f"{reader.name}: {seconds:.1f} s for {size}"
    assert path.read_bytes() == data, f"{reader.name} changed its input"
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == before, f"{reader.name} made or removed a file"
    return outcome
