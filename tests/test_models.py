"""Model resolution: presets through a Hugging Face cache laid out by hand, local folders, errors.

No test reaches the hub: HF_HUB_OFFLINE=1, except the gated-repo test, which talks to a local
HTTP server answering like the hub does for a gated repository.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from engine.files.models import (
    MIMI_NAME,
    MOSHI_NAME,
    PRESETS,
    TOKENIZER_NAME,
    ModelError,
    extract_voices,
    preset_status,
    read_model_dir,
    resolve_model,
)
from engine.lm.model import LMConfig

NEWER = "0123456789abcdef0123456789abcdef01234567"  # a commit after the presets' pins


@pytest.fixture
def hub(tmp_path, monkeypatch) -> Path:
    """An empty HF_HOME, offline, and a private Parley cache."""
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_ENDPOINT", "TRANSFORMERS_OFFLINE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("PARLEY_CACHE_DIR", str(tmp_path / "parley"))
    return tmp_path / "hf" / "hub"


def add_to_cache(hub: Path, repo: str, files: dict[str, bytes], revision: str | None = None) -> Path:
    """Lay files out as huggingface_hub does after a download of ``main`` at ``revision`` (by default
    the preset's pinned commit): blobs by hash, snapshot symlinks, refs/main."""
    revision = revision or next(p.revision for p in PRESETS.values() if p.repo == repo)
    root = hub / ("models--" + repo.replace("/", "--"))
    snap = root / "snapshots" / revision
    snap.mkdir(parents=True, exist_ok=True)
    (root / "blobs").mkdir(exist_ok=True)
    (root / "refs").mkdir(exist_ok=True)
    (root / "refs" / "main").write_text(revision)
    for name, data in files.items():
        digest = hashlib.sha256(data).hexdigest()
        (root / "blobs" / digest).write_bytes(data)
        (snap / name).symlink_to(Path("..") / ".." / "blobs" / digest)
    return snap


def moshi_config(**extra) -> dict:
    from engine.files.models import default_lm_config

    return {**default_lm_config("moshi"), "moshi_name": MOSHI_NAME, "mimi_name": MIMI_NAME,
            "tokenizer_name": TOKENIZER_NAME, **extra}


def voices_tgz(members: dict[str, bytes], links: tuple[str, ...] = ()) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for name in links:
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
            tar.addfile(info)
    return buf.getvalue()


def test_preset_resolves_from_the_cache_offline(hub):
    config = moshi_config(lm_gen_config={"temp": 0.8})
    snap = add_to_cache(hub, "kyutai/moshiko-pytorch-bf16", {
        "config.json": json.dumps(config).encode(), MOSHI_NAME: b"lm", MIMI_NAME: b"mimi", TOKENIZER_NAME: b"spm"})
    files = resolve_model("moshiko")
    assert files.source == "cache" and files.family == "moshi" and files.name == "moshiko"
    assert files.lm_config == config
    assert files.lm_path == snap / MOSHI_NAME and files.lm_path.read_bytes() == b"lm"
    assert files.mimi_path.read_bytes() == b"mimi" and files.tokenizer_path.read_bytes() == b"spm"
    assert files.voices_dir is None
    status = preset_status("moshiko")
    assert status.present and status.path == snap and status.missing == ()
    assert status.approx_gb == PRESETS["moshiko"].approx_gb


def test_config_names_are_followed(hub):
    config = moshi_config(moshi_name="weights.safetensors", tokenizer_name="spm.model")
    add_to_cache(hub, "kyutai/moshika-pytorch-bf16", {
        "config.json": json.dumps(config).encode(), "weights.safetensors": b"w", MIMI_NAME: b"m", "spm.model": b"t"})
    files = resolve_model("moshika")
    assert files.lm_path.name == "weights.safetensors" and files.tokenizer_path.name == "spm.model"


def test_repo_without_config_is_moshi_7b(hub):
    add_to_cache(hub, "kyutai/moshiko-pytorch-bf16", {MOSHI_NAME: b"lm", MIMI_NAME: b"m", TOKENIZER_NAME: b"t"})
    files = resolve_model("moshiko")
    assert LMConfig.from_hub_config(files.lm_config) == LMConfig.moshi_7b() and files.family == "moshi"


def test_personaplex_from_cache_unpacks_voices_beside_the_archive(hub):
    archive = voices_tgz({"voices/NATF2.pt": b"natf2", "voices/VARM0.pt": b"varm0"})
    snap = add_to_cache(hub, "nvidia/personaplex-7b-v1", {
        "config.json": json.dumps({"model_type": "personaplex"}).encode(),
        MOSHI_NAME: b"lm", MIMI_NAME: b"m", TOKENIZER_NAME: b"t", "voices.tgz": archive})
    files = resolve_model("personaplex")
    assert files.family == "personaplex" and files.lm_config["model_type"] == "personaplex"
    assert LMConfig.from_hub_config(files.lm_config) == LMConfig.personaplex_7b()
    assert files.voices_dir == snap / "voices"
    assert sorted(p.name for p in files.voices_dir.iterdir()) == ["NATF2.pt", "VARM0.pt"]
    assert (files.voices_dir / "NATF2.pt").read_bytes() == b"natf2"
    assert resolve_model("personaplex").voices_dir == files.voices_dir  # second time: already unpacked


def test_offline_lists_exactly_the_missing_files_and_where_to_put_them(hub):
    add_to_cache(hub, "kyutai/moshiko-pytorch-bf16", {"config.json": json.dumps(moshi_config()).encode(),
                                                      MOSHI_NAME: b"lm"})
    with pytest.raises(ModelError) as err:
        resolve_model("moshiko")
    msg = str(err.value)
    assert "HF_HUB_OFFLINE" in msg
    assert f"{MIMI_NAME}, {TOKENIZER_NAME}" in msg and f"{MOSHI_NAME}," not in msg
    assert str(hub / "models--kyutai--moshiko-pytorch-bf16") in msg
    pin = PRESETS["moshiko"].revision
    assert f"hf download kyutai/moshiko-pytorch-bf16 --revision {pin} {MIMI_NAME} {TOKENIZER_NAME}" in msg
    status = preset_status("moshiko")
    assert not status.present and status.missing == (MIMI_NAME, TOKENIZER_NAME)


def test_offline_empty_cache_names_all_files(hub):
    with pytest.raises(ModelError, match=f"{MOSHI_NAME}, {MIMI_NAME}, {TOKENIZER_NAME}, voices.tgz"):
        resolve_model("personaplex")
    assert preset_status("personaplex").path is None


def test_download_false_never_downloads(hub, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE")
    with pytest.raises(ModelError, match="Downloading is turned off"):
        resolve_model("moshiko", download=False)


def test_unknown_preset_lists_the_presets(hub):
    with pytest.raises(ModelError, match="unknown model 'mosh'.*demo, moshiko, moshika, moshika-rl-seamless, "
                                         "personaplex, personaplex-rl-seamless"):
        resolve_model("mosh")
    with pytest.raises(ModelError, match="unknown preset"):
        preset_status("mosh")


def test_missing_folder(tmp_path):
    with pytest.raises(ModelError, match="model folder not found"):
        resolve_model(str(tmp_path / "no" / "such"))


def test_local_folder(tmp_path):
    for name, data in ((MOSHI_NAME, b"lm"), (MIMI_NAME, b"m"), (TOKENIZER_NAME, b"t")):
        (tmp_path / name).write_bytes(data)
    files = resolve_model(str(tmp_path))
    assert files.source == "local" and files.family == "moshi" and files.lm_path == tmp_path / MOSHI_NAME
    assert LMConfig.from_hub_config(files.lm_config) == LMConfig.moshi_7b()


def test_incomplete_local_folder_names_the_missing_files(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(moshi_config(dep_q=16)))
    (tmp_path / MOSHI_NAME).write_bytes(b"lm")
    with pytest.raises(ModelError, match=f"not a complete model folder: missing {MIMI_NAME}, {TOKENIZER_NAME}"):
        resolve_model(str(tmp_path))


def test_dep_q_16_marks_personaplex(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(moshi_config(dep_q=16)))
    for name in (MOSHI_NAME, MIMI_NAME, TOKENIZER_NAME):
        (tmp_path / name).write_bytes(b"x")
    assert read_model_dir(tmp_path).family == "personaplex"


@pytest.mark.parametrize(("config", "message"), [
    ("{not json", "cannot read .*config.json"),
    ("[1, 2]", "should hold a JSON object"),
    (json.dumps({"quantize": True}), "int8 checkpoint"),
    (json.dumps({"model_type": "vits"}), "describes a 'vits' model"),  # a type no family claims
    (json.dumps({"mimi_name": "hf://kyutai/moshiko-pytorch-bf16/" + MIMI_NAME}), "'mimi_name'"),
    (json.dumps({"moshi_name": "../../elsewhere.safetensors"}), "'moshi_name'"),
])
def test_bad_config_is_explained(tmp_path, config, message):
    (tmp_path / "config.json").write_text(config)
    with pytest.raises(ModelError, match=message):
        read_model_dir(tmp_path)


def test_voices_archive_with_traversal_is_refused(tmp_path):
    archive = tmp_path / "voices.tgz"
    archive.write_bytes(voices_tgz({"voices/ok.pt": b"ok", "../evil.pt": b"evil"}))
    with pytest.raises(ModelError, match="unsafe path '../evil.pt'"):
        extract_voices(archive)
    assert not (tmp_path / "voices").exists() and not (tmp_path.parent / "evil.pt").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["voices.tgz"]  # no half-unpacked folder left


def test_voices_archive_links_are_skipped(tmp_path):
    archive = tmp_path / "voices.tgz"
    archive.write_bytes(voices_tgz({"NATM1.pt": b"m1"}, links=("voices/passwd",)))
    voices = extract_voices(archive)
    assert [p.name for p in voices.iterdir()] == ["NATM1.pt"]


class _GatedHub(BaseHTTPRequestHandler):
    """Answers every request as the hub does for a gated repo without an accepted licence."""

    def _deny(self):
        self.send_response(401)
        self.send_header("X-Error-Code", "GatedRepo")
        self.send_header("X-Error-Message", "Access to this model is restricted.")
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_HEAD = do_GET = _deny

    def log_message(self, *args):
        pass


def test_gated_repo_explains_licence_and_token(hub, monkeypatch):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _GatedHub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        monkeypatch.delenv("HF_HUB_OFFLINE")
        monkeypatch.delenv("HF_TOKEN", raising=False)
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{server.server_port}")
        with pytest.raises(ModelError) as err:
            resolve_model("personaplex")
    finally:
        server.shutdown()
        server.server_close()
    msg = str(err.value)
    assert "https://huggingface.co/nvidia/personaplex-7b-v1" in msg and "accept" in msg
    assert "HF_TOKEN" in msg and "hf auth login" in msg


def test_presets_table():
    assert set(PRESETS) == {"demo", "moshiko", "moshika", "moshika-rl-seamless", "personaplex",
                            "personaplex-rl-seamless", "hibiki-zero", "hibiki-2b", "hibiki-1b", "demo-interpreter"}
    assert PRESETS["hibiki-zero"].repo == "kyutai/hibiki-zero-3b-pytorch-bf16" and PRESETS["hibiki-zero"].revision
    assert PRESETS["personaplex"].gated and not PRESETS["moshiko"].gated
    assert PRESETS["demo"].runs_on == "cpu" and PRESETS["moshiko"].runs_on == "gpu"
    assert PRESETS["moshika"].repo == "kyutai/moshika-pytorch-bf16"
