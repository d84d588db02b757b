"""Microphone processing (app/audio/echo.py): the WebRTC library itself on synthetic echoes, the far-end
ring the output callback fills, and the window + worker with the real demo model (no sound card).
The real echo path through PulseAudio is tests/test_echo_path.py."""

from __future__ import annotations

import sys
from dataclasses import replace

import numpy as np
import pytest
import soxr
from PySide6.QtCore import QSettings

from app.audio import echo
from app.audio.bridge import AudioBridge
from app.audio.echo import EchoReading, MicProcessor, ProcessingSettings, processing_rate
from app.audio.echo_lag import EchoLagEstimator
from app.audio.headless import BridgeFeeder, EventRecorder, SignalRecorder
from app.engine_thread.frame_pump import FramePump
from app.engine_thread.messages import ProcessingUnavailable
from app.settings import load_settings, processing_from
from app.widgets.echo_meter import erle_text
from app.window.main_window import MainWindow
from engine.audio import read_wav
from tests.conftest import SPEECH

RATE = 24_000
BLOCK = RATE // 50  # 20 ms, as PortAudio delivers


def speech_like(seconds: float, seed: int, f0: float) -> np.ndarray:
    """A voiced signal with a gliding pitch and syllable-rate envelope, plus some breath noise."""
    t = np.arange(int(seconds * RATE)) / RATE
    rng = np.random.default_rng(seed)
    pitch = f0 * (1 + 0.15 * np.sin(2 * np.pi * 0.7 * t + seed))
    phase = 2 * np.pi * np.cumsum(pitch) / RATE
    voiced = sum(np.sin(k * phase) / k for k in range(1, 12))
    envelope = np.abs(np.sin(2 * np.pi * 2.5 * t + seed)) ** 1.5
    return (0.15 * envelope * (voiced + 0.3 * rng.standard_normal(t.size))).astype(np.float32)


def room(far: np.ndarray, delay_s: float = 0.06, gain: float = 0.3) -> np.ndarray:
    """The far end as a microphone hears it: delayed, attenuated, with a short decaying tail."""
    rng = np.random.default_rng(7)
    taps = int(0.03 * RATE)
    response = np.zeros(int(delay_s * RATE) + taps, dtype=np.float32)
    response[int(delay_s * RATE):] = gain * rng.standard_normal(taps) * np.exp(-np.arange(taps) / (0.005 * RATE))
    response[int(delay_s * RATE)] = gain
    return np.convolve(far, response)[: far.size].astype(np.float32)


def run_processor(processor: MicProcessor, mic: np.ndarray, far: np.ndarray) -> np.ndarray:
    out = [processor.process(mic[i : i + BLOCK].reshape(-1, 1), far[i : i + BLOCK])
           for i in range(0, mic.size - BLOCK + 1, BLOCK)]
    return np.concatenate(out)


def power_db(x: np.ndarray) -> float:
    return 10 * np.log10(np.mean(np.square(x, dtype=np.float64)) + 1e-20)


def best_correlation(signal: np.ndarray, reference: np.ndarray, max_lag: int) -> float:
    return max(np.corrcoef(signal[lag : lag + reference.size], reference)[0, 1] for lag in range(0, max_lag, 8))


def test_processing_rate_is_a_native_webrtc_rate_that_keeps_the_device_bandwidth():
    assert [processing_rate(r) for r in (8_000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000, 96_000)] == [
        16_000, 16_000, 32_000, 32_000, 32_000, 48_000, 48_000, 48_000]


