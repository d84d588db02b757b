"""Driving the real audio path without a sound card (self-test, screenshots, tests).

``BridgeFeeder`` plays the part of PortAudio: it calls the bridge's real input callback with
blocks of a signal, waits (processing Qt events) until the worker has processed each block, and
calls the real output callback to collect what the speaker would have played.
Pacing by frames instead of by the clock keeps it as fast as the model and never lets the
worker's latency guard drop input.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from PySide6.QtCore import QCoreApplication, QEventLoop, QObject

from app.audio.bridge import AudioBridge
from engine import FRAME_MS


class SignalRecorder(QObject):
    """Records the arguments of the signals connected to ``record``, in the thread it lives in.

    Connect worker signals to a QObject method like this one, never to a lambda or a plain
    function: PySide6 runs those in the emitting (worker) thread.
    """

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple] = []

    def record(self, *args) -> None:
        self.calls.append(args)

    def __len__(self) -> int:
        return len(self.calls)


class EventRecorder(QObject):
    """Records the engine thread's events (``EngineWorker.event``), in the thread it lives in."""

    def __init__(self, worker) -> None:
        super().__init__()
        self.events: list = []
        worker.event.connect(self.record)

    def record(self, event) -> None:
        self.events.append(event)

    def of(self, *kinds: type) -> list:
        """The events of these classes (``app.engine_thread.messages``), in order."""
        return [e for e in self.events if isinstance(e, kinds)]


def wait_until(predicate: Callable[[], bool], timeout_s: float) -> bool:
    """Process Qt events until ``predicate()`` is true; False on timeout."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            return False
        QCoreApplication.processEvents(QEventLoop.AllEvents, 20)
        time.sleep(0.002)
    return True


class BridgeFeeder:
    """Feeds ``signal`` ([n] or [n, channels] at the bridge's input rate) frame by frame."""

    def __init__(self, bridge: AudioBridge, processed_position: Callable[[], int]) -> None:
        self.bridge = bridge
        self.processed_position = processed_position
        self.block = int(round(bridge.input_rate * FRAME_MS / 1000.0))
        self.output_block = int(round(bridge.output_rate * FRAME_MS / 1000.0))
        self._out = np.zeros((self.output_block, 1), dtype=np.float32)
        self.played: list[np.ndarray] = []

    def feed(self, signal: np.ndarray, timeout_s: float = 30.0, drain: bool = True) -> None:
        """Feed whole blocks of ``signal``, each after the worker finished the previous one."""
        channels = self.bridge.input.channels
        data = signal.reshape(-1, 1) if signal.ndim == 1 else signal
        if data.shape[1] != channels:
            data = np.repeat(data.mean(axis=1, keepdims=True), channels, axis=1)
        data = np.ascontiguousarray(data, dtype=np.float32)
        for offset in range(0, len(data) - self.block + 1, self.block):
            self.bridge.input_callback(data[offset : offset + self.block], self.block, None, None)
            if not wait_until(lambda: self.processed_position() >= self.bridge.input.written, timeout_s):
                raise TimeoutError(f"the engine worker did not process a block within {timeout_s} s")
            if drain:
                self.drain()

    def drain(self) -> None:
        """What the output callback would play now (one block)."""
        self.bridge.output_callback(self._out, self.output_block, None, None)
        self.played.append(self._out[:, 0].copy())


def speak_into(bridge: AudioBridge, pcm: np.ndarray, poll: Callable[[], None], poll_every_s: float = 0.16) -> None:
    """Call the bridge's input callback with ``pcm`` (mono, at its input rate) in 20 ms blocks, as
    PortAudio would, calling ``poll`` (a reader of the input ring, e.g. the voice recorder) in between."""
    block = bridge.input_rate // 50
    every = max(1, int(poll_every_s * 50))
    data = np.ascontiguousarray(np.repeat(pcm.reshape(-1, 1), bridge.input.channels, axis=1), dtype=np.float32)
    for i, start in enumerate(range(0, len(data) - block + 1, block)):
        bridge.input_callback(data[start:start + block], block, None, None)
        if i % every == every - 1:
            poll()
    poll()
