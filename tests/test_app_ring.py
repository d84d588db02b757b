"""The real-time hand-off: sample rings, the output cushion, the PortAudio callbacks' bodies, streaming
resampling."""

from __future__ import annotations

import numpy as np
import pytest

from app.audio.bridge import AudioBridge
from app.audio.output_cushion import MARGIN_S, WINDOW_FRAMES, OutputCushion
from app.audio.resample import FrameAssembler, OutputConverter
from app.audio.ring import SampleRing
from engine import FRAME_SIZE


def test_ring_returns_exactly_what_was_written_across_wrap_arounds():
    rng = np.random.default_rng(0)
    ring = SampleRing(capacity=1000, channels=2)
    sent, got = [], []
    for _ in range(200):
        block = rng.standard_normal((int(rng.integers(1, 400)), 2)).astype(np.float32)
        stored = ring.write(block)
        sent.append(block[:stored])
        out = np.zeros((int(rng.integers(1, 400)), 2), np.float32)
        n = ring.read_into(out)
        got.append(out[:n].copy())
    while ring.available():
        out = np.zeros((300, 2), np.float32)
        got.append(out[: ring.read_into(out)].copy())
    assert np.array_equal(np.concatenate(sent), np.concatenate(got))
    assert ring.skipped == 0


def test_a_full_ring_drops_the_newest_and_counts_them():
    ring = SampleRing(capacity=100)
    assert ring.write(np.ones(80, np.float32)) == 80
    assert ring.write(np.ones(50, np.float32)) == 20
    assert ring.overflowed == 30 and ring.available() == 100


def test_backlog_limit_keeps_only_the_newest_samples():
    ring = SampleRing(capacity=1000)
    ring.write(np.arange(900, dtype=np.float32))
    out = np.zeros(1000, np.float32)
    n = ring.read_into(out, max_backlog=100)
    assert n == 100 and np.array_equal(out[:100], np.arange(800, 900, dtype=np.float32))
    assert ring.skipped == 800


def test_mute_silences_what_was_queued_and_keeps_its_length():
    ring = SampleRing(capacity=1000)
    ring.write(np.full(300, 1.0, np.float32))
    out = np.zeros(100, np.float32)
    assert ring.read_into(out) == 100 and np.all(out == 1.0)  # played before the mute
    ring.request_mute()
    ring.write(np.full(50, 2.0, np.float32))
    out = np.full(120, 9.0, np.float32)
    assert ring.read_into(out) == 120 and np.all(out == 0.0)  # silence where the queued audio was
    out = np.full(200, 9.0, np.float32)
    assert ring.read_into(out) == 130  # the rest of the silence, then what came after, no gap
    assert np.all(out[:80] == 0.0) and np.all(out[80:130] == 2.0) and np.all(out[130:] == 9.0)
    assert ring.muted == 200 and ring.skipped == 0


def test_skipping_muted_samples_never_reaches_past_the_mute():
    ring = SampleRing(capacity=1000)
    ring.write(np.full(300, 1.0, np.float32))
    ring.request_mute()
    ring.write(np.full(50, 2.0, np.float32))
    assert ring.muted_ahead() == 300
    ring.request_skip_muted(1000)  # more than is muted: only the muted samples go
    out = np.full(400, 9.0, np.float32)
    assert ring.read_into(out) == 50 and np.all(out[:50] == 2.0)
    assert ring.skipped == 300 and ring.muted == 0 and ring.muted_ahead() == 0


def test_the_cushion_is_the_smallest_recent_queue_less_a_margin():
    cushion = OutputCushion()
    levels = [0.2, 0.15, 0.3] * WINDOW_FRAMES
    for level in levels[: WINDOW_FRAMES - 1]:
        cushion.observe(level)
        assert cushion.excess_s == 0.0  # not before a whole window was seen
    cushion.observe(levels[WINDOW_FRAMES - 1])
    assert cushion.excess_s == pytest.approx(0.15 - MARGIN_S)
    cushion.observe(0.01)
    assert cushion.excess_s == 0.0
    cushion.trimmed()
    for _ in range(WINDOW_FRAMES - 1):
        cushion.observe(0.5)
    assert cushion.excess_s == 0.0  # what was seen before the trim no longer counts


def test_ring_rejects_a_nonsense_size():
    with pytest.raises(ValueError):
        SampleRing(0)


def test_output_callback_fills_every_channel_and_counts_starvation_after_the_first_frame():
    bridge = AudioBridge(48_000, 2, 48_000, 2)
    out = np.full((256, 2), 9.0, np.float32)
    bridge.output_callback(out, 256, None, None)  # before the worker's first frame: silence, no gap
    assert np.all(out == 0.0) and bridge.output_starved_samples == 0
    bridge.output.write(np.full(100, 0.5, np.float32))
    out = np.full((256, 2), 9.0, np.float32)
    bridge.output_callback(out, 256, None, None)
    assert np.all(out[:100] == 0.5) and np.all(out[100:] == 0.0)  # every sample written, both channels
    assert bridge.output_starved_samples == 156 and bridge.output_callbacks == 2


def test_input_callback_copies_counts_and_wakes_the_worker():
    class Status:
        input_overflow = True

    bridge = AudioBridge(16_000, 1, 16_000, 1)
    block = np.linspace(-1, 1, 320, dtype=np.float32).reshape(-1, 1)
    bridge.input_callback(block, 320, None, Status())
    assert bridge.data_ready.is_set() and bridge.input_overflows == 1 and bridge.input_callbacks == 1
    out = np.zeros((320, 1), np.float32)
    assert bridge.input.read_into(out) == 320 and np.array_equal(out, block)


