"""The person's language model: any OpenAI-compatible chat-completions server (Ollama, llama.cpp's
``llama-server``, LM Studio, vLLM), its answer streamed, through the ``openai`` package.

Every way the exchange can fail is one ``ChatError``: a sentence a person can act on, a ``kind``
for the code, and the text received before the failure (kept, never lost). The answer is bounded
in characters and in bytes (a server that sends megabytes is cut, its first part kept)."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx2  # the HTTP client the openai package is built on
import openai

from app.chat.tools import ToolCall

MAX_REPLY_CHARS = 32_000  # far more than a spoken turn
MAX_REPLY_BYTES = 4 << 20  # a stream's bytes (its JSON is ~10x its text)
MAX_SHOWN = 200  # the most of a server's own error message that a sentence quotes


class ChatError(Exception):
    """One sentence; ``kind``: address, no-server, timeout, dropped, refused, not-openai, too-long."""

    def __init__(self, kind: str, sentence: str, received: str = ""):
        super().__init__(sentence)
        self.kind, self.received = kind, received


@dataclass(frozen=True)
class ChatServer:
    """Where the model is and how long to wait. ``url``: the server's address; one with no path
    gets ``/v1`` (where Ollama, llama-server, LM Studio and vLLM serve the protocol)."""

    url: str
    model: str
    api_key: str | None = None
    wait_seconds: float = 60.0  # for the first token (a model may be loading) and between pieces
    connect_seconds: float = 5.0
    max_tokens: int | None = None
    temperature: float | None = None
    max_reply_chars: int = MAX_REPLY_CHARS
    max_reply_bytes: int = MAX_REPLY_BYTES

    def base_url(self) -> str:
        parts = urlsplit(self.url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ChatError("address", f"The address {self.url!r} is not a language model server's: give one "
                                       "such as http://localhost:11434/v1 (Ollama) or http://localhost:8080/v1 "
                                       "(llama-server).")
        try:
            parts.port  # noqa: B018 - a port that is not a number raises here
        except ValueError:
            raise ChatError("address", f"The address {self.url!r} has a port that is not a number.") from None
        path = parts.path.rstrip("/") or "/v1"
        return f"{parts.scheme}://{parts.netloc}{path}"

    def shown_url(self) -> str:
        """The address as sentences and files show it: without a user name or password in it."""
        parts = urlsplit(self.base_url())
        return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()


class _TooManyBytes(Exception):
    pass


def _cap_bytes(limit: int):
    """A response hook: the body's bytes are counted as they arrive and stopped past ``limit``."""

    class Capped(httpx2.SyncByteStream):
        def __init__(self, inner):
            self.inner = inner

        def __iter__(self):
            seen = 0
            for part in self.inner:
                seen += len(part)
                if seen > limit:
                    raise _TooManyBytes()
                yield part

        def close(self):
            self.inner.close()

    def hook(response: httpx2.Response) -> None:
        response.stream = Capped(response.stream)

    return hook


def open_client(server: ChatServer) -> openai.OpenAI:
    """A client for ``server``: no retries (a retried stream would repeat itself), bounded waits,
    no compression (the byte bound is on what is read), no proxy for the machine's own servers."""
    base = server.base_url()
    local = urlsplit(base).hostname in ("localhost", "127.0.0.1", "::1")
    timeout = httpx2.Timeout(server.wait_seconds, connect=server.connect_seconds)
    http = httpx2.Client(timeout=timeout, trust_env=not local, headers={"Accept-Encoding": "identity"},
                         event_hooks={"response": [_cap_bytes(server.max_reply_bytes)]})
    return openai.OpenAI(base_url=base, api_key=server.api_key or "none", max_retries=0, timeout=timeout,
                         http_client=http)


def _shut_down(response) -> None:
    """Wake a read blocked on ``response``'s socket in another thread (closing the socket does not,
    on Linux); the connection is not reused after."""
    network = response.extensions.get("network_stream")
    sock = network.get_extra_info("socket") if network is not None else None
    if sock is not None:
        with contextlib.suppress(OSError):  # closed already
            sock.shutdown(socket.SHUT_RDWR)


