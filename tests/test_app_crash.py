"""The crash test on the real app: `parley` (offscreen Qt, the demo model, real PortAudio through
the PulseAudio null sink, open mic) hears speech for ~10 s and is killed with SIGKILL. The next
start (a main window on the same state folder) offers the journal; recovering it rebuilds, bit for
bit, the state of an uninterrupted run fed the same frames, and loses nothing the journal got."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
from PySide6.QtCore import QSettings

import engine
from app.window.gui import share_cores_with_the_gui
from app.window.main_window import MainWindow
from engine.runtime.threads import ThreadChoice
from engine.state import flatten
from tests import audio_server

ROOT = Path(__file__).resolve().parent.parent
TALK_FRAMES = 125  # 10 s


def pulse_server() -> str:
    info = subprocess.run(["pactl", "info"], capture_output=True, text=True, timeout=10).stdout
    return next(line.split(":", 1)[1].strip() for line in info.splitlines() if line.startswith("Server String"))


HEARD_FRAMES = 25  # frames in which the model heard the speech: the talk reached it through the device
HEARD_LEVEL = 0.01


def heard_frames(journal: engine.Journal) -> int:
    return int((np.abs(journal.pcm).max(axis=1) > HEARD_LEVEL).sum()) if journal.frames else 0


def journal_progress(folder: Path) -> tuple[Path | None, int, int]:
    """The journal in ``folder`` (None before there is one), its frames and the frames that heard speech."""
    for path in folder.glob("*.journal"):
        try:
            journal = engine.read_journal(path)
        except engine.ConversationFileError:
            return path, 0, 0
        return path, journal.frames, heard_frames(journal)
    return None, 0, 0


@pytest.mark.audio
@pytest.mark.slow
def test_killed_app_recovers_its_conversation_bit_for_bit(pulse_audio, qtbot, tmp_path, app_demo_model):
    config, state = tmp_path / "config", tmp_path / "state"
    (config / "Parley").mkdir(parents=True)
    (config / "Parley" / "Parley.conf").write_text("[General]\nopen_mic=true\n")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(config),
           "XDG_STATE_HOME": str(state), "XDG_DOCUMENTS_DIR": str(tmp_path / "docs"), "HF_HUB_OFFLINE": "1",
           # The app's own XDG_CONFIG_HOME hides the server's address and cookie from its PulseAudio client.
           "PULSE_SERVER": pulse_server(), "PULSE_COOKIE": str(Path.home() / ".config" / "pulse" / "cookie")}
    t = np.arange(24_000 * 60) / 24_000
    speech = 0.25 * np.sin(2 * np.pi * (160 + 90 * np.sin(2 * np.pi * 0.7 * t)) * t) * (np.sin(2 * np.pi * 0.4 * t) > 0)
    engine.write_wav(tmp_path / "talk.wav", speech.astype(np.float32))
    journals = state / "Parley" / "journals"
    app = subprocess.Popen([sys.executable, "-m", "app.cli.command", "--model", "demo", "--device", "cpu",
                            "--precision", "float32"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
    player = None
    try:
        deadline = time.monotonic() + 240
        while journal_progress(journals)[0] is None:  # the model is loaded and a conversation started
            assert app.poll() is None, app.stderr.read().decode()
            assert time.monotonic() < deadline, "the app did not start a conversation"
            time.sleep(0.1)
        player = audio_server.play_into_mic(str(tmp_path / "talk.wav"))
        # ~10 s of talk that the model heard (a loaded machine drops frames at the start)
        while (progress := journal_progress(journals))[1] < TALK_FRAMES or progress[2] < HEARD_FRAMES:
            assert app.poll() is None, app.stderr.read().decode()
            assert time.monotonic() < deadline, f"the conversation did not reach 10 s of heard talk: {progress}"
            time.sleep(0.05)
        seen = progress[1]
        app.send_signal(signal.SIGKILL)
        app.wait()
    finally:
        if app.poll() is None:
            app.kill()
        if player is not None:
            player.kill()
            player.wait()
    assert app.returncode == -signal.SIGKILL
    journal, left, _ = journal_progress(journals)
    assert left >= seen  # everything the journal had got is on disk after the kill

    threads = torch.get_num_threads()
    # Recovery replays with the journal's thread count; the reference runs here with the same.
    crashed_threads = engine.read_journal(journal).header.threads
    # The app loaded its model with the GUI's starting thread count, which keys the kernel plan it
    # measured and cached; loading here with the same count reads that plan: the same kernels.
    share_cores_with_the_gui()
    model = engine.load_model("demo", device="cpu", precision="float32")
    assert model.kernel_plan.source == "cache"
    # The thread count is measured once per process: this one takes the killed app's choice (a
    # measurement of its own may choose another count, whose kernels sample other tokens).
    model.thread_choice = ThreadChoice(crashed_threads, {}, {}, 0.0)
    torch.set_num_threads(crashed_threads)
    window = None
    try:
        window = MainWindow(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat),
                            model_loader=lambda *args: model, audio=False, worker_seed=1,
                            journal_dir=journals)
        window.load_model("demo", "cpu", "float32")
        qtbot.waitUntil(lambda: window.dialogs.recovery is not None, timeout=60_000)
        offer = window.dialogs.recovery.offer
        assert offer.journal == journal and offer.frames == left
        window.dialogs.recovery.recover_button.click()
        qtbot.waitUntil(lambda: offer.outcome is not None, timeout=300_000)
        assert offer.outcome == ""
        recovered = window.model.worker.controller.session
        assert recovered.frames == left
        # The recovered conversation's new journal holds every frame: the input both runs get.
        journal_now = window.model.worker.controller.journal_path
        qtbot.waitUntil(lambda: engine.read_journal(journal_now).frames == left, timeout=10_000)
        kept = engine.read_journal(journal_now)
        assert heard_frames(kept) >= HEARD_FRAMES  # the model really heard the speech through the device
        # The recovered conversation keeps the killed app's thread count (MKL's is process-wide:
        # set it again here, after the worker's last change).
        assert recovered.threads == kept.header.threads == crashed_threads
        torch.set_num_threads(kept.header.threads)
        reference = model.new_session(sampling=kept.header.sampling, seed=kept.header.seed)
        for frame in kept.pcm:
            reference.step(frame)
        ours, theirs = flatten(recovered.state), flatten(reference.state)
        assert not [name for name in ours if not torch.equal(ours[name], theirs[name])]
    finally:
        if window is not None:  # a failed check must not leave the worker running at exit
            window.model.files.unsaved_frames = 0
            window.close()
        torch.set_num_threads(threads)