def test_the_echo_is_removed_and_the_near_voice_kept_during_double_talk():
    far = speech_like(8.0, seed=1, f0=110.0)
    near = speech_like(3.0, seed=2, f0=190.0)
    mic = room(far, gain=0.1)
    mic[5 * RATE : 8 * RATE] += near
    processor = MicProcessor(ProcessingSettings(), RATE, RATE)
    first = run_processor(processor, mic[: 5 * RATE], far[: 5 * RATE])
    reading = processor.reading()  # the estimate after the far end played alone (double talk lowers it)
    out = np.concatenate([first, run_processor(processor, mic[5 * RATE :], far[5 * RATE :])])
    # The processor works at 32 kHz here and hands back as much as it got (less a partial chunk).
    assert processor.rate == 32_000 and abs(out.size - mic.size * 4 // 3) <= processor.chunk
    out_24k = soxr.resample(out, processor.rate, RATE)
    far_only = slice(2 * RATE, 5 * RATE)
    erle = power_db(mic[far_only]) - power_db(out_24k[far_only])
    assert erle >= 25, f"only {erle:.1f} dB of echo removed"
    # Waveform correlation is strict (the high-pass filter and noise suppression shift phases: on
    # this synthetic voice they alone give 0.62, the unprocessed microphone 0.72); a suppressor
    # that muted the user during double talk would give ~0.
    corr = best_correlation(out_24k[5 * RATE :], near[: 2 * RATE], max_lag=int(0.05 * RATE))
    assert corr >= 0.5, f"the near voice is damaged during double talk (correlation {corr:.2f})"
    assert reading.erle_db is not None and reading.erle_db > 20 and reading.delay_ms >= 0
    # The echo 60 ms behind its far end, found through double talk and left where it was.
    assert processor.realignments == 0 and abs(processor.reading().echo_lag_ms - 60) < 5


def voice_loss_db(processor: MicProcessor, near: np.ndarray, far: np.ndarray) -> float:
    """How much quieter the processed near voice is than the voice itself: the median over its
    80 ms stretches of speech."""
    out = soxr.resample(run_processor(processor, near, far), processor.rate, RATE)
    frame = RATE * 80 // 1000
    losses = [power_db(near[i : i + frame]) - power_db(out[i : i + frame])
              for i in range(0, min(out.size, near.size) - frame + 1, frame) if power_db(near[i : i + frame]) > -40]
    return float(np.median(losses))


def test_a_new_stream_keeps_what_the_canceller_learned_so_the_person_is_heard_at_once():
    """On headphones (no echo at all) with the assistant talking over the person from the start,
    a fresh AEC3 cuts the person's voice until it has learned there is no echo; a conversation
    started or continued on the same devices keeps what it learned (``MicProcessor.new_stream``)."""
    seconds = 8 * RATE
    person, assistant = (read_wav(SPEECH[name], sample_rate=RATE) for name in ("story_16k.wav",
                                                                                "interrupt_48k_stereo.wav"))
    near = np.resize(person, 2 * seconds)
    far = np.resize(assistant, 2 * seconds)
    far *= 0.1 / np.sqrt(np.mean(np.square(far)))  # -20 dBFS, as loud as the demo's assistant
    learned = MicProcessor(ProcessingSettings(), RATE, RATE)
    voice_loss_db(learned, near[:seconds], far[:seconds])  # one conversation's first 8 s
    learned.new_stream()
    fresh_loss = voice_loss_db(MicProcessor(ProcessingSettings(), RATE, RATE), near[seconds:], far[seconds:])
    kept_loss = voice_loss_db(learned, near[seconds:], far[seconds:])
    assert fresh_loss > 20, f"a fresh canceller cut the voice by only {fresh_loss:.1f} dB"  # 49.9 dB measured
    assert kept_loss < 5, f"the voice lost {kept_loss:.1f} dB after a new stream"  # 0.2 dB measured


def test_the_pump_keeps_its_processor_over_a_new_stream_on_the_same_devices_only():
    pump = FramePump(emit=lambda _event: None)
    bridge = AudioBridge(RATE, 1, RATE, 1)

    def processor_after(reset, on=bridge):
        reset()
        pump.pump(on, session=None)  # no audio yet: the pump only attaches to the devices
        return pump._processor

    first = processor_after(lambda: None)
    assert first is not None
    assert processor_after(lambda: pump.reset(same_devices=True)) is first  # Start, Pause/Continue, New
    assert processor_after(pump.reset) is not first  # the devices went away
    kept = pump._processor
    assert processor_after(lambda: pump.reset(same_devices=True), on=AudioBridge(RATE, 1, RATE, 1)) is not kept
    kept = pump._processor
    pump.processing = replace(pump.processing, noise_suppression=False)  # Audio menu: another processor
    assert processor_after(lambda: pump.reset(same_devices=True)) is not kept


def test_without_echo_cancellation_the_echo_stays_and_no_erle_is_claimed():
    far = speech_like(3.0, seed=1, f0=110.0)
    mic = room(far)
    processor = MicProcessor(ProcessingSettings(echo_cancellation=False, noise_suppression=False,
                                                high_pass_filter=True), RATE, RATE)
    out = run_processor(processor, mic, far)
    out_24k = soxr.resample(out, processor.rate, RATE)
    assert abs(power_db(mic[RATE:]) - power_db(out_24k[RATE:])) < 3
    assert processor.reading().erle_db is None


def test_a_far_end_played_before_the_microphone_chunk_was_captured_is_dropped():
    processor = MicProcessor(ProcessingSettings(), RATE, RATE)
    silence = np.zeros((BLOCK, 1), dtype=np.float32)
    backlog = np.zeros(int(0.3 * RATE), dtype=np.float32)  # the output ran 300 ms before the input started
    processor.process(silence, backlog, mic_time=10.0, far_time=10.0 - 0.25)
    # (The resampler to 32 kHz holds part of the first block back, so not all 0.25 s were queued.)
    assert processor.far_dropped_samples >= 0.2 * processor.rate
    low, high = echo.DELAY_WINDOW_S
    assert 1000 * low <= processor.delay_ms <= 1000 * high


def test_microphone_chunks_are_paired_with_silence_when_the_far_end_stalls():
    processor = MicProcessor(ProcessingSettings(), RATE, RATE)
    seconds = echo.MAX_FAR_WAIT_SECONDS + 0.2
    mic = speech_like(seconds, seed=3, f0=150.0).reshape(-1, 1)
    out = processor.process(mic, np.zeros(0, dtype=np.float32))
    assert out.size >= int(seconds * processor.rate) - int((echo.MAX_FAR_WAIT_SECONDS + 0.01) * processor.rate)
    assert processor.far_starved_chunks > 0


def test_pairing_by_time_cancels_through_bursty_callbacks_an_underflow_and_a_late_start():
    """As a loaded machine delivers it: the far end reaches the worker in 100 ms bursts, the output
    underflows for 200 ms (the speaker plays silence, the far end resumes later than its count says)
    and the input starts 0.5 s after the output. By order these drift apart; by time they do not."""
    device_latency, gap_at, gap_s, in_start = 0.04, 4.0, 0.2, 0.5
    far = speech_like(9.0, seed=1, f0=110.0)
    gap_index = int(gap_at * RATE)
    # What the speaker played, on the device clock (sample 0 at t = 0).
    lead = int(device_latency * RATE)
    played = np.concatenate([np.zeros(lead, np.float32), far[:gap_index], np.zeros(int(gap_s * RATE), np.float32),
                             far[gap_index:]])
    mic = room(played, gain=0.1)
    far_blocks = [far[k : k + BLOCK] for k in range(0, far.size - BLOCK + 1, BLOCK)]
    dac = [k * BLOCK / RATE + device_latency + (gap_s if k * BLOCK >= gap_index else 0.0)
           for k in range(len(far_blocks))]
    processor = MicProcessor(ProcessingSettings(), RATE, RATE)
    handed, outputs, delays = 0, [], []
    for j, start in enumerate(range(int(in_start * RATE), int(8.5 * RATE), BLOCK)):
        now = (start + BLOCK) / RATE
        burst = []
        if j % 5 == 4:  # the far end arrives in bursts
            while handed < len(far_blocks) and dac[handed] - device_latency <= now:
                burst.append(far_blocks[handed])
                handed += 1
        first = handed - len(burst)
        # The bridge knows only the newest block's clock: a burst across the gap is timed by its end.
        far_time = dac[handed - 1] - (handed - 1 - first) * BLOCK / RATE if burst else dac[min(handed, len(dac) - 1)]
        chunk = np.concatenate(burst) if burst else np.zeros(0, np.float32)
        outputs.append(processor.process(mic[start : start + BLOCK].reshape(-1, 1), chunk, start / RATE, far_time))
        delays.append(processor.delay_ms)
    out = soxr.resample(np.concatenate(outputs), processor.rate, RATE)
    heard = mic[int(in_start * RATE) :][: out.size]
    late = slice(int(5.5 * RATE) - int(in_start * RATE), None)  # after the underflow, re-converged
    erle = power_db(heard[late]) - power_db(out[late])
    assert erle >= 25, f"only {erle:.1f} dB of echo removed after an underflow and bursts"
    low, high = echo.DELAY_WINDOW_S  # back in the window once the underflow's silence is paired
    settled = delays[round((gap_at + 2 * gap_s - in_start) * RATE / BLOCK) :]
    assert all(1000 * low <= d <= 1000 * high for d in settled), (min(settled), max(settled))


@pytest.mark.parametrize(("times_error_s", "output_latency_s"), [(0.3, 0.0), (-0.5, 0.3)],
                         ids=["echo-ahead-of-its-far-end", "echo-out-of-reach-behind"])
def test_times_that_misplace_the_echo_are_corrected_by_the_signals(times_error_s, output_latency_s):
    """The host API's play times are off by ``times_error_s`` (as PulseAudio's have been): pairing by
    them puts the echo 0.225 s ahead of its far end, or 0.575 s behind it, where AEC3 cancels
    little. The signals show where the echo is; the far end is moved once, the echo then lies at
    the target lag and is cancelled.
    (The far end is handed to the device ``output_latency_s`` before it plays: pairing the echo that
    far behind needs a far end that arrived early enough.)"""
    far = speech_like(10.0, seed=1, f0=110.0)
    mic = room(far, delay_s=0.06, gain=0.1)  # far[j] plays at j / RATE
    lead = int(output_latency_s * RATE)
    processor = MicProcessor(ProcessingSettings(), RATE, RATE)
    outputs = []
    for i in range(0, mic.size - lead - BLOCK + 1, BLOCK):
        handed = 0 if i == 0 else i + lead  # the first callback fills the device's buffer
        outputs.append(processor.process(mic[i : i + BLOCK].reshape(-1, 1), far[handed : i + lead + BLOCK],
                                         i / RATE, handed / RATE + times_error_s))
    out = soxr.resample(np.concatenate(outputs), processor.rate, RATE)

    def erle(seconds: slice) -> float:
        return power_db(mic[seconds]) - power_db(out[seconds])

    reading = processor.reading()
    assert processor.realignments == 1 and reading.realignments == 1
    assert reading.echo_lag_ms is not None and abs(reading.echo_lag_ms - 1000 * echo.TARGET_ECHO_LAG_S) < 5
    assert erle(slice(int(1.0 * RATE), int(2.2 * RATE))) < 20, "the times alone were not wrong enough to matter"
    assert erle(slice(int(6.5 * RATE), int(9.5 * RATE))) >= 25


@pytest.mark.parametrize("rate", echo.PROCESSING_RATES)
@pytest.mark.parametrize("lag_s", [-0.25, 0.0, 0.06, 0.45])
def test_the_echo_s_lag_behind_its_far_end_is_measured_at_every_processing_rate(rate, lag_s):
    far = soxr.resample(speech_like(4.0, seed=1, f0=110.0), RATE, rate).astype(np.float32)
    shift = round(lag_s * rate)
    mic = 0.1 * np.concatenate([np.zeros(max(shift, 0), np.float32), far[max(-shift, 0) :]])[: far.size]
    estimator = EchoLagEstimator(rate)
    chunk = rate // 100
    lags = [estimator.push(mic[i : i + chunk], far[i : i + chunk]) for i in range(0, mic.size - chunk + 1, chunk)]
    found = [lag for lag in lags if lag is not None]
    assert len(found) >= 2 and all(abs(lag - lag_s) <= 0.001 for lag in found), found


def test_the_echo_meter_says_how_much_echo_is_removed_and_where_it_was_found():
    waiting = EchoReading(-30.0, -60.0, None, 15.0)
    found = EchoReading(-30.0, -95.0, 64.6, 15.0, echo_lag_ms=88.4)
    assert erle_text(None) == "Echo cancellation: off"
    assert erle_text(waiting) == "Echo suppression: waiting for the assistant to speak"
    assert erle_text(replace(found, echo_lag_ms=None)) == "Echo suppression (ERLE, est.): 65 dB"
    assert erle_text(found) == "Echo suppression (ERLE, est.): 65 dB · echo 88 ms behind the speaker"


def test_without_an_echo_no_lag_is_claimed_and_the_pairing_stays():
    """Headphones: the microphone hears only the user (and some noise) while the far end plays."""
    far = speech_like(6.0, seed=1, f0=110.0)
    noise = 0.001 * np.random.default_rng(3).standard_normal(far.size).astype(np.float32)
    mic = speech_like(6.0, seed=2, f0=190.0) + noise
    processor = MicProcessor(ProcessingSettings(), RATE, RATE)
    run_processor(processor, mic, far)
    reading = processor.reading()
    assert reading.echo_lag_ms is None and reading.realignments == 0


def test_the_far_ring_holds_exactly_what_the_output_callback_handed_to_the_device():
    bridge = AudioBridge(RATE, 1, RATE, 2)
    reply = np.linspace(-0.5, 0.5, 700, dtype=np.float32)
    bridge.output.write(reply)
    played = []
    for _ in range(2):  # 960 samples asked for: 700 of the reply, then zeros (starved)
        outdata = np.full((BLOCK, 2), 9.0, dtype=np.float32)
        bridge.output_callback(outdata, BLOCK, None, None)
        played.append(outdata[:, 0].copy())
    far = np.zeros((2 * BLOCK, 1), dtype=np.float32)
    assert bridge.far.read_into(far) == 2 * BLOCK
    np.testing.assert_array_equal(far[:, 0], np.concatenate(played))
    np.testing.assert_array_equal(far[:700, 0], reply)
    assert not far[700:].any()


# ---- the window and the worker with the real demo model ------------------------------------------


@pytest.fixture
def window(qtbot, tmp_path, app_demo_model):
    w = MainWindow(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat),
                   model_loader=lambda *args: app_demo_model, audio=False, worker_seed=1)
    w.show()
    opened = SignalRecorder()
    w.model.conversation_replaced.connect(opened.record)
    w.load_model("demo", "cpu", "float32")
    qtbot.waitUntil(lambda: len(opened) == 1, timeout=60_000)
    yield w
    w.model.files.unsaved_frames = 0
    w.close()


