"""Crash journals: an append-only record of everything a conversation's state is a function of
(the user's audio, the model's tokens, the start settings; sampling has no hidden RNG state), so
``engine.runtime.replay`` can rebuild the state after a crash.

Layout: the 8-byte magic, then records ``<u32 payload length><u8 kind><payload><u32 crc32>``
(little endian; the CRC covers length, kind and payload). The first is the header (``H``, JSON);
each frame record holds ``<u32 frame index>``, the user's codes and the generator's tokens (int32)
and the exact samples the codec encoded (``S``: 16-bit PCM, ``F``: float32). ``C`` (caption) and
``E`` (turn end) records sit between frames; the state does not depend on them.

Reading stops at the first cut, corrupt or out-of-order record, keeping every whole frame before it
(a crash can damage only the tail); a bad caption or turn-end record is left out and counted.
"""

from __future__ import annotations

import io
import json
import logging
import os
import queue
import struct
import threading
import zlib
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import BinaryIO

import numpy as np

from ..atomic import open_private
from ..audio import FRAME_SECONDS, FRAME_SIZE, PCM16, SAMPLE_RATE, exact_int16, int16_to_pcm
from ..errors import ConversationFileError
from ..lm.generate import SamplingConfig
from ..regular_files import open_regular
from ..version import VERSION
from . import untrusted
from .captions import Caption, decode_caption, decode_turn_end, encode_caption, encode_turn_end, most
from .personas import Persona, persona_field, read_header_persona

log = logging.getLogger(__name__)

MAGIC = b"PARLEYJ\x01"
FORMAT_NAME = "parley.journal"
FORMAT_VERSION = 4  # 2: frames of 16-bit samples (kind S); 3: captions (kind C); 4: turn ends (kind E)
MAX_HEADER_BYTES = 1 << 20
MAX_STREAMS = 64
MAX_THREADS = 4096  # torch CPU threads a journal may ask a replay to run with
FSYNC_SECONDS = 2.0  # the most audio a power cut may lose
FSYNC_FRAMES = max(1, int(FSYNC_SECONDS / FRAME_SECONDS))
_PREFIX = struct.Struct("<IB")  # payload length, record kind
_CRC = struct.Struct("<I")
_HEADER, _FRAME, _FRAME_16, _CAPTION, _TURN_END = ord("H"), ord("F"), ord("S"), ord("C"), ord("E")
_SAMPLES = {_FRAME: np.dtype("<f4"), _FRAME_16: PCM16}  # a frame record's kind -> how its samples are stored


