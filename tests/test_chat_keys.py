"""A language model server's key in the system's keyring: a real Secret Service (GNOME Keyring on a
private session bus, unlocked for the test) keeps what `parley llm-key` reads from standard input,
`parley chat` finds it under the server's address (with or without credentials in it), no file
under HOME holds it as typed, and --forget removes it. Without a keyring, saving says so in one
sentence and writes nothing."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.session_bus import BUS_CONFIG

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-parley-test-0123456789abcdef"
URL = "http://127.0.0.1:11434/v1"


def session(tmp_path: Path, with_keyring: bool) -> dict:
    """The environment of a desktop session of its own: a private bus, a fresh HOME, and (where
    asked) GNOME Keyring serving the Secret Service on it, its login keyring unlocked."""
    if not (shutil.which("dbus-daemon") and shutil.which("gnome-keyring-daemon")):
        pytest.fail("dbus-daemon or gnome-keyring-daemon is missing: run tests/setup_system.sh")
    home = tmp_path / "home"
    home.mkdir()
    env = {k: os.environ[k] for k in ("PATH", "LANG") if k in os.environ}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / ".local/share"), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_RUNTIME_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    config = tmp_path / "bus.conf"
    config.write_text(BUS_CONFIG.format(folder=tmp_path))
    bus = subprocess.Popen(["dbus-daemon", f"--config-file={config}", "--nofork", "--print-address=1"],
                           stdout=subprocess.PIPE, text=True, env=env)
    env["DBUS_SESSION_BUS_ADDRESS"] = bus.stdout.readline().strip()
    env["_PIDS"] = str(bus.pid)
    if with_keyring:
        daemon = subprocess.Popen(["gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"],
                                  stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  env=env)
        daemon.stdin.write(b"parley-test-login")  # the login keyring's password, unlocking it
        daemon.stdin.close()
        env["_PIDS"] += f" {daemon.pid}"
        wait_for_name(env["DBUS_SESSION_BUS_ADDRESS"], "org.freedesktop.secrets")
    return env


def wait_for_name(address: str, name: str) -> None:
    from jeepney.bus_messages import message_bus
    from jeepney.io.blocking import Proxy, open_dbus_connection

    with open_dbus_connection(address) as connection:
        bus, deadline = Proxy(message_bus, connection), time.monotonic() + 30
        while not bus.NameHasOwner(name)[0]:
            assert time.monotonic() < deadline, f"{name} did not appear on the test's session bus"
            time.sleep(0.05)


def end(env: dict) -> None:
    for pid in reversed(env["_PIDS"].split()):
        os.kill(int(pid), signal.SIGTERM)


def parley(env: dict, *args: str, key_input: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app.cli.command", *args], input=key_input, text=True,
                          capture_output=True, env=env, cwd=ROOT, timeout=120)


def found_keys(env: dict, *urls: str) -> list[str]:
    """What `parley chat` takes as each server's key (one process: a process's start is slow)."""
    code = f"from app.cli.chat import _key; print(*(_key(u) for u in {urls!r}), sep='\\n')"
    return subprocess.run([sys.executable, "-c", code], text=True, capture_output=True, env=env, cwd=ROOT,
                          timeout=60, check=True).stdout.split()


@pytest.fixture
def keyring_session(tmp_path):
    env = session(tmp_path, with_keyring=True)
    yield env
    end(env)


def test_a_kept_key_is_found_by_chat_under_its_address_and_forgotten(keyring_session):
    env = keyring_session
    done = parley(env, "llm-key", URL, key_input=KEY + "\n")
    assert done.returncode == 0 and "kept the key for http://127.0.0.1:11434/v1" in done.stderr, done.stderr
    # The same server given with credentials in its address, another server.
    assert found_keys(env, URL, "http://someone:secret@127.0.0.1:11434/v1/", "http://127.0.0.1:8080/v1") == [
        KEY, KEY, "None"]
    home = Path(env["HOME"])
    files = [p for p in home.rglob("*") if p.is_file()]
    assert files, "the keyring wrote nothing: the test did not reach a real keyring"
    assert not [p for p in files if KEY.encode() in p.read_bytes()], "a file holds the key as typed"
    assert found_keys({**env, "PARLEY_LLM_API_KEY": "from-the-environment"}, URL) == ["from-the-environment"]

    done = parley(env, "llm-key", URL, "--forget")
    assert done.returncode == 0 and "removed the key" in done.stderr
    assert found_keys(env, URL) == ["None"]
    assert "no key was kept" in parley(env, "llm-key", URL, "--forget").stderr


@pytest.mark.parametrize(("key_input", "said"), [("\n", "No key was given"), ("sk\x07bell\n", "That is not a key")])
def test_no_key_or_a_line_that_is_not_one_is_refused(keyring_session, key_input, said):
    done = parley(keyring_session, "llm-key", URL, key_input=key_input)
    assert done.returncode == 2 and said in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert found_keys(keyring_session, URL) == ["None"]


def test_without_a_keyring_the_key_is_not_kept_anywhere_and_that_is_said(tmp_path):
    env = session(tmp_path, with_keyring=False)
    try:
        done = parley(env, "llm-key", URL, key_input=KEY + "\n")
        assert done.returncode == 2 and "no keyring to keep the key in" in done.stderr, done.stderr
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
        assert not [p for p in Path(env["HOME"]).rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]
        assert found_keys(env, URL) == ["None"]
    finally:
        end(env)


def test_a_bad_address_is_one_sentence():
    done = parley(dict(os.environ, PYTHONPATH=str(ROOT)), "llm-key", "localhost:11434", key_input=KEY + "\n")
    assert done.returncode == 2 and "is not a language model server's" in done.stderr, done.stderr
