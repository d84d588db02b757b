"""The user's own data folders (voices, personas): where they are, and made readable by the user only."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

APP_FOLDER = "Parley"  # the folder of Parley's own in Documents, config, state and data: the user's only


def user_data_folder(name: str, override_env: str) -> Path:
    """``<the platform's user data folder>/Parley/<name>``, or the folder ``override_env`` names."""
    override = os.environ.get(override_env)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_FOLDER, appauthor=False)) / name


def ensure_private_folder(*folders: Path) -> None:
    """Create each folder, and those up to Parley's own, readable by the user only (0700)."""
    for path in folders:
        own = next((p for p in reversed(path.parents) if p.name == APP_FOLDER), path)
        own.parent.mkdir(parents=True, exist_ok=True)
        for folder in [own] + [own / part for part in _parts_below(path, own)]:
            folder.mkdir(mode=0o700, exist_ok=True)
            if folder == path:
                os.chmod(path, 0o700)  # on Windows this only clears "read-only"; the data folder is per-user there
            else:
                _tighten(folder)


def _parts_below(path: Path, own: Path) -> list[Path]:
    relative = path.relative_to(own).parts
    return [Path(*relative[: n + 1]) for n in range(len(relative))]


def _tighten(folder: Path) -> None:
    """Parley's own folder above the one asked for: 0700 where it is the user's (POSIX)."""
    if os.name != "posix":
        return
    with contextlib.suppress(OSError):
        if os.stat(folder).st_uid == os.getuid():
            os.chmod(folder, 0o700)