class ReplyStream:
    """One streamed answer to ``messages``. Iterate for its text pieces; ``text`` holds all that
    arrived, ``first_token_s`` when the first piece came (seconds after the request), and
    ``finish_reason`` the server's ("stop", "length", "tool_calls"), ``tool_calls`` the calls the
    model made (given ``tools``: their specs; ``must_call``: the one it has to call). ``close`` (any
    thread) ends it early: the iteration stops at once, even while a server that sent its headers is
    silent (its connection is shut down); a server yet to send its headers is waited for."""

    def __init__(self, server: ChatServer, messages: Sequence[dict], client: openai.OpenAI | None = None,
                 tools: Sequence[dict] = (), must_call: str | None = None):
        self.server, self.messages, self.tools, self.must_call = server, list(messages), list(tools), must_call
        self.client = client  # opened at the first piece where None; kept for the next request
        self._calls: dict[int, ToolCall] = {}
        self._stream = None
        self._closed = threading.Event()
        self.text = ""
        self.finish_reason: str | None = None
        self.first_token_s: float | None = None

    def close(self) -> None:
        self._closed.set()
        stream = self._stream
        if stream is not None:
            _shut_down(stream.response)
            stream.close()

    def __iter__(self) -> Iterator[str]:
        start = time.perf_counter()
        try:
            yield from self._pieces(start)
        except Exception as e:
            if self._closed.is_set() and not isinstance(e, ChatError):
                return  # closed by the caller: what it read is all there is
            failure = self._failure(e)
            if failure is None:
                raise
            failure.received = self.text
            raise failure from None
        finally:
            self.close()

    def _failure(self, e: Exception) -> ChatError | None:
        """The ChatError that ``e`` is (None: a bug, not the protocol's)."""
        base = self.server.shown_url
        if isinstance(e, ChatError):
            return e
        if isinstance(e, _TooManyBytes):
            if self._stream is None:  # an error page of megabytes
                return self._not_openai(f"answered with more than {self.server.max_reply_bytes >> 20} MB that "
                                        "are not an answer")
            return self._too_long()
        if isinstance(e, openai.APIConnectionError) and isinstance(e.__cause__, httpx2.ConnectTimeout):
            return self._error("no-server", f"No language model server answers at {base()} within "
                                            f"{self.server.connect_seconds:g} s: check the address.")
        if isinstance(e, openai.APITimeoutError):
            return self._error("timeout", self._timeout_sentence())
        if isinstance(e, openai.APIConnectionError):
            if self._stream is None and isinstance(e.__cause__, httpx2.ConnectError):
                return self._error("no-server", f"No language model server answers at {base()}: start it (for "
                                                "example `ollama serve`, or `llama-server -m MODEL.gguf`) or "
                                                "check the address.")
            return self._dropped()
        if isinstance(e, openai.APIStatusError):
            return self._error(*_refusal(self.server, e))
        if isinstance(e, openai.APIError):  # an error event in the stream
            return self._error("refused", f"The language model stopped with an error ({_clip(e.message)}); what "
                                          "it said is kept.")
        if isinstance(e, (ValueError, AttributeError, TypeError)):  # JSON that is not a chat-completions chunk
            return self._not_openai("sent data that is not OpenAI's protocol")
        return None

    def _pieces(self, start: float) -> Iterator[str]:
        if self._closed.is_set():
            return
        self.client = self.client or open_client(self.server)
        kwargs = {"max_tokens": self.server.max_tokens, "temperature": self.server.temperature,
                  "tools": self.tools or None,
                  "tool_choice": {"type": "function", "function": {"name": self.must_call}} if self.must_call else None}
        self._stream = self.client.chat.completions.create(
            model=self.server.model, messages=self.messages, stream=True,
            **{k: v for k, v in kwargs.items() if v is not None})
        if self._closed.is_set():  # closed while the headers were awaited: nothing shut it down then
            return
        kind = self._stream.response.headers.get("content-type", "")
        if "text/event-stream" not in kind:
            raise self._not_openai(f"answered with {kind.split(';')[0] or 'no content type'}, not an "
                                   "OpenAI-compatible stream")
        for chunk in self._stream:
            for choice in chunk.choices or ():
                for called in getattr(choice.delta, "tool_calls", None) or ():
                    self._add_call_piece(called)
                piece = getattr(choice.delta, "content", None) if choice.delta is not None else None
                if choice.finish_reason is not None:
                    self.finish_reason = str(choice.finish_reason)
                if not piece:
                    continue
                if not isinstance(piece, str):
                    raise TypeError("content is not text")
                if self.first_token_s is None:
                    self.first_token_s = time.perf_counter() - start
                room = self.server.max_reply_chars - len(self.text)
                self.text += piece[:room]
                if piece[:room]:
                    yield piece[:room]
                if len(piece) > room:
                    raise self._too_long()
            if self._closed.is_set() or self.finish_reason is not None:
                return  # finished: what may follow ([DONE], or nothing for a while) is not waited for
        if self.finish_reason is None and not self._closed.is_set():
            raise self._dropped()

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [self._calls[i] for i in sorted(self._calls)]

    def _add_call_piece(self, piece) -> None:
        """A streamed piece of a tool call: its id and name come once (llama-cpp-python repeats the
        name in every piece: kept once), its arguments in pieces."""
        index = piece.index if isinstance(piece.index, int) else len(self._calls)
        call = self._calls.setdefault(index, ToolCall(id=f"call_{index}", name="", arguments=""))
        if isinstance(piece.id, str) and piece.id:
            call.id = piece.id
        function = piece.function
        if function is not None:
            if isinstance(function.name, str) and not call.name:
                call.name = function.name
            if isinstance(function.arguments, str):
                call.arguments += function.arguments

    def _error(self, kind: str, sentence: str) -> ChatError:
        return ChatError(kind, sentence, self.text)

    def _timeout_sentence(self) -> str:
        wait = f"{self.server.wait_seconds:g} s"
        if not self.text:
            return (f"The language model at {self.server.shown_url()} did not start its answer within {wait}: it "
                    "may still be loading the model; try again, or allow it longer.")
        return f"The language model went silent for {wait} in the middle of its answer; what it said is kept."

    def _dropped(self) -> ChatError:
        if not self.text:
            return self._error("dropped", "The language model's server closed the connection without answering: "
                                          "its log says why (often a conversation longer than the model's "
                                          "context).")
        return self._error("dropped", "The connection to the language model was lost before its answer ended; "
                                      "what it said is kept.")

    def _too_long(self) -> ChatError:
        return self._error("too-long", f"The language model's answer went past what Parley reads in one turn "
                                       f"({self.server.max_reply_chars} characters or "
                                       f"{self.server.max_reply_bytes >> 20} MB); its beginning is kept.")

    def _not_openai(self, what: str) -> ChatError:
        return self._error("not-openai", f"The server at {self.server.shown_url()} {what}: check the address "
                                         "(it usually ends in /v1).")


