"""A language model server's key, kept in the system's keyring (the Secret Service on Linux, the
Keychain on macOS, the Credential Locker on Windows) under the server's address, through the
``keyring`` package. Never in a file of Parley's: where the only keyring would be a plain file
(``keyrings.alt``) or there is none, saving says so and the key lives for this run only."""

from __future__ import annotations

import keyring
import keyring.errors

from app.chat.client import ChatServer

SERVICE = "Parley language model server"
PLAIN_FILE_BACKENDS = ("keyrings.alt",)  # keyrings that write the secret to a file as it is


class KeyringUnavailable(Exception):
    """One sentence: why the key could not be kept, and that it is used for this run only."""


def _account(url: str) -> str:
    """The address a key is filed under: as shown (without a user name or password in it)."""
    return ChatServer(url, "").shown_url()


def _usable_keyring():
    backend = keyring.get_keyring()
    if type(backend).__module__.startswith(PLAIN_FILE_BACKENDS):
        return None
    if getattr(backend, "priority", 0) <= 0:  # keyring's "fail" or "null" backend: nothing to keep it in
        return None
    return backend


def saved_key(url: str) -> str | None:
    """The key kept for the server at ``url``; None where none is kept or no keyring answers."""
    backend = _usable_keyring()
    if backend is None:
        return None
    try:
        return backend.get_password(SERVICE, _account(url)) or None
    except keyring.errors.KeyringError:
        return None


def save_key(url: str, key: str) -> None:
    """Keep ``key`` for the server at ``url`` (replacing one kept before)."""
    backend = _usable_keyring()
    if backend is None:
        raise KeyringUnavailable("This system has no keyring to keep the key in (on Linux: GNOME Keyring or "
                                 "KWallet), so Parley uses it for this run only and does not write it anywhere.")
    try:
        backend.set_password(SERVICE, _account(url), key)
    except keyring.errors.KeyringError as e:
        raise KeyringUnavailable(f"The system's keyring did not keep the key ({e or type(e).__name__}; it may be "
                                 "locked), so Parley uses it for this run only.") from None


def forget_key(url: str) -> bool:
    """Remove the key kept for the server at ``url``; whether there was one."""
    backend = _usable_keyring()
    if backend is None:
        return False
    try:
        backend.delete_password(SERVICE, _account(url))
    except keyring.errors.PasswordDeleteError:
        return False
    except keyring.errors.KeyringError as e:
        raise KeyringUnavailable(f"The system's keyring did not remove the key ({e or type(e).__name__}).") from None
    return True
