"""The system libraries Qt's X11 plugin needs, checked before the window opens.

On a bare Linux system Qt cannot load its X11 platform plugin (``libqxcb.so``) and aborts the
process with a message that names ``libxcb-cursor0`` even when other libraries are what is missing
(on a bare Debian: ``libxcb-icccm4`` and ``libxcb-keysyms1``). ``ldd`` tells the truth; this asks it
first and says what to install instead of aborting.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

# The libraries Qt's X11 plugin loads that a desktop may lack, and the Debian/Ubuntu packages
# that have them (other distributions name them alike).
XCB_PACKAGES = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
}
LDD_TIMEOUT_S = 10.0


def missing_libraries(library: Path) -> list[str]:
    """The shared libraries ``library`` needs (directly or not) that the dynamic loader cannot find;
    empty where ``ldd`` is not there to ask."""
    ldd = shutil.which("ldd")
    if ldd is None or not library.is_file():
        return []
    try:
        listed = subprocess.run([ldd, str(library)], capture_output=True, text=True, timeout=LDD_TIMEOUT_S).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    missing = (line.split("=>")[0].strip() for line in listed.splitlines() if "not found" in line)
    return list(dict.fromkeys(missing))


def _x11_plugin() -> Path | None:
    """Qt's X11 platform plugin, where Qt would use it: Linux, a display, no other platform asked."""
    if not sys.platform.startswith("linux") or not os.environ.get("DISPLAY"):
        return None
    if os.environ.get("QT_QPA_PLATFORM", "xcb") != "xcb" or os.environ.get("WAYLAND_DISPLAY"):
        return None
    import PySide6

    return Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"


def display_problem(plugin: Path | None = None) -> str | None:
    """What to install for the window to open, or None when nothing is missing (or X11 is not used).
    ``plugin``: the platform plugin to check (default: Qt's X11 one, where Qt would load it)."""
    plugin = _x11_plugin() if plugin is None else plugin
    missing = missing_libraries(plugin) if plugin is not None else []
    if not missing:
        return None
    packages = [XCB_PACKAGES.get(name, name) for name in missing]
    return (f"The window cannot open: this system lacks libraries Qt needs for X11 ({', '.join(missing)}). "
            f"On Debian or Ubuntu: sudo apt install {' '.join(packages)}")
