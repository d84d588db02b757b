"""Language model servers already running on this machine: Ollama and LM Studio at their usual
addresses, asked for their models through the same OpenAI-compatible protocol as the chat itself
(both serve ``/v1/models``). llama-server and vLLM have no usual address: the person gives theirs.

All addresses are asked at once, each with a short wait, so a machine with none running answers
within about a second."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from app.chat.client import ChatError, ChatServer, list_models

WAIT_SECONDS = 1.0  # a local server answers its model list in milliseconds


@dataclass(frozen=True)
class KnownServer:
    """A server program and the address it serves the protocol at when started as documented."""

    name: str
    url: str


USUAL_SERVERS = (
    KnownServer("Ollama", "http://127.0.0.1:11434/v1"),
    KnownServer("LM Studio", "http://127.0.0.1:1234/v1"),
)


@dataclass(frozen=True)
class FoundServer:
    """A server that answered, and the models it offers (in its order)."""

    name: str
    url: str
    models: tuple[str, ...]


def find_servers(candidates: tuple[KnownServer, ...] = USUAL_SERVERS,
                 wait_seconds: float = WAIT_SECONDS) -> list[FoundServer]:
    """The candidates that answer with a model list, in the candidates' order. One that is not
    running, or answers something that is not the protocol, is left out (it is not an error here:
    most people run one server or none)."""

    def ask(known: KnownServer) -> FoundServer | None:
        server = ChatServer(known.url, model="", wait_seconds=wait_seconds, connect_seconds=wait_seconds)
        try:
            return FoundServer(known.name, known.url, tuple(list_models(server)))
        except ChatError:
            return None

    if not candidates:
        return []
    with ThreadPoolExecutor(max_workers=len(candidates), thread_name_prefix="parley-llm-discovery") as pool:
        found = list(pool.map(ask, candidates))
    return [f for f in found if f is not None]


def nothing_found_sentence(candidates: tuple[KnownServer, ...] = USUAL_SERVERS) -> str:
    """What to do when no server answers, in one sentence."""
    where = " or ".join(f"{k.name} ({k.url})" for k in candidates)
    return (f"No language model server is running here: start {where}, for example with `ollama serve` and "
            "`ollama pull llama3.2`, or give the address of your llama-server or vLLM.")
