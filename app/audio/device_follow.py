"""The conversation's audio follows the person's devices, without restarting the conversation.

On the sound server's events (``app.audio.device_watch``):
- a device plugged in or out: PortAudio is initialised again, so its list (the pickers) is
  current, and the streams reopen;
- the server's default changed while "System default" is chosen on that side: the streams follow
  it without being reopened, because Parley opens the default device ("default", which is the
  server's default) rather than a named sink, and the server moves such streams itself; the
  window says which device is now used;
- a chosen device that is not in PortAudio's list (unplugged) is said once, and the system
  default is used until it is back, when the streams return to it.
The engine's session is untouched throughout: the worker only sees its audio bridge replaced.
"""

from __future__ import annotations

from PySide6.QtCore import QObject

from app.audio.device_watch import DeviceWatch, ServerDevices
from app.audio.streams import DeviceStatus

SIDES = (("input", "microphone"), ("output", "speaker"))


def missing_devices(chosen: dict[str, str], labels: set[str]) -> dict[str, str]:
    """The chosen devices (side -> label, "" for the system default) not among ``labels``."""
    return {side: label for side, label in chosen.items() if label and label not in labels}


def wanted_devices(chosen: dict[str, str], missing: dict[str, str]) -> tuple[str | None, str | None]:
    """(input, output) to open: the chosen one, or the system default (None) in place of a missing one."""
    return tuple(None if side in missing else (chosen[side] or None) for side, _ in SIDES)


def defaults_moved(before: ServerDevices, after: ServerDevices) -> dict[str, str]:
    """side -> the server's new default, for each side whose default changed."""
    moved = {"input": (before.default_source, after.default_source),
             "output": (before.default_sink, after.default_sink)}
    return {side: new for side, (old, new) in moved.items() if old != new}


class DeviceFollower(QObject):
    """Acts on the watch's changes and the view-model's device lists (see the module's docstring);
    says what it did through the view-model's ``message``."""

    def __init__(self, model, watch: DeviceWatch) -> None:
        super().__init__(model)
        self.model = model
        self.watch = watch
        self.missing: dict[str, str] = {}  # side -> the chosen label said to be missing
        watch.changed.connect(self._server_changed)
        model.devices.devices_changed.connect(self._listed)
        self._listed(model.devices.status)

    def _chosen(self) -> dict[str, str]:
        settings = self.model.preferences.settings
        return {"input": settings.input_device, "output": settings.output_device}

    def _server_changed(self, before: ServerDevices, after: ServerDevices) -> None:
        if (before.sinks, before.sources) != (after.sinks, after.sources):
            added = sorted(set(after.sinks + after.sources) - set(before.sinks + before.sources))
            self.model.message.emit("Audio devices changed" + (f": {', '.join(added)} added" if added else ""))
            self.model.devices.refresh()
            return
        chosen = self._chosen()
        follows = {side: name for side, name in defaults_moved(before, after).items()
                   if not chosen[side] or side in self.missing}
        if follows:  # the server itself moves a stream opened on its default: only say so
            names = dict(SIDES)
            self.model.message.emit("; ".join(f"Now using the system's default {names[side]}: {name}"
                                              for side, name in follows.items()))

    def _listed(self, status: DeviceStatus) -> None:
        if not status.devices:
            return  # not listed yet, or PortAudio failed to list: nothing to compare with
        playing = {name for s in status.playback.sources for name in (s.key, s.label)}  # an input too
        missing = missing_devices(self._chosen(), {d.label for d in status.devices} | playing)
        if missing == self.missing:
            return
        names = dict(SIDES)
        for side, label in missing.items():
            if self.missing.get(side) != label:  # said once per disappearance
                self.model.message.emit(f"The {names[side]} {label} is not connected; using the system default "
                                        "until it is back.")
        for side, label in self.missing.items():
            if side not in missing and self._chosen()[side] == label:
                self.model.message.emit(f"The {names[side]} {label} is back.")
        self.missing = missing
        self._open(missing)

    def stop(self) -> None:
        """The conversation is shutting down: no more reopening."""
        if not self.watch.stopped:
            self.watch.stop()
            self.watch.changed.disconnect(self._server_changed)
            self.model.devices.devices_changed.disconnect(self._listed)

    def _open(self, missing: dict[str, str]) -> None:
        if self.model.devices.audio is not None:
            self.model.devices.audio.use(*wanted_devices(self._chosen(), missing))


def follow_devices(model) -> DeviceFollower | None:
    """Start watching the devices for ``model`` (a ConversationModel); None when it has no audio."""
    if model.devices.audio is None:
        return None
    watch = DeviceWatch(model)
    watch.start()
    return DeviceFollower(model, watch)
