"""engine.audio: reading any WAV as 24 kHz mono float32, atomic 16-bit writing, clear errors."""

from __future__ import annotations

import struct
import wave

import numpy as np
import pytest

from engine.audio import AudioFileError, exact_int16, pcm_to_int16, read_wav, write_wav
from tests.conftest import SPEECH


def _header_info(path):
    with wave.open(path) as w:
        return w.getframerate(), w.getnchannels(), w.getnframes()


@pytest.mark.parametrize("name", ["hello_24k.wav", "interrupt_48k_stereo.wav", "story_16k.wav"])
def test_speech_recordings_read_as_24k_mono(name):
    path = SPEECH[name]
    rate, channels, frames = _header_info(path)
    pcm = read_wav(path)
    assert pcm.dtype == np.float32 and pcm.ndim == 1
    assert abs(len(pcm) - frames * 24000 / rate) <= 1
    assert 0.01 < float(np.sqrt(np.mean(pcm ** 2))) < 1.0  # speech, not silence or garbage
    assert np.abs(pcm).max() <= 1.01


def test_stereo_is_averaged(tmp_path):
    left = np.sin(np.arange(2400) * 0.05).astype(np.float32) * 0.5
    right = np.full(2400, 0.25, np.float32)
    path = tmp_path / "st.wav"
    _write_raw(path, np.stack([left, right], 1), 24000, tag=3, bits=32)
    np.testing.assert_allclose(read_wav(path), (left + right) / 2, atol=1e-7)


def _write_raw(path, samples, rate, tag, bits, extensible=False):
    """A WAV file built byte by byte (float and 24-bit formats the stdlib cannot write)."""
    samples = np.asarray(samples)
    channels = samples.shape[1] if samples.ndim == 2 else 1
    if tag == 3:
        raw = samples.astype("<f4" if bits == 32 else "<f8").tobytes()
    elif bits == 24:
        ints = np.round(np.clip(samples, -1, 1 - 2 ** -23) * 2 ** 23).astype("<i4").reshape(-1)
        raw = b"".join(struct.pack("<i", int(v))[:3] for v in ints)
    else:
        raw = np.round(samples * 2 ** (bits - 1)).astype(f"<i{bits // 8}").tobytes()
    block = channels * bits // 8
    if extensible:
        fmt = struct.pack("<HHIIHHHHI", 0xFFFE, channels, rate, rate * block, block, bits, 22, bits, 0)
        fmt += struct.pack("<H", tag) + b"\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71"
    else:
        fmt = struct.pack("<HHIIHH", tag, channels, rate, rate * block, block, bits)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt
    body += b"LIST" + struct.pack("<I", 4) + b"INFO"  # an unrelated chunk before the data
    body += b"data" + struct.pack("<I", len(raw)) + raw
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)


@pytest.mark.parametrize("tag,bits,extensible", [(1, 16, False), (1, 24, False), (1, 32, False),
                                                 (3, 32, False), (3, 64, False), (1, 24, True), (3, 32, True)])