@pytest.mark.parametrize("rate,channels", [(48_000, 2), (44_100, 1), (16_000, 1), (24_000, 2)])
def test_frames_come_out_at_24k_mono_with_the_tone_intact(rate, channels):
    seconds = 1.0
    t = np.arange(int(rate * seconds)) / rate
    tone = (0.5 * np.sin(2 * np.pi * 440.0 * t)).astype(np.float32)
    device_audio = np.stack([tone] * channels, axis=1)
    assembler = FrameAssembler(rate)
    frames = []
    for start in range(0, len(device_audio), int(rate * 0.02)):  # 20 ms device blocks
        assembler.push(device_audio[start : start + int(rate * 0.02)])
        while assembler.pending_frames():
            frames.append(assembler.pop_frame())
    assert len(frames) >= 11  # 12.5 frames per second, minus the filter delay
    audio = np.concatenate(frames[2:])
    spectrum = np.abs(np.fft.rfft(audio))
    peak_hz = np.argmax(spectrum) * 24_000 / len(audio)
    assert abs(peak_hz - 440.0) < 5.0
    assert abs(np.sqrt(np.mean(audio**2)) - 0.5 / np.sqrt(2)) < 0.02


def test_output_converter_keeps_duration():
    converter = OutputConverter(48_000)
    total = sum(len(converter.convert(np.zeros(FRAME_SIZE, np.float32))) for _ in range(25))
    assert abs(total - 2 * 25 * FRAME_SIZE) <= 500  # 2 s of 48 kHz, minus the filter delay


@pytest.mark.parametrize("rate", [24_000, 48_000])
def test_nothing_non_finite_or_beyond_full_scale_reaches_the_output_ring(rate):
    converter = OutputConverter(rate)
    frame = np.full(FRAME_SIZE, 0.5, np.float32)
    frame[:4] = [np.nan, np.inf, -np.inf, 7.0]
    frame[100:200] = -3.0
    kept = frame.copy()
    out = converter.convert(frame)
    assert np.isfinite(out).all() and np.abs(out).max() <= 1.0
    assert np.array_equal(frame, kept, equal_nan=True)  # the model's frame itself is left as it was
    after = np.concatenate([converter.convert(np.full(FRAME_SIZE, 0.25, np.float32)) for _ in range(3)])
    assert np.isfinite(after).all()  # a NaN frame did not poison the resampler for the frames after it
    if rate == 24_000:
        assert np.array_equal(out[4:], np.clip(kept[4:], -1, 1)) and out[:4].tolist() == [0, 1, -1, 1]


def test_the_callbacks_allocate_no_sample_buffers():
    import tracemalloc

    bridge = AudioBridge(48_000, 2, 48_000, 2)
    indata = np.ones((960, 2), np.float32)
    outdata = np.zeros((960, 2), np.float32)
    for _ in range(5):  # warm up lazily created objects
        bridge.input_callback(indata, 960, None, None)
        bridge.output_callback(outdata, 960, None, None)
    bridge.output.write(np.ones(48_000, np.float32))
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        for _ in range(15):  # 0.3 s: within the output backlog limit, so every block is real audio
            bridge.input_callback(indata, 960, None, None)
            bridge.output_callback(outdata, 960, None, None)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak - before < 2048  # a temporary column (960 float32) alone would be 3.8 KiB
    assert np.all(outdata == 1.0)  # and the output really was copied to both channels


def test_after_a_stalled_output_stream_the_callback_keeps_only_a_frame_and_the_cushion_margin():
    """ALSA's PulseAudio plugin stops calling back for over a second after an underrun while frames
    queue on: what queued is that much late, and only the cushion and a frame of it is played."""
    import time
    from types import SimpleNamespace

    from app.audio.bridge import MAX_OUTPUT_BACKLOG_SECONDS, RESUME_BACKLOG_SECONDS, STALL_SECONDS

    stream_times = SimpleNamespace(outputBufferDacTime=0.0)  # a stream's time info (0: its host API gives none)
    bridge = AudioBridge(48_000, 1, 48_000, 1)
    out = np.zeros((960, 1), np.float32)
    bridge.output_callback(out, 960, stream_times, None)  # the stream runs
    queued = int(0.9 * MAX_OUTPUT_BACKLOG_SECONDS * 48_000)  # within what a callback on time keeps
    bridge.output.write(np.ones(queued, np.float32))
    bridge.output_callback(out, 960, stream_times, None)  # on time
    assert bridge.output.skipped == 0 and bridge.output_stalls == 0 and bridge.output.available() == queued - 960
    time.sleep(STALL_SECONDS * 1.5)
    bridge.output_callback(out, 960, None, None)  # driven by hand (no time info): at any pace, nothing skipped
    assert bridge.output_stalls == 0 and bridge.output.available() == queued - 2 * 960
    time.sleep(STALL_SECONDS * 1.5)
    bridge.output_callback(out, 960, stream_times, None)
    assert bridge.output_stalls == 1 and np.all(out == 1.0)
    assert bridge.output.available() == int(RESUME_BACKLOG_SECONDS * 48_000) - 960
