"""Where a Pocket TTS model comes from: a folder in the released layout, or a preset name
(``pocket-tts`` for English, ``pocket-tts-<row>`` for another released row) found in the Hugging
Face cache or downloaded at its pinned commit. The repository without voice cloning is ungated; the
one with cloning (gated) is used when it is already in the cache."""

from __future__ import annotations

from pathlib import Path

from ..errors import ModelError
from .releases import REPOSITORY, REPOSITORY_WITHOUT_CLONING, released_rows, revisions

PREFIX = "pocket-tts"


def preset_row(name: str) -> str | None:
    """The released row a preset name stands for (None: not a Pocket TTS preset name)."""
    if name == PREFIX:
        return "english"
    if name.startswith(PREFIX + "-") and name[len(PREFIX) + 1:] in released_rows():
        return name[len(PREFIX) + 1:]
    return None


def is_pocket_folder(folder: Path) -> bool:
    return (folder / "languages").is_dir() and any((folder / "languages").glob("*/model.safetensors"))


def folder_rows(folder: Path) -> list[str]:
    return sorted(p.parent.name for p in (folder / "languages").glob("*/model.safetensors"))


def resolve(model: str, language: str | None = None) -> tuple[Path, str]:
    """(folder, row) for ``--model``: a preset name or a folder (``language``: its row)."""
    row = preset_row(model)
    if row is not None:
        if language is not None and language != row:
            raise ModelError(f"{model} is the {row} model; for {language} use {PREFIX}-{language}.")
        return _snapshot(row), row
    folder = Path(model)
    if not folder.is_dir() or not is_pocket_folder(folder):
        raise ModelError(f"{model} is neither a Pocket TTS preset ({PREFIX}, {PREFIX}-<language>) nor a folder "
                         "holding languages/<language>/model.safetensors.")
    rows = folder_rows(folder)
    row = language or ("english" if "english" in rows or len(rows) != 1 else rows[0])
    if row not in rows:
        raise ModelError(f"{folder} has no {row} model; it has {', '.join(rows)}.")
    return folder, row


def download(row: str, progress=None) -> Path:
    """The snapshot folder holding ``row``, downloaded (ungated) where no cache has it."""
    return _snapshot(row, progress)


def _patterns(row: str) -> list[str]:
    return [f"languages/{row}/*", f"languages/{row}/embeddings/*"]


def _snapshot(row: str, progress=None) -> Path:
    """``progress``: a ``tqdm`` subclass for the download's counters."""
    from huggingface_hub import snapshot_download

    cloning, plain = revisions(row)
    try:
        return Path(snapshot_download(REPOSITORY, revision=cloning, allow_patterns=_patterns(row),
                                      local_files_only=True))
    except Exception:  # noqa: BLE001 - not in the cache (or gated): the ungated repository
        pass
    try:
        return Path(snapshot_download(REPOSITORY_WITHOUT_CLONING, revision=plain, allow_patterns=_patterns(row),
                                      tqdm_class=progress))
    except Exception as e:  # noqa: BLE001 - offline, no space: the download's own reason
        raise ModelError(f"The Pocket TTS {row} model could not be downloaded from {REPOSITORY_WITHOUT_CLONING}: "
                         f"{e}") from None
