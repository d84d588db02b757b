"""Audio files in and out: any rate and channel count in, 24 kHz mono float32 for the engine.

WAV reading parses the RIFF chunks itself, so integer PCM (8/16/24/32-bit), IEEE float (32/64-bit)
and WAVE_FORMAT_EXTENSIBLE files all take the same path. Other formats (FLAC, Ogg Vorbis/Opus,
MP3, ...) are decoded by libsndfile through ``soundfile`` (``read_audio``). Channels are averaged
and the rate is converted with soxr. Writing is 16-bit PCM WAV through the stdlib ``wave`` module,
atomically.

A file's rate, channels and length are checked from its header before anything is decoded or
resampled (a 2 KB WAV declaring 1 Hz would otherwise become 96 MB at 24 kHz): rates
``MIN_RATE``..``MAX_RATE``, at most ``MAX_CHANNELS`` channels and ``max_seconds`` of audio, so
decoding allocates at most ``max_seconds * MAX_RATE * MAX_CHANNELS`` float32 samples and the
result ``max_seconds * sample_rate``. Running out of memory anyway is an ``AudioFileError``.
"""

from __future__ import annotations

import io
import os
import struct
import wave

import numpy as np

from .atomic import write_atomically
from .errors import AudioFileError

SAMPLE_RATE = 24_000  # Mimi's rate: everything the engine takes and gives is 24 kHz mono
FRAME_SIZE = 1920  # samples per model frame (Mimi's 12.5 Hz)
FRAME_SECONDS = FRAME_SIZE / SAMPLE_RATE  # 0.08
FRAME_MS = 1000.0 * FRAME_SECONDS
PCM16 = np.dtype("<i2")  # the samples of every file Parley writes

_PCM, _FLOAT, _EXTENSIBLE = 0x0001, 0x0003, 0xFFFE
MIN_RATE, MAX_RATE = 8_000, 192_000  # the sample rates of audio files Parley reads
MAX_CHANNELS = 8
MAX_INPUT_SECONDS = 3600.0  # the longest recording read as a conversation's input (``parley offline``)


def read_wav(path: str | os.PathLike, sample_rate: int = SAMPLE_RATE,
             max_seconds: float = MAX_INPUT_SECONDS) -> np.ndarray:
    """Read a WAV file as float32 mono at ``sample_rate`` (channels averaged, resampled with soxr);
    longer than ``max_seconds`` is refused before decoding."""
    return wav_samples(_read_bytes(path), os.fspath(path), sample_rate, max_seconds)


def wav_samples(data: bytes, name: str, sample_rate: int = SAMPLE_RATE,
                max_seconds: float = MAX_INPUT_SECONDS) -> np.ndarray:
    """``read_wav`` of a file's bytes (``name`` is what error messages call it)."""
    return _bounded(name, lambda: _to_mono(*_decode(data, name, max_seconds), sample_rate))


def read_audio(path: str | os.PathLike, sample_rate: int = SAMPLE_RATE,
               max_seconds: float = MAX_INPUT_SECONDS) -> np.ndarray:
    """Read any common audio file (WAV, FLAC, Ogg, MP3, ...) as float32 mono at ``sample_rate``;
    longer than ``max_seconds`` is refused before decoding.

    WAV takes ``read_wav``'s path; anything else is decoded by libsndfile (``soundfile``)."""
    name = os.fspath(path)

    def read() -> np.ndarray:
        data = _read_bytes(path)
        if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
            samples, rate = _decode(data, name, max_seconds)
        else:
            samples, rate = _decode_with_libsndfile(data, name, max_seconds)
        return _to_mono(samples, rate, sample_rate)

    return _bounded(name, read)


def _bounded(name: str, read) -> np.ndarray:
    try:
        return read()
    except MemoryError:
        raise AudioFileError(f"{name!r} is too large to decode in this machine's memory") from None


def _check_format(name: str, rate: int, channels: int, frames: int, max_seconds: float) -> None:
    """Refuse, before decoding, a rate, channel count or length outside what Parley reads."""
    if not MIN_RATE <= rate <= MAX_RATE:
        raise AudioFileError(f"{name!r} has a sample rate of {rate} Hz; Parley reads {MIN_RATE}-{MAX_RATE} Hz")
    if not 1 <= channels <= MAX_CHANNELS:
        raise AudioFileError(f"{name!r} has {channels} channels; Parley reads 1-{MAX_CHANNELS}")
    if frames > max_seconds * rate:
        raise AudioFileError(f"{name!r} is {frames / rate:.0f} s long; at most {max_seconds:.0f} s can be read here")


def _read_bytes(path: str | os.PathLike) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise AudioFileError(f"cannot read audio file {os.fspath(path)!r}: {e.strerror or e}") from e


