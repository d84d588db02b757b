"""Files that ask for a long rebuild (issue 42, items 4 and 8): a compact file whose 8 MB hold 200,000
frames of silence (seven hours, 6 GB to rebuild), a journal followed by 2 GB of nothing, and a
long journal rebuilt with its progress shown and cancelled with Ctrl+C. Peak memory is measured in
the process that reads them; the machine's free memory is made small with the process's own
address-space limit (RLIMIT_AS), which Parley reads as it reads the system's free memory."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import engine
from engine import FRAME_SIZE, SAMPLE_RATE
from engine.files.compact import compact_contents
from engine.files.conversation import write_conversation
from engine.files.journal import encode_frame, encode_start
from engine.host_memory import REBUILD_BYTES_PER_FRAME
from engine.runtime.replay import journal_header

if not Path("/proc/self/status").exists():  # where peak memory can be read
    pytest.skip("peak memory is read from /proc (Linux)", allow_module_level=True)

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 5 << 30  # the address space the reading process may use: ~3 GB over a loaded demo model
BOMB_FRAMES = 200_000  # 4.4 hours; 6 GB to rebuild
# Runs `parley` (or a script) under LIMIT and prints its peak resident memory last, on stderr: the
# process's own (VmHWM; ru_maxrss would keep the forking test process's, which execve does not reset).
LIMITED = ("import resource, runpy, sys; resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit})); "
           "sys.argv = sys.argv[1:]; code = 0\n"
           "try:\n    runpy.run_path(sys.argv[0], run_name='__main__') if sys.argv[0].endswith('.py') else "
           "runpy.run_module('app.cli.command', run_name='__main__')\n"
           "except SystemExit as e:\n    code = e.code\n"
           "print('peak_kb', [line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM')][0], "
           "file=sys.stderr); sys.exit(code)")


def run_limited(*args, script: str = "parley") -> tuple[int, str, int]:
    """(exit code, stderr, peak resident MB) of ``parley args`` (or ``python script args``) under LIMIT."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1", "QT_QPA_PLATFORM": "offscreen",
           "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", LIMITED.format(limit=LIMIT), script, *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    lines = proc.stderr.strip().splitlines()
    assert lines and lines[-1].startswith("peak_kb"), proc.stderr
    return proc.returncode, "\n".join(lines[:-1]), int(lines[-1].split()[1]) // 1024


def silent_flac(samples: int) -> bytes:
    import soundfile

    out, block = io.BytesIO(), np.zeros(1 << 22, np.int16)
    with soundfile.SoundFile(out, "w", SAMPLE_RATE, 1, "PCM_16", format="FLAC") as f:
        for start in range(0, samples, block.size):
            f.write(block[:min(block.size, samples - start)])
    return out.getvalue()


def compact_file(model, path: Path, frames: int) -> None:
    """A compact conversation of ``frames`` silent frames whose tokens are all 0 (a valid token)."""
    header = journal_header(model.new_session())
    user, tokens = np.zeros((1, header.user_streams), np.int64), np.zeros((1, header.token_streams), np.int64)
    tensors, meta = compact_contents(header, user, tokens, np.zeros(FRAME_SIZE, np.float32), [])
    tensors["compact.user_codes"] = torch.zeros((frames, header.user_streams), dtype=torch.int16)
    tensors["compact.tokens"] = torch.zeros((frames, header.token_streams), dtype=torch.int16)
    tensors["compact.user_flac"] = torch.from_numpy(np.frombuffer(silent_flac(frames * FRAME_SIZE), np.uint8).copy())
    meta["frames"] = frames
    write_conversation(path, tensors, meta)


def test_a_rebuild_that_cannot_fit_is_refused_with_the_numbers():
    from engine.host_memory import available_bytes, check_rebuild_fits

    free = available_bytes()
    if free is None:
        pytest.skip("this system does not say how much memory is free (nothing is refused for memory)")
    check_rebuild_fits(10, "small.parley")  # 300 KB
    frames = free // REBUILD_BYTES_PER_FRAME + 1
    with pytest.raises(engine.ConversationFileError, match=rf"huge.parley holds {frames} frames \(.* hours of "
                                                          r"conversation\): rebuilding it needs about .* GB free"):
        check_rebuild_fits(frames, "huge.parley")


@pytest.mark.slow
def test_a_compact_file_claiming_hours_of_frames_is_refused_before_it_is_decoded(app_demo_model, demo_model_dir,
                                                                                 tmp_path):
    small, bomb = tmp_path / "small.parley", tmp_path / "bomb.parley"
    compact_file(app_demo_model, small, 4)
    compact_file(app_demo_model, bomb, BOMB_FRAMES)
    assert bomb.stat().st_size < 8 << 20
    engine.write_wav(tmp_path / "in.wav", np.zeros(FRAME_SIZE, np.float32))
    model = ["--model", str(demo_model_dir), "--device", "cpu", "--precision", "float32"]
    out = ["--input", str(tmp_path / "in.wav"), "--output", str(tmp_path / "out.wav")]
    code, err, baseline = run_limited("offline", *model, "--resume", str(small), *out)
    assert code == 0, err
    before = bomb.read_bytes()
    code, err, peak = run_limited("offline", *model, "--resume", str(bomb), *out)
    assert code == 2 and f"bomb.parley holds {BOMB_FRAMES} frames (4.4 hours" in err and "GB free" in err, err
    assert "Traceback" not in err and bomb.read_bytes() == before
    # Decoded, its audio alone is 0.8 GB of 16-bit samples and 1.5 GB as float32.
    assert peak < baseline + 256, f"peak {peak} MB, {baseline} MB for a 4-frame file"

    # The window, offscreen, under the same limit: the error is shown, the conversation stays.
    script = tmp_path / "window.py"
    script.write_text(WINDOW_OPENS.format(settings=str(tmp_path / "settings.ini"), model=str(demo_model_dir),
                                          path=str(bomb)))
    code, err, peak = run_limited(script=str(script))
    assert code == 0, err
    shown = err.split("SHOWN: ", 1)[1]
    assert f"holds {BOMB_FRAMES} frames" in shown and "GB free" in shown, err
    assert peak < baseline + 512, f"the window peaked at {peak} MB"