def list_models(server: ChatServer) -> list[str]:
    """The names of the models the server offers; a quick check that it answers (its failures are
    the same ``ChatError``s)."""
    try:
        with open_client(server) as client:
            return [m.id for m in client.models.list().data if isinstance(getattr(m, "id", None), str)]
    except ChatError:
        raise
    except Exception as e:
        failure = ReplyStream(server, [])._failure(e)
        if failure is None:
            raise
        raise failure from None


def _refusal(server: ChatServer, e: openai.APIStatusError) -> tuple[str, str]:
    """(kind, sentence) for an HTTP error: the server's own message where it gave one in JSON."""
    status = e.status_code
    try:
        message = _message_of(json.loads(e.response.text))
    except ValueError:
        message = None
    if message is None:
        return "not-openai", (f"The server at {server.shown_url()} answered HTTP {status} and does not speak "
                              "OpenAI's protocol there: check the address (it usually ends in /v1).")
    advice = {401: "give the key it expects", 403: "give the key it expects",
              404: "check the address (it usually ends in /v1) and the model's name"}.get(status)
    return "refused", (f"The language model server refused the request (HTTP {status}: {_clip(message)})"
                       + (f": {advice}." if advice else "."))


def _message_of(doc) -> str | None:
    """The message of an error body: OpenAI's {"error": {"message"}}, Ollama's {"error": "..."},
    FastAPI's {"detail": "..."} or {"message": "..."}."""
    if not isinstance(doc, dict):
        return None
    error = doc.get("error")
    for found in (error.get("message") if isinstance(error, dict) else error, doc.get("message"), doc.get("detail")):
        if isinstance(found, str) and found.strip():
            return found
    return None


def _clip(message: str) -> str:
    message = " ".join(message.split()).rstrip(".")
    return message if len(message) <= MAX_SHOWN else message[:MAX_SHOWN - 1] + "\u2026"
