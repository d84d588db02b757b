"""Audio files in and out: any rate and channel count in, 24 kHz mono float32 for the engine; 16-bit
PCM WAV out, atomically. WAV is parsed here, other formats are decoded by libsndfile. Rate, channels
and length are checked from the header before decoding (a 2 KB WAV declaring 1 Hz would become 96 MB),
and samples are decoded, averaged and resampled a block at a time, so memory is the result's and a block's."""

from __future__ import annotations

import io
import os
import struct
import wave
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np

from .atomic import write_atomically
from .errors import AudioFileError
from .regular_files import open_regular

SAMPLE_RATE = 24_000  # Mimi's rate: everything the engine takes and gives is 24 kHz mono
FRAME_SIZE = 1920  # samples per model frame (Mimi's 12.5 Hz)
FRAME_SECONDS = FRAME_SIZE / SAMPLE_RATE  # 0.08
FRAME_MS = 1000.0 * FRAME_SECONDS
PCM16 = np.dtype("<i2")  # the samples of every file Parley writes

_PCM, _FLOAT, _EXTENSIBLE = 0x0001, 0x0003, 0xFFFE
MIN_RATE, MAX_RATE = 8_000, 192_000  # the sample rates of audio files Parley reads
MAX_CHANNELS = 8
MAX_INPUT_SECONDS = 3600.0  # the longest recording read as a conversation's input


BLOCK_FRAMES = 1 << 16  # decoded a block at a time: at most 4 MB of samples beside the result
_MAX_FMT_BYTES = 1 << 10  # a 'fmt ' chunk is 16-40 bytes


@dataclass(frozen=True)
class _Stream:
    """An audio file checked from its header; ``read(n)`` gives the next at most ``n`` frames [m, channels]."""

    rate: int
    channels: int
    frames: int
    read: Callable[[int], np.ndarray]
    longer: Callable[[], bool] = lambda: False  # whether the file holds audio past ``frames``


def read_wav(path: str | os.PathLike, sample_rate: int = SAMPLE_RATE, max_seconds: float = MAX_INPUT_SECONDS,
             keep_first: bool = False) -> np.ndarray:
    """A WAV file as float32 mono at ``sample_rate``. Longer than ``max_seconds``: refused before
    decoding, or with ``keep_first`` only its first ``max_seconds`` read."""
    name = os.fspath(path)
    with _open(path) as f:
        return _bounded(name, lambda: _decoded(_wav_stream(f, name, max_seconds, keep_first), name, sample_rate))


def wav_samples(data: bytes, name: str, sample_rate: int = SAMPLE_RATE,
                max_seconds: float = MAX_INPUT_SECONDS) -> np.ndarray:
    """``read_wav`` of a file's bytes (``name`` is what error messages call it)."""
    f = io.BytesIO(data)
    return _bounded(name, lambda: _decoded(_wav_stream(f, name, max_seconds, False), name, sample_rate))


def read_audio(path: str | os.PathLike, sample_rate: int = SAMPLE_RATE, max_seconds: float = MAX_INPUT_SECONDS,
               keep_first: bool = False) -> np.ndarray:
    """Any common audio file (WAV, FLAC, Ogg, MP3, ...) as ``read_wav`` reads a WAV one."""
    name = os.fspath(path)
    with _open(path) as f:
        head = f.read(12)
        f.seek(0)
        if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
            return _bounded(name, lambda: _decoded(_wav_stream(f, name, max_seconds, keep_first), name, sample_rate))
        return _bounded(name, lambda: _libsndfile_decoded(f, name, max_seconds, keep_first, sample_rate))


def _open(path: str | os.PathLike) -> BinaryIO:
    try:
        return open_regular(path)
    except (OSError, ValueError) as e:  # ValueError: a NUL in the name
        raise AudioFileError(f"cannot read audio file {os.fspath(path)!r}: "
                             f"{getattr(e, 'strerror', None) or e}") from e


def _bounded(name: str, read: Callable[[], np.ndarray]) -> np.ndarray:
    try:
        return read()
    except MemoryError:
        raise AudioFileError(f"{name!r} is too large to decode in this machine's memory") from None
    except OSError as e:  # a read of the open file failed
        raise AudioFileError(f"cannot read audio file {name!r}: {e.strerror or e}") from e


def _check_format(name: str, rate: int, channels: int) -> None:
    """Refuse, before decoding, a rate or channel count outside what Parley reads."""
    if not MIN_RATE <= rate <= MAX_RATE:
        raise AudioFileError(f"{name!r} has a sample rate of {rate} Hz; Parley reads {MIN_RATE}-{MAX_RATE} Hz")
    if not 1 <= channels <= MAX_CHANNELS:
        raise AudioFileError(f"{name!r} has {channels} channels; Parley reads 1-{MAX_CHANNELS}")


def _too_long(name: str, length: str, max_seconds: float) -> AudioFileError:
    return AudioFileError(f"{name!r} is {length} long; at most {max_seconds:.0f} s can be read here")


