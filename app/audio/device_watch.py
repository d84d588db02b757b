"""Audio devices that come and go, from the sound server's own events instead of polling.

Qt's ``QMediaDevices`` (audioInputsChanged/audioOutputsChanged) is in PySide6's QtMultimedia,
which the PySide6-Essentials package Parley depends on does not ship. So on Linux the watch
listens to the sound server itself: ``pactl subscribe`` (PulseAudio, and PipeWire through its
PulseAudio server) prints one line per event, and the watch reads the server's sinks, sources and
defaults again after each event that concerns them. Where there is no ``pactl`` (Windows, macOS,
ALSA alone) the watch says it is unavailable and the window's Refresh devices stays the way to
see a new device.

``pactl subscribe`` runs under a small ``sh`` script that kills it when the app's end of its
standard input closes: pactl itself would outlive an app that was killed (it only notices the
closed pipe at its next event, which may never come), and the end of the app closes that pipe
whatever ended it. Portable: no signal-on-parent-death call (Linux's prctl).

The reads run ``pactl`` in a short-lived thread (a sound server that hangs must not freeze the
window); the result comes back to the GUI thread through a queued signal.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import threading
from dataclasses import dataclass

from PySide6.QtCore import QObject, QProcess, QTimer, Signal

log = logging.getLogger(__name__)

# An event about the devices: one plugged in or out, or the server's default changed.
DEVICE_EVENT = re.compile(r"Event '(?:(?:new|remove)' on (?:sink|source)|change' on server) #")
SETTLE_MS = 100  # events come in bursts (a headset adds a sink and a source): read once after them
RESTART_MS = 2000  # the sound server went away: listen again after this
READ_TIMEOUT_S = 5.0
# $1 = pactl. The app's standard input is kept on fd 3 (an asynchronous command's own standard
# input is /dev/null); when it ends, pactl is killed; the script ends with pactl.
SUBSCRIBE_WHILE_READ = ('exec 3<&0; "$1" subscribe </dev/null 3<&- & p=$!; '
                        '(cat <&3 >/dev/null; kill "$p") >/dev/null 2>&1 & wait "$p"')


@dataclass(frozen=True)
class ServerDevices:
    """The sound server's devices by name, and its defaults."""

    sinks: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    default_sink: str = ""
    default_source: str = ""


def names_in_short_list(text: str) -> tuple[str, ...]:
    """The names in ``pactl list short sinks|sources`` (tab-separated: index, name, ...)."""
    return tuple(sorted(line.split("\t")[1] for line in text.splitlines() if line.count("\t") >= 1))


def defaults_in_info(text: str) -> tuple[str, str]:
    """(default sink, default source) from ``pactl info``."""
    values = dict(line.split(": ", 1) for line in text.splitlines() if ": " in line)
    return values.get("Default Sink", ""), values.get("Default Source", "")


def read_server_devices(pactl: str) -> ServerDevices | None:
    """None when the server does not answer (it is not running, or hangs)."""
    def run(*args: str) -> str:
        return subprocess.run([pactl, *args], capture_output=True, text=True, timeout=READ_TIMEOUT_S, check=True,
                              env={**os.environ, "LC_ALL": "C"}).stdout  # "Default Sink" is translated elsewhere

    try:
        sink, source = defaults_in_info(run("info"))
        return ServerDevices(names_in_short_list(run("list", "short", "sinks")),
                             names_in_short_list(run("list", "short", "sources")), sink, source)
    except (OSError, subprocess.SubprocessError) as e:
        log.info("could not read the sound server's devices: %s", e)
        return None


class DeviceWatch(QObject):
    """``devices`` (a ``ServerDevices``, or None before the first read or while the server is
    away) and ``changed(before, after)`` whenever they change; ``unavailable`` says why there is
    no watch here ("" when there is one)."""

    changed = Signal(object, object)
    _read_done = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.devices: ServerDevices | None = None
        self.pactl = shutil.which("pactl")
        self.shell = shutil.which("sh")
        self.unavailable = "" if self.pactl else "no PulseAudio or PipeWire (pactl) here: use Refresh devices"
        self._reading = False
        self._read_again = False
        self._partial_line = ""  # the end of the last chunk, when it stopped inside a line
        self._settle = QTimer(self, singleShot=True, interval=SETTLE_MS)
        self._settle.timeout.connect(self._read)
        self._read_done.connect(self._got)
        self._process = QProcess(self)
        self._process.readyReadStandardOutput.connect(self._events)
        self._process.finished.connect(lambda *_: QTimer.singleShot(RESTART_MS, self, self.start))
        self.stopped = False

    def start(self) -> None:
        if not self.pactl or self.stopped or self._process.state() != QProcess.NotRunning:
            return
        if self.shell:
            self._process.start(self.shell, ["-c", SUBSCRIBE_WHILE_READ, "parley-device-watch", self.pactl])
        else:
            self._process.start(self.pactl, ["subscribe"])
        self._read()  # what is there now (and what changed while no one listened)

    def stop(self) -> None:
        self.stopped = True
        self._process.kill()
        self._process.waitForFinished(1000)

    def _events(self) -> None:
        text = self._partial_line + bytes(self._process.readAllStandardOutput()).decode(errors="replace")
        lines, _, self._partial_line = text.rpartition("\n")
        if DEVICE_EVENT.search(lines):
            self._settle.start()

    def _read(self) -> None:
        if self._reading:
            self._read_again = True
            return
        self._reading = True
        pactl = self.pactl
        threading.Thread(target=lambda: self._read_done.emit(read_server_devices(pactl)),
                         name="parley-device-watch", daemon=True).start()

    def _got(self, devices: ServerDevices | None) -> None:
        self._reading = False
        if self._read_again:
            self._read_again = False
            self._read()
        if devices is None or devices == self.devices:
            return
        before, self.devices = self.devices, devices
        if before is not None:
            self.changed.emit(before, devices)