def stream(window, qtbot, bridge: AudioBridge, far: np.ndarray, mic: np.ndarray) -> list:
    """Play ``far`` through the output callback while feeding ``mic`` to the input callback, 80 ms at a time."""
    frames = SignalRecorder()
    window.model.frame.connect(frames.record)
    window.model.worker.set_bridge(bridge)
    feeder = BridgeFeeder(bridge, lambda: window.model.worker.processed_position)
    step = feeder.block
    discard = np.zeros((bridge.output.capacity, 1), dtype=np.float32)
    for offset in range(0, mic.size - step + 1, step):
        bridge.output.read_into(discard)  # not the model's reply: the speaker plays ``far``
        bridge.output.write(far[offset : offset + step])  # the speaker plays this while the mic hears it
        feeder.drain()
        feeder.feed(mic[offset : offset + step], drain=False)
    qtbot.waitUntil(lambda: len(frames) >= mic.size // step - 2, timeout=30_000)
    window.model.worker.set_bridge(None)
    return [args[0] for args in frames.calls]


def test_open_mic_on_speakers_the_model_hears_the_user_not_itself(window, qtbot, tmp_path):
    window.conversation_panel.open_mic_box.setChecked(True)
    assert "with echo cancellation" in window.conversation_panel.headphones_note.text()
    far = speech_like(4.0, seed=1, f0=110.0)
    mic = room(far, delay_s=0.02)
    stats = stream(window, qtbot, AudioBridge(RATE, 1, RATE, 1), far, mic)
    late = [s for s in stats if s.seconds >= 2.0 and s.echo is not None]
    assert len(late) >= 15
    assert np.median([s.mic_db - s.model_input_db for s in late]) >= 20  # the model hears far less than the mic
    assert np.median([s.echo.erle_db for s in late]) >= 15
    window.meters_panel.advanced_box.setChecked(True)  # the echo meter is a developer's figure
    meter = window.meters_panel.echo_meter
    assert meter.after.isVisible() and "ERLE" in meter.erle_label.text()
    assert late[-1].echo.realignments == 0
    assert f"echo {late[-1].echo.echo_lag_ms:.0f} ms behind the speaker" in meter.erle_label.text()

    window.menus.processing_actions["echo_cancellation"].trigger()  # Audio > Echo cancellation: off
    stored = load_settings(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat))
    assert stored.echo_cancellation is False and stored.noise_suppression is True
    assert processing_from(stored) == window.model.devices.processing
    assert "headphones" in window.conversation_panel.headphones_note.text()


