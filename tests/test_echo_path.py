"""The short version of bench/bench_echo.py: a real echo path through PulseAudio.

The app's AudioIO plays a voice (espeak-ng) to the null speaker sink; module-loopback carries it
back into the microphone feed 60 ms later at -10 dB; a second voice (another espeak-ng voice at
another speaking rate) joins as the user. The worker processes the microphone with app.audio.echo and
steps a playback model that records what it hears.

The measured window starts after the bench's convergence time (4 s: PulseAudio's capture times
settle ~2 s after the stream opens, and the canceller then needs its own time), and later when the
canceller's input was disturbed then (up to 10 s more, until 2 s and the window passed without a
re-anchored pairing, a realignment, an xrun or a move of the echo: two CI runs on a fresh server
re-anchored until just before the window, ERLE 15-20 dB with ~175 chunks paired with silence; an
output underflow inside the window cost a run here 45 dB). The processor's own measure of the
echo's lag behind its far end must lie where AEC3 reaches it. Bounds are the issue's ERLE and
heard-level targets (ERLE >= 25 dB, <= -50 dBFS; runs here measure ~65 dB and ~-97 dBFS) and a
looser correlation (>= 0.75 against the target's 0.8; runs here measure 0.84-0.87), since this
machine is shared. Without processing the same path measures an ERLE of 0 dB and ~-30 dBFS heard,
so the bounds fail clearly when cancellation does not work.
"""

from __future__ import annotations

import numpy as np
import pytest

from app.audio.echo import ECHO_LAG_RANGE_S
from bench.bench_echo import EchoRun, run_path
from engine import read_wav
from tests import audio_server

pytestmark = pytest.mark.audio

FAR_TEXT = ("Hello, I am your assistant. I can tell you about the weather, read you a story, "
            "or help you plan the day. What would you like to do first?")
NEAR_TEXT = "Could you tell me a story about the sea, please?"


@pytest.fixture
def echo_path(pulse_audio):
    path = audio_server.EchoPath(latency_ms=60, gain_db=-10.0)
    path.load()
    yield path
    path.unload()  # the other audio tests must not hear their own voice


def test_on_speakers_the_model_hears_the_user_but_not_itself(echo_path, tmp_path, qapp):
    # qapp: the run needs only a QCoreApplication, but if it made one, later tests could not open windows
    far = read_wav(audio_server.espeak_wav(str(tmp_path / "far.wav"), FAR_TEXT, "en-us", 175))
    near = read_wav(audio_server.espeak_wav(str(tmp_path / "near.wav"), NEAR_TEXT, "en-gb+f3", 130))
    run = EchoRun()
    result = run_path(far, near, run, processing=True)
    print(f"\necho path (espeak-ng voices): {result}")
    assert result["mic_echo_db"] > -45, "the loopback carried no echo into the microphone"
    low, high = ECHO_LAG_RANGE_S  # where AEC3 reaches the echo, as the processor measured it over the window
    assert result["echo_lag_ms"] is not None and 1000 * low <= result["echo_lag_ms"] <= 1000 * high
    assert result["erle_db"] >= 25
    assert result["model_hears_db"] <= -50
    assert result["near_end_corr"] >= 0.75
    assert np.isfinite(result["stream_delay_ms"]) and result["stream_delay_ms"] >= 0
    # after the convergence time, within the settling limit
    assert run.converge_s <= result["measured_from_s"] <= run.converge_s + run.settle_s + 0.5
