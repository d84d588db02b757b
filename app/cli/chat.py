"""`parley chat`: a spoken conversation with the person's own language model (any OpenAI-compatible
server: Ollama, llama-server, LM Studio, vLLM), offline on recordings. Each ``--input`` is one turn
of the person's speech: Kyutai STT hears it, the model answers (streamed), Pocket TTS speaks the
answer clause by clause into ``--output``; ``--json`` writes the turns with their timings."""

from __future__ import annotations

import json
import os
import statistics
import sys
import time

import numpy as np

from app.chat.history import HISTORY_CHARS
from app.chat.tools import TOOL_NAMES
from app.cli.offline import UsageError, _check_writable, _one_line_errors

KEY_VARIABLE = "PARLEY_LLM_API_KEY"  # never a file, never the command line (others can read it)
GAP_SECONDS = 0.5  # silence between two answers in the output


def add_chat_parser(sub, stt_help: str) -> None:
    chat = sub.add_parser("chat", help="talk with your own language model (OpenAI-compatible server) on recordings")
    chat.add_argument("--llm", metavar="URL",
                      help="the server's address, e.g. http://localhost:11434/v1 (Ollama), http://localhost:8080/v1 "
                           f"(llama-server), http://localhost:1234/v1 (LM Studio); default: a running Ollama or LM "
                           f"Studio at its usual address. A key, where one is needed, is read from the environment "
                           f"variable {KEY_VARIABLE}, else from the system's keyring (see `parley llm-key`)")
    chat.add_argument("--llm-model", metavar="NAME", help="the model's name on that server (default: the server's "
                      "only model; with several, they are listed)")
    chat.add_argument("--llm-timeout", type=float, default=60.0, metavar="SECONDS",
                      help="how long to wait for the model's first word and between its words (default 60)")
    chat.add_argument("--llm-max-tokens", type=int, metavar="N", help="the longest answer, in tokens")
    chat.add_argument("--llm-temperature", type=float, metavar="T", help="the model's temperature (default: the "
                      "server's; 0 = the same answer every time)")
    chat.add_argument("--llm-history", type=int, default=HISTORY_CHARS, metavar="CHARS",
                      help="send the newest turns that fit this many characters (default %(default)s, ~3,000 tokens: "
                           "inside Ollama's default context); the conversation keeps them all")
    chat.add_argument("--system", metavar="TEXT", help="the system prompt: who the assistant is")
    chat.add_argument("--tool", action="append", choices=TOOL_NAMES, default=[],
                      help="let the model use this tool (once per tool; none by default): clock (the date and time "
                           "here), conversations (search your saved conversations)")
    chat.add_argument("--input", action="append", metavar="IN.wav",
                      help="the person's speech (WAV, FLAC, Ogg, MP3); once per turn")
    chat.add_argument("--output", metavar="OUT.wav", help="the answers' speech (WAV, 24 kHz), one after another")
    chat.add_argument("--json", metavar="FILE", help="write the turns (heard, answer, clauses, errors) and their "
                      "timings in ms here")
    chat.add_argument("--save", metavar="OUT.parley", help="also save the conversation as Parley conversation "
                      "(both sides' audio and words, the model's messages; never the key): the window lists, "
                      "replays and continues it")
    chat.add_argument("--stt-model", default="stt-1b-en_fr", help=stt_help + " (default stt-1b-en_fr)")
    chat.add_argument("--tts-model", default="pocket-tts", help="the voice's model: pocket-tts (the default), "
                      "pocket-tts-<language> or a folder in the released layout (see `parley say`)")
    chat.add_argument("--language", help="the language row of a voice model folder")
    chat.add_argument("--voice", help="a shipped voice's name (e.g. alba), a voice state (.safetensors) or a recording")
    chat.add_argument("--seed", type=int, default=0, help="the voice's noise")
    chat.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"],
                      help="where the speech to text runs (the voice runs on the CPU)")
    chat.add_argument("--verbose", action="store_true", help="show tracebacks and debug logs")


def run_chat(args) -> int:
    return _one_line_errors(_chat, args)