@dataclass(frozen=True)
class JournalHeader:
    """What a conversation starts from; ``user_streams``/``token_streams`` fix the frame size."""

    model: str
    fingerprint: str
    sampling: SamplingConfig
    seed: int
    prompts: dict
    user_streams: int
    token_streams: int
    # torch CPU threads the conversation ran with (0: unknown): a bit-identical replay needs as many.
    threads: int = 0
    persona: Persona | None = None  # who the assistant is (None: a conversation without a persona)

    @classmethod
    def from_meta(cls, meta: dict) -> JournalHeader:
        """The header from a journal's or compact file's untrusted metadata (``ValueError`` if wrong)."""
        return cls(model=untrusted.text(meta, "model", untrusted.MAX_NAME_CHARS * 16),
                   fingerprint=untrusted.text(meta, "fingerprint", untrusted.MAX_NAME_CHARS),
                   sampling=untrusted.sampling(meta), seed=untrusted.integer(meta, "seed", *untrusted.INT64),
                   prompts=untrusted.prompts(meta),
                   user_streams=untrusted.integer(meta, "user_streams", 1, MAX_STREAMS),
                   token_streams=untrusted.integer(meta, "token_streams", 1, MAX_STREAMS),
                   threads=untrusted.integer(meta, "threads", 0, MAX_THREADS, default=0),
                   persona=read_header_persona(meta))

    def to_json(self) -> bytes:
        fields = {key: value for key, value in asdict(self).items() if key != "persona"}
        body = {"format": FORMAT_NAME, "version": FORMAT_VERSION, **fields, **persona_field(self.persona),
                "sample_rate": SAMPLE_RATE, "frame_size": FRAME_SIZE, "app_version": VERSION,
                "created": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        return json.dumps(body).encode("utf-8")

    @property
    def frame_head_bytes(self) -> int:
        """Bytes of a frame record's payload before its samples: the index, codes and tokens."""
        return 4 * (1 + self.user_streams + self.token_streams)

    def frame_bytes(self, kind: int) -> int:
        """Payload size of one frame record of ``kind``."""
        return self.frame_head_bytes + _SAMPLES[kind].itemsize * FRAME_SIZE


@dataclass(frozen=True)
class Journal:
    """A journal as read: its header and the whole frames before any damage, in order."""

    header: JournalHeader
    user_codes: np.ndarray  # int64 [frames, user_streams]
    tokens: np.ndarray  # int64 [frames, token_streams]: what the generator wrote, text first
    pcm: np.ndarray  # float32 [frames, FRAME_SIZE]
    lost_frames: int  # frames in the damaged tail (whole records' worth of its bytes, rounded up)
    damage: str | None  # why reading stopped early; None for an intact journal
    captions: tuple[Caption, ...] = ()  # the person's captions, in the order they were journaled
    turn_ends: tuple[float, ...] = ()  # where the caption model said the person's turn ended (seconds)
    dropped_captions: int = 0  # whole caption or turn-end records left out (wrong contents, too many in a frame)

    @property
    def frames(self) -> int:
        return len(self.pcm)


@dataclass(frozen=True)
class JournalScan:
    """What an offer to recover needs: the header, the whole frames and any damage (as in ``Journal``)."""

    header: JournalHeader
    frames: int
    lost_frames: int
    damage: str | None


def _record(kind: int, payload: bytes) -> bytes:
    prefix = _PREFIX.pack(len(payload), kind)
    return prefix + payload + _CRC.pack(zlib.crc32(payload, zlib.crc32(prefix)))


def encode_frame(index: int, user_codes: np.ndarray, tokens: np.ndarray, pcm: np.ndarray) -> bytes:
    """A frame record: 16-bit samples where ``pcm`` holds only 16-bit values, float32 otherwise."""
    pcm = np.asarray(pcm, np.float32)
    ints = exact_int16(pcm)
    kind, samples = (_FRAME_16, ints) if ints is not None else (_FRAME, pcm.astype("<f4"))
    payload = (struct.pack("<I", index) + np.asarray(user_codes, "<i4").tobytes()
               + np.asarray(tokens, "<i4").tobytes() + samples.tobytes())
    return _record(kind, payload)


def encode_caption_record(caption: Caption) -> bytes:
    return _record(_CAPTION, encode_caption(caption))


def encode_turn_end_record(seconds: float) -> bytes:
    return _record(_TURN_END, encode_turn_end(seconds))


def encode_start(header: JournalHeader) -> bytes:
    """The magic and the header record: the first bytes of every journal."""
    return MAGIC + _record(_HEADER, header.to_json())


def read_journal(path: str | os.PathLike) -> Journal:
    """Read a journal, keeping every whole frame before the first damage, a record at a time.
    ``ConversationFileError`` only when nothing can be recovered (not a journal, bad header, newer format)."""
    return _open_and_read(path, keep=True)


def scan_journal(path: str | os.PathLike) -> JournalScan:
    """``read_journal``'s frame count and damage, in memory that does not grow with the journal."""
    return _open_and_read(path, keep=False)


def _open_and_read(path: str | os.PathLike, keep: bool):
    path = Path(path)
    try:
        with open_regular(path) as f:
            return read_journal_from(f, os.fstat(f.fileno()).st_size, path.name, keep)
    except (OSError, ValueError) as e:  # ValueError: a NUL in the name
        raise ConversationFileError(f"cannot read the journal {path}: {getattr(e, 'strerror', None) or e}") from e
    except MemoryError:
        raise ConversationFileError(f"the journal {path} is too large to read into this machine's memory") from None


def parse_journal(data: bytes, name: str = "journal") -> Journal:
    """``read_journal`` of bytes in memory."""
    return read_journal_from(io.BytesIO(data), len(data), name)


def read_journal_from(f: BinaryIO, size: int, name: str = "journal", keep: bool = True):
    """A ``Journal`` from the stream ``f`` of ``size`` bytes (with ``keep`` False, a ``JournalScan``)."""
    if f.read(len(MAGIC)) != MAGIC:
        raise ConversationFileError(f"{name} is not a Parley journal (or its start is damaged): nothing "
                                    "can be recovered from it.")
    kind, payload, _prefix, why = _next_record(f, MAX_HEADER_BYTES)
    if why is not None or kind != _HEADER:
        raise ConversationFileError(f"{name}: the journal's header is damaged ({why or 'no header'}); "
                                    "nothing can be recovered from it.")
    header = _parse_header(payload, name)
    sizes = {kind: header.frame_bytes(kind) for kind in _SAMPLES}
    frames = _Frames(header, keep)
    damage, lost, pos = None, 0, f.tell()
    while pos < size:
        kind, payload, prefix, why = _next_record(f, max(sizes.values()))
        if why is None and kind in (_CAPTION, _TURN_END):  # dated by the frames before it; the frames do not need it
            frames.side_record(kind, payload)
            pos = f.tell()
            continue
        if why is None and (kind not in sizes or len(payload) != sizes[kind]):
            why = "an unexpected record"
        if why is None and struct.unpack_from("<I", payload)[0] != frames.count:
            why = f"frame {struct.unpack_from('<I', payload)[0]} where frame {frames.count} belongs"
        if why is None and kind == _FRAME and not np.isfinite(np.frombuffer(payload, _SAMPLES[kind],
                                                                            offset=header.frame_head_bytes)).all():
            why = "NaN or infinite samples"
        if why is not None:
            damage = f"{why} after frame {frames.count} (byte {pos})"
            lost = _lost_frames(prefix, size - pos, sizes, frames.last_kind)
            break
        frames.add(kind, payload)
        pos = f.tell()
    if not keep:
        return JournalScan(header, frames.count, lost, damage)
    return Journal(header, *frames.arrays(), lost_frames=lost, damage=damage, captions=tuple(frames.captions),
                   turn_ends=tuple(frames.turn_ends), dropped_captions=frames.dropped)


def _lost_frames(prefix: bytes, tail_bytes: int, sizes: dict[int, int], last_kind: int) -> int:
    """Frames in a damaged tail: whole frame records' worth, rounded up; a caption or turn-end
    record at its start is not counted."""
    kind = prefix[-1] if len(prefix) == _PREFIX.size else None
    if kind in (_CAPTION, _TURN_END):
        length = _PREFIX.size + _PREFIX.unpack(prefix)[0] + _CRC.size
        tail_bytes -= length if length <= tail_bytes else 0
    record = _PREFIX.size + sizes[kind if kind in _SAMPLES else last_kind] + _CRC.size
    return -(-tail_bytes // record)


def _next_record(f: BinaryIO, max_payload: int) -> tuple[int, bytes, bytes, str | None]:
    """(kind, payload, prefix, None), or (0, b"", prefix, why) for a cut or damaged record; a length
    over ``max_payload`` is refused before its payload is read."""
    prefix = f.read(_PREFIX.size)
    if len(prefix) < _PREFIX.size:
        return 0, b"", prefix, "a cut record"
    n, kind = _PREFIX.unpack(prefix)
    if n > max_payload:
        return 0, b"", prefix, "a damaged record length"
    rest = f.read(n + _CRC.size)
    if len(rest) < n + _CRC.size:
        return 0, b"", prefix, "a cut record"
    body = rest[:n]
    if _CRC.unpack_from(rest, n)[0] != zlib.crc32(body, zlib.crc32(prefix)):
        return 0, b"", prefix, "a checksum mismatch"
    return kind, body, prefix, None


class _Frames:
    """The whole frames read so far, decoded as they come; without ``keep`` only counted."""

    def __init__(self, header: JournalHeader, keep: bool = True):
        self.header, self.keep = header, keep
        self.heads: list[np.ndarray] = []
        self.pcm: list[np.ndarray] = []
        self.frames = 0
        self.captions: list[Caption] = []
        self.turn_ends: list[float] = []
        self.dropped = 0  # side records left out
        self.last_kind = _FRAME_16  # what a damaged tail is counted in when nothing says otherwise

    def side_record(self, kind: int, payload: bytes) -> None:
        """Keep a caption or turn-end record if valid and within ``captions.most``; else count it dropped."""
        if not self.keep:
            return
        decode, kept = (decode_caption, self.captions) if kind == _CAPTION else (decode_turn_end, self.turn_ends)
        if len(kept) >= most(self.count):  # more than the frames so far hold: no captioner writes them
            self.dropped += 1
            return
        try:
            item = decode(payload, self.count)
        except ValueError as e:
            self.dropped += 1
            log.warning("a damaged %s record after frame %d left out (%s)",
                        "caption" if kind == _CAPTION else "turn end", self.count, e)
            return
        kept.append(item)

    @property
    def count(self) -> int:
        return self.frames

    def add(self, kind: int, payload: bytes) -> None:
        self.frames += 1
        self.last_kind = kind
        if not self.keep:
            return
        head = self.header.frame_head_bytes
        self.heads.append(np.frombuffer(payload[:head], "<i4"))
        samples = np.frombuffer(payload, _SAMPLES[kind], offset=head)
        self.pcm.append(int16_to_pcm(samples) if kind == _FRAME_16 else samples.astype(np.float32))

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        u, t = self.header.user_streams, self.header.token_streams
        heads = np.stack(self.heads) if self.heads else np.empty((0, 1 + u + t), "<i4")
        pcm = np.stack(self.pcm) if self.pcm else np.empty((0, FRAME_SIZE), np.float32)
        self.heads, self.pcm = [], []
        return heads[:, 1:1 + u].astype(np.int64), heads[:, 1 + u:].astype(np.int64), pcm


def _parse_header(payload: bytes, name: str) -> JournalHeader:
    try:
        meta = untrusted.parse_json_object(payload)
        if meta.get("format") != FORMAT_NAME:
            raise ValueError("not a journal header")
        version = untrusted.integer(meta, "version", 1, 2**31)
    except ValueError as e:
        raise ConversationFileError(f"{name}: the journal's header is unreadable ({e}).") from e
    if version > FORMAT_VERSION:
        raise ConversationFileError(f"{name} was written by a newer Parley (journal version {version}; this "
                                    f"one reads up to {FORMAT_VERSION}). Update Parley to recover it.")
    try:
        if meta.get("sample_rate") != SAMPLE_RATE or meta.get("frame_size") != FRAME_SIZE:
            raise ValueError("another audio format")
        header = JournalHeader.from_meta(meta)
    except ValueError as e:
        raise ConversationFileError(f"{name}: the journal's header has damaged fields ({e}).") from e
    return header


@dataclass(frozen=True)
class _CaptionItem:
    """A caption or turn-end record, encoded, queued for the writer thread (frames are queued as tuples)."""

    record: bytes


class JournalWriter:
    """Appends frames to a new journal from a thread of its own: ``append`` never blocks on the disk,
    and a write error stops journaling (kept in ``error``) without reaching the caller's frame loop."""

    def __init__(self, path: str | os.PathLike, header: JournalHeader, fsync_frames: int = FSYNC_FRAMES):
        self.path, self.header = Path(path), header
        self.fsync_frames = fsync_frames
        self.error: str | None = None
        self.frames_written = 0
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._file = open_private(self.path)
        try:
            self._file.write(encode_start(header))
            self._sync()
        except BaseException:
            self._file.close()
            raise
        self._thread = threading.Thread(target=self._run, name="parley-journal", daemon=True)
        self._thread.start()

    def append(self, index: int, user_codes: np.ndarray, tokens: np.ndarray, pcm: np.ndarray) -> None:
        """Queue one frame (the arrays must not change afterwards: pass copies)."""
        self._queue.put((index, user_codes, tokens, pcm))

    def append_caption(self, caption: Caption) -> None:
        """Queue one caption piece, heard in a frame appended before it."""
        self._queue.put(_CaptionItem(encode_caption_record(caption)))

    def append_turn_end(self, seconds: float) -> None:
        """Queue one turn end (``engine.runtime.voice_activity``), in a frame appended before it."""
        self._queue.put(_CaptionItem(encode_turn_end_record(seconds)))

    def close(self, remove: bool = False) -> None:
        """Write what is queued, fsync and close (idempotent), then delete if ``remove``; never raises."""
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join()
        if not self._file.closed:
            try:
                self._sync()
            except OSError as e:
                self._fail(e)
            try:  # what a failed write left in the buffer is flushed again, and fails again: best effort
                self._file.close()
            except OSError as e:
                self._fail(e)
        if remove:
            self.path.unlink(missing_ok=True)

    def _run(self) -> None:
        unsynced = 0
        while True:
            items = [self._queue.get()]
            while True:  # drain: one write to the OS for everything queued
                try:
                    items.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            done = items[-1] is None
            records = [item for item in items if item is not None]
            frames = [item for item in records if not isinstance(item, _CaptionItem)]
            if self.error is None and records:
                try:
                    self._file.write(b"".join(item.record if isinstance(item, _CaptionItem)
                                              else encode_frame(*item) for item in records))
                    self._file.flush()
                    unsynced += len(frames)
                    self.frames_written += len(frames)
                    if unsynced >= self.fsync_frames:
                        os.fsync(self._file.fileno())
                        unsynced = 0
                except OSError as e:
                    self._fail(e)
            if done:
                return

    def _sync(self) -> None:
        self._file.flush()
        os.fsync(self._file.fileno())

    def _fail(self, e: OSError) -> None:
        self.error = f"journal {self.path} could not be written: {e.strerror or e}"
        log.error(self.error)