def test_without_the_library_the_app_runs_on_the_raw_microphone_and_says_so_once(
        window, qtbot, monkeypatch):
    monkeypatch.setitem(sys.modules, "pywebrtc_audio", None)  # makes `import pywebrtc_audio` fail
    echo.library_problem.cache_clear()
    try:
        told = EventRecorder(window.model.worker)
        window.conversation_panel.open_mic_box.setChecked(True)
        far = speech_like(1.0, seed=1, f0=110.0)
        stats = stream(window, qtbot, AudioBridge(RATE, 1, RATE, 1), far, room(far))
        stream(window, qtbot, AudioBridge(RATE, 1, RATE, 1), far, room(far))  # a new device: not said again
        qtbot.waitUntil(lambda: bool(told.of(ProcessingUnavailable)), timeout=5_000)
    finally:
        echo.library_problem.cache_clear()
    said = told.of(ProcessingUnavailable)
    assert len(said) == 1 and "pywebrtc-audio" in said[0].message
    assert stats and all(s.echo is None for s in stats) and max(s.model_input_db for s in stats) > -40
    assert not window.menus.processing_actions["echo_cancellation"].isEnabled()
    note = window.conversation_panel.headphones_note.text()
    assert "unavailable" in note and "headphones" in note
    assert window.meters_panel.echo_meter.erle_label.text() == "Echo cancellation: off"
