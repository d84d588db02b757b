"""Finding the person's language model: servers at their usual addresses are asked for their models
(a real llama.cpp server stands in at one address), the ones not running or not speaking the
protocol are left out within the short wait, and `parley chat` without --llm or --llm-model uses
what it finds or says in one sentence what to do."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from app.chat.discovery import USUAL_SERVERS, KnownServer, find_servers, nothing_found_sentence
from app.cli.command import main
from tests.bad_chat_server import free_port

pytest.importorskip("llama_cpp.server", reason="make test installs llama-cpp-python[server]")


class ModelList:
    """An HTTP server whose GET answers ``body`` with ``kind`` (a model list, or a web page)."""

    def __init__(self, body: bytes, kind: str = "application/json"):
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.handle_error = lambda request, address: None  # a client gone mid-request: not this test's
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def models(*names: str) -> bytes:
    return json.dumps({"object": "list", "data": [{"id": n, "object": "model"} for n in names]}).encode()


def test_running_servers_are_found_with_their_models_and_the_rest_left_out(llama):
    page = ModelList(b"<html>a router's login page</html>", "text/html")
    silent = socket.socket()  # accepts connections (the kernel's queue) and never answers
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    try:
        candidates = (KnownServer("nothing", f"http://127.0.0.1:{free_port()}/v1"),
                      KnownServer("llama.cpp", llama.url),
                      KnownServer("a web page", page.url),
                      KnownServer("silent", f"http://127.0.0.1:{silent.getsockname()[1]}/v1"))
        start = time.perf_counter()
        found = find_servers(candidates, wait_seconds=1.0)
        took = time.perf_counter() - start
    finally:
        page.close()
        silent.close()
    assert [(f.name, f.url) for f in found] == [("llama.cpp", llama.url)]
    assert len(found[0].models) == 1 and found[0].models[0].endswith("tiny.gguf")
    assert took < 5, f"asking four addresses took {took:.1f} s: they are asked at once, each for about a second"


def test_none_found_names_each_usual_address_and_what_to_start_in_one_sentence():
    sentence = nothing_found_sentence()
    assert all(k.name in sentence and k.url in sentence for k in USUAL_SERVERS)
    assert "`ollama serve`" in sentence and "\n" not in sentence and sentence.endswith(".")


def chat_until_the_input(capsys, *options) -> tuple[int, str]:
    """`parley chat` up to reading a missing input: the server and model are chosen before it."""
    code = main(["chat", *options, "--input", "MISSING.wav", "--output", "/nonexistent-dir/o.wav"])
    return code, capsys.readouterr().err


def test_chat_takes_the_servers_only_model_when_none_is_named(llama, capsys):
    code, err = chat_until_the_input(capsys, "--llm", llama.url)
    assert code == 2 and "using the model " in err and "tiny.gguf" in err, err


@pytest.mark.parametrize(("offered", "said"), [
    (("llama3.2", "qwen3:4b", "gemma3"), "offers 3 models (llama3.2, qwen3:4b, gemma3): choose one with --llm-model"),
    ((), "offers no model: load or pull one"),
])
def test_chat_asks_for_a_model_where_the_server_has_several_or_none(capsys, offered, said):
    server = ModelList(models(*offered))
    try:
        code, err = chat_until_the_input(capsys, "--llm", server.url)
    finally:
        server.close()
    assert code == 2 and said in err and err.count("\n") == 1, err


def test_chat_without_an_address_says_what_to_start_when_nothing_runs(capsys):
    busy = []
    for known in USUAL_SERVERS:
        port = int(known.url.rsplit(":", 1)[1].split("/")[0])
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                busy.append(known.name)
    if busy:
        pytest.skip(f"{' and '.join(busy)} runs on this machine: its answer is its own")
    code, err = chat_until_the_input(capsys, "--llm-model", "m")
    assert code == 2 and nothing_found_sentence() in err and err.count("\n") == 1, err

