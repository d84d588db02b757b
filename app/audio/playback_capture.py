"""Listening to what this computer plays (for the interpreter: a call or a video in another language).

What each platform offers, as the input picker shows it ("What <device> plays"):

* PulseAudio and PipeWire (Linux): every output device (sink) has a monitor source that carries what
  it plays. PortAudio lists no sources, only ALSA devices, so the monitor is recorded through the
  ALSA ``pulse`` device with ``PULSE_SOURCE`` naming it while the stream is opened (libpulse reads
  it as the default source of the connection it makes then). The sinks are listed with ``pactl``.
* Windows: a PortAudio built with WASAPI loopback lists each output a second time as an input
  named "<output> [Loopback]"; where sounddevice's PortAudio has none, it is not available.
* macOS has no loopback of its own: a loopback device (BlackHole, Loopback) must be installed and
  chosen as the output of what is to be heard; it then is an input like a microphone.

Nothing here imports sounddevice: the PortAudio device list comes in (``DeviceInfo``) and the
stream is opened by ``app.audio.streams``.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from app.i18n import translate

log = logging.getLogger(__name__)

PACTL_TIMEOUT_S = 3.0
PULSE_DEVICE = "pulse"  # the ALSA device of the PulseAudio plugin (PipeWire's pulse server answers it too)
# Outputs that play through the sound server's default sink (PortAudio's names on Linux).
SOUND_SERVER_OUTPUTS = ("pulse", "default", "pipewire")
WASAPI = "Windows WASAPI"
LOOPBACK_SUFFIX = " [Loopback]"


def what_plays(device: str) -> str:
    """The input picker's name for what ``device`` plays."""
    return translate("PlaybackCapture", "What {device} plays").format(device=device)


@dataclass(frozen=True)
class PlaybackSource:
    """What one output device plays, as an input."""

    label: str  # what the input picker shows (translated)
    device: str  # the output device's name, as the window says it
    pulse_source: str = ""  # the monitor source to record (PulseAudio/PipeWire)
    pulse_sink: str = ""  # the sink it monitors
    input_label: str = ""  # the PortAudio input to open instead (a WASAPI loopback input)

    @property
    def key(self) -> str:
        """What the settings keep: the same in every language, unlike ``label``."""
        return f"monitor:{self.pulse_source}" if self.pulse_source else f"loopback:{self.input_label}"


@dataclass(frozen=True)
class PlaybackSources:
    """What can be listened to here, and why nothing can where ``sources`` is empty."""

    sources: tuple[PlaybackSource, ...] = ()
    default_sink: str = ""  # PulseAudio/PipeWire: where the sound server plays what has no device of its own
    unavailable: str = ""

    def named(self, chosen: str | None) -> PlaybackSource | None:
        """The source the settings keep as ``chosen``: its key, or its label (as a Parley before keys kept it)."""
        return next((s for s in self.sources if chosen and chosen in (s.key, s.label)), None)


def list_playback_sources(devices, platform: str = sys.platform) -> PlaybackSources:
    """What this computer plays, per output device (``devices``: the PortAudio ``DeviceInfo``s)."""
    if platform == "win32":
        loopbacks = tuple(
            PlaybackSource(what_plays(d.name.removesuffix(LOOPBACK_SUFFIX)), d.name.removesuffix(LOOPBACK_SUFFIX),
                           input_label=d.label)
            for d in devices if d.host_api == WASAPI and d.name.endswith(LOOPBACK_SUFFIX) and d.max_input_channels)
        return PlaybackSources(loopbacks, unavailable="" if loopbacks else translate(
            "PlaybackCapture", "this PortAudio has no WASAPI loopback inputs"))
    if platform == "darwin":
        return PlaybackSources(unavailable=translate(
            "PlaybackCapture", "macOS needs a loopback device (such as BlackHole): make it the output of what you "
            "want to hear, and choose it here as the input"))
    if not any(d.name == PULSE_DEVICE and d.max_input_channels for d in devices):
        return PlaybackSources(unavailable=translate(
            "PlaybackCapture", "it needs PulseAudio or PipeWire and their ALSA plugin (the 'pulse' device)"))
    return pulse_monitors()


def pulse_monitors() -> PlaybackSources:
    """The sound server's sinks and their monitor sources, through ``pactl``."""
    try:
        if shutil.which("pactl") is None:
            raise OSError("pactl is not installed")
        env = {**os.environ, "LC_ALL": "C"}
        sinks = json.loads(_pactl(env, "--format=json", "list", "sinks"))
        default = _pactl(env, "get-default-sink").strip()
    except (OSError, ValueError, subprocess.SubprocessError) as e:
        log.info("no monitor sources: %s", e)
        return PlaybackSources(unavailable=translate(
            "PlaybackCapture", "the sound server's outputs cannot be listed ({problem})").format(problem=e))
    described = [(s.get("description") or s["name"], s) for s in sinks if s.get("monitor_source")]
    descriptions = [d for d, _ in described]
    named = [(d if descriptions.count(d) == 1 else f"{d} ({s['name']})", s) for d, s in described]  # told apart
    sources = tuple(PlaybackSource(what_plays(name), name, pulse_source=s["monitor_source"], pulse_sink=s["name"])
                    for name, s in named)
    return PlaybackSources(sources, default_sink=default, unavailable="" if sources else translate(
        "PlaybackCapture", "the sound server has no outputs"))


def _pactl(env, *args: str) -> str:
    return subprocess.run(["pactl", *args], capture_output=True, text=True, timeout=PACTL_TIMEOUT_S,
                          check=True, env=env).stdout


def plays_where_it_listens(source: PlaybackSource, output_label: str, sources: PlaybackSources) -> bool:
    """Whether the app's output (``output_label``; "" the system default) is the device ``source``
    listens to: then what the interpreter says comes back in. Where it cannot be told, it is."""
    if source.pulse_sink:
        server_output = not output_label or output_label.split(" (")[0] in SOUND_SERVER_OUTPUTS
        return server_output and source.pulse_sink == sources.default_sink
    return not output_label or output_label.startswith(source.device + " (")


@dataclass(frozen=True)
class CaptureRoute:
    """How an input label is opened: the PortAudio input and, for a monitor, its source."""

    input_label: str | None  # None: the default input
    pulse_source: str = ""
    shown: str = ""  # what the audio line names it ("": the input device's own name)

    @contextmanager
    def opened(self) -> Iterator[None]:
        """Around opening the input stream: ``PULSE_SOURCE`` names the monitor, then is put back."""
        if not self.pulse_source:
            yield
            return
        before = os.environ.get("PULSE_SOURCE")
        os.environ["PULSE_SOURCE"] = self.pulse_source
        try:
            yield
        finally:
            if before is None:
                os.environ.pop("PULSE_SOURCE", None)
            else:
                os.environ["PULSE_SOURCE"] = before


def capture_route(input_label: str | None, sources: PlaybackSources, pulse_label: str) -> CaptureRoute:
    """How to open ``input_label``: a playback source's route, or the label as a PortAudio input.
    ``pulse_label``: the label of the ALSA ``pulse`` input (``app.audio.streams.device_label``)."""
    source = sources.named(input_label)
    if source is None:
        return CaptureRoute(input_label)
    if source.pulse_source:
        return CaptureRoute(pulse_label, pulse_source=source.pulse_source, shown=source.label)
    return CaptureRoute(source.input_label, shown=source.label)
