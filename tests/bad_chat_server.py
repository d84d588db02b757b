"""A chat-completions server on a real socket that has the protocol's bad days on demand (a real
llama.cpp server will not): ``BadServer(behaviour)`` serves one behaviour at ``.url`` until closed.
Each behaviour writes its answer with the pieces of ``PIECES`` before failing, so that a test can
check that nothing received is lost."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PIECES = ["Hello", " there,", " my friend."]
HUGE_BYTES = 10 << 20


def chunk(content: str | None = None, finish: str | None = None) -> bytes:
    delta = {} if content is None else {"content": content}
    doc = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m",
           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(doc).encode() + b"\n\n"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):  # the list of models: a server that answers
        self._body(200, "application/json", b'{"object": "list", "data": [{"id": "m", "object": "model"}]}')

    def do_POST(self):
        self.server.requests.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        self.server.keys.append(self.headers.get("Authorization"))
        getattr(self, "_" + self.server.behaviour.replace("-", "_"))()

    def _head(self, status=200, kind="text/event-stream", length=None):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        if length is None:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(length))
        self.end_headers()
        self.wfile.flush()

    def _part(self, data: bytes):  # one HTTP chunk
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _end(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _pieces(self):
        self._part(chunk(""))  # the role's chunk: no text
        for piece in PIECES:
            self._part(chunk(piece))

    def _body(self, status, kind, data: bytes):
        self._head(status, kind, len(data))
        self.wfile.write(data)
        self.wfile.flush()

    def _ok(self):
        self._head()
        self._pieces()
        self._part(chunk(finish="stop") + b"data: [DONE]\n\n")
        self._end()

    def _tool_call(self):  # a call of the request's first tool (name in every piece, as llama-cpp-python
        # writes it), then, once the request holds the tool's result, the answer
        request = self.server.requests[-1]
        if any(m["role"] == "tool" for m in request["messages"]) or not request.get("tools"):
            return self._ok()
        name = request["tools"][0]["function"]["name"]
        self._head()
        for part in ['{"query"', ': "rivers', ' trees"}']:
            call = {"index": 0, "id": "call_7", "type": "function", "function": {"name": name, "arguments": part}}
            doc = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m",
                   "choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}]}
            self._part(b"data: " + json.dumps(doc).encode() + b"\n\n")
        self._part(chunk(finish="tool_calls") + b"data: [DONE]\n\n")
        self._end()

    def _pause(self):  # a clause, a pause in the middle of the answer, then its end
        self._head()
        self._pieces()
        self._part(chunk(" And"))
        time.sleep(self.server.stall)
        self._part(chunk(" goodbye.") + chunk(finish="stop") + b"data: [DONE]\n\n")
        self._end()

    def _finish_then_stall(self):  # the answer's end, then no [DONE] for a while
        self._head()
        self._pieces()
        self._part(chunk(finish="stop"))
        time.sleep(self.server.stall)

    def _drop(self):  # the socket closes in the middle of a chunked body
        self._head()
        self._pieces()
        self.wfile.write(b"100\r\ndata: {\"cho")
        self.wfile.flush()
        self.connection.shutdown(socket.SHUT_RDWR)
        self.close_connection = True

    def _unfinished(self):  # a clean end of the body, but no finish reason and no [DONE]
        self._head()
        self._pieces()
        self._end()

    def _slow_start(self):  # the headers, then nothing
        self._head()
        time.sleep(self.server.stall)

    def _slow_middle(self):
        self._head()
        self._pieces()
        time.sleep(self.server.stall)

    def _error_500(self):
        self._body(500, "application/json", json.dumps({"error": {"message": "the model ran out of memory",
                                                                  "type": "server_error"}}).encode())

    def _ollama_404(self):
        self._body(404, "application/json", b'{"error":"model \\"nope\\" not found, try pulling it first"}')

    def _key_401(self):
        self._body(401, "application/json", b'{"error":{"message":"Invalid API key","type":"auth"}}')

    def _html(self):
        self._body(200, "text/html; charset=utf-8", b"<!doctype html><html><body>My router</body></html>")

    def _html_404(self):
        self._body(404, "text/html", b"<html><body>Not here</body></html>")

    def _not_json(self):
        self._head()
        self._pieces()
        self._part(b"data: <html>\n\n")
        self._end()

    def _error_event(self):
        self._head()
        self._pieces()
        self._part(b'data: {"error": {"message": "context length exceeded"}}\n\n')
        self._end()

    def _huge(self):  # 10 MB of answer in small pieces
        self._head()
        self._pieces()
        one = chunk("word " * 40)
        try:
            for _ in range(HUGE_BYTES // len(one)):
                self._part(one)
            self._part(chunk(finish="stop"))
            self._end()
        except OSError:  # the client stopped reading
            pass

    def _huge_line(self):  # one event of 10 MB, with no line end
        self._head()
        self._pieces()
        try:
            self._part(b'data: {"choices": [{"delta": {"content": "')
            block = b"a" * (1 << 16)
            for _ in range(HUGE_BYTES // len(block)):
                self._part(block)
            self._end()
        except OSError:
            pass


class BadServer:
    def __init__(self, behaviour: str, stall: float = 3.0):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.daemon_threads = True
        self.httpd.handle_error = lambda request, address: None  # its clients hang up on purpose
        self.httpd.behaviour, self.httpd.stall, self.httpd.requests, self.httpd.keys = behaviour, stall, [], []
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    @property
    def requests(self) -> list[dict]:
        return self.httpd.requests

    @property
    def keys(self) -> list[str | None]:
        """Each request's Authorization header (None: none)."""
        return self.httpd.keys

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