def test_formats_decode_to_the_same_signal(tmp_path, tag, bits, extensible):
    t = np.arange(4800) / 24000
    signal = (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    path = tmp_path / "x.wav"
    _write_raw(path, signal[:, None], 24000, tag, bits, extensible)
    np.testing.assert_allclose(read_wav(path), signal, atol=2 ** -15)


def test_resampling_keeps_duration_and_pitch(tmp_path):
    t = np.arange(16000) / 16000
    path = tmp_path / "16k.wav"
    _write_raw(path, (0.5 * np.sin(2 * np.pi * 300 * t))[:, None], 16000, 1, 16)
    pcm = read_wav(path)
    assert len(pcm) == 24000
    spectrum = np.abs(np.fft.rfft(pcm[2000:-2000]))
    peak_hz = np.argmax(spectrum) * 24000 / len(pcm[2000:-2000])
    assert abs(peak_hz - 300) < 2


def test_write_read_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    pcm = (rng.standard_normal(24000) * 0.2).clip(-1, 1).astype(np.float32)
    path = tmp_path / "out.wav"
    write_wav(path, pcm)
    assert _header_info(str(path)) == (24000, 1, 24000)
    np.testing.assert_allclose(read_wav(path), pcm, atol=0.5 / 32768 + 1e-9)
    assert [p.name for p in tmp_path.iterdir()] == ["out.wav"]  # no temporary file left behind


def test_write_clips_and_replaces_atomically(tmp_path):
    path = tmp_path / "out.wav"
    write_wav(path, np.zeros(100, np.float32))
    write_wav(path, np.array([2.0, -2.0, 0.5], np.float32))
    np.testing.assert_array_equal(read_wav(path), np.array([32767 / 32768, -1.0, 0.5], np.float32))


@pytest.mark.parametrize("bad", [np.zeros((2, 100), np.float32), np.zeros(10, np.int16),
                                 np.array([0.0, np.nan], np.float32)])
def test_write_rejects_bad_samples(tmp_path, bad):
    with pytest.raises(ValueError):
        write_wav(tmp_path / "x.wav", bad)
    assert not list(tmp_path.iterdir())


def test_missing_file(tmp_path):
    with pytest.raises(AudioFileError, match="cannot read"):
        read_wav(tmp_path / "nope.wav")


def test_not_a_wav(tmp_path):
    path = tmp_path / "x.wav"
    path.write_bytes(b"ID3\x03 this is an mp3, honestly" * 10)
    with pytest.raises(AudioFileError, match="not a WAV file"):
        read_wav(path)


def test_empty_file(tmp_path):
    path = tmp_path / "x.wav"
    path.write_bytes(b"")
    with pytest.raises(AudioFileError, match="not a WAV file"):
        read_wav(path)


def test_no_audio_frames(tmp_path):
    path = tmp_path / "x.wav"
    _write_raw(path, np.zeros((0, 1)), 24000, 1, 16)
    with pytest.raises(AudioFileError, match="no audio"):
        read_wav(path)


def test_corrupt_format_chunk(tmp_path):
    path = tmp_path / "x.wav"
    _write_raw(path, np.zeros((100, 1)), 24000, 1, 16)
    data = bytearray(path.read_bytes())
    data[22:24] = struct.pack("<H", 0)  # zero channels
    path.write_bytes(bytes(data))
    with pytest.raises(AudioFileError, match="corrupt"):
        read_wav(path)


def test_truncated_header(tmp_path):
    path = tmp_path / "x.wav"
    _write_raw(path, np.zeros((100, 1)), 24000, 1, 16)
    path.write_bytes(path.read_bytes()[:30])
    with pytest.raises(AudioFileError, match="corrupt"):
        read_wav(path)


def test_unsupported_encoding(tmp_path):
    path = tmp_path / "x.wav"
    _write_raw(path, np.zeros((100, 1)), 24000, 1, 16)
    data = bytearray(path.read_bytes())
    data[20:22] = struct.pack("<H", 6)  # A-law
    path.write_bytes(bytes(data))
    with pytest.raises(AudioFileError, match="unsupported"):
        read_wav(path)


def test_truncated_data_keeps_whole_frames(tmp_path):
    path = tmp_path / "x.wav"
    signal = np.linspace(-0.5, 0.5, 1000)[:, None]
    _write_raw(path, signal, 24000, 1, 16)
    path.write_bytes(path.read_bytes()[:-501])  # cut in the middle of a sample
    pcm = read_wav(path)
    assert len(pcm) == 749
    np.testing.assert_allclose(pcm, signal[:749, 0], atol=1e-4)


def test_16_bit_conversion_gives_the_float64_rule_s_integers_in_float32():
    """pcm_to_int16 computes in float32 for float32 samples: the same integers as rounding in float64."""
    rng = np.random.default_rng(3)
    halves = (np.arange(-40, 40) + 0.5) / 32768.0  # exactly between two 16-bit values: half to even
    edges = [0.0, -0.0, 1.0, -1.0, 1 - 2 ** -16, -1 - 2 ** -16, 1.5, -7.0, 1e30, -1e30, 2 ** -30, 32767.5 / 32768]
    pcm = np.concatenate([halves, edges, rng.normal(0, 0.3, 100_000), rng.uniform(-1.2, 1.2, 100_000)])
    for samples in (pcm.astype(np.float32), pcm):
        expected = np.clip(np.round(samples.astype(np.float64) * 32768.0), -32768, 32767).astype("<i2")
        got = pcm_to_int16(samples)
        assert got.dtype == np.dtype("<i2") and np.array_equal(got, expected)
    assert pcm_to_int16(np.float32([0.5 / 32768, 1.5 / 32768, 32767.5 / 32768])).tolist() == [0, 2, 32767]


def test_exact_int16_holds_only_samples_that_are_16_bit_values():
    rng = np.random.default_rng(4)
    ints = rng.integers(-32768, 32768, 1000).astype("<i2")
    pcm = ints.astype(np.float32) / 32768.0
    assert np.array_equal(exact_int16(pcm), ints)
    for off in (pcm + np.float32(1e-6), np.append(pcm, np.float32(1.0))):
        assert exact_int16(off) is None  # between two steps; past full scale (clipped)
