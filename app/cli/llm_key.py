"""`parley llm-key URL`: keep the key of the language model server at URL in the system's keyring,
where `parley chat` (and the window) find it; `--forget` removes it. The key is read from standard
input (typed without echo at a terminal), never from the command line, where other programs can
read it."""

from __future__ import annotations

import getpass
import sys

from app.cli.offline import UsageError, _one_line_errors

MAX_KEY_CHARS = 4096


def add_llm_key_parser(sub) -> None:
    key = sub.add_parser("llm-key", help="keep a language model server's key in the system's keyring "
                                         "(read from standard input)")
    key.add_argument("url", metavar="URL", help="the server's address, as given to `parley chat --llm`")
    key.add_argument("--forget", action="store_true", help="remove the key kept for this server")
    key.add_argument("--verbose", action="store_true", help="show tracebacks and debug logs")


def run_llm_key(args) -> int:
    return _one_line_errors(_llm_key, args)


def _llm_key(args) -> None:
    from app.chat.client import ChatError, ChatServer
    from app.chat.keys import KeyringUnavailable, forget_key, save_key

    try:
        shown = ChatServer(args.url, "").shown_url()
    except ChatError as e:
        raise UsageError(str(e)) from None
    try:
        if args.forget:
            print(f"removed the key kept for {shown}" if forget_key(args.url) else f"no key was kept for {shown}",
                  file=sys.stderr)
            return
        save_key(args.url, _read_key(shown))
    except KeyringUnavailable as e:
        raise UsageError(str(e)) from None
    print(f"kept the key for {shown} in the system's keyring", file=sys.stderr)


def _read_key(shown: str) -> str:
    typed = sys.stdin.isatty()
    key = getpass.getpass(f"Key for {shown}: ") if typed else sys.stdin.readline(MAX_KEY_CHARS + 1).strip()
    if not key:
        raise UsageError("No key was given: type it, or pipe it in (e.g. `parley llm-key URL < key.txt`).")
    if len(key) > MAX_KEY_CHARS or not key.isprintable():
        raise UsageError(f"That is not a key: a key is one line of at most {MAX_KEY_CHARS} printable characters.")
    return key
