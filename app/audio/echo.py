"""Microphone processing for hands-free use: WebRTC echo cancellation, noise suppression, gain control.

The library is ``pywebrtc-audio`` (WebRTC's audio processing module: AEC3, NS, AGC2, high-pass
filter), chosen over ``livekit.rtc.AudioProcessingModule`` by measurement: on the same synthetic
echo both cancel well beyond what is needed, but pywebrtc-audio kept more of the user's voice
during double talk, takes float32 arrays without conversion and is 1 MB instead of 30 MB with
protobuf (see bench/README.md).

Its processor takes the near end (microphone) and the far end (what the speaker played) together,
10 ms of each per call, so both sides queue in a FIFO at the processing rate. The far end is what
the output callback handed to the device (``AudioBridge.far``), not what the model produced.
Pairing is by time, not by order: every block carries the time its first sample was captured
(ADC) or will be played (DAC), as PortAudio reports them, and a microphone chunk is paired with
the far end that played a little later than it was captured (the stream delay, kept within
``DELAY_WINDOW_S``). Pairing by order alone drifts with every output callback that comes late,
every underflow and every clock that runs apart; by time, a stalled or late far end is silence
where it was silent and is dropped where it came too late, and the alignment does not accumulate
errors. Inside the window chunks are paired in order, so AEC3 (whose own delay estimator finds the
acoustic rest) sees a steady alignment, re-anchored only when the window is left. (Through
PulseAudio the capture stream's first second reports capture times that run up to 0.6 s early and
then settle at twice real time; the pairing follows them and holds still from then on.)

Times can be wrong by more than AEC3 forgives (an echo ahead of its far end is not cancelled), so
the pairing is also checked against the signals (``app.audio.echo_lag``): when two estimates in a row
put the echo outside ``ECHO_LAG_RANGE_S`` behind its far end, the far end is moved by the error (as
far as it has arrived) and the pairing's times corrected by as much, so that the window keeps it.

Everything here runs in the engine worker, never in a PortAudio callback.
"""

from __future__ import annotations

import functools
import logging
import math
from dataclasses import dataclass

import numpy as np

from app.audio.echo_lag import EchoLagEstimator
from app.audio.levels import SILENCE_DB
from app.audio.resample import MonoResampler, downmix

log = logging.getLogger(__name__)

PROCESSING_RATES = (16_000, 32_000, 48_000)  # the rates WebRTC's processor works at natively
CHUNK_SECONDS = 0.01
# When the far end lags the microphone by more than this (the output stream stalled), microphone
# chunks are paired with silence instead of waiting: the model must keep hearing the user. Each such
# chunk shifts the pairing by its length until the window re-anchors it, and AEC3 re-adapts: with
# 0.1 s, PulseAudio's bursty output callbacks (80 ms device latency) starved the pairing every second
# or so on a second run in one process, and the ERLE fell from ~65 to 8-10 dB (2 of 2 runs); with
# 0.25 s, 6 of 6 such runs kept 61-66 dB. The wait costs latency only while the output stalls.
MAX_FAR_WAIT_SECONDS = 0.25
# The stream delay: how much later than a microphone chunk was captured its paired far end plays.
# Below 0 the far end would be paired after its own echo (which no canceller removes); far above
# the acoustic delay it wastes AEC3's delay range. Leaving the window re-anchors at the target.
DELAY_WINDOW_S = (0.0, 0.05)
TARGET_DELAY_S = 0.015
# Where AEC3 cancels an echo behind its paired far end (measured, see app/audio/echo_lag.py: 0-0.5 s), with
# a margin; a pairing found outside is moved so that the echo lies at the target.
ECHO_LAG_RANGE_S = (0.0, 0.4)
TARGET_ECHO_LAG_S = 0.06
ECHO_LAG_AGREEMENT_S = 0.005  # two estimates this close are one lag, not noise
FAR_ACTIVE_DB = -50.0  # far-end chunks quieter than this do not count towards the ERLE estimate
ERLE_TIME_CONSTANT_S = 1.0
LIBRARY = "pywebrtc-audio"