def _decode_with_libsndfile(data: bytes, name: str, max_seconds: float) -> tuple[np.ndarray, int]:
    import soundfile  # imported here: only non-WAV files need libsndfile

    try:
        with soundfile.SoundFile(io.BytesIO(data)) as f:
            rate = int(f.samplerate)
            _check_format(name, rate, f.channels, max(f.frames, 0), max_seconds)
            limit = int(max_seconds * rate)  # a header may understate the length: read no more than allowed
            samples = f.read(limit + 1, dtype="float32", always_2d=True)
        _check_format(name, rate, samples.shape[1], samples.shape[0], max_seconds)
    except (RuntimeError, TypeError) as e:  # soundfile.LibsndfileError is a RuntimeError
        raise AudioFileError(f"{name!r} is not an audio file that can be decoded (WAV, FLAC, Ogg, MP3, ...): "
                             f"{e}") from e
    if samples.shape[0] == 0:
        raise AudioFileError(f"{name!r} contains no audio")
    return samples, rate


def _to_mono(samples: np.ndarray, rate: int, sample_rate: int) -> np.ndarray:
    mono = samples.mean(axis=1, dtype=np.float64) if samples.shape[1] > 1 else samples[:, 0]
    mono = np.ascontiguousarray(mono, dtype=np.float32)
    if rate != sample_rate:
        import soxr  # here, not at the top: ``import engine`` works where soxr is missing (the GPU image)

        mono = soxr.resample(mono, rate, sample_rate).astype(np.float32, copy=False)
    return mono


def _decode(data: bytes, name: str, max_seconds: float) -> tuple[np.ndarray, int]:
    """RIFF/WAVE bytes -> (samples [frames, channels] float32 in [-1, 1], sample rate)."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise AudioFileError(f"{name!r} is not a WAV file (no RIFF/WAVE header)")
    chunks = _chunks(data)
    if b"fmt " not in chunks:
        raise AudioFileError(f"{name!r} is a corrupt WAV file: no 'fmt ' chunk")
    if b"data" not in chunks:
        raise AudioFileError(f"{name!r} is a corrupt WAV file: no 'data' chunk")
    fmt = chunks[b"fmt "]
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
    raw = chunks[b"data"]
    frames = len(raw) // block_align
    if frames == 0:
        raise AudioFileError(f"{name!r} contains no audio (empty data chunk)")
    _check_format(name, rate, channels, frames, max_seconds)
    samples = _DECODERS[tag, width](raw[:frames * block_align])
    return samples.reshape(frames, channels), rate


def _chunks(data: bytes) -> dict[bytes, bytes]:
    """Top-level RIFF chunks (first occurrence of each id). A data chunk cut short by a truncated
    file keeps what is there; any other overrun means the file is corrupt."""
    chunks: dict[bytes, bytes] = {}
    pos = 12
    while pos + 8 <= len(data):
        cid, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        body = data[pos + 8:pos + 8 + size]
        if len(body) < size and cid != b"data":
            break
        chunks.setdefault(cid, body)
        pos += 8 + size + (size & 1)
    return chunks


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
    """Write float samples (full scale +-1, clipped; the inverse of ``read_wav``'s scaling) as
    16-bit PCM, atomically (``write_atomically``). ``pcm``: mono [n] (or [1, n] / [n, 1]) or
    stereo [n, 2]."""
    write_atomically(path, wav_bytes(pcm, sample_rate))


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
    """Float samples (full scale +-1) -> 16-bit PCM: the one rule for every file Parley writes.

    Scaled by 32768 and rounded half to even (the exact inverse of ``int16_to_pcm``), clipped to the
    int16 range. Computed in the samples' own precision (float64 only for float64 samples): scaling
    by a power of two is exact, so float32 gives the same integers as float64 would, in one scratch
    array of the input's size instead of three of twice its size (an hour's recording: 0.16 s instead
    of 0.7-2.1 s per side)."""
    pcm = np.asarray(pcm)
    scaled = np.multiply(pcm, 32768.0, dtype=np.float64 if pcm.dtype == np.float64 else np.float32)
    np.rint(scaled, out=scaled)
    np.clip(scaled, -32768, 32767, out=scaled)
    return scaled.astype(PCM16)


def int16_to_pcm(ints: np.ndarray) -> np.ndarray:
    return np.asarray(ints).astype(np.float32) / 32768.0


def exact_int16(pcm: np.ndarray) -> np.ndarray | None:
    """``pcm`` as 16-bit PCM when every sample is exactly a 16-bit value (what the app's microphone
    gives: ``to_16_bit``), else None: where samples must be kept exactly, 16 bits may then hold them."""
    ints = pcm_to_int16(pcm)
    return ints if np.array_equal(int16_to_pcm(ints), pcm) else None


def to_16_bit(pcm: np.ndarray) -> np.ndarray:
    """Float samples rounded to the nearest 16-bit value (float32): input fed this way is kept
    exactly by a 16-bit lossless codec, so a compact conversation file replays it bit for bit."""
    return int16_to_pcm(pcm_to_int16(pcm))
