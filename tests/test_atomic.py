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


@pytest.mark.skipif(os.name != "posix", reason="FIFOs and /dev/null are POSIX's")
def test_only_a_regular_file_is_ever_replaced(tmp_path):
    """A FIFO, a link to a device and a folder at the path are refused and left as they were."""
    fifo, device, folder = tmp_path / "fifo.wav", tmp_path / "null.wav", tmp_path / "folder.txt"
    os.mkfifo(fifo)
    device.symlink_to(os.devnull)
    folder.mkdir()
    for path, kind in ((fifo, "a pipe (FIFO) is there"), (device, "a device is there"), (folder, "a folder is there")):
        with pytest.raises(atomic.WriteError, match=r"could not be written: " + kind.replace("(", r"\(").replace(
                ")", r"\)") + ", and Parley replaces only files"):
            write_atomically(path, b"new")
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and device.is_symlink() and folder.is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo.wav", "folder.txt", "null.wav"]  # no temp left


@pytest.mark.skipif(os.name != "posix", reason="symbolic links")
def test_a_link_to_a_file_is_written_through_and_stays_a_link(tmp_path):
    (tmp_path / "dotfiles").mkdir()
    real = tmp_path / "dotfiles" / "settings.json"
    real.write_bytes(b"old")
    link = tmp_path / "settings.json"
    link.symlink_to(real)
    write_atomically(link, b"new", private=True)
    assert link.is_symlink() and real.read_bytes() == b"new" and stat.S_IMODE(real.stat().st_mode) == 0o600


@pytest.mark.skipif(os.name != "posix", reason="FIFOs are POSIX's")
def test_a_journal_is_never_opened_on_a_fifo_or_device(tmp_path):
    """Opening a FIFO for writing waited for a reader (forever); a device was written to."""
    import threading

    fifo = tmp_path / "talk.journal"
    os.mkfifo(fifo)
    device = tmp_path / "null.journal"
    device.symlink_to(os.devnull)
    for path in (fifo, device):
        outcome = []

        def open_it(path=path, outcome=outcome):
            try:
                atomic.open_private(path).close()
                outcome.append("opened")
            except OSError as e:
                outcome.append(str(e))

        thread = threading.Thread(target=open_it, daemon=True)
        thread.start()
        thread.join(5)
        if thread.is_alive():  # let the blocked open go before failing
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
            thread.join(5)
            pytest.fail(f"opening {path.name} waited for a reader")
        assert outcome and "Parley replaces only files" in outcome[0], outcome
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and device.is_symlink()
