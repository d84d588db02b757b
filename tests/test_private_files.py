"""Everything that holds a person's conversation, voice or history is theirs only: after a session
in a fresh HOME that saves a conversation, leaves a crash journal, exports its audio and
transcript, records a voice, saves a persona, writes settings and logs (rolled over), and crashes (a
`parley offline --journal` killed mid-run), every file there is 0600 and
every folder Parley made for them 0700. `parley offline`'s outputs too."""

from __future__ import annotations

import logging
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from engine import FRAME_SIZE, Persona, PersonaLibrary, VoiceLibrary, record_frames, save_conversation, write_wav

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")


def modes(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): stat.S_IMODE(p.lstat().st_mode) for p in sorted(root.rglob("*"))}


def open_to_others(root: Path, folders: set[str] = frozenset()) -> dict[str, str]:
    """Files under ``root`` others may read, and of ``folders`` those others may list."""
    found = {}
    for name, mode in modes(root).items():
        path = root / name
        if path.is_file() and mode & 0o077 or name in folders and mode & 0o077:
            found[name] = oct(mode)
    return found


@pytest.fixture
def fresh_home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DOCUMENTS_DIR", "PARLEY_VOICES_DIR",
                 "PARLEY_PERSONAS_DIR"):
        monkeypatch.delenv(name, raising=False)
    return home


def test_a_session_in_a_fresh_home_leaves_nothing_others_can_read(fresh_home, app_demo_model, demo_model_dir,
                                                                   qapp):
    from PySide6.QtCore import QSettings

    from app import paths
    from app.conversation.transcript import Transcript
    from app.conversation.transcript_formats import export_transcript
    from app.engine_thread.controller import write_stereo_wav
    from app.journals.saved_marker import mark_saved
    from app.settings import AppSettings, save_settings

    conversations, journals, logs = paths.conversations_dir(), paths.journal_dir(), paths.log_dir()
    root, before = logging.getLogger(), list(logging.getLogger().handlers)
    log_path, _ = paths.setup_logging()
    added = [h for h in root.handlers if h not in before]
    try:
        handler = next(h for h in added if getattr(h, "baseFilename", None) == str(log_path))
        logging.getLogger("parley.test").warning("opened %s", conversations / "Talk with Ana.parley")
        handler.doRollover()  # the next log file, opened anew
        logging.getLogger("parley.test").warning("saved")
    finally:
        for h in added:
            root.removeHandler(h)
            h.close()

    session = app_demo_model.new_session(seed=1)
    recorder = record_frames(session, journals / "crashed.journal")
    for _ in range(3):
        session.step(np.zeros(FRAME_SIZE, np.float32))
    save_conversation(session, conversations / "Talk with Ana.parley")
    mark_saved(journals / "crashed.journal", 3, str(conversations / "Talk with Ana.parley"))
    user, assistant = session.audio()
    write_stereo_wav(str(fresh_home / "Documents" / "talk.wav"), user, assistant)
    export_transcript(Transcript(), str(fresh_home / "Documents" / "talk.txt"), "Talk with Ana")
    t = np.arange(11 * 24_000) / 24_000
    VoiceLibrary().add("Ana", (0.3 * np.sin(2 * np.pi * 190 * t)).astype(np.float32))
    store = QSettings(str(fresh_home / ".config" / "Parley" / "Parley.conf"), QSettings.IniFormat)
    save_settings(store, AppSettings().with_recent(str(conversations / "Talk with Ana.parley")))
    PersonaLibrary().save(Persona("Ana's tutor", voice="Ana", role="Ana's own words"))
    # The crash: the journal is left as it is, never closed; and a real one, `parley offline` killed
    # mid-run (SIGKILL) while it journals into the same folder.
    write_wav(fresh_home / "in.wav", np.zeros(400 * FRAME_SIZE, np.float32))
    killed = journals / "killed.journal"
    run = subprocess.Popen([sys.executable, "-m", "app.cli.command", "offline", "--model", str(demo_model_dir),
                            "--device", "cpu", "--input", str(fresh_home / "in.wav"), "--output",
                            str(fresh_home / "never.wav"), "--journal", str(killed)], cwd=ROOT,
                           env={**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)},
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 300
        while not (killed.exists() and killed.stat().st_size > 20_000):  # a few frames on disk
            assert run.poll() is None and time.monotonic() < deadline, "the run ended before it was killed"
            time.sleep(0.05)
    finally:
        run.send_signal(signal.SIGKILL)
        run.wait()
    assert not (fresh_home / "never.wav").exists()

    home = modes(fresh_home)
    assert any(name.endswith("crashed.journal") for name in home) and any(".log.1" in name for name in home)
    assert any(name.endswith("killed.journal") for name in home) and any(name.endswith(".json") for name in home)
    ours = {str(p.relative_to(fresh_home)) for p in (conversations, journals, logs, VoiceLibrary().folder,
                                                      PersonaLibrary().folder)}
    assert open_to_others(fresh_home, ours) == {}
    recorder.close()


def test_parley_offline_writes_its_outputs_for_the_user_only(demo_model_dir, tmp_path):
    write_wav(tmp_path / "in.wav", np.zeros(3 * FRAME_SIZE, np.float32))
    out = tmp_path / "out"
    out.mkdir()
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    run = subprocess.run([sys.executable, "-m", "app.cli.command", "offline", "--model", str(demo_model_dir),
                          "--device", "cpu", "--input", str(tmp_path / "in.wav"), "--output", str(out / "out.wav"),
                          "--json", str(out / "out.json"), "--save-state", str(out / "talk.parley"),
                          "--journal", str(out / "talk.journal")], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    assert set(modes(out)) == {"out.wav", "out.json", "talk.parley", "talk.journal"}
    assert open_to_others(out) == {}


def test_parleys_own_folders_are_made_and_kept_the_users_only(fresh_home, qapp):
    """~/Documents/Parley, ~/.config/Parley, ~/.local/state/Parley and ~/.local/share/Parley list
    conversation titles, journals, voices and personas: 0700, one made readable by an older Parley
    too; the folders above them (~/Documents) are left as mkdir makes them."""
    from app import paths
    from app.settings import open_settings_store
    from engine.atomic import _UMASK

    (fresh_home / "Documents" / "Parley").mkdir(parents=True, mode=0o755)
    os.chmod(fresh_home / "Documents" / "Parley", 0o755)
    paths.conversations_dir(), paths.journal_dir(), paths.log_dir()
    PersonaLibrary().save(Persona("Ana's tutor", role="Ana's own words"))
    assert open_settings_store("Parley")[1] == ""  # before QSettings writes there
    own = {name: oct(stat.S_IMODE((fresh_home / name).stat().st_mode))
           for name in ("Documents/Parley", ".config/Parley", ".local/state/Parley", ".local/share/Parley")}
    assert own == dict.fromkeys(own, oct(0o700))
    assert stat.S_IMODE((fresh_home / "Documents").stat().st_mode) == 0o777 & ~_UMASK