def _frames_to_read(name: str, rate: int, frames: int, max_seconds: float, keep_first: bool) -> int:
    """At most ``max_seconds``' worth of ``frames`` (more is refused unless ``keep_first``)."""
    limit = int(max_seconds * rate)
    if frames > limit and not keep_first:
        raise _too_long(name, f"{frames / rate:.0f} s", max_seconds)
    return min(frames, limit)


def _decoded(stream: _Stream, name: str, sample_rate: int) -> np.ndarray:
    """The stream's frames, a block at a time: channels averaged, resampled to ``sample_rate``."""
    resampler = None
    if stream.rate != sample_rate:
        import soxr  # here, not at the top: ``import engine`` works where soxr is missing (the GPU image)

        resampler = soxr.ResampleStream(stream.rate, sample_rate, 1, dtype="float32")
    pieces, done = [], 0
    while done < stream.frames:
        block = stream.read(min(BLOCK_FRAMES, stream.frames - done))
        if block.shape[0] == 0:
            break
        done += block.shape[0]
        mono = block.mean(axis=1, dtype=np.float64) if block.shape[1] > 1 else block[:, 0]
        mono = np.ascontiguousarray(mono, dtype=np.float32)
        pieces.append(resampler.resample_chunk(mono) if resampler is not None else mono)
    if done == 0:
        raise AudioFileError(f"{name!r} contains no audio")
    if stream.longer():
        raise _too_long(name, f"more than {done / stream.rate:.0f} s", done / stream.rate)
    if resampler is not None:
        pieces.append(resampler.resample_chunk(np.zeros(0, np.float32), last=True))
    return np.concatenate(pieces) if len(pieces) > 1 else pieces[0]


def _libsndfile_decoded(f: BinaryIO, name: str, max_seconds: float, keep_first: bool,
                        sample_rate: int) -> np.ndarray:
    import soundfile  # imported here: only non-WAV files need libsndfile

    try:
        with soundfile.SoundFile(f) as sound:
            rate, channels = int(sound.samplerate), int(sound.channels)
            _check_format(name, rate, channels)
            _frames_to_read(name, rate, max(sound.frames, 0), max_seconds, keep_first)  # what the header says
            # A header may understate the length: whatever it says, no more than the limit is read.
            stream = _Stream(rate, channels, int(max_seconds * rate),
                             lambda n: sound.read(n, dtype="float32", always_2d=True),
                             lambda: not keep_first and sound.read(1, dtype="float32", always_2d=True).shape[0] > 0)
            return _decoded(stream, name, sample_rate)
    except (RuntimeError, TypeError) as e:  # soundfile.LibsndfileError is a RuntimeError
        raise AudioFileError(f"{name!r} is not an audio file that can be decoded (WAV, FLAC, Ogg, MP3, ...): "
                             f"{e}") from e


