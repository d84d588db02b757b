"""The user's own data folders (voices, personas): where they are, and made readable by the user only."""

from __future__ import annotations

import os
from pathlib import Path


def user_data_folder(name: str, override_env: str) -> Path:
    """``<the platform's user data folder>/Parley/<name>``, or the folder ``override_env`` names
    (tests use it, so that they never touch a person's own data)."""
    override = os.environ.get(override_env)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("Parley", appauthor=False)) / name


def ensure_private_folder(*folders: Path) -> None:
    """Create each folder (with its parents) readable by the user only (0700)."""
    for path in folders:
        path.mkdir(parents=True, exist_ok=True)
        os.chmod(path, 0o700)  # on Windows this only clears "read-only"; the data folder is per-user there