@dataclass(frozen=True)
class EchoReading:
    """Levels of the microphone before and after processing since the previous reading."""

    before_db: float
    after_db: float
    erle_db: float | None  # estimated echo return loss enhancement; None until the far end has played
    delay_ms: float  # the stream delay given to the echo canceller
    far_gaps: int = 0  # microphone chunks paired with silence so far (the far end was late or absent)
    far_dropped_ms: float = 0.0  # far end dropped so far (it came too late to precede its echo)
    echo_lag_ms: float | None = None  # the echo's lag behind its paired far end, last measured (None: not yet)
    realignments: int = 0  # times the pairing was moved because the signals put the echo out of AEC3's reach



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


class _TimedFifo:
    """A growing mono float32 queue whose samples have times: ``end_time`` is when the sample after
    the last one is due (captured or played), so the head's time is ``end_time - len / rate``.
    Worker-side; allocation is fine here."""

    def __init__(self, rate: int) -> None:
        self.rate = rate
        self.data = np.zeros(0, dtype=np.float32)
        self.end_time: float | None = None  # None until the first push

    def push(self, samples: np.ndarray, end_time: float) -> None:
        if samples.size:
            self.data = np.concatenate([self.data, samples.astype(np.float32, copy=False)])
        self.end_time = end_time

    def head_time(self) -> float:
        return self.end_time - len(self.data) / self.rate

    def pop(self, count: int) -> np.ndarray:
        head, self.data = self.data[:count], self.data[count:]
        return head

    def drop_oldest(self, count: int) -> None:
        self.data = self.data[count:]

    def prepend_silence(self, count: int) -> None:
        self.data = np.concatenate([np.zeros(count, dtype=np.float32), self.data])

    def append_silence(self, count: int) -> None:
        """Silence after the queued samples, due from ``end_time`` on (the device played nothing of ours)."""
        self.data = np.concatenate([self.data, np.zeros(count, dtype=np.float32)])
        self.end_time += count / self.rate

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
        self._input_rate = input_rate
        self._output_rate = output_rate
        self.delay_ms = 0.0
        # Energies since the last reading (sums over samples) and the smoothed ERLE estimate.
        self._before_sum = 0.0
        self._after_sum = 0.0
        self._samples = 0
        self._erle_before = 0.0
        self._erle_after = 0.0
        self._erle_seen = False
        self._erle_alpha = 1.0 - math.exp(-CHUNK_SECONDS / ERLE_TIME_CONSTANT_S)
        self.far_starved_chunks = 0  # microphone chunks paired with (some) silence: far end late or absent
        self.far_dropped_samples = 0  # far-end samples dropped (they came too late), at ``rate``
        # Added to the far end's times: what the signals showed the times to be wrong by.
        self._time_correction_s = 0.0
        self._lag = EchoLagEstimator(self.rate) if settings.echo_cancellation else None
        self.realignments = 0
        self.new_stream()

    def new_stream(self) -> None:
        """The same devices, a new stream of their audio (a conversation started or continued): the
        queued audio, the resamplers' state and the pairing's anchor go; what the canceller learned
        of the room stays. A fresh AEC3 has to learn the echo path (or that there is none, on
        headphones) from the assistant's voice, and until then it cuts the person's voice wherever
        both speak: with the assistant at -20 dBFS and no echo at all, by 27-50 dB (median) over
        the first 8 s of double talk; kept, by 0.2 dB (tests/test_echo.py, recorded speech)."""
        self._near_in = MonoResampler(self._input_rate, self.rate)
        self._far_in = MonoResampler(self._output_rate, self.rate)
        self._near = _TimedFifo(self.rate)
        self._far = _TimedFifo(self.rate)
        self._near_pushed = 0  # device samples pushed, for the sample clock (no times given)
        self._far_pushed = 0
        if self._lag is not None:
            self._lag.reset()
        self.echo_lag_s: float | None = None

    def process(self, mic: np.ndarray, far: np.ndarray, mic_time: float | None = None,
                far_time: float | None = None) -> np.ndarray:
        """Queue ``mic`` ([n, channels] at the input rate) and ``far`` ([m, 1] or [m] at the output
        rate), return the processed microphone for every chunk now paired with its far end.

        ``mic_time`` is when ``mic[0]`` was captured and ``far_time`` when ``far[0]`` is played, on
        one clock (seconds). Without them both streams are taken to have started together on one
        sample clock (recordings processed offline). The resamplers' filter delay (a few ms) is
        not corrected: it is the same on both sides when their rates are.
        """
        if mic_time is None or far_time is None:
            mic_time, far_time = self._near_pushed / self._input_rate, self._far_pushed / self._output_rate
        near_block, far_block = downmix(mic), downmix(far)
        self._near_pushed += len(near_block)
        self._far_pushed += len(far_block)
        self._near.push(self._near_in(near_block), mic_time + len(near_block) / self._input_rate)
        if len(far_block) or self._far.end_time is not None:
            self._far.push(self._far_in(far_block), far_time + len(far_block) / self._output_rate)
        max_wait = int(MAX_FAR_WAIT_SECONDS * self.rate)
        out = []
        while len(self._near) >= self.chunk:
            self._align_far()
            if len(self._far) < self.chunk:
                if len(self._near) - len(self._far) <= max_wait:
                    break  # the paired far end is still in the output device's callback
                if self._far.end_time is None:
                    self._far.end_time = self._near.head_time() + TARGET_DELAY_S
                self._far.append_silence(self.chunk - len(self._far))
                self.far_starved_chunks += 1
            self._set_delay()
            near_chunk = self._near.pop(self.chunk)
            far_chunk = self._far.pop(self.chunk)
            processed = np.asarray(self._processor.process(near_chunk, far_chunk), dtype=np.float32).reshape(-1)
            self._account(near_chunk, far_chunk, processed)
            self._check_lag(near_chunk, far_chunk)
            out.append(processed)
        return np.concatenate(out) if out else np.zeros(0, dtype=np.float32)

    def _delay_s(self) -> float:
        return self._far.head_time() + self._time_correction_s - self._near.head_time()

    def _check_lag(self, near: np.ndarray, far: np.ndarray) -> None:
        """Move the pairing when two estimates in a row put the echo where AEC3 cannot reach it."""
        if self._lag is None:
            return
        lag = self._lag.push(near, far)
        if lag is None:
            return
        previous, self.echo_lag_s = self.echo_lag_s, lag
        low, high = ECHO_LAG_RANGE_S
        if previous is None or abs(lag - previous) > ECHO_LAG_AGREEMENT_S or low <= lag <= high:
            return
        # Dropping far end lengthens the echo's lag by as much, padding it with silence shortens it;
        # only far end that has arrived can be dropped (the rest shows in the next estimates).
        shift = round((TARGET_ECHO_LAG_S - lag) * self.rate)
        if shift > 0:
            shift = min(shift, len(self._far))
            self._far.drop_oldest(shift)
        else:
            self._far.prepend_silence(-shift)
        self._time_correction_s -= shift / self.rate  # the window sees the far end where it was
        self.realignments += 1
        log.info("echo %.0f ms behind its far end (out of %.0f-%.0f ms): far end moved by %.0f ms",
                 1000 * lag, 1000 * low, 1000 * high, 1000 * shift / self.rate)
        self._lag.reset()
        self.echo_lag_s = None

    def _align_far(self) -> None:
        """Re-anchor the far end at the target delay when the pairing left the delay window: drop far
        end that came too late to precede its echo; where the far end is newer than the microphone
        (the device played nothing of ours in between), pair the microphone with silence."""
        if self._far.end_time is None:
            return
        delay = self._delay_s()
        if delay < DELAY_WINDOW_S[0]:
            excess = min(len(self._far), round((TARGET_DELAY_S - delay) * self.rate))
            self._far.drop_oldest(excess)
            self.far_dropped_samples += excess
        elif delay > DELAY_WINDOW_S[1]:
            # At most a chunk at a time: the next chunk's check adds more where the gap was longer.
            gap = min(self.chunk, round((delay - TARGET_DELAY_S) * self.rate))
            self._far.prepend_silence(gap)
            self.far_starved_chunks += 1

    def _set_delay(self) -> None:
        self.delay_ms = max(0.0, 1000.0 * self._delay_s())
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
        lag_ms = None if self.echo_lag_s is None else 1000.0 * self.echo_lag_s
        reading = EchoReading(_db(self._before_sum / n), _db(self._after_sum / n), erle, self.delay_ms,
                              self.far_starved_chunks, 1000.0 * self.far_dropped_samples / self.rate, lag_ms,
                              self.realignments)
        self._before_sum = self._after_sum = 0.0
        self._samples = 0
        return reading