def _wav_stream(f: BinaryIO, name: str, max_seconds: float, keep_first: bool) -> _Stream:
    """A RIFF/WAVE file's samples as a ``_Stream``, its header checked before any sample is read."""
    fmt, data_at, data_size = _wav_layout(f, name)
    if len(fmt) < 16:
        raise AudioFileError(f"{name!r} is a corrupt WAV file: 'fmt ' chunk too short")
    tag, channels, rate, _, block_align, bits = struct.unpack("<HHIIHH", fmt[:16])
    if tag == _EXTENSIBLE:
        if len(fmt) < 26:
            raise AudioFileError(f"{name!r} is a corrupt WAV file: extensible 'fmt ' chunk too short")
        tag = struct.unpack("<H", fmt[24:26])[0]  # first two bytes of the sub-format GUID
    width = bits // 8
    if channels == 0 or rate == 0 or bits % 8 or block_align != channels * width:
        raise AudioFileError(f"{name!r} is a corrupt WAV file: inconsistent format "
                             f"({channels} channels, {rate} Hz, {bits} bits, block {block_align})")
    if (tag, width) not in _DECODERS:
        kind = {_PCM: "integer PCM", _FLOAT: "float"}.get(tag, f"format tag 0x{tag:04x}")
        raise AudioFileError(f"{name!r}: unsupported WAV encoding ({kind}, {bits} bits); expected "
                             "8/16/24/32-bit integer PCM or 32/64-bit float")
    frames = data_size // block_align
    if frames == 0:
        raise AudioFileError(f"{name!r} contains no audio (empty data chunk)")
    _check_format(name, rate, channels)
    frames = _frames_to_read(name, rate, frames, max_seconds, keep_first)
    decode = _DECODERS[tag, width]
    f.seek(data_at)

    def read(n: int) -> np.ndarray:
        raw = f.read(n * block_align)
        return decode(raw[:len(raw) // block_align * block_align]).reshape(-1, channels)

    return _Stream(rate, channels, frames, read)


def _wav_layout(f: BinaryIO, name: str) -> tuple[bytes, int, int]:
    """The 'fmt ' chunk's bytes, the data chunk's offset and size; only chunk headers and 'fmt ' are
    read. A data chunk cut short by a truncated file keeps what is there."""
    size = f.seek(0, io.SEEK_END)
    f.seek(0)
    head = f.read(12)
    if len(head) < 12 or head[:4] != b"RIFF" or head[8:12] != b"WAVE":
        raise AudioFileError(f"{name!r} is not a WAV file (no RIFF/WAVE header)")
    fmt, data, pos = None, None, 12
    while pos + 8 <= size and (fmt is None or data is None):
        f.seek(pos)
        chunk = f.read(8)
        if len(chunk) < 8:  # the file shrank while it was read
            break
        cid, n = struct.unpack("<4sI", chunk)
        available = size - pos - 8
        if cid == b"data" and data is None:
            data = (pos + 8, min(n, available))
        elif n > available:
            break
        elif cid == b"fmt " and fmt is None:
            fmt = f.read(min(n, _MAX_FMT_BYTES))
        pos += 8 + n + (n & 1)
    if fmt is None:
        raise AudioFileError(f"{name!r} is a corrupt WAV file: no 'fmt ' chunk")
    if data is None:
        raise AudioFileError(f"{name!r} is a corrupt WAV file: no 'data' chunk")
    return fmt, *data


def _int24(raw: bytes) -> np.ndarray:
    b = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 3).astype(np.int32)
    value = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
    value -= (value & 0x800000) << 1  # sign-extend
    return (value / float(1 << 23)).astype(np.float32)


_DECODERS = {
    (_PCM, 1): lambda raw: ((np.frombuffer(raw, np.uint8).astype(np.float32) - 128.0) / 128.0),
    (_PCM, 2): lambda raw: int16_to_pcm(np.frombuffer(raw, PCM16)),
    (_PCM, 3): _int24,
    (_PCM, 4): lambda raw: (np.frombuffer(raw, "<i4") / float(1 << 31)).astype(np.float32),
    (_FLOAT, 4): lambda raw: np.frombuffer(raw, "<f4").astype(np.float32),
    (_FLOAT, 8): lambda raw: np.frombuffer(raw, "<f8").astype(np.float32),
}


def write_wav(path: str | os.PathLike, pcm: np.ndarray, sample_rate: int = SAMPLE_RATE) -> None:
    """Float samples (mono [n] or stereo [n, 2]) as 16-bit PCM, atomically and readable by the user
    only: every WAV Parley writes holds someone's voice."""
    write_atomically(path, wav_bytes(pcm, sample_rate), private=True)


def wav_bytes(pcm: np.ndarray, sample_rate: int = SAMPLE_RATE) -> bytes:
    """The bytes of the 16-bit PCM WAV file ``write_wav`` writes."""
    pcm = np.asarray(pcm)
    if pcm.ndim == 2 and 1 in pcm.shape:
        pcm = pcm.reshape(-1)
    if pcm.ndim not in (1, 2) or (pcm.ndim == 2 and pcm.shape[1] != 2) or not np.issubdtype(pcm.dtype, np.floating):
        raise ValueError(f"expected float samples of shape [n] (mono) or [n, 2] (stereo), got {pcm.dtype} {pcm.shape}")
    if not np.isfinite(pcm).all():
        raise ValueError("samples contain NaN or infinity")
    if int(sample_rate) <= 0:
        raise ValueError(f"sample_rate must be positive, got {sample_rate}")
    ints = pcm_to_int16(pcm)
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as w:
        w.setnchannels(1 if pcm.ndim == 1 else pcm.shape[1])
        w.setsampwidth(2)
        w.setframerate(int(sample_rate))
        w.writeframes(ints.tobytes())
    return buffer.getvalue()


def pcm_to_int16(pcm: np.ndarray) -> np.ndarray:
    """Float samples (full scale +-1) -> 16-bit PCM: scaled by 32768, rounded half to even (the exact
    inverse of ``int16_to_pcm``), clipped. Scaling by a power of two is exact, so float32 suffices."""
    pcm = np.asarray(pcm)
    scaled = np.multiply(pcm, 32768.0, dtype=np.float64 if pcm.dtype == np.float64 else np.float32)
    np.rint(scaled, out=scaled)
    np.clip(scaled, -32768, 32767, out=scaled)
    return scaled.astype(PCM16)


def int16_to_pcm(ints: np.ndarray) -> np.ndarray:
    return np.asarray(ints).astype(np.float32) / 32768.0


def exact_int16(pcm: np.ndarray) -> np.ndarray | None:
    """``pcm`` as 16-bit PCM when every sample is exactly a 16-bit value, else None."""
    ints = pcm_to_int16(pcm)
    return ints if np.array_equal(int16_to_pcm(ints), pcm) else None


def to_16_bit(pcm: np.ndarray) -> np.ndarray:
    """Float samples rounded to the nearest 16-bit value: a compact conversation file replays them bit for bit."""
    return int16_to_pcm(pcm_to_int16(pcm))
