"""Atomic replacement of user files."""

from __future__ import annotations

import os
import stat

import pytest

from engine import atomic
from engine.atomic import write_atomically


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_new_files_follow_the_umask_and_existing_files_keep_their_mode(tmp_path):
    new = tmp_path / "new.wav"
    write_atomically(new, b"abc")
    assert stat.S_IMODE(new.stat().st_mode) == 0o666 & ~atomic._UMASK
    private = tmp_path / "private.parley"
    private.write_bytes(b"old")
    private.chmod(0o600)
    write_atomically(private, b"new")
    assert private.read_bytes() == b"new" and stat.S_IMODE(private.stat().st_mode) == 0o600


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_a_private_file_is_the_users_only_whatever_it_was(tmp_path):
    shared = tmp_path / "voice.wav"
    shared.write_bytes(b"old")
    shared.chmod(0o644)
    write_atomically(shared, b"new", private=True)
    write_atomically(tmp_path / "new.wav", b"new", private=True)
    assert {stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir()} == {0o600}


def test_a_failed_write_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch):
    target = tmp_path / "t.json"
    target.write_bytes(b"old")

    def fail(*_):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(atomic.os, "replace", fail)
    with pytest.raises(OSError):
        write_atomically(target, b"new")
    monkeypatch.undo()
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["t.json"]
