"""Playing speech as it is generated: the model's 24 kHz frames go through the app's output
conversion (``OutputConverter``: finite, clipped, resampled to the device's rate) into a
``SampleRing`` that a PortAudio callback drains. ``stop`` silences the device at once (the
stream is aborted, what was queued is dropped); ``silence`` does it from another thread (the
callback plays silence in place of what was queued, ``play`` queues nothing more)."""

from __future__ import annotations

import time

import numpy as np

from app.audio.resample import OutputConverter
from app.audio.ring import SampleRing

RING_SECONDS = 20.0


class SpeechOutput:
    def __init__(self, device_label: str | None = None) -> None:
        """``device_label``: a speaker as the window's pickers name it (None or "": the default)."""
        import sounddevice as sd

        from app.audio.alsa_messages import alsa_messages_to_log
        from app.audio.streams import find_device, pick_rate, portaudio_held

        alsa_messages_to_log()
        self.silenced = False
        with portaudio_held():  # the window's own streams may be opening on another thread
            if device_label:
                device = find_device(sd, device_label, "output")
            else:
                device = sd.default.device[1]
                device = int(sd.query_devices(kind="output")["index"]) if device is None or device < 0 else int(device)
            self.rate = pick_rate(sd, device, "output")
            self._convert = OutputConverter(self.rate)
            self._ring = SampleRing(int(RING_SECONDS * self.rate))
            self._stream = sd.OutputStream(device=device, samplerate=self.rate, channels=1, dtype="float32",
                                           callback=self._callback)
            self._stream.start()

    def _callback(self, out: np.ndarray, frames: int, _time, _status) -> None:
        got = self._ring.read_into(out)
        out[got:] = 0.0

    def play(self, frame: np.ndarray) -> None:
        """Queues one frame, waiting while the ring is full (generation runs ahead of playback)."""
        if self.silenced:
            return
        samples = self._convert.convert(frame)
        while self._ring.capacity - self._ring.available() < samples.shape[0]:
            time.sleep(0.02)
        self._ring.write(samples)

    def drain(self) -> None:
        while self._ring.available() > 0:
            time.sleep(0.02)
        self.close()

    def silence(self) -> None:
        """Silent from the next callback on (any thread may call it; no PortAudio call)."""
        self.silenced = True
        self._ring.request_mute()

    def stop(self) -> None:
        self._stream.abort()
        self.close()

    def close(self) -> None:
        self._stream.close()
