"""Presets pinned to a commit of their hub repository: read and downloaded at that commit, moved to
another only when a person asks, with the hub asked only then (and a clear message offline).

Hugging Face caches are laid out on disk as huggingface_hub lays them out; no test reaches the hub:
one talks to a local HTTP server answering like the hub's model-info API.
"""

from __future__ import annotations

import json
import socket
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from engine.files import model_revisions
from engine.files.models import (
    MIMI_NAME,
    MOSHI_NAME,
    PRESETS,
    TOKENIZER_NAME,
    ModelError,
    hub_revision,
    preset_status,
    resolve_model,
    use_revision,
)
from tests import test_models
from tests.test_models import NEWER, add_to_cache, moshi_config

hub = test_models.hub  # the fixture: an empty, offline Hugging Face cache

REPO = "kyutai/moshiko-pytorch-bf16"
PIN = PRESETS["moshiko"].revision


def model_files(lm: bytes) -> dict[str, bytes]:
    return {"config.json": json.dumps(moshi_config()).encode(), MOSHI_NAME: lm, MIMI_NAME: b"mimi",
            TOKENIZER_NAME: b"spm"}


def test_every_hub_preset_is_pinned_to_a_commit_or_to_its_first_download():
    for preset in PRESETS.values():
        if preset.repo is None:
            assert preset.revision is None and not preset.pinned_on_first_download, preset.name
        else:
            assert model_revisions.is_commit(preset.revision) != preset.pinned_on_first_download, preset.name
    assert [p.name for p in PRESETS.values() if p.pinned_on_first_download] == [
        "moshika-rl-seamless", "personaplex-rl-seamless", "hibiki-2b", "hibiki-1b"]  # the hub could not be
    # asked for their commits (hibiki-zero's is the one kyutai's hibiki-zero 0.0.4 package runs)


def test_the_pinned_commit_is_read_even_when_main_has_moved(hub):
    pinned = add_to_cache(hub, REPO, model_files(b"pinned"))
    add_to_cache(hub, REPO, model_files(b"newer"), revision=NEWER)  # main now names the newer commit
    files = resolve_model("moshiko", download=False)
    assert files.lm_path == pinned / MOSHI_NAME and files.lm_path.read_bytes() == b"pinned"
    status = preset_status("moshiko")
    assert status.present and status.path == pinned and status.revision == PIN
    assert status.other_revision == NEWER  # offered, not used


def test_a_download_that_followed_main_is_offered_then_used_when_asked(hub):
    newer = add_to_cache(hub, REPO, model_files(b"newer"), revision=NEWER)
    status = preset_status("moshiko")
    assert not status.present and status.revision == PIN and status.other_revision == NEWER
    with pytest.raises(ModelError, match=f"at revision {PIN[:7]}"):
        resolve_model("moshiko")
    files = use_revision("moshiko", NEWER)  # offline: every file of that commit is in the cache
    assert files.lm_path == newer / MOSHI_NAME
    assert resolve_model("moshiko").lm_path.read_bytes() == b"newer"  # from now on
    status = preset_status("moshiko")
    assert status.present and status.revision == NEWER and status.other_revision is None
    assert PRESETS["moshika"].revision == model_revisions.revision_in_use("moshika", PRESETS["moshika"].revision)


def test_an_incomplete_download_of_another_commit_is_not_offered(hub):
    files = model_files(b"newer")
    del files[MIMI_NAME]
    add_to_cache(hub, REPO, files, revision=NEWER)
    assert preset_status("moshiko").other_revision is None
    with pytest.raises(ModelError, match=MIMI_NAME):
        use_revision("moshiko", NEWER)
    assert model_revisions.chosen_revisions() == {}  # nothing recorded for a commit that is not here


def test_another_commit_with_a_damaged_config_is_not_offered_and_stops_nothing(hub):
    pinned = add_to_cache(hub, REPO, model_files(b"pinned"))
    add_to_cache(hub, REPO, {**model_files(b"newer"), "config.json": b"{damaged"}, revision=NEWER)
    status = preset_status("moshiko")
    assert status.present and status.path == pinned and status.other_revision is None


@pytest.mark.parametrize("content", [b"{not json", b'{"moshiko": "main"}', b"[1, 2]", b'{"moshiko": 1e400}'])
def test_a_damaged_revisions_file_means_the_pins(hub, content):
    pinned = add_to_cache(hub, REPO, model_files(b"pinned"))
    path = model_revisions.cache_root() / model_revisions.REVISIONS_NAME
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    assert resolve_model("moshiko").lm_path == pinned / MOSHI_NAME
    assert path.read_bytes() == content  # left as it was


def test_only_commit_hashes_are_recorded(hub):
    with pytest.raises(ValueError, match="not a commit hash"):
        model_revisions.record_revision("moshiko", "main")


def test_checking_for_an_update_offline_says_so(hub):
    with pytest.raises(ModelError, match="Offline mode is on.*HF_HUB_OFFLINE"):
        hub_revision("moshiko")


def test_checking_for_an_update_without_network_says_so(hub, monkeypatch):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    with pytest.raises(ModelError, match=f"Cannot reach the Hugging Face hub.*stays at revision {PIN[:7]}"):
        hub_revision("moshiko")


def test_a_first_download_without_network_says_the_download_failed_not_an_update_check(hub, monkeypatch):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    with pytest.raises(ModelError, match="Cannot reach the Hugging Face hub to download") as raised:
        resolve_model("hibiki-1b", download=True)
    assert "update" not in str(raised.value)


class _HubInfo(BaseHTTPRequestHandler):
    """Answers the model-info request for main as the hub does: the commit main is at."""

    asked: list[str] = []

    def do_GET(self):
        self.asked.append(self.path)
        body = json.dumps({"id": REPO, "sha": NEWER}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@contextmanager
def local_hub(handler):
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


def test_checking_for_an_update_asks_main_and_changes_nothing(hub, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE")
    with local_hub(_HubInfo) as endpoint:
        monkeypatch.setenv("HF_ENDPOINT", endpoint)
        assert hub_revision("moshiko") == NEWER
    assert _HubInfo.asked[-1].startswith(f"/api/models/{REPO}/revision/main")
    assert preset_status("moshiko").revision == PIN and model_revisions.chosen_revisions() == {}


def test_the_demo_has_no_revision(hub):
    with pytest.raises(ModelError, match="not a preset downloaded from the hub"):
        hub_revision("demo")
