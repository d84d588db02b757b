"""The tools offered to the person's language model: the clock, the search of saved conversations
(real files in a library folder), a call's failures as results the model reads, and a real
llama.cpp server's streamed tool call (its name repeated in every piece) read as its whole answer
gives it."""

from __future__ import annotations

import json
import shutil
import urllib.request
from datetime import datetime, timedelta, timezone

import pytest

from app.chat.client import ChatServer, ReplyStream
from app.chat.tools import ToolCall, clock_tool, conversation_search_tool, offered_tools, run_call
from tests.test_app_library import saved_conversation  # noqa: F401 - a fixture
from tests.test_app_window import conversations_dir

pytest.importorskip("llama_cpp.server", reason="make test installs llama-cpp-python[server]")


def test_the_clock_says_the_day_the_date_the_time_and_the_zone():
    lisbon = timezone(timedelta(hours=1), "WET")
    tool = clock_tool(lambda: datetime(2026, 12, 7, 14, 5, tzinfo=lisbon))
    assert tool.run({}) == "Monday 07 December 2026, 14:05, time zone WET (UTC+0100)"
    assert tool.spec()["function"]["name"] == "clock"


def test_the_search_finds_saved_conversations_by_their_words_and_skips_unreadable_files(
        tmp_path, saved_conversation):  # noqa: F811
    folder = conversations_dir(tmp_path)
    shutil.copy(saved_conversation, folder / "Trip to Lisbon.parley")
    shutil.copy(saved_conversation, folder / "Groceries.parley")
    (folder / "Lisbon notes.parley").write_bytes(b"not a conversation")
    search = conversation_search_tool(folder)
    found = search.run({"query": "LISBON trip"}).splitlines()
    assert len(found) == 1 and found[0].startswith("Trip to Lisbon (20")
    assert search.run({"query": "zanzibar"}) == "No saved conversation holds those words."
    assert run_call({"search_conversations": search}, ToolCall("c", "search_conversations", '{"query": ""}')).failed


@pytest.mark.parametrize(("name", "arguments", "said"), [
    ("weather", "{}", "there is no tool named 'weather'; the tools are clock"),
    ("clock", '{"zone": ', "not valid JSON"),
    ("clock", "[1, 2]", "not a JSON object"),
])
def test_a_call_that_cannot_run_tells_the_model_why(name, arguments, said):
    call = run_call(offered_tools(("clock",), None), ToolCall("c1", name, arguments))
    assert call.failed and said in call.result
    assert call.as_message() == {"role": "tool", "tool_call_id": "c1", "content": call.result}


def test_only_the_enabled_tools_are_offered(tmp_path):
    assert offered_tools((), tmp_path) == {}
    assert list(offered_tools(("clock", "conversations"), tmp_path)) == ["clock", "search_conversations"]
    assert list(offered_tools(("conversations",), None)) == []  # no library folder: nothing to search


def test_a_real_servers_streamed_tool_call_is_its_whole_answers_call(tmp_path):
    from tests.llama_server import LlamaServer, write_tiny_llama

    server = LlamaServer(write_tiny_llama(tmp_path / "tiny.gguf"), tmp_path / "server.log",
                         chat_format="chatml-function-calling")
    tools = [t.spec() for t in offered_tools(("clock", "conversations"), tmp_path).values()]
    messages = [{"role": "user", "content": "find rivers"}]
    try:
        stream = ReplyStream(ChatServer(server.url, "tiny", max_tokens=24, temperature=0), messages, tools=tools,
                             must_call="search_conversations")
        assert "".join(stream) == "" and stream.finish_reason == "tool_calls"
        body = json.dumps({"model": "tiny", "messages": messages, "max_tokens": 24, "temperature": 0,
                           "tools": tools, "tool_choice": {"type": "function",
                                                           "function": {"name": "search_conversations"}}})
        request = urllib.request.Request(server.url + "/chat/completions", body.encode(),
                                         {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as r:
            (want,) = json.loads(r.read())["choices"][0]["message"]["tool_calls"]
    finally:
        server.close()
    (call,) = stream.tool_calls
    assert call.name == want["function"]["name"] == "search_conversations"  # once, not once a piece
    assert call.arguments == want["function"]["arguments"] and call.arguments.startswith('{ "query"')
