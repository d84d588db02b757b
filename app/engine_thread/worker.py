"""The engine thread: a QObject in its own QThread that owns the model and the conversation.

Its loop is flat: take the next command (``app.engine_thread.messages``) and let the controller execute
it; otherwise, while there is a running conversation (the person pressed Talk or Start) and audio,
pump frames. Frames are driven by input audio: the pump sleeps on the bridge's ``data_ready`` event
(set by the PortAudio input callback). A stopped conversation runs nothing: the loop only waits for
the next command.
Nothing here decides anything: the controller (``app.engine_thread.controller``) owns the model,
the conversation, its files, journal and recovery; the pump (``app.engine_thread.frame_pump``) turns input
audio into frames and replies. What they report leaves as one queued Qt signal, ``event``.

Requests from the GUI never wait for the engine thread: ``submit`` puts a command on a queue, which
the loop drains between frames. Two requests act at once instead, each a single atomic store that
the other side reads: ``barge_in`` (the output ring's mute request, read by the output callback)
and a running recovery's cancel event (``RecoverJournal.cancel``, read between replayed frames).
"""

from __future__ import annotations

import queue
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot

from app.audio.bridge import AudioBridge
from app.engine_thread import messages as m
from app.engine_thread.controller import ConversationController, ModelLoader, load_engine_model
from app.engine_thread.frame_pump import FramePump

IDLE_POLL_S = 0.05
DATA_WAIT_S = 0.02


class EngineWorker(QObject):
    event = Signal(object)  # an app.engine_thread.messages event

    def __init__(self, model_loader: ModelLoader = load_engine_model, seed: int | None = None,
                 cuda_graph: bool = True, journal_dir: Path | None = None) -> None:
        """``journal_dir``: where each conversation's crash journal is written (None: no journals)."""
        super().__init__()
        self._commands: queue.SimpleQueue = queue.SimpleQueue()
        self.controller = ConversationController(self.event.emit, self.submit, model_loader, seed=seed,
                                                 cuda_graph=cuda_graph, journal_dir=journal_dir)
        self.pump = FramePump(self.event.emit, self.controller.captions)
        self._bridge: AudioBridge | None = None
        self._stop = False

    # -- any thread --------------------------------------------------------------------------
    def submit(self, command) -> None:
        """Queue a command (``app.engine_thread.messages``) for the engine thread."""
        self._commands.put(command)

    def set_bridge(self, bridge: AudioBridge | None) -> None:
        """Start taking audio from ``bridge`` (None: no device, the model pauses)."""
        # A position in the new bridge's ring: a driver pacing itself by it must not see the old one's.
        self.pump.processed_position = bridge.input.read if bridge is not None else 0
        self._bridge = bridge

    @property
    def processed_position(self) -> int:
        """Input position up to which every frame is processed (``FramePump.processed_position``)."""
        return self.pump.processed_position

    def barge_in(self) -> None:
        """Silence the assistant audio queued for the speaker (the user interrupts), effective at
        once: the output callback plays zeros in its place from its next read, without waiting for
        the engine thread; what the model says next follows without a gap."""
        bridge = self._bridge
        if bridge is not None:
            bridge.output.request_mute()

    def stop(self) -> None:
        """End the loop after the current command or frame (a model load runs to its end)."""
        self._stop = True
        self.submit(m.Wake())

    # -- the engine thread -------------------------------------------------------------------
    @Slot()
    def run(self) -> None:
        controller, pump = self.controller, self.pump
        stream = (controller.conversation, controller.starts)
        while not self._stop:
            bridge = self._bridge
            if bridge is None or not controller.streaming:
                if bridge is None:  # a device gone or closed: nothing of it is kept
                    pump.reset()
                self._execute_next(timeout=IDLE_POLL_S)
                continue
            audio = bridge.data_ready.wait(DATA_WAIT_S)
            if audio:
                bridge.data_ready.clear()
            while self._execute_next():  # what was asked before this audio came acts on it (Talk, say)
                pass
            if not audio or self._stop or not controller.streaming or bridge is not self._bridge:
                continue
            if (controller.conversation, controller.starts) != stream:  # what came before is not heard
                stream = (controller.conversation, controller.starts)
                pump.reset(same_devices=True)
            if not pump.pump(bridge, controller.session):
                controller.halt()
            controller.check_journal()
        pump.reset()
        controller.close()

    def _execute_next(self, timeout: float | None = None) -> bool:
        """Execute the next command, waiting up to ``timeout`` for one (None: none there, no wait)."""
        try:
            command = self._commands.get(timeout=timeout) if timeout else self._commands.get_nowait()
        except queue.Empty:
            return False
        self._execute(command)
        return True

    def _execute(self, command) -> None:
        if isinstance(command, m.SetMicOpen):
            self.pump.mic_open, self.pump.talk_held = command.open, command.talk_held
        elif isinstance(command, m.SetProcessing):
            self.pump.processing = command.settings
        elif not isinstance(command, m.Wake):
            self.controller.execute(command)
