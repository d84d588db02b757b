"""Presets whose commit could not be known when they were written (``Preset.revision`` None) are
pinned to the commit first downloaded: recorded then, read at exactly that commit thereafter.

Hugging Face caches are laid out on disk as huggingface_hub lays them out (``add_to_cache``); the
download test talks to a local HTTP server answering like the hub (model info and file resolves).
"""

from __future__ import annotations

import hashlib
import json
from http.server import BaseHTTPRequestHandler
from urllib.parse import unquote

import pytest

from engine.files import model_revisions
from engine.files.models import (
    MIMI_NAME,
    MOSHI_NAME,
    PRESETS,
    TOKENIZER_NAME,
    ModelError,
    preset_status,
    resolve_model,
)
from tests import test_models
from tests.test_model_revisions import local_hub
from tests.test_models import NEWER, add_to_cache, moshi_config

hub = test_models.hub  # the fixture: an empty, offline Hugging Face cache

NAME = "moshika-rl-seamless"
REPO = PRESETS[NAME].repo
FIRST = "fedcba9876543210fedcba9876543210fedcba98"  # the commit main is at when it is first downloaded


def model_files(lm: bytes) -> dict[str, bytes]:
    return {"config.json": json.dumps(moshi_config()).encode(), MOSHI_NAME: lm, MIMI_NAME: b"mimi",
            TOKENIZER_NAME: b"spm"}


def test_these_presets_name_no_commit():
    assert PRESETS[NAME].pinned_on_first_download and PRESETS["personaplex-rl-seamless"].pinned_on_first_download
    assert not PRESETS["moshika"].pinned_on_first_download and not PRESETS["demo"].pinned_on_first_download


def test_a_download_already_in_the_cache_is_pinned_when_first_used(hub):
    snap = add_to_cache(hub, REPO, model_files(b"first"), revision=FIRST)
    status = preset_status(NAME)
    assert status.present and status.path == snap and status.revision is None  # not pinned before it is used
    assert model_revisions.chosen_revisions() == {}
    files = resolve_model(NAME)
    assert files.lm_path == snap / MOSHI_NAME and files.family == "moshi"
    assert model_revisions.chosen_revisions() == {NAME: FIRST}
    assert preset_status(NAME).revision == FIRST


def test_after_the_first_download_main_moving_changes_nothing(hub):
    first = add_to_cache(hub, REPO, model_files(b"first"), revision=FIRST)
    resolve_model(NAME)
    add_to_cache(hub, REPO, model_files(b"newer"), revision=NEWER)  # main now names a newer commit
    files = resolve_model(NAME)
    assert files.lm_path == first / MOSHI_NAME and files.lm_path.read_bytes() == b"first"
    status = preset_status(NAME)
    assert status.revision == FIRST and status.other_revision == NEWER  # offered, not used
    assert model_revisions.chosen_revisions() == {NAME: FIRST}


def test_the_pinned_commit_missing_from_the_cache_is_said_not_replaced_by_main(hub):
    first = add_to_cache(hub, REPO, model_files(b"first"), revision=FIRST)
    resolve_model(NAME)
    add_to_cache(hub, REPO, model_files(b"newer"), revision=NEWER)
    (first / MOSHI_NAME).unlink()
    with pytest.raises(ModelError, match=f"(?s)at revision {FIRST[:7]}.*: {MOSHI_NAME}"):
        resolve_model(NAME)
    assert not preset_status(NAME).present


def test_an_interrupted_first_download_is_not_pinned_until_complete(hub):
    files = model_files(b"first")
    del files[MIMI_NAME]
    add_to_cache(hub, REPO, files, revision=FIRST)
    status = preset_status(NAME)
    assert not status.present and status.missing == (MIMI_NAME,) and status.revision is None
    with pytest.raises(ModelError, match=f"(?s)not downloaded yet.*at revision {FIRST[:7]}.*: {MIMI_NAME}"):
        resolve_model(NAME)
    assert model_revisions.chosen_revisions() == {}


def test_offline_with_nothing_here_says_so_and_records_nothing(hub):
    with pytest.raises(ModelError, match="not downloaded yet. Offline mode is on"):
        resolve_model(NAME)
    assert model_revisions.chosen_revisions() == {}
    status = preset_status(NAME)
    assert not status.present and status.revision is None and MOSHI_NAME in status.missing


class _Hub(BaseHTTPRequestHandler):
    """The hub as huggingface_hub sees it: model info says which commit main is at; files resolve
    at any revision name to that commit's bytes (``files``, keyed by commit)."""

    main = FIRST
    files: dict[str, dict[str, bytes]] = {}
    asked: list[tuple[str, str]] = []

    def _answer(self, body: bool) -> None:
        path = unquote(self.path.split("?")[0])
        self.asked.append((self.command, path))
        if path.startswith(f"/api/models/{REPO}/revision/"):
            data = json.dumps({"id": REPO, "sha": self.main}).encode()
            self._send(200, data, {"Content-Type": "application/json"}, body)
            return
        prefix = f"/{REPO}/resolve/"
        revision, _, filename = path.removeprefix(prefix).partition("/")
        commit = self.main if revision == "main" else revision
        data = self.files.get(commit, {}).get(filename) if path.startswith(prefix) else None
        if data is None:
            self._send(404, b"", {"X-Error-Code": "EntryNotFound"}, body)
            return
        self._send(200, data, {"X-Repo-Commit": commit, "ETag": f'"{hashlib.sha256(data).hexdigest()}"'}, body)

    def _send(self, status: int, data: bytes, headers: dict[str, str], body: bool) -> None:
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if body:
            self.wfile.write(data)

    def do_GET(self):
        self._answer(True)

    def do_HEAD(self):
        self._answer(False)

    def log_message(self, *args):
        pass


def test_the_first_download_reads_every_file_at_main_s_commit_then_keeps_to_it(hub, monkeypatch):
    _Hub.files = {FIRST: model_files(b"first"), NEWER: model_files(b"newer")}
    _Hub.main, _Hub.asked = FIRST, []
    monkeypatch.delenv("HF_HUB_OFFLINE")
    with local_hub(_Hub) as endpoint:
        monkeypatch.setenv("HF_ENDPOINT", endpoint)
        files = resolve_model(NAME)
        assert files.source == "download" and files.lm_path.read_bytes() == b"first"
        assert files.lm_path.parent.name == FIRST
        assert model_revisions.chosen_revisions() == {NAME: FIRST}
        resolves = [path for _, path in _Hub.asked if "/resolve/" in path]
        assert resolves and all(f"/resolve/{FIRST}/" in path for path in resolves)  # never main: one commit
        _Hub.main, _Hub.asked = NEWER, []  # the repository moves on
        again = resolve_model(NAME)
        assert again.lm_path.read_bytes() == b"first" and _Hub.asked == []  # read here, the hub not asked
        assert model_revisions.chosen_revisions() == {NAME: FIRST}
