"""Microphone processing for hands-free use: WebRTC echo cancellation, noise suppression, gain control.

The library is ``pywebrtc-audio`` (WebRTC's audio processing module: AEC3, NS, AGC2, high-pass
filter), chosen over ``livekit.rtc.AudioProcessingModule`` by measurement: on the same synthetic
echo both cancel well beyond what is needed, but pywebrtc-audio kept more of the user's voice
during double talk, takes float32 arrays without conversion and is 1 MB instead of 30 MB with
protobuf (see bench/README.md).

Its processor takes the near end (microphone) and the far end (what the speaker played) together,
10 ms of each per call, so both sides queue in a FIFO at the processing rate and are paired in
order. The far end is what the output callback handed to the device (``AudioBridge.far``), not
what the model produced: the two differ by the output queue and the device's buffer. The stream
delay (how long after being handed to the device a far-end sample shows up in the paired
microphone chunk) is the devices' reported latencies plus the difference of the two FIFOs,
updated on every push; AEC3's own delay estimator finds the acoustic rest.

Everything here runs in the engine worker, never in a PortAudio callback.
"""

from __future__ import annotations

import functools
import logging
import math
from dataclasses import dataclass

import numpy as np

from app.frame_stats import SILENCE_DB
from app.resample import MonoResampler, downmix

log = logging.getLogger(__name__)

PROCESSING_RATES = (16_000, 32_000, 48_000)  # the rates WebRTC's processor works at natively
CHUNK_SECONDS = 0.01
# When the far end lags the microphone by more than this (the output stream stalled), microphone
# chunks are paired with silence instead of waiting: the model must keep hearing the user. Output
# callbacks come in bursts on a busy machine; pairing with silence shifts the far end against its
# echo, so the wait covers a few callbacks.
MAX_FAR_WAIT_SECONDS = 0.1
# The echo of a far-end sample reaches the microphone FIFO at least the devices' latency after
# the sample reached the far-end FIFO. A far end queued longer than that (minus this margin for
# callback jitter) would be paired with microphone audio that already holds its echo, which no
# echo canceller can remove; it is dropped, oldest first, down to another margin's worth below.
# The lead is judged smoothed over this long, so that a burst of output callbacks drops nothing.
FAR_LEAD_MARGIN_SECONDS = 0.02
FAR_LEAD_SMOOTHING_S = 0.5
FAR_ACTIVE_DB = -50.0  # far-end chunks quieter than this do not count towards the ERLE estimate
ERLE_TIME_CONSTANT_S = 1.0
LIBRARY = "pywebrtc-audio"


@dataclass(frozen=True)
class ProcessingSettings:
    """Which WebRTC stages run on the microphone (all of them off: the microphone is untouched)."""

    echo_cancellation: bool = True
    noise_suppression: bool = True
    high_pass_filter: bool = True
    auto_gain_control: bool = False

    @property
    def any_enabled(self) -> bool:
        return self.echo_cancellation or self.noise_suppression or self.high_pass_filter or self.auto_gain_control


@dataclass(frozen=True)
class EchoReading:
    """Levels of the microphone before and after processing since the previous reading."""

    before_db: float
    after_db: float
    erle_db: float | None  # estimated echo return loss enhancement; None until the far end has played
    delay_ms: float  # the stream delay given to the echo canceller
    far_gaps: int = 0  # microphone chunks paired with silence so far (the far end was late)
    far_dropped_ms: float = 0.0  # far end dropped so far (queued longer than its echo's delay)


def processing_rate(device_rate: int) -> int:
    """The lowest native processing rate that keeps the device's bandwidth (48 kHz at most)."""
    return next((rate for rate in PROCESSING_RATES if rate >= device_rate), PROCESSING_RATES[-1])


@functools.cache
def library_problem() -> str:
    """Empty when the processing library loads and runs here, else why not (checked once per process)."""
    try:
        import pywebrtc_audio

        processor = pywebrtc_audio.AudioProcessor(sample_rate=PROCESSING_RATES[0], num_channels=1,
                                                  echo_cancellation=True)
        chunk = np.zeros(int(PROCESSING_RATES[0] * CHUNK_SECONDS), dtype=np.float32)
        processor.process(chunk, chunk)
    except Exception as e:  # ImportError, a missing native library, an unsupported CPU...
        log.warning("echo cancellation is unavailable: %s: %s", type(e).__name__, e)
        return f"{LIBRARY} does not work here ({type(e).__name__}: {e})"
    return ""


class _Fifo:
    """A growing mono float32 queue (worker-side; allocation is fine here)."""

    def __init__(self) -> None:
        self.data = np.zeros(0, dtype=np.float32)

    def push(self, samples: np.ndarray) -> None:
        if samples.size:
            self.data = np.concatenate([self.data, samples.astype(np.float32, copy=False)])

    def pop(self, count: int) -> np.ndarray:
        head, self.data = self.data[:count], self.data[count:]
        return head

    def drop_oldest(self, count: int) -> None:
        self.data = self.data[count:]

    def __len__(self) -> int:
        return len(self.data)


def _db(mean_square: float) -> float:
    return SILENCE_DB if mean_square <= 1e-12 else max(SILENCE_DB, 10.0 * math.log10(mean_square))


