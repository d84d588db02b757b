"""The tools Parley offers the person's language model, each one only where the person enabled it:
the clock (today's date and the time here) and a search of the saved conversations. A call the
model makes is run here and its result (or why it could not run) goes back to the model; every
call is kept in the turn, shown and saved with it. A result is bounded in characters."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

MAX_RESULT_CHARS = 2_000
MAX_FOUND = 5  # conversations a search returns


@dataclass(frozen=True)
class Tool:
    name: str
    description: str  # for the model: what it does and when to call it
    parameters: dict  # JSON Schema of its arguments
    run: Callable[[dict], str]

    def spec(self) -> dict:
        """The tool as the chat-completions request's ``tools`` list gives it."""
        return {"type": "function",
                "function": {"name": self.name, "description": self.description, "parameters": self.parameters}}


@dataclass
class ToolCall:
    """One call the model made: what it asked and what it got back."""

    id: str
    name: str
    arguments: str  # as the model wrote them (JSON, or not)
    result: str = ""
    failed: bool = False

    def as_message(self) -> dict:
        return {"role": "tool", "tool_call_id": self.id, "content": self.result}

    def as_request(self) -> dict:
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.arguments}}


def clock_tool(now: Callable[[], datetime] = lambda: datetime.now().astimezone()) -> Tool:
    def run(_: dict) -> str:
        t = now()
        return f"{t:%A %d %B %Y}, {t:%H:%M}, time zone {t:%Z} (UTC{t:%z})"

    return Tool("clock", "Today's date, the day of the week and the time where the person is.",
                {"type": "object", "properties": {}}, run)


def conversation_search_tool(folder: Path) -> Tool:
    """Searches the transcripts of the conversations saved in ``folder`` (the library's)."""
    from app.library.listing import list_conversations, transcript_text
    from app.library.snippet import snippet_around

    def run(arguments: dict) -> str:
        words = str(arguments.get("query", "")).lower().split()
        if not words:
            raise ValueError("give a query: the words to look for")
        found = []
        for entry in list_conversations(folder):
            if entry.info is None:
                continue
            transcript = transcript_text(entry.path)
            if all(w in f"{entry.title}\n{transcript}".lower() for w in words):
                found.append(f"{entry.title} ({entry.info.created}): {snippet_around(transcript, words)}")
            if len(found) == MAX_FOUND:
                break
        return "\n".join(found) if found else "No saved conversation holds those words."

    return Tool("search_conversations", "Search the person's saved conversations with this assistant for words; "
                "returns each matching conversation's title, date and the words around the match.",
                {"type": "object", "properties": {"query": {"type": "string", "description": "the words to find"}},
                 "required": ["query"]}, run)


TOOL_NAMES = ("clock", "conversations")  # as the person enables them


def offered_tools(enabled: tuple[str, ...], conversations_folder: Path | None) -> dict[str, Tool]:
    """The tools the person enabled, by the name the model calls them."""
    tools = []
    if "clock" in enabled:
        tools.append(clock_tool())
    if "conversations" in enabled and conversations_folder is not None:
        tools.append(conversation_search_tool(conversations_folder))
    return {t.name: t for t in tools}


def run_call(tools: dict[str, Tool], call: ToolCall) -> ToolCall:
    """Run ``call`` with ``tools``; whatever goes wrong is its result, for the model to read."""
    tool = tools.get(call.name)
    try:
        if tool is None:
            raise ValueError(f"there is no tool named {call.name!r}; the tools are {', '.join(tools) or 'none'}")
        arguments = json.loads(call.arguments) if call.arguments.strip() else {}
        if not isinstance(arguments, dict):
            raise ValueError("the arguments are not a JSON object")
        call.result = tool.run(arguments)[:MAX_RESULT_CHARS]
    except json.JSONDecodeError:
        call.result, call.failed = "The call's arguments are not valid JSON.", True
    except (ValueError, OSError) as e:
        call.result, call.failed = f"The call failed: {e}."[:MAX_RESULT_CHARS], True
    return call