def _server(args):
    from app.chat.client import ChatError, ChatServer

    if not 0 < args.llm_timeout <= 3600:
        raise UsageError("--llm-timeout must be a number of seconds above 0, at most 3600")
    if args.llm_history < 1:
        raise UsageError("--llm-history must be at least 1 character")
    if args.llm_max_tokens is not None and args.llm_max_tokens < 1:
        raise UsageError("--llm-max-tokens must be at least 1")
    if args.llm_temperature is not None and not 0 <= args.llm_temperature <= 2:
        raise UsageError("--llm-temperature must be between 0 and 2")
    try:
        if args.llm is not None:
            ChatServer(args.llm, "").base_url()  # a bad address is said before anything is asked
    except ChatError as e:
        raise UsageError(str(e)) from None
    url, model = _chosen_model(args.llm, args.llm_model)
    return ChatServer(url, model, api_key=_key(url), wait_seconds=args.llm_timeout, max_tokens=args.llm_max_tokens,
                      temperature=args.llm_temperature)


def _key(url: str) -> str | None:
    """The server's key: the environment's, else the one `parley llm-key` kept in the keyring."""
    from app.chat.keys import saved_key

    return os.environ.get(KEY_VARIABLE) or saved_key(url)


def _chosen_model(url: str | None, model: str | None) -> tuple[str, str]:
    """(address, model): as given, or found. Without an address, the first running Ollama or LM
    Studio; without a model, the server's only one (several are listed, for the person to pick)."""
    from app.chat.client import ChatError, ChatServer, list_models
    from app.chat.discovery import find_servers, nothing_found_sentence

    if url is None:
        found = find_servers()
        if not found:
            raise UsageError(nothing_found_sentence())
        url, offered = found[0].url, found[0].models
        print(f"using {found[0].name} at {url}", file=sys.stderr)
    elif model is None:
        try:
            offered = tuple(list_models(ChatServer(url, "", api_key=_key(url))))
        except ChatError as e:
            raise UsageError(str(e)) from None
    if model is not None:
        return url, model
    if not offered:
        raise UsageError(f"The server at {url} offers no model: load or pull one (e.g. `ollama pull llama3.2`).")
    if len(offered) > 1:
        names = ", ".join(offered[:20]) + (", ..." if len(offered) > 20 else "")
        raise UsageError(f"The server at {url} offers {len(offered)} models ({names}): choose one with "
                         "--llm-model NAME.")
    print(f"using the model {offered[0]}", file=sys.stderr)
    return url, offered[0]


def _chat(args) -> None:
    from app.chat.client import ChatError, list_models
    from engine import read_audio

    if not args.input or not args.output:
        raise UsageError("chat needs the person's speech and where to write the answers: --input IN.wav "
                         "(once per turn) --output OUT.wav")
    server = _server(args)
    tools = _tools(args.tool)
    _check_writable(args.output, args.json, args.save)
    recordings = []
    for path in args.input:
        pcm = read_audio(path)  # not audio: its own one-line error
        if pcm.size == 0:
            raise UsageError(f"{path} contains no audio")
        recordings.append(pcm)
    try:
        list_models(server)  # before minutes of loading: is anyone there?
    except ChatError as e:
        raise UsageError(str(e)) from None
    conversation, sample_rate = _conversation(args, server, tools)
    timeline = _timeline(args, server, conversation.voice) if args.save else None
    turns, start = [], time.perf_counter()
    try:
        for path, pcm in zip(args.input, recordings):
            turn = conversation.turn(pcm)
            turns.append((path, turn))
            if timeline is not None:
                timeline.add_exchange(pcm, turn.words, turn.audio, turn.answer)
            _say_turn(len(turns), turn, sample_rate)
            if turn.error is not None:
                break
    finally:
        conversation.close()
    if timeline is not None:
        from engine import write_chat_conversation

        write_chat_conversation(args.save, timeline.conversation(conversation.messages))
    wall = time.perf_counter() - start
    gap = np.zeros(int(GAP_SECONDS * sample_rate), np.float32)
    pieces = [p for i, (_, t) in enumerate(turns) for p in ((gap,) if i else ()) + (t.audio,)]
    from engine import write_wav

    write_wav(args.output, np.concatenate(pieces))
    if args.json:
        _write_json(args.json, server, args, turns, wall, sample_rate)
    failed = next((t.error for _, t in turns if t.error is not None), None)
    if failed is not None:
        raise UsageError(f"{failed} (the turns so far are in {args.output})")