class MicProcessor:
    """Device-rate microphone and far-end blocks in, processed mono microphone at ``rate`` out."""

    def __init__(self, settings: ProcessingSettings, input_rate: int, output_rate: int) -> None:
        import pywebrtc_audio

        self.settings = settings
        self.rate = processing_rate(input_rate)
        self.chunk = int(self.rate * CHUNK_SECONDS)
        self._processor = pywebrtc_audio.AudioProcessor(
            sample_rate=self.rate,
            num_channels=1,
            echo_cancellation=settings.echo_cancellation,
            noise_suppression=settings.noise_suppression,
            high_pass_filter=settings.high_pass_filter,
            auto_gain_control=settings.auto_gain_control,
        )
        self._near_in = MonoResampler(input_rate, self.rate)
        self._far_in = MonoResampler(output_rate, self.rate)
        self._near = _Fifo()
        self._far = _Fifo()
        self._silence = np.zeros(self.chunk, dtype=np.float32)
        self.delay_ms = 0.0
        # Energies since the last reading (sums over samples) and the smoothed ERLE estimate.
        self._before_sum = 0.0
        self._after_sum = 0.0
        self._samples = 0
        self._erle_before = 0.0
        self._erle_after = 0.0
        self._erle_seen = False
        self._erle_alpha = 1.0 - math.exp(-CHUNK_SECONDS / ERLE_TIME_CONSTANT_S)
        self.far_starved_chunks = 0  # microphone chunks paired with silence (far end late)
        self.far_dropped_samples = 0  # far-end samples dropped (queued too long), at ``rate``
        self._lead: float | None = None  # smoothed far-end lead over the microphone, in samples

    def process(self, mic: np.ndarray, far: np.ndarray, device_latency_s: float) -> np.ndarray:
        """Queue ``mic`` ([n, channels] at the input rate) and ``far`` ([m, 1] or [m] at the output
        rate), return the processed microphone for every pair of whole chunks now complete.

        ``device_latency_s`` is the input plus output latency PortAudio reports for the streams.
        """
        near = self._near_in(downmix(mic))
        self._near.push(near)
        self._far.push(self._far_in(downmix(far)))
        self._bound_far_lead(device_latency_s, len(near) / self.rate)
        max_wait = int(MAX_FAR_WAIT_SECONDS * self.rate)
        out = []
        while len(self._near) >= self.chunk:
            if len(self._far) >= self.chunk:
                far_chunk = self._far.pop(self.chunk)
            elif len(self._near) - len(self._far) > max_wait:
                far_chunk = self._silence
                self.far_starved_chunks += 1
            else:
                break  # the paired far end is still in the output device's callback
            self._set_delay(device_latency_s)
            near_chunk = self._near.pop(self.chunk)
            processed = np.asarray(self._processor.process(near_chunk, far_chunk), dtype=np.float32).reshape(-1)
            self._account(near_chunk, far_chunk, processed)
            out.append(processed)
        return np.concatenate(out) if out else np.zeros(0, dtype=np.float32)

    def _bound_far_lead(self, device_latency_s: float, pushed_s: float) -> None:
        """Keep the far end from being paired after its own echo (it starts out queued for as long
        as the input stream took to start; later, the output clock may run faster than the input's)."""
        lead = float(len(self._far) - len(self._near))
        alpha = 1.0 - math.exp(-max(pushed_s, CHUNK_SECONDS) / FAR_LEAD_SMOOTHING_S)
        self._lead = lead if self._lead is None else self._lead + alpha * (lead - self._lead)
        max_lead = max(0.0, device_latency_s - FAR_LEAD_MARGIN_SECONDS) * self.rate
        if self._lead > max_lead:
            target = max(0.0, max_lead - FAR_LEAD_MARGIN_SECONDS * self.rate)
            excess = min(int(self._lead - target), len(self._far))
            self._far.drop_oldest(excess)
            self.far_dropped_samples += excess
            self._lead -= excess

    def _set_delay(self, device_latency_s: float) -> None:
        # The head of each FIFO arrived len(fifo) samples ago: a far-end FIFO longer than the
        # near-end one pairs the microphone with older far end, which shortens the delay.
        queued_s = (len(self._near) - len(self._far)) / self.rate
        self.delay_ms = max(0.0, 1000.0 * (device_latency_s + queued_s))
        self._processor.stream_delay_ms = int(round(self.delay_ms))

    def _account(self, near: np.ndarray, far: np.ndarray, processed: np.ndarray) -> None:
        before = float(np.dot(near, near))
        after = float(np.dot(processed, processed))
        self._before_sum += before
        self._after_sum += after
        self._samples += len(near)
        far_energy = float(np.dot(far, far)) / len(far)
        if self.settings.echo_cancellation and _db(far_energy) > FAR_ACTIVE_DB:
            a = self._erle_alpha
            self._erle_before += a * (before / len(near) - self._erle_before)
            self._erle_after += a * (after / len(near) - self._erle_after)
            self._erle_seen = True

    def reading(self) -> EchoReading:
        """Levels since the previous call (the worker takes one per model frame)."""
        n = max(1, self._samples)
        erle = None
        if self._erle_seen:
            erle = _db(self._erle_before) - _db(self._erle_after)
        reading = EchoReading(_db(self._before_sum / n), _db(self._after_sum / n), erle, self.delay_ms,
                              self.far_starved_chunks, 1000.0 * self.far_dropped_samples / self.rate)
        self._before_sum = self._after_sum = 0.0
        self._samples = 0
        return reading
