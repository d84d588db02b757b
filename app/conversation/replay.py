"""Replay of a saved conversation: its recorded audio on the output device, with its turns.

Replay needs no model (it reads only the file's ``audio.*`` tensors and its header), so it works
whatever model is loaded, beside a live conversation. It plays through an output stream of its
own; the PortAudio callback only copies from a prepared buffer and advances a position, which a
timer turns into ``position_changed`` (PortAudio threads must not emit Qt signals).

The buffer is laid out (both sides mixed or split, resampled to the device's rate) a couple of
seconds at a time, ahead of the speaker, by that timer: laying out a whole hour-long file when Play
was pressed froze the window 0.4 s (24 kHz) to 1.8 s (48 kHz) and held a second copy of it.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np
import soxr
from PySide6.QtCore import QObject, QTimer, Signal

from app.audio.streams import TEARDOWN_TIMEOUT_S, find_device, pick_rate, portaudio_held, run_with_timeout
from app.conversation.sides import saved_by_interpreter
from app.conversation.transcript import Transcript
from app.conversation.turn_list import TurnListModel
from engine import SAMPLE_RATE, ConversationFileError, read_conversation_audio, read_conversation_info

log = logging.getLogger(__name__)

POSITION_TIMER_MS = 50
LAYOUT_CHUNK_S = 1.0  # laid out at a time (on the GUI thread: ~1 ms of mixing and resampling)
LAYOUT_AHEAD_S = 2.0  # kept laid out past what the device has taken; the timer tops it up
GUI_WAIT_S = 0.5  # the replay opens its stream on the GUI thread: wait briefly for another PortAudio call
STOPPED, PLAYING, PAUSED = "stopped", "playing", "paused"


class ReplayPlayer(QObject):
    loaded = Signal(str)  # path: turns, duration and title are ready
    state_changed = Signal(str)  # STOPPED | PLAYING | PAUSED
    position_changed = Signal(float)  # seconds
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.turns = TurnListModel(Transcript(), self)
        self.path: Path | None = None
        self.state = STOPPED
        self.split = False  # False: both sides mixed on every channel; True: you left, assistant right
        self.output_device = ""  # a device label as the pickers show it; "" = the system default
        self._user = np.zeros(0, np.float32)
        self._assistant = np.zeros(0, np.float32)
        # (the device frame of its first row, rows [m, 2] at the stream's rate): replaced whole, never
        # changed in place, so the callback always reads a consistent pair
        self._window: tuple[int, np.ndarray] = (0, np.zeros((0, 2), np.float32))
        self._source = 0  # the next 24 kHz sample to lay out
        self._resampler: soxr.ResampleStream | None = None
        self._rate = SAMPLE_RATE
        self._frame = 0  # playback position at the stream's rate; written by the callback and by seek()
        self._start_s = 0.0  # conversation seconds where the audio begins (a clip of a live conversation)
        # When the end has played out (closing at once would abort what the device still buffers).
        # A device plays no faster than its rate, so the frame handed at stream position k plays no
        # earlier than the first callback + k / rate (+ the reported latency). Counting silence
        # after the end does not say it: a new stream through PulseAudio takes ~0.3 s of audio in
        # its first 0.1 s of callbacks (reporting 35-40 ms of latency and DAC times equal to the
        # callback's), so a clip's end is handed over long before it plays.
        self._first_callback_at: float | None = None  # time.monotonic() of the stream's first callback
        self._handed = 0  # frames handed to the device since the stream opened
        self._end_handed: int | None = None  # ``_handed`` just after the end's last frame
        self._latency_s = 0.0
        self._stream = None
        self._timer = QTimer(self)
        self._timer.setInterval(POSITION_TIMER_MS)
        self._timer.timeout.connect(self._poll)

    @property
    def duration(self) -> float:
        return len(self._user) / SAMPLE_RATE

    @property
    def position(self) -> float:
        """Conversation seconds."""
        return self._start_s + self._frame / self._rate

    def load(self, path: str) -> bool:
        """Read the file's audio and turns (no model involved); False with ``failed`` emitted if not."""
        self.stop()
        try:
            info = read_conversation_info(path)
            user, assistant = read_conversation_audio(path)
        except ConversationFileError as e:
            self.failed.emit(self.tr("Cannot replay {file}: {problem}").format(file=Path(path).name, problem=e))
            return False
        self._use_audio(user, assistant)
        self.path = Path(path)
        self.turns.set_interpreting(saved_by_interpreter(info.model))
        self.turns.reset(info.transcript, (self._user, self._assistant), info.captions, info.turn_ends)
        self.loaded.emit(str(self.path))
        self.position_changed.emit(0.0)
        return True

    def play_clip(self, user: np.ndarray, assistant: np.ndarray, start_s: float) -> None:
        """Play a clip that is not a file (a turn of the live conversation, from ``start_s``
        conversation seconds) through; the replayed file, if any, is closed."""
        self.stop()
        self._use_audio(user, assistant, start_s)
        self.path = None
        self._start()

    def _use_audio(self, user: np.ndarray, assistant: np.ndarray, start_s: float = 0.0) -> None:
        n = max(len(user), len(assistant))  # the arrays are handed over: padded only when one is shorter
        self._user = user if len(user) == n else np.pad(user, (0, n - len(user)))
        self._assistant = assistant if len(assistant) == n else np.pad(assistant, (0, n - len(assistant)))
        self._frame = 0
        self._start_s = start_s
        self._window, self._source = (0, np.zeros((0, 2), np.float32)), 0  # laid out when it plays

    def play(self) -> None:
        if self.path is None or self.state == PLAYING:
            return
        if self.position >= self.duration:
            self._frame = 0
        self._start()

    def _start(self) -> None:
        try:
            self._open_stream()
        except Exception as e:  # no device, a refused rate: say so, keep the app
            log.warning("replay could not open the output device: %s", e)
            self.failed.emit(self.tr("Replay could not open the speaker: {problem}").format(problem=e))
            return
        self._set_state(PLAYING)
        self._timer.start()

    def pause(self) -> None:
        if self.state == PLAYING:
            self._close_stream()
            self._set_state(PAUSED)

    def stop(self) -> None:
        self._close_stream()
        self._timer.stop()
        if self.state != STOPPED:
            self._frame = 0
            self._set_state(STOPPED)
            self.position_changed.emit(self.position)

    def seek(self, seconds: float) -> None:
        self._frame = int(min(max(0.0, seconds - self._start_s), self.duration) * self._rate)
        self._end_handed = None
        self._relayout()
        self.position_changed.emit(self.position)

    def set_split(self, split: bool) -> None:
        """Takes effect at once, also while playing (laid out again from the current position)."""
        self.split = split
        self._relayout()

    # -- the stream --------------------------------------------------------------------------
    def _open_stream(self) -> None:
        import sounddevice as sd

        with portaudio_held(GUI_WAIT_S):
            device = find_device(sd, self.output_device or None, "output")
            rate = pick_rate(sd, device, "output")
            channels = min(2, sd.query_devices(device)["max_output_channels"])
        if rate != self._rate:
            self._frame = int(self._frame * rate / self._rate)
        self._rate = rate
        self._relayout()
        self._first_callback_at, self._handed, self._end_handed = None, 0, None
        with portaudio_held(GUI_WAIT_S):
            # Blocks of the host's size: through ALSA's PulseAudio plugin, a second output stream
            # with fixed 20 ms blocks beside the conversation's own ran callbacks at 1.4-1.9x real
            # time and played almost nothing of the clip (3 of 3 runs; with the host's size, 3 of 3
            # played it whole). The callback takes any block size.
            stream = sd.OutputStream(device=device, samplerate=rate, channels=channels, dtype="float32",
                                     blocksize=0, callback=self._callback)
            stream.start()
        self._latency_s = stream.latency + stream.blocksize / rate
        self._stream = stream

    # -- the layout (GUI thread) ----------------------------------------------------------------
    def _relayout(self) -> None:
        """Lay out anew from the current position (a seek, another rate, split or mixed)."""
        self._source = min(round(self._frame * SAMPLE_RATE / self._rate), len(self._user))
        self._resampler = soxr.ResampleStream(SAMPLE_RATE, self._rate, 2) if self._rate != SAMPLE_RATE else None
        self._window = (self._frame, np.zeros((0, 2), np.float32))
        self._fill()

    def _fill(self) -> None:
        """Lay out until ``LAYOUT_AHEAD_S`` past the device's position is ready, or the end."""
        first, rows = self._window
        while first + len(rows) - self._frame < LAYOUT_AHEAD_S * self._rate and self._source < len(self._user):
            stop = min(self._source + int(LAYOUT_CHUNK_S * SAMPLE_RATE), len(self._user))
            chunk = self._layout(self._source, stop)
            if self._resampler is not None:
                chunk = self._resampler.resample_chunk(chunk, last=stop == len(self._user))
            taken = min(max(self._frame, first), first + len(rows))  # what the device took is let go
            first, rows = taken, np.concatenate([rows[taken - first:], chunk.astype(np.float32, copy=False)])
            self._window = (first, rows)
            self._source = stop  # after the window: the callback takes a full source for the end

    def _layout(self, start: int, stop: int) -> np.ndarray:
        """Samples ``start`` to ``stop`` as [n, 2] at 24 kHz: (you, assistant) or the mix on both columns."""
        user, assistant = self._user[start:stop], self._assistant[start:stop]
        if self.split:
            return np.stack([user, assistant], axis=1)
        mix = np.clip(user + assistant, -1.0, 1.0)
        return np.stack([mix, mix], axis=1)

    def _laid_out_to_the_end(self) -> bool:
        return self._source >= len(self._user)

    def _callback(self, outdata: np.ndarray, frames: int, time_info, status) -> None:
        at_end = self._laid_out_to_the_end()  # read before the window: the last rows are in it then
        (first, rows), start = self._window, self._frame
        ready = 0 <= start - first <= len(rows)  # a seek may be between the new position and its window
        chunk = rows[start - first:start - first + frames] if ready else rows[:0]
        n = len(chunk)
        if self._first_callback_at is None:
            self._first_callback_at = time.monotonic()
        if n < frames and ready and at_end and self._end_handed is None:
            self._end_handed = self._handed + n
        self._handed += frames
        if outdata.shape[1] == 1:
            outdata[:n, 0] = chunk[:, 0] if not self.split else chunk.mean(axis=1)
        else:
            outdata[:n] = chunk[:, :outdata.shape[1]]
        outdata[n:] = 0.0
        self._frame = start + n

    def _close_stream(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None and not run_with_timeout(lambda: (stream.abort(), stream.close()), TEARDOWN_TIMEOUT_S):
            log.warning("the replay stream did not close within %.1f s; abandoned", TEARDOWN_TIMEOUT_S)

    def _poll(self) -> None:
        self._fill()
        self.position_changed.emit(self.position)
        if self.state == PLAYING and self._played_out():
            self._close_stream()
            self._timer.stop()
            self._set_state(STOPPED)

    def _played_out(self) -> bool:
        end, first = self._end_handed, self._first_callback_at
        window_first, rows = self._window
        if end is None or first is None or self._frame < window_first + len(rows) or not self._laid_out_to_the_end():
            return False
        return time.monotonic() >= first + end / self._rate + self._latency_s

    def _set_state(self, state: str) -> None:
        self.state = state
        self.state_changed.emit(state)
