"""Where a model's files come from: a local directory, the Hugging Face cache, a download, or the demo.

A model directory has the public hub layout; one without ``config.json`` is a Moshi 7B with the
default file names, as the reference loader assumes.

huggingface_hub reads its environment once, at import; the cache location and offline mode are
read here on every call instead, so a changed ``HF_HOME``/``HF_HUB_OFFLINE`` needs no restart.
"""

from __future__ import annotations

import os
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..errors import ModelError
from ..families import ALL_PRESETS, PRESETS, SPEECH_PRESETS, Family, Preset, family_named, recognise  # noqa: F401 (PRESETS: re-exported)
from ..lm.model import LMConfig
from . import untrusted
from .demo import built_demo_dir, ensure_demo_model
from .hub_layout import CONFIG_NAME, MIMI_NAME, MOSHI_NAME, TOKENIZER_NAME, VOICES_ARCHIVE, VOICES_DIR
from .model_revisions import cached_main, is_commit, record_revision, revision_in_use, short


@dataclass(frozen=True)
class ModelFiles:
    name: str
    family: str  # the name of its family (``engine.families``)
    lm_config: dict  # config.json as written (or the family's defaults when there is none)
    lm_path: Path
    mimi_path: Path
    tokenizer_path: Path
    voices_dir: Path | None
    source: str  # "local" | "cache" | "download" | "demo"


@dataclass(frozen=True)
class PresetStatus:
    name: str
    present: bool
    path: Path | None  # the folder holding the files when present
    missing: tuple[str, ...]  # file names still to download
    approx_gb: float
    revision: str | None = None  # the commit in use (model_revisions); None for the demo and before a first download
    other_revision: str | None = None  # a complete download of another commit (the cache's main), if any


def _env_true(name: str) -> bool:
    return os.environ.get(name, "").strip().upper() in {"1", "ON", "YES", "TRUE"}


def hub_offline() -> bool:
    return _env_true("HF_HUB_OFFLINE") or _env_true("TRANSFORMERS_OFFLINE")


