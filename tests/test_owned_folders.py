"""Every folder and file the app owns is checked before it is used (issue 42, item 6): a file where
the Conversations, journals or log folder belongs, a settings file that is a pipe or 2 GB, and an
unreadable conversations folder are each named, and the app starts anyway; `parley conversations`
exits 2 with one line, never a traceback."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="the XDG folders of a fresh HOME")


def home_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_") and not k.startswith("PARLEY_")}
    return {**env, "HOME": str(home), "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen", "HF_HUB_OFFLINE": "1",
            "OMP_NUM_THREADS": "1"}


def a_home_of_files_where_folders_belong(home: Path) -> dict[str, Path]:
    owned = {"conversations": home / "Documents" / "Parley" / "Conversations",
             "journals": home / ".local" / "state" / "Parley" / "journals",
             "log": home / ".local" / "state" / "Parley" / "log"}
    for path in owned.values():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"someone's file")
    return owned


@pytest.fixture
def fresh_home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    for name, value in home_env(home).items():
        monkeypatch.setenv(name, value)
    for name in [n for n in os.environ if n.startswith(("XDG_", "PARLEY_"))]:
        monkeypatch.delenv(name)
    return home


def test_files_where_the_apps_folders_belong_and_a_settings_pipe_are_named_and_the_window_starts(
        fresh_home, demo_model_dir, qtbot):
    """What `parley` opens (app.window.gui.open_window, in this process), in a HOME where a file is in
    the place of the Conversations, journals and log folders and the settings file is a pipe (QSettings
    waited on it for a writer: the window never appeared; a file for Conversations aborted the start)."""
    from app import paths
    from app.window.gui import open_window
    from tests.test_app_library import FifoWatch

    owned = a_home_of_files_where_folders_belong(fresh_home)
    settings = fresh_home / ".config" / "Parley" / "Parley.conf"
    settings.parent.mkdir(parents=True)
    os.mkfifo(settings)
    watch = FifoWatch(settings)
    root, before = logging.getLogger(), list(logging.getLogger().handlers)
    try:
        log_path, log_problem = paths.setup_logging()
        args = SimpleNamespace(model=str(demo_model_dir), device="cpu", precision="float32")
        window = open_window(args, [log_problem])
        try:
            qtbot.waitUntil(lambda: window.model.models.model_info is not None, timeout=120_000)
            qtbot.waitUntil(lambda: not window.library.scanning, timeout=10_000)
            shown = window.error_box.message  # the first problem in the banner, all behind its Details
            assert window.isVisible() and window.error_box.isVisible() and log_path is None
            assert window.error_box.label.text() == log_problem and window.error_box.details_button.isVisibleTo(window)
            for what in ("conversations", "crash journals", "log"):
                assert f"Parley keeps its {what} in {owned[what.split()[-1]]}, but a file is in its place" in shown
            assert f"The settings file {settings} is not a regular file" in shown
            assert window.library_panel.empty_label.text().startswith("Parley keeps its conversations in ")
            assert window.model.worker.controller.journal_path is None  # no journals: said, not a crash
        finally:
            window.model.files.unsaved_frames = 0
            window.close()
    finally:
        watch.stop()
        for handler in [h for h in root.handlers if h not in before]:
            root.removeHandler(handler)
    assert not watch.opened.is_set()  # never opened, so never waited on
    assert all(path.read_bytes() == b"someone's file" for path in owned.values())  # never replaced
    assert settings.is_fifo()

    proc = subprocess.run([sys.executable, "-m", "app.cli.command", "conversations"], cwd=ROOT,
                          env=home_env(fresh_home), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith(f"parley: Parley keeps its conversations in {owned['conversations']}, but a file")


READ_SETTINGS = """
import sys
from PySide6.QtCore import QCoreApplication
from app.settings import load_settings, open_settings_store
app = QCoreApplication([])
store, problem = open_settings_store("Parley")
load_settings(store)
peak = [line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM")][0]
print(int(peak) // 1024, problem)
"""


@pytest.mark.parametrize("kind", ["pipe", "2 GB"])
def test_a_settings_file_that_is_a_pipe_or_2_gb_is_named_not_read(tmp_path, kind):
    home = tmp_path / "home"
    settings = home / ".config" / "Parley" / "Parley.conf"
    settings.parent.mkdir(parents=True)
    if kind == "pipe":
        os.mkfifo(settings)
    else:
        with open(settings, "wb") as f:
            f.write(b"[General]\nmodel=demo\n")
            f.truncate(2 << 30)  # sparse
    proc = subprocess.run([sys.executable, "-c", READ_SETTINGS], cwd=ROOT, env=home_env(home), capture_output=True,
                          text=True, timeout=60)  # on a pipe, QSettings waited for a writer
    assert proc.returncode == 0, proc.stderr
    peak, problem = proc.stdout.strip().split(" ", 1)
    why = {"pipe": "is not a regular file (a pipe, a device or a folder)",
           "2 GB": "is 2048 MB (settings take a few KB)"}[kind]
    assert problem.startswith(f"The settings file {settings} {why}: Parley starts with its default settings"), problem
    assert int(peak) < 400, f"peaked at {peak} MB"  # QSettings read the 2 GB file whole, twice over: 4.4 GB
    assert settings.is_fifo() if kind == "pipe" else settings.stat().st_size == 2 << 30


def test_an_unreadable_conversations_folder_is_said_not_listed_as_empty(tmp_path):
    """Mode 000 stops its owner, but not root, whose capabilities pass over modes: as root,
    `parley conversations` runs without them (setpriv), and the folder's mode stops it the same way."""
    folder = tmp_path / "Conversations"
    folder.mkdir()
    (folder / "a.parley").write_bytes(b"x")
    without_override = []
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: nothing here is stopped by a folder's mode")
        caps = "-dac_override,-dac_read_search"
        without_override = ["setpriv", "--bounding-set", caps, "--inh-caps", caps]
    os.chmod(folder, 0)
    try:
        proc = subprocess.run([*without_override, sys.executable, "-m", "app.cli.command", "conversations",
                               "--folder", str(folder)], cwd=ROOT, env=home_env(tmp_path / "home"),
                              capture_output=True, text=True, timeout=120)
    finally:
        os.chmod(folder, 0o700)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip() == (f"parley: Parley cannot use its conversations folder {folder}: permission denied. "
                                   f"Give your user access to it (for example: chmod u+rwx '{folder}').")
    assert not proc.stdout


def test_the_library_names_a_conversations_folder_it_cannot_list(qtbot, tmp_path):
    from app.library.model import LibraryModel
    from app.library.panel import LibraryPanel

    folder = tmp_path / "Conversations"
    folder.write_bytes(b"a file where the folder belongs")
    library = LibraryModel(folder)
    panel = LibraryPanel(library)
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: not library.scanning, timeout=10_000)
    assert panel.empty_label.text().startswith(f"Parley keeps its conversations in {folder}, but a file")