WINDOW_OPENS = """
import sys
import time
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
import engine
from app.window.main_window import MainWindow

app = QApplication([])
shown = []


def wait_for(done):
    for _ in range(1200):
        if done():
            return
        app.processEvents()
        time.sleep(0.1)  # not QTest.qWait, which holds the GIL: the engine's thread would starve


window = MainWindow(QSettings({settings!r}, QSettings.IniFormat),
                    model_loader=lambda *args: engine.load_model({model!r}, device="cpu", precision="float32"),
                    audio=False, worker_seed=1, journal_dir=None)
window.show()
window.model.error.connect(lambda message, resumable: shown.append(message))
window.load_model("demo", "cpu", "float32")
wait_for(lambda: window.model.models.model_info is not None)
window.model.files.open_conversation({path!r})
wait_for(lambda: shown)
print("SHOWN:", shown[0] if shown else "nothing", file=sys.stderr)
window.model.files.unsaved_frames = 0
window.close()
"""


def test_a_journal_followed_by_gigabytes_of_nothing_costs_its_first_bytes(app_demo_model, demo_model_dir, tmp_path):
    hole, zeros = tmp_path / "hole.journal", tmp_path / "zeros.journal"
    with open(hole, "wb") as f:
        f.write(encode_start(journal_header(app_demo_model.new_session())))
        f.truncate(2 << 30)
    with open(zeros, "wb") as f:
        f.truncate(2 << 30)
    args = ["--model", str(demo_model_dir), "--device", "cpu", "--save-state", str(tmp_path / "out.parley")]
    code, err, peak = run_limited("recover", str(hole), *args)
    assert code == 2 and "holds no whole frame (a checksum mismatch after frame 0" in err, err
    assert peak < 1024, f"recover peaked at {peak} MB"  # imports alone; read whole, 2 GB more
    code, err, peak = run_limited("recover", str(zeros), *args)
    assert code == 2 and "is not a Parley journal" in err and f"Delete {zeros} if you do not need it" in err, err
    assert peak < 1024 and zeros.exists() and not (tmp_path / "out.parley").exists()


def test_recover_offers_to_delete_a_journal_it_cannot_read_on_a_terminal(tmp_path):
    pty = pytest.importorskip("pty")
    for answer, kept in ((b"n\n", True), (b"y\n", False)):
        journal = tmp_path / "broken.journal"
        journal.write_bytes(b"not a journal at all" * 10)
        leader, follower = pty.openpty()
        proc = subprocess.Popen([sys.executable, "-m", "app.cli.command", "recover", str(journal), "--save-state",
                                 str(tmp_path / "out.parley")], cwd=ROOT, stdin=follower, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
        os.close(follower)
        os.write(leader, answer)
        _, err = proc.communicate(timeout=120)
        os.close(leader)
        err = err.decode()
        assert proc.returncode == 2 and "Delete it? [y/N]" in err, err
        assert journal.exists() == kept and (("is kept" if kept else "was deleted") in err), err


@pytest.mark.slow
def as_in_a_terminal() -> None:
    """Ctrl+C as a terminal's foreground command takes it: a suite started in the background by a
    shell without job control (``cmd &`` in a script) runs with SIGINT ignored, which its children
    inherit, and Python then installs no KeyboardInterrupt handler at all."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_a_long_rebuild_shows_progress_and_ctrl_c_cancels_it_cleanly(app_demo_model, demo_model_dir, tmp_path):
    header = journal_header(app_demo_model.new_session())
    journal = tmp_path / "long.journal"
    zeros_user, zeros_tokens, silence = (np.zeros(header.user_streams), np.zeros(header.token_streams),
                                         np.zeros(FRAME_SIZE, np.float32))
    with open(journal, "wb") as f:
        f.write(encode_start(header))
        for i in range(20_000):  # 27 minutes
            f.write(encode_frame(i, zeros_user, zeros_tokens, silence))
    before = journal.read_bytes()
    out = tmp_path / "out.parley"
    proc = subprocess.Popen([sys.executable, "-m", "app.cli.command", "recover", str(journal), "--model",
                             str(demo_model_dir), "--device", "cpu", "--save-state", str(out)], cwd=ROOT,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"},
                            preexec_fn=as_in_a_terminal if os.name == "posix" else None)
    try:
        line = proc.stderr.readline()  # a line every few seconds where stderr is not a terminal
        assert line.startswith("rebuilding long.journal: ") and "of 20000 frames" in line and "Ctrl+C" in line, line
        proc.send_signal(signal.SIGINT)
        rest = proc.stderr.read()
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, rest
    assert "parley: recovery cancelled after " in rest and "of 20000 frames; nothing was written" in rest, rest
    assert "Traceback" not in rest and not out.exists() and journal.read_bytes() == before
    assert not list(tmp_path.glob("*.tmp*")) and not list(tmp_path.glob(".*"))
