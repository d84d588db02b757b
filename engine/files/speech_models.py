"""The text-to-speech presets (``SPEECH_PRESETS``) on this machine: whether each is in the Hugging
Face cache, its download and its removal. A Pocket TTS preset is one language row of a repository
that holds them all (``languages/<row>/``): found in the gated repository with voice cloning or in
the ungated one, downloaded from the ungated one, removed row by row. Another voice (Kyutai TTS) is
its whole repository, resolved as the conversation models are."""

from __future__ import annotations

import shutil
from pathlib import Path

from ..errors import ModelError
from ..families import SPEECH_PRESETS, Preset
from ..pocket_tts import hub as pocket_hub
from ..pocket_tts.releases import REPOSITORY, REPOSITORY_WITHOUT_CLONING, default_voice, revisions
from .model_revisions import cached_main, revision_in_use
from .models import PresetStatus, _cached, _cached_files, _first_download, _repo_folder, _resolve_preset, hub_cache_dir


def _preset(name: str) -> Preset:
    if name not in SPEECH_PRESETS:
        raise ModelError(f"unknown voice model {name!r}: expected one of {', '.join(SPEECH_PRESETS)}")
    return SPEECH_PRESETS[name]


def _row_files(row: str) -> tuple[str, ...]:
    """What a row needs here: its weights, its tokenizer and its default voice."""
    base = f"languages/{row}"
    return f"{base}/model.safetensors", f"{base}/tokenizer.json", f"{base}/embeddings/{default_voice(row)}.safetensors"


def speech_preset_status(name: str) -> PresetStatus:
    """Whether a voice model's files are on this machine (nothing is downloaded). A Pocket TTS row is
    looked for in the repository with voice cloning first, as ``resolve_pocket_tts`` looks."""
    preset = _preset(name)
    row = pocket_hub.preset_row(name)
    cache = hub_cache_dir()
    if row is None:
        revision = revision_in_use(name, preset.revision)
        missing, path = _cached_files(preset, cache, revision or cached_main(_repo_folder(preset, cache)))
        return PresetStatus(name, not missing, path, missing, preset.approx_gb, revision)
    cloning, plain = revisions(row)
    best = None
    for repo, revision in ((REPOSITORY, cloning), (REPOSITORY_WITHOUT_CLONING, plain)):
        found = {f: _cached(repo, f, cache, revision) for f in _row_files(row)}
        missing = tuple(f for f, p in found.items() if not isinstance(p, Path))
        weights = found[_row_files(row)[0]]
        path = weights.parent if isinstance(weights, Path) else None
        status = PresetStatus(name, not missing, path, missing, preset.approx_gb, revision)
        if status.present:
            return status
        if best is None or len(missing) <= len(best.missing):  # a tie: the ungated one, downloaded
            best = status
    return best


def fetch_speech_model(name: str, progress=None) -> Path:
    """Download a voice model (at its pinned commit, or the first download's); its folder."""
    preset = _preset(name)
    row = pocket_hub.preset_row(name)
    if row is not None:
        return pocket_hub.download(row, progress) / "languages" / row
    revision = revision_in_use(name, preset.revision)
    files = (_first_download(preset, True, progress) if revision is None
             else _resolve_preset(preset, revision, True, progress))
    return files.lm_path.parent


def remove_speech_model(name: str) -> int:
    """Delete a voice model's files from the Hugging Face cache; how many files went. A Pocket TTS row
    goes from every snapshot of both repositories (the other rows stay); another voice model's
    repository goes whole."""
    preset = _preset(name)
    row = pocket_hub.preset_row(name)
    cache = hub_cache_dir()
    if row is None:
        folder = _repo_folder(preset, cache)
        snapshots = folder / "snapshots"  # the files as the model has them (a blob each, linked)
        count = sum(1 for p in snapshots.rglob("*") if p.is_file() or p.is_symlink()) if snapshots.is_dir() else 0
        shutil.rmtree(folder, ignore_errors=True)
        return count
    return sum(_remove_row(cache / ("models--" + repo.replace("/", "--")), row)
               for repo in (REPOSITORY, REPOSITORY_WITHOUT_CLONING))


def _remove_row(repo_folder: Path, row: str) -> int:
    """``languages/<row>`` out of each snapshot, and the blobs no snapshot links to any more."""
    snapshots, blobs = repo_folder / "snapshots", (repo_folder / "blobs").resolve()
    if not snapshots.is_dir():
        return 0
    count, unlinked = 0, set()
    for snapshot in snapshots.iterdir():
        folder = snapshot / "languages" / row
        if folder.is_symlink() or not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*"), reverse=True):  # files before their folders
            if path.is_symlink():
                unlinked.add(path.resolve())
                path.unlink()
                count += 1
            elif path.is_dir():
                path.rmdir()
            else:
                path.unlink()
                count += 1
        folder.rmdir()
    linked = {p.resolve() for p in snapshots.rglob("*") if p.is_symlink()}
    for blob in unlinked - linked:
        if blob.parent == blobs:  # never a file outside this repository's blobs
            blob.unlink(missing_ok=True)
    return count


def pocket_tts_presets() -> list[str]:
    """The voice models the Pocket TTS runtime (``load_pocket_tts``) loads."""
    return [name for name in SPEECH_PRESETS if pocket_hub.preset_row(name) is not None]


def installed_pocket_tts(name: str) -> tuple[Path, str, list[str]] | None:
    """(folder, row, shipped voices) of a Pocket TTS preset that is on this machine, for
    ``load_pocket_tts(folder, row)``; None where it is not here."""
    row = pocket_hub.preset_row(name)
    status = speech_preset_status(name) if row is not None else None
    if status is None or not status.present:
        return None
    voices = sorted(p.stem for p in (status.path / "embeddings").glob("*.safetensors"))
    return status.path.parent.parent, row, voices
