"""Which model a conversation file's header may make the window offer to switch to.

A file from anywhere names the model it was saved with; that name is only ever a suggestion to
the person, and only for a model already on this machine: a preset whose files are here, or the
model folder the person loads (remembered in the settings). A file never makes Parley download a
model, or load a folder it names."""

from __future__ import annotations

from pathlib import Path

from engine import PRESETS, preset_status


def model_to_offer(named: str, remembered: str) -> str | None:
    """The model to switch to for a file saved with ``named`` (``remembered``: the settings' model),
    or None when the person has to get it themselves."""
    if named in PRESETS:
        return named if preset_status(named).present else None
    if remembered and remembered not in PRESETS and Path(remembered).is_dir() \
            and named in (remembered, Path(remembered).name):  # a folder's model is named by the folder
        return remembered
    return None