def _conversation(args, server, tools):
    from app.chat.cascade import Conversation
    from app.cli.say import load_voice
    from engine import PocketSpeaker, load_pocket_tts, load_speech_to_text, resolve_pocket_tts

    stt = load_speech_to_text(args.stt_model, device=args.device)
    folder, row = resolve_pocket_tts(args.tts_model, args.language)
    model = load_pocket_tts(folder, row)
    voice = PocketSpeaker(model, load_voice(model, args.voice), seed=args.seed)
    return Conversation(stt, server, voice, args.system, history_chars=args.llm_history,
                        tools=tools), model.sample_rate


def _timeline(args, server, voice):
    """What ``--save`` writes, growing turn by turn: the voice named as the window finds it (its
    model's name and the voice's; one given as a file is named by its path, which the window does
    not open: it says so)."""
    from app.chat.recording import ChatTimeline
    from engine import LanguageModelSide, pocket_default_voice

    side = LanguageModelSide(server.shown_url(), server.model, args.stt_model, args.tts_model,
                             args.voice or pocket_default_voice(voice.model.row))
    return ChatTimeline(side)


def _tools(enabled: list[str]):
    from app import paths
    from app.chat.tools import offered_tools

    folder, problem = paths.usable(paths.conversations_dir) if "conversations" in enabled else (None, "")
    if problem:
        raise UsageError(f"--tool conversations: {problem}")
    return offered_tools(tuple(enabled), folder)


def _say_turn(n: int, turn, sample_rate: int) -> None:
    t = turn.times
    heard = turn.heard if len(turn.heard) <= 60 else turn.heard[:59] + "\u2026"
    first = "no answer" if t.first_audio is None else (
        f"first audio {t.first_audio:.0f} ms after the speech ended (the model's first token: "
        f"{t.first_token:.0f} ms)")
    for call in turn.tool_calls:
        print(f"turn {n}: the model called {call.name}({call.arguments[:80]}){' (failed)' if call.failed else ''}",
              file=sys.stderr)
    print(f"turn {n}: heard {heard!r}; {len(turn.clauses)} clauses, {turn.audio.size / sample_rate:.1f} s of speech; "
          f"{first}", file=sys.stderr)


def _ms(value):
    return None if value is None else round(value, 3)


def _spread(values: list) -> dict:
    """Median and 95th percentile (nearest rank) of the turns that have the value."""
    found = sorted(v for v in values if v is not None)
    if not found:
        return {"median": None, "p95": None}
    return {"median": _ms(statistics.median(found)), "p95": found[max(0, -(-95 * len(found) // 100) - 1)]}


def _write_json(path, server, args, turns, wall, sample_rate) -> None:
    from engine import write_atomically

    out, at = [], 0.0
    for i, (source, turn) in enumerate(turns):
        at += GAP_SECONDS if i else 0.0
        t = turn.times
        parts = t.parts() or {}
        out.append({
            "input": source, "heard": turn.heard, "answer": turn.answer, "clauses": turn.clauses,
            "finish_reason": turn.finish_reason,
            "tool_calls": [{"name": c.name, "arguments": c.arguments, "result": c.result, "failed": c.failed}
                           for c in turn.tool_calls],
            "error": None if turn.error is None else {"kind": turn.error.kind, "sentence": str(turn.error)},
            "audio_start_s": at, "audio_s": turn.audio.size / sample_rate,
            "timings_ms": {"stt_flush": _ms(t.stt_flush), "model_first_token": _ms(t.first_token),
                           "first_clause": _ms(t.first_clause), "clause_wait": _ms(parts.get("clause_wait")),
                           "voice_first_frame": _ms(t.voice_first_frame), "handoffs": _ms(parts.get("handoffs")),
                           "first_audio": _ms(t.first_audio), "parley_share": _ms(t.parley_share),
                           "total": _ms(t.total)}})
        at += turn.audio.size / sample_rate
    report = {
        "llm": {"url": server.shown_url(), "model": server.model},  # never a key or password
        "stt_model": args.stt_model, "tts_model": args.tts_model, "voice": args.voice, "system": args.system,
        "turns": out,
        "totals": {"turns": len(turns), "wall_s": wall, "audio_s": at,
                   "timings_ms": {k: _spread([turn["timings_ms"][k] for turn in out]) for k in out[0]["timings_ms"]}},
    }
    write_atomically(path, json.dumps(report, ensure_ascii=False).encode("utf-8"), private=True)
