"""A conversation with the person's language model as a conversation file (kind ``chat``).

It holds no model state: what continues it is the language model's side, under ``chat``: the
server's address (never a key), the model's name, the speech to text and the voice, and the
messages the language model was sent and wrote (tool calls included)::

    "chat": {"version": 1, "server": "http://localhost:11434/v1", "model": "llama3.2",
             "speech_to_text": "stt-1b-en_fr", "voice_model": "pocket-tts", "voice": "alba",
             "messages": [{"role": "system", "content": "..."}, {"role": "user", ...}, ...]}

Beside it, what every conversation file holds, so that the library lists, searches, replays and
exports it as any other: both sides' audio on one timeline (each turn of the person's, then the
spoken answer, one after the other), the assistant's words (``transcript``) and the person's
(``captions``, with their turns' ends). Read defensively like the others: every field bounded, a
message rebuilt from the keys a chat-completions request knows.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import torch

from ..audio import FRAME_SIZE, SAMPLE_RATE, int16_to_pcm, pcm_to_int16
from ..errors import ConversationFileError
from ..version import VERSION
from . import untrusted
from .captions import MAX_CAPTION_CHARS, Caption, captions_field, read_captions, read_turn_ends
from .conversation import (
    CHAT,
    KIND_VERSIONS,
    MAX_FRAMES,
    MAX_TRANSCRIPT_CHARS,
    _audio,
    file_kind,
    made_by_newer,
    read_conversation,
    read_transcript,
    write_conversation,
)

FIELD = "chat"
FIELD_VERSION = 1
ROLES = ("system", "user", "assistant", "tool")
MAX_MESSAGES = 20_000  # ten thousand exchanges: past any language model's context
MAX_TOOL_CALLS = 16  # in one message of the model's
MAX_ADDRESS_CHARS = 2048


@dataclass(frozen=True)
class LanguageModelSide:
    """Who the conversation was with, and how it was heard and spoken."""

    server: str  # the chat-completions address, as shown (no password, no key)
    model: str  # the language model's name on that server
    speech_to_text: str  # the speech to text's preset or folder name
    voice_model: str  # the Pocket TTS model the voice belongs to (its manager row)
    voice: str  # the voice's name


@dataclass(frozen=True)
class ChatConversation:
    side: LanguageModelSide
    messages: tuple[dict, ...]  # chat-completions messages, in order
    frames: int  # of the timeline: both recordings hold ``frames * FRAME_SIZE`` samples
    transcript: tuple[tuple[int, float, str], ...]  # the assistant's words: (frame, seconds, text piece)
    captions: tuple[Caption, ...]  # the person's words: (seconds, text piece)
    turn_ends: tuple[float, ...]  # where each of the person's turns ended (seconds)
    user_audio: np.ndarray  # float32 mono samples at SAMPLE_RATE, kept as 16-bit values (``to_16_bit``)
    assistant_audio: np.ndarray


def write_chat_conversation(path: str | os.PathLike, chat: ChatConversation) -> None:
    """Write ``chat`` atomically (``engine.files.conversation.write_conversation``); a text piece
    longer than a reader takes is cut to it."""
    side = chat.side
    meta = {
        "version": KIND_VERSIONS[CHAT],
        "kind": CHAT,
        "model": side.model,
        "frames": chat.frames,
        "transcript": [[frame, seconds, text[:MAX_TRANSCRIPT_CHARS]] for frame, seconds, text in chat.transcript],
        **captions_field(((seconds, text[:MAX_CAPTION_CHARS]) for seconds, text in chat.captions), chat.turn_ends,
                         chat.frames),
        "app_version": VERSION,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "sample_rate": SAMPLE_RATE,
        FIELD: {"version": FIELD_VERSION, "server": side.server, "model": side.model,
                "speech_to_text": side.speech_to_text, "voice_model": side.voice_model, "voice": side.voice,
                "messages": [dict(message) for message in chat.messages]},
    }
    tensors = {"audio.user": torch.from_numpy(pcm_to_int16(chat.user_audio)),
               "audio.assistant": torch.from_numpy(pcm_to_int16(chat.assistant_audio))}
    write_conversation(path, tensors, meta)


def read_chat_conversation(path: str | os.PathLike) -> ChatConversation:
    """A conversation with a language model, checked; ``ConversationFileError`` says what is wrong."""
    path = Path(path)
    if file_kind(path) != CHAT:
        raise ConversationFileError(f"{path.name} is a conversation with a speech model, not with a language model.")
    file = read_conversation(path, expected_shapes={}, allowed_prefixes=("audio.user", "audio.assistant"))
    meta = file.meta
    try:
        frames = untrusted.integer(meta, "frames", 0, MAX_FRAMES)
        field = untrusted.mapping(meta, FIELD)
        version = untrusted.integer(field, "version", 1, 2**31)
        if version > FIELD_VERSION:
            raise untrusted.NewerVersionError(f"its language model's part is version {version}; this one reads "
                                              f"up to {FIELD_VERSION}")
        side = LanguageModelSide(
            server=untrusted.text(field, "server", MAX_ADDRESS_CHARS), model=untrusted.text(field, "model", 1024),
            speech_to_text=untrusted.text(field, "speech_to_text", 1024),
            voice_model=untrusted.text(field, "voice_model", 1024), voice=untrusted.text(field, "voice", 1024))
        messages = tuple(_message(row, i) for i, row in enumerate(untrusted.sequence(field, "messages", MAX_MESSAGES)))
        user, assistant = (_audio(file.tensors, name) for name in ("audio.user", "audio.assistant"))
        if user is None or assistant is None or not len(user) == len(assistant) == frames * FRAME_SIZE:
            raise ValueError(f"its recordings do not hold {frames} frames on each side")
        return ChatConversation(side, messages, frames, tuple(read_transcript(meta, frames)),
                                read_captions(meta, frames), read_turn_ends(meta, frames), int16_to_pcm(user),
                                int16_to_pcm(assistant))
    except untrusted.NewerVersionError as e:
        raise made_by_newer(path, e) from e
    except ValueError as e:
        raise ConversationFileError(f"{path.name} has damaged contents ({e}); open another copy.") from e


def _message(row, index: int) -> dict:
    """A stored message, rebuilt from the fields a chat-completions request knows."""
    if not isinstance(row, dict):
        raise ValueError(f"message {index} is not an object")
    role = row.get("role")
    if role not in ROLES:
        raise ValueError(f"message {index} has the role {str(role)[:20]!r}")
    message = {"role": role, "content": untrusted.text(row, "content")}
    if role == "tool":
        message["tool_call_id"] = untrusted.text(row, "tool_call_id", untrusted.MAX_NAME_CHARS * 4)
    if role == "assistant" and "tool_calls" in row:
        message["tool_calls"] = [_tool_call(call, index) for call in untrusted.sequence(row, "tool_calls",
                                                                                        MAX_TOOL_CALLS)]
    return message


def _tool_call(call, index: int) -> dict:
    if not isinstance(call, dict) or call.get("type") != "function":
        raise ValueError(f"a tool call of message {index} is not a function's")
    function = untrusted.mapping(call, "function")
    return {"id": untrusted.text(call, "id", untrusted.MAX_NAME_CHARS * 4), "type": "function",
            "function": {"name": untrusted.text(function, "name", untrusted.MAX_NAME_CHARS),
                         "arguments": untrusted.text(function, "arguments")}}