def hub_cache_dir() -> Path:
    """The Hugging Face hub cache, with huggingface_hub's precedence of variables."""
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if os.environ.get(var):
            return Path(os.path.expandvars(os.environ[var])).expanduser()
    home = os.environ.get("HF_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "huggingface")
    return Path(os.path.expandvars(home)).expanduser() / "hub"


def default_lm_config(family: str) -> dict:
    """The config of a folder without config.json: the family's released 7B."""
    return dict(family_named(family).config_defaults)


@dataclass(frozen=True)
class _Layout:
    family: Family
    lm_config: dict
    lm_name: str
    mimi_name: str
    tokenizer_name: str

    def weight_names(self) -> list[str]:
        return [self.lm_name, self.mimi_name, self.tokenizer_name]


def _layout(raw: dict | None, where: str, family_hint: str = "moshi") -> _Layout:
    """File names and family from a config.json (``raw``; None when there is none)."""
    if raw is None:
        return _Layout(family_named(family_hint), default_lm_config(family_hint), MOSHI_NAME, MIMI_NAME,
                       TOKENIZER_NAME)
    if not isinstance(raw, dict):
        raise ModelError(f"{where} should hold a JSON object (the model's settings), not {type(raw).__name__}")
    family = recognise(raw, where, family_hint)
    if raw.get("quantize"):
        raise ModelError(f"{where} describes a bitsandbytes int8 checkpoint (the *-pytorch-q8 repos), which "
                         "Parley cannot load. Use the bf16 release (e.g. kyutai/moshiko-pytorch-bf16).")
    names = {}
    for key, default in (("moshi_name", MOSHI_NAME), ("mimi_name", MIMI_NAME),
                         ("tokenizer_name", TOKENIZER_NAME)):
        value = raw.get(key, default)
        if not isinstance(value, str) or not value or value.startswith("hf://") or _unsafe_name(value):
            raise ModelError(f"{where}: '{key}' is {value!r}; expected the name of a file in the same "
                             "folder. Download that file and put it beside config.json under that name.")
        names[key] = value
    # A config.json may carry only file names or a model type (PersonaPlex's hard-codes its LM).
    lm_config = raw if "dim" in raw else {**default_lm_config(family.name), **raw}
    _check_lm_config(lm_config, where)
    return _Layout(family, lm_config, names["moshi_name"], names["mimi_name"], names["tokenizer_name"])


def _unsafe_name(name: str) -> bool:
    p = PurePosixPath(name.replace("\\", "/"))
    return p.is_absolute() or ".." in p.parts


def _read_config(path: Path) -> dict:
    try:
        return untrusted.parse_json(path.read_bytes())
    except (OSError, ValueError) as e:
        raise ModelError(f"cannot read {path}: {e}. It should be the model's config.json (JSON); "
                         "download it again or remove it to use the Moshi 7B defaults.") from e


def _check_lm_config(lm_config: dict, where: str) -> None:
    """Refuse, naming the field, a config ``LMConfig`` cannot build, before anything is allocated."""
    try:
        LMConfig.from_hub_config(lm_config)
    except (TypeError, ValueError) as e:
        raise ModelError(f"{where}: {e}. The model's config.json is damaged or describes a model Parley cannot "
                         "run; download it again.") from e


def read_model_dir(path: str | Path, *, name: str | None = None, source: str = "local",
                   family_hint: str = "moshi") -> ModelFiles:
    """A model directory in the hub layout -> its files; every missing file is named."""
    d = Path(path).expanduser()
    if not d.is_dir():
        raise ModelError(f"model folder not found: {d}")
    config = d / CONFIG_NAME
    layout = _layout(_read_config(config) if config.is_file() else None, str(config), family_hint)
    missing = [n for n in layout.weight_names() if not (d / n).is_file()]
    if missing:
        described = "config.json names" if config.is_file() else "without config.json, a Moshi 7B folder needs"
        raise ModelError(f"{d} is not a complete model folder: missing {', '.join(missing)} "
                         f"({described} {', '.join(layout.weight_names())}). Copy the missing files "
                         "from the model's Hugging Face repository into this folder.")
    voices = d / VOICES_DIR
    if not voices.is_dir():
        voices = extract_voices(d / VOICES_ARCHIVE) if (d / VOICES_ARCHIVE).is_file() else None
    return ModelFiles(name or d.name, layout.family.name, layout.lm_config, d / layout.lm_name,
                      d / layout.mimi_name, d / layout.tokenizer_name, voices, source)


def extract_voices(archive: Path) -> Path:
    """Unpack a voices archive into ``voices/`` beside it, once and atomically; only regular files
    inside the target are written, so a hostile archive cannot write elsewhere."""
    target = archive.parent / VOICES_DIR
    if target.is_dir():
        return target
    tmp = Path(tempfile.mkdtemp(prefix=".voices-", dir=archive.parent))
    try:
        with tarfile.open(archive, "r:*") as tar:
            for member in tar:
                if not member.isfile():
                    continue
                rel = PurePosixPath(member.name)
                parts = [p for p in rel.parts if p not in ("", ".")]
                if rel.is_absolute() or ".." in parts or not parts:
                    raise ModelError(f"{archive} contains an unsafe path {member.name!r}; refusing to unpack it.")
                if parts[0] == VOICES_DIR and len(parts) > 1:  # the archive's own top folder
                    parts = parts[1:]
                dest = tmp.joinpath(*parts)
                dest.parent.mkdir(parents=True, exist_ok=True)
                source = tar.extractfile(member)
                with source, open(dest, "wb") as out:
                    shutil.copyfileobj(source, out)
        os.replace(tmp, target)
    except (tarfile.TarError, OSError) as e:
        shutil.rmtree(tmp, ignore_errors=True)
        if target.is_dir():  # another process finished first
            return target
        raise ModelError(f"cannot unpack {archive}: {e}. Delete it and download it again.") from e
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


class _NoNetwork(Exception):
    pass


def _cached(repo: str, filename: str, cache: Path, revision: str | None) -> Path | bool | None:
    """Path if cached, False if the cache knows the file does not exist, None if unknown."""
    from huggingface_hub import try_to_load_from_cache

    found = try_to_load_from_cache(repo, filename, cache_dir=cache, revision=revision)
    if isinstance(found, str):
        return Path(found)
    return None if found is None else False


def _download(preset: Preset, filename: str, cache: Path, revision: str | None, progress,
              optional: bool = False) -> Path | None:
    from huggingface_hub import constants, hf_hub_download
    from huggingface_hub.errors import (
        GatedRepoError,
        HfHubHTTPError,
        LocalEntryNotFoundError,
        RemoteEntryNotFoundError,
    )

    constants.HF_HUB_OFFLINE = False  # we only get here when offline mode is off now (see module docstring)
    try:
        return Path(hf_hub_download(preset.repo, filename, cache_dir=cache, revision=revision,
                                    tqdm_class=progress, endpoint=os.environ.get("HF_ENDPOINT") or None))
    except RemoteEntryNotFoundError as e:
        if optional:
            return None
        raise ModelError(f"{preset.repo} has no file {filename}: the repository changed or is not a "
                         f"{preset.name} release. Check {preset.page}.") from e
    except GatedRepoError as e:
        raise ModelError(_gated_message(preset)) from e
    except LocalEntryNotFoundError as e:  # connection failed and the file is not cached
        raise _NoNetwork(str(e)) from e
    except HfHubHTTPError as e:
        status = e.response.status_code if e.response is not None else None
        if status in (401, 403):
            raise ModelError(_gated_message(preset) if preset.gated else
                             f"access to {preset.repo} was refused (HTTP {status}). If you use a token "
                             "(HF_TOKEN or `hf auth login`), check that it is valid.") from e
        raise ModelError(f"downloading {filename} from {preset.repo} failed: {e}") from e
    except (ConnectionError, TimeoutError) as e:
        raise _NoNetwork(str(e)) from e


def _gated_message(preset: Preset) -> str:
    return (f"{preset.repo} is a gated model: you must accept its licence ({preset.licence}) before "
            f"downloading. Open {preset.page} while logged in to Hugging Face and accept the terms, "
            "then give Parley your access token: set the environment variable HF_TOKEN=hf_... "
            "(create one at https://huggingface.co/settings/tokens) or run `hf auth login` once.")


def _repo_folder(preset: Preset, cache: Path) -> Path:
    """huggingface_hub's folder of the repository in its cache."""
    return cache / ("models--" + preset.repo.replace("/", "--"))


def _missing_message(preset: Preset, revision: str | None, missing: list[str], cache: Path, why: str) -> str:
    """What it means and what to do first (the window shows that sentence), the files and paths after."""
    folder = _repo_folder(preset, cache)
    at = f" --revision {revision}" if revision else ""
    return (f"{preset.name} is not downloaded yet. {why}: connect to the internet and try again"
            f"{' (unset HF_HUB_OFFLINE)' if hub_offline() else ''}, or choose another model.\n"
            f"These files of {preset.repo}{f' at revision {short(revision)}' if revision else ''} are not in the "
            f"Hugging Face cache ({folder}): {', '.join(missing)}. To fetch them on another computer: "
            f"`hf download {preset.repo}{at} {' '.join(missing)}`, then copy that cache folder to {folder}; "
            f"or put all the model files in one folder and give its path instead of '{preset.name}'.")


def _wanted(preset: Preset, layout: _Layout) -> list[str]:
    return layout.weight_names() + list(family_named(preset.family).extra_files)


def _resolve_preset(preset: Preset, revision: str | None, download: bool, progress) -> ModelFiles:
    cache = hub_cache_dir()
    offline = hub_offline() or not download
    no_network = None
    fetched = False

    def get(filename: str, optional: bool = False) -> Path | bool | None:
        nonlocal no_network, fetched
        found = _cached(preset.repo, filename, cache, revision)
        if isinstance(found, Path) or offline or no_network is not None or (found is False and optional):
            return found
        try:
            path = _download(preset, filename, cache, revision, progress, optional)
        except _NoNetwork as e:
            no_network = str(e)
            return found
        fetched = True
        return path if path is not None else False

    config = get(CONFIG_NAME, optional=True)
    raw = _read_config(config) if isinstance(config, Path) else None
    layout = _layout(raw, f"{preset.repo}/{CONFIG_NAME}", preset.family)
    paths = {n: get(n) for n in _wanted(preset, layout)}
    missing = [n for n, p in paths.items() if not isinstance(p, Path)]
    if missing:
        if no_network is not None:
            why = "Cannot reach the Hugging Face hub"
        elif hub_offline():
            why = "Offline mode is on (HF_HUB_OFFLINE=1)"
        else:
            why = "Downloading is turned off"
        raise ModelError(_missing_message(preset, revision, missing, cache, why))
    voices = extract_voices(paths[VOICES_ARCHIVE]) if VOICES_ARCHIVE in paths else None
    return ModelFiles(preset.name, layout.family.name, layout.lm_config, paths[layout.lm_name],
                      paths[layout.mimi_name], paths[layout.tokenizer_name], voices,
                      "download" if fetched else "cache")


def resolve_model(spec: str | os.PathLike, *, download: bool = True, progress=None) -> ModelFiles:
    """A model folder path or a preset name -> its files, fetching a preset (at the commit in use)
    if needed and allowed; ``progress`` is a ``tqdm`` subclass for each downloaded file."""
    if isinstance(spec, str) and spec in ALL_PRESETS:
        preset = ALL_PRESETS[spec]
        if preset.repo is None:
            return read_model_dir(ensure_demo_model(family_named(preset.family).recipe), name=preset.name,
                                  source="demo")
        revision = revision_in_use(preset.name, preset.revision)
        if revision is None:
            return _first_download(preset, download, progress)
        return _resolve_preset(preset, revision, download, progress)
    path = Path(spec).expanduser()
    if path.is_dir():
        return read_model_dir(path)
    if path.exists():
        raise ModelError(f"{path} is a file; expected a model folder (config.json, {MOSHI_NAME}, "
                         f"{MIMI_NAME}, {TOKENIZER_NAME}) or a preset name.")
    text = str(spec)
    if os.sep in text or "/" in text or text.startswith(("~", ".")):
        raise ModelError(f"model folder not found: {path}. Give an existing folder or one of the "
                         f"presets: {', '.join(ALL_PRESETS)}.")
    raise ModelError(f"unknown model {text!r}: expected one of the presets ({', '.join(ALL_PRESETS)}) "
                     "or the path of a model folder.")


def _first_download(preset: Preset, download: bool, progress) -> ModelFiles:
    """Pin ``preset`` (no commit named) to the commit its files are first got at: the cache's
    ``refs/main`` if any, else the hub's ``main`` now; recorded once every file is here."""
    cache = hub_cache_dir()
    commit = cached_main(_repo_folder(preset, cache))
    if commit is None and download and not hub_offline():
        commit = hub_revision(preset.name, for_download=True)
    files = _resolve_preset(preset, commit, download, progress)  # None: nothing here, offline (it says so)
    if commit is not None:
        record_revision(preset.name, commit)
    return files


def preset_status(name: str) -> PresetStatus:
    """Whether a preset's files are on this machine (nothing is downloaded or built)."""
    if name not in ALL_PRESETS:
        raise ModelError(f"unknown preset {name!r}: expected one of {', '.join(ALL_PRESETS)}")
    preset = ALL_PRESETS[name]
    if preset.repo is None:
        built = built_demo_dir(family_named(preset.family).recipe)
        return PresetStatus(name, built is not None, built, (), preset.approx_gb)
    cache = hub_cache_dir()
    revision = revision_in_use(name, preset.revision)
    if revision is None:  # pinned on first download, none yet: what a first download here would read
        missing, path = _cached_files(preset, cache, cached_main(_repo_folder(preset, cache)))
        return PresetStatus(name, not missing, path, missing, preset.approx_gb)
    missing, path = _cached_files(preset, cache, revision)
    return PresetStatus(name, not missing, path, missing, preset.approx_gb, revision,
                        _other_complete_revision(preset, cache, revision))


def _other_complete_revision(preset: Preset, cache: Path, revision: str | None) -> str | None:
    """The commit the cache's main names, where it is not ``revision`` and all its files are here."""
    other = cached_main(_repo_folder(preset, cache))
    if other is None or other == revision:
        return None
    try:
        return None if _cached_files(preset, cache, other)[0] else other
    except ModelError:  # its config.json is damaged: nothing to offer
        return None


def _cached_files(preset: Preset, cache: Path, revision: str | None) -> tuple[tuple[str, ...], Path | None]:
    """The files of ``preset`` at ``revision`` not in the cache, and the folder of those that are."""
    config = _cached(preset.repo, CONFIG_NAME, cache, revision)
    raw = _read_config(config) if isinstance(config, Path) else None
    layout = _layout(raw, f"{preset.repo}/{CONFIG_NAME}", preset.family)
    found = {n: _cached(preset.repo, n, cache, revision) for n in _wanted(preset, layout)}
    missing = tuple(n for n, p in found.items() if not isinstance(p, Path))
    return missing, next((p.parent for p in found.values() if isinstance(p, Path)), None)


def hub_revision(name: str, for_download: bool = False) -> str:
    """The commit the hub's ``main`` of preset ``name`` is at now (asked only for an update check or a
    first download); a ModelError says why it could not be asked."""
    from huggingface_hub import HfApi, constants
    from huggingface_hub.errors import GatedRepoError, HfHubHTTPError

    preset = _real_preset(name)
    if hub_offline():
        raise ModelError(f"Offline mode is on (HF_HUB_OFFLINE=1): Parley cannot ask {preset.repo} for a newer "
                         "revision. Unset HF_HUB_OFFLINE and check again.")
    constants.HF_HUB_OFFLINE = False  # see the module docstring
    try:
        commit = HfApi(endpoint=os.environ.get("HF_ENDPOINT") or None).model_info(
            preset.repo, revision="main", timeout=30).sha
    except GatedRepoError as e:
        raise ModelError(_gated_message(preset)) from e
    except HfHubHTTPError as e:
        raise ModelError(f"asking {preset.repo} for its latest revision failed: {e}") from e
    except Exception as e:  # the HTTP client is huggingface_hub's choice, so its errors are caught whole
        in_use = revision_in_use(name, preset.revision)
        stays = (f"{preset.name} stays at revision {short(in_use)}" if in_use is not None else
                 f"{preset.name} is not downloaded yet")
        asked = f"download {preset.repo}" if for_download else f"check {preset.repo} for an update"
        raise ModelError(f"Cannot reach the Hugging Face hub to {asked} ({type(e).__name__}: {e}). {stays}; "
                         "check the internet connection and try again.") from e
    if not is_commit(commit):
        raise ModelError(f"the hub answered {commit!r} as the revision of {preset.repo}, not a commit hash")
    return commit


def use_revision(name: str, commit: str, *, progress=None) -> ModelFiles:
    """Move preset ``name`` to ``commit`` (a person asked for it): its files at that commit are
    fetched (or found in the cache), then the commit is recorded as the one in use."""
    preset = _real_preset(name)
    files = _resolve_preset(preset, commit, True, progress)
    record_revision(name, commit)
    return files


def _real_preset(name: str) -> Preset:
    hub = {**ALL_PRESETS, **SPEECH_PRESETS}  # a voice model's first download asks too
    if name not in hub or hub[name].repo is None:
        raise ModelError(f"{name!r} is not a preset downloaded from the hub: expected one of "
                         f"{', '.join(n for n, p in hub.items() if p.repo)}")
    return hub[name]
