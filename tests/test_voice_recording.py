"""PersonaPlex voice prompts from recordings: decoded in any common format, normalised to -24 LUFS
before the real (demo) Mimi encodes them; the default voice and the advanced "none"."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile
import torch

from engine import AudioFileError
from engine.audio import SAMPLE_RATE
from engine.lm.prompts import DEFAULT_VOICE, resolve_voice, voice_prompt_from_recording
from engine.loudness import VOICE_LOUDNESS_LUFS, integrated_loudness, normalize_loudness
from engine.runtime.voices import load_voice


def voice_like(seconds: float = 2.0, seed: int = 0) -> np.ndarray:
    """A voiced, syllable-modulated harmonic signal with a little noise (speech-like loudness gating)."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
    phase = 2 * np.pi * np.cumsum(140 + 30 * np.sin(2 * np.pi * 0.7 * t)) / SAMPLE_RATE
    x = sum(np.sin(k * phase) / k for k in range(1, 12)) + 0.05 * rng.standard_normal(t.size)
    return (x * 0.5 * (1 + np.sin(2 * np.pi * 3 * t)) ** 2).astype(np.float32)


def at_loudness(pcm: np.ndarray, lufs: float) -> np.ndarray:
    return pcm * np.float32(10 ** ((lufs - integrated_loudness(pcm, SAMPLE_RATE)) / 20))


def encode_capturing(model, seen: list):
    state = model.mimi.init_state(1)

    def encode(frames):
        seen.append(frames.detach().clone().view(-1).numpy())
        return model.mimi.encode_step(frames, state)

    return encode


@pytest.mark.parametrize("lufs", [-45.0, -33.0, -24.0, -16.0, -10.0])
def test_the_encoder_gets_the_recording_at_minus_24_lufs(app_demo_model, tmp_path, lufs):
    path = tmp_path / "voice.wav"
    soundfile.write(path, at_loudness(voice_like(), lufs), SAMPLE_RATE, subtype="FLOAT")  # float: no clipping
    assert integrated_loudness(soundfile.read(path, dtype="float32")[0], SAMPLE_RATE) == pytest.approx(lufs, abs=0.1)
    seen = []
    with torch.inference_mode():
        voice = voice_prompt_from_recording(path, encode_capturing(app_demo_model, seen))
    assert len(seen) == 1 and voice.codes.shape == (25, 8)
    assert integrated_loudness(seen[0], SAMPLE_RATE) == pytest.approx(VOICE_LOUDNESS_LUFS, abs=0.5)


def test_a_recording_18_db_quieter_gives_the_same_voice_codes(app_demo_model, tmp_path):
    pcm = at_loudness(voice_like(seed=1), -20.0)
    soundfile.write(tmp_path / "loud.wav", pcm, SAMPLE_RATE, subtype="FLOAT")
    soundfile.write(tmp_path / "quiet.wav", pcm * np.float32(10 ** (-18 / 20)), SAMPLE_RATE, subtype="FLOAT")
    with torch.inference_mode():
        loud = load_voice(app_demo_model, str(tmp_path / "loud.wav"))
        quiet = load_voice(app_demo_model, str(tmp_path / "quiet.wav"))
        # the control: this Mimi does hear the level, so equal codes above come from the normalisation
        raw = [app_demo_model.mimi.encode_step(torch.from_numpy(x[:48000]).view(1, 1, -1),
                                               app_demo_model.mimi.init_state(1))
               for x in (pcm, pcm * np.float32(10 ** (-18 / 20)))]
    assert torch.equal(loud.codes, quiet.codes)
    assert not torch.equal(raw[0], raw[1])


@pytest.mark.parametrize("fmt, suffix", [("FLAC", ".flac"), ("OGG", ".ogg"), ("MP3", ".mp3")])
def test_a_stereo_44k_recording_in_another_format_is_a_voice(app_demo_model, tmp_path, fmt, suffix):
    mono = at_loudness(voice_like(seconds=1.5, seed=2), -30.0)
    import soxr

    stereo = np.stack([mono, 0.5 * mono], axis=1)
    path = tmp_path / f"voice{suffix}"
    soundfile.write(path, soxr.resample(stereo, SAMPLE_RATE, 44_100), 44_100, format=fmt)
    seen = []
    with torch.inference_mode():
        voice = voice_prompt_from_recording(path, encode_capturing(app_demo_model, seen))
    assert voice.codes.shape[0] in (19, 20)  # 1.5 s, give or take the codec's padding
    assert integrated_loudness(seen[0], SAMPLE_RATE) == pytest.approx(VOICE_LOUDNESS_LUFS, abs=0.5)


def test_recordings_without_a_loudness_are_refused_clearly(tmp_path):
    with pytest.raises(AudioFileError, match="silent"):
        normalize_loudness(np.zeros(SAMPLE_RATE, np.float32), SAMPLE_RATE)
    with pytest.raises(AudioFileError, match="at least 0.4 s"):
        normalize_loudness(voice_like(seconds=0.2), SAMPLE_RATE)
    (tmp_path / "notes.mp3").write_bytes(b"not audio at all" * 100)
    with pytest.raises(AudioFileError, match="not an audio file that can be decoded"):
        voice_prompt_from_recording(tmp_path / "notes.mp3", lambda frames: frames)


def test_the_default_voice_is_natf0_and_none_is_an_explicit_choice(tmp_path, caplog):
    voices = tmp_path / "voices"
    voices.mkdir()
    (voices / "NATM1.pt").write_bytes(b"")
    assert resolve_voice(voices, None) is None and "no NATF0 voice" in caplog.text  # not shipped: said, not hidden
    (voices / f"{DEFAULT_VOICE}.pt").write_bytes(b"")
    assert resolve_voice(voices, None) == resolve_voice(voices, "") == "NATF0"
    assert resolve_voice(voices, "none") is None and resolve_voice(voices, "None") is None
    assert resolve_voice(voices, "NATM1") == "NATM1"
