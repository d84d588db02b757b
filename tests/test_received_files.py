"""What a received file may still ask of this machine, refused or bounded: the thread count it
was made with, frames its model cannot replay, voices read from a folder of anything, audio that
decodes to far more than it may be. Each case is a crafted file, against the engine's reader and
`parley` where it reads that file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import torch

from engine import (
    FRAME_SIZE,
    ConversationFileError,
    SamplingConfig,
    open_conversation,
    record_frames,
    save_conversation,
)
from engine.files import conversation
from engine.files.voices import VOICES_DIR_ENV, VoiceLibrary
from engine.runtime.replay import read_compact, rebuild
from engine.runtime.threads import thread_candidates

ROOT = Path(__file__).resolve().parent.parent
FRAMES = 4


def parley(*args, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "app.cli.command", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)


def rewrite(source: Path, target: Path, tensors=None, **meta) -> Path:
    """``source`` with tensors and metadata changed and a valid checksum: a forged file that passes
    every shape check."""
    stored = conversation.read_conversation(source)
    tensors = {**stored.tensors, **(tensors or {})}
    fields = {k: v for k, v in {**stored.meta, **meta}.items() if k not in ("format", "checksum")}
    conversation.write_conversation(target, tensors, fields)
    return target


@pytest.fixture(scope="module")
def compact_file(app_demo_model, tmp_path_factory) -> Path:
    """A real compact file of a short conversation on the demo model (tests only read it)."""
    session = app_demo_model.new_session(SamplingConfig(), seed=3)
    record_frames(session)
    pcm = np.random.default_rng(0).uniform(-0.3, 0.3, (FRAMES, FRAME_SIZE)).astype(np.float32)
    for frame in np.round(pcm * 32768) / 32768:
        session.step(frame)
    path = tmp_path_factory.mktemp("compact") / "talk.parley"
    save_conversation(session, path, compact=True)
    return path


# ---- 1. the thread count a file was made with ----------------------------------------------------

def test_a_files_thread_count_is_capped_to_what_this_machine_runs(app_demo_model, compact_file, tmp_path):
    cap = max(thread_candidates())
    forged = rewrite(compact_file, tmp_path / "threads.parley", threads=64)
    before = torch.get_num_threads()
    recovery = rebuild(app_demo_model, read_compact(forged, app_demo_model.info.fingerprint), forged.name)
    assert recovery.session.threads is not None and recovery.session.threads <= cap
    assert "ran with 64 CPU threads" in recovery.differs and "may differ" in recovery.differs
    assert torch.get_num_threads() == before
    # A count this machine would run is obeyed: the rebuild is then exact, and nothing is said.
    honest = rewrite(compact_file, tmp_path / "one.parley", threads=1)
    again = rebuild(app_demo_model, read_compact(honest, app_demo_model.info.fingerprint), honest.name)
    assert again.session.threads == 1 and again.differs is None


def test_parley_offline_resume_says_the_rebuild_may_differ_instead_of_obeying(demo_model_dir, compact_file,
                                                                                tmp_path):
    from engine import write_wav

    forged = rewrite(compact_file, tmp_path / "threads.parley", threads=64)
    write_wav(tmp_path / "more.wav", np.zeros(2 * FRAME_SIZE, np.float32))
    run = parley("offline", "--model", str(demo_model_dir), "--device", "cpu", "--resume", str(forged),
                 "--input", str(tmp_path / "more.wav"), "--output", str(tmp_path / "out.wav"))
    assert run.returncode == 0, run.stderr
    assert "ran with 64 CPU threads" in run.stderr and "may differ" in run.stderr


# ---- 5. frames the model cannot replay -------------------------------------------------------------

def test_a_compact_file_with_a_bad_token_is_refused_whole_and_left_as_it_is(app_demo_model, demo_model_dir,
                                                                            compact_file, tmp_path):
    tokens = conversation.read_conversation(compact_file).tensors["compact.tokens"].clone()
    tokens[2, 0] = 30_000  # a text token past the demo model's vocabulary, in frame 2 of 4
    forged = rewrite(compact_file, tmp_path / "bad-token.parley", {"compact.tokens": tokens})
    original = forged.read_bytes()
    with pytest.raises(ConversationFileError, match=r"tokens out of range in frame 2.*first 2 of 4 frames"):
        open_conversation(app_demo_model, forged)
    from engine import write_wav

    write_wav(tmp_path / "more.wav", np.zeros(2 * FRAME_SIZE, np.float32))
    run = parley("offline", "--model", str(demo_model_dir), "--device", "cpu", "--resume", str(forged),
                 "--input", str(tmp_path / "more.wav"), "--output", str(tmp_path / "out.wav"),
                 "--save-state", str(forged))
    assert run.returncode == 2 and "tokens out of range in frame 2" in run.stderr, run.stderr
    assert forged.read_bytes() == original and not (tmp_path / "out.wav").exists()


# ---- 2. the voice library reads regular files of a recording's size only ---------------------------

def hostile_voices(folder: Path, sparse_bytes: int, device: bool = True) -> None:
    """A voice library holding one good voice and a FIFO, a sparse file and (``device``) a link to
    /dev/zero, each named like a recording."""
    from tests.test_voices import stored

    stored(VoiceLibrary(folder), "Good", seed=1)
    os.mkfifo(folder / "Pipe.wav")
    if device:  # only where the address space is limited: read whole, it takes all the memory there is
        (folder / "Zero.wav").symlink_to("/dev/zero")
    with open(folder / "Sparse.wav", "wb") as f:
        f.truncate(sparse_bytes)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_the_voice_library_lists_a_fifo_and_a_huge_file_as_damaged_without_reading_them(tmp_path):
    folder = tmp_path / "voices"
    hostile_voices(folder, 200 * 2**20, device=False)
    found: list = []
    tracemalloc.start()
    lister = threading.Thread(target=lambda: found.extend(VoiceLibrary(folder).voices()), daemon=True)
    lister.start()
    lister.join(60)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert not lister.is_alive(), "listing the voices blocked on a FIFO"
    voices = {v.name: v for v in found}
    assert voices["Good"].problem == "" and voices["Good"].seconds == pytest.approx(1.2)
    assert "not a regular file" in voices["Pipe"].problem
    assert f"{200 * 2**20} bytes" in voices["Sparse"].problem
    assert peak < 8 * 2**20, peak  # the good recording's bytes, never the 200 MB file's


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and /dev/zero are POSIX")
def test_parley_voices_lists_a_hostile_library_within_bounded_memory(tmp_path):
    """In a process limited to 3 GB of address space, as a person's `parley voices` would be: a
    link to /dev/zero read whole was a MemoryError traceback, a 2 GB sparse file 4.4 GB."""
    import resource

    folder = tmp_path / "voices"
    hostile_voices(folder, 2 * 2**30)
    limit = 3 * 2**30
    env = {**os.environ, "PARLEY_VOICES_DIR": str(folder), "HF_HUB_OFFLINE": "1"}
    code = ("import sys; sys.argv = ['parley', 'voices', '--json', '--model', 'nowhere'];"
            "from app.cli.command import main; rc = main(sys.argv[1:]);"
            "print('peak', [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0],"
            " file=sys.stderr); sys.exit(rc)")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
                         preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))
    assert run.returncode == 0, run.stderr
    rows = {json.loads(line)["name"]: json.loads(line) for line in run.stdout.splitlines()}
    assert set(rows) == {"Good", "Pipe", "Zero", "Sparse"} and "error" not in rows["Good"]
    assert all("error" in rows[name] for name in ("Pipe", "Zero", "Sparse"))
    peak_kb = int(run.stderr.split("peak ")[1].split()[0])
    assert peak_kb < 1024 * 1024, peak_kb  # under 1 GB resident (torch's import included), never the 2 GB file


@pytest.mark.timeout(300)
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_the_persona_dialog_opens_beside_a_fifo_in_the_voice_library(qtbot, tmp_path, monkeypatch, app_demo_model):
    """The dialog lists the user's voices on the GUI thread: a FIFO read there froze the window."""
    from tests.test_app_window import Harness
    from tests.test_voices import stored

    folder = tmp_path / "voices"
    stored(VoiceLibrary(folder), "Good", seed=1)
    os.mkfifo(folder / "Pipe.wav")
    monkeypatch.setenv(VOICES_DIR_ENV, str(folder))
    harness = Harness(qtbot, tmp_path, lambda *args: app_demo_model)
    try:
        dialog = harness.window.open_persona_dialog()
        assert dialog.isVisible()
        assert "Good" in dialog.personas.voices and "Pipe" not in dialog.personas.voices
    finally:
        harness.close()
