"""What a received file may still ask of this machine, refused or bounded: the thread count it
was made with, frames its model cannot replay, voices read from a folder of anything, audio that
decodes to far more than it may be. Each case is a crafted file, against the engine's reader and
`parley` where it reads that file."""

from __future__ import annotations

import json
import os
import struct
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
    SAMPLE_RATE,
    AudioFileError,
    ConversationFileError,
    SamplingConfig,
    open_conversation,
    read_audio,
    record_frames,
    save_conversation,
)
from engine.files import conversation
from engine.files.voices import VOICES_DIR_ENV, VoiceLibrary
from engine.runtime.replay import read_compact, rebuild
from engine.runtime.threads import runnable_threads

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
    cap = runnable_threads()
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
    """A FIFO read while listing the user's voices froze the window. The listing is off the GUI
    thread now (the dialog opens at once and offers them once listed), and it skips the FIFO."""
    import threading

    from tests.test_app_window import Harness
    from tests.test_voices import stored

    folder = tmp_path / "voices"
    stored(VoiceLibrary(folder), "Good", seed=1)
    os.mkfifo(folder / "Pipe.wav")
    monkeypatch.setenv(VOICES_DIR_ENV, str(folder))
    listed_on, voices = [], VoiceLibrary.voices

    def voices_noting_the_thread(library):
        listed_on.append(threading.current_thread())
        return voices(library)

    monkeypatch.setattr(VoiceLibrary, "voices", voices_noting_the_thread)
    harness = Harness(qtbot, tmp_path, lambda *args: app_demo_model)
    try:
        dialog = harness.window.dialogs.open_persona_dialog()
        assert dialog.isVisible()
        qtbot.waitUntil(lambda: "Good" in dialog.personas.voices, timeout=10_000)
        assert "Pipe" not in dialog.personas.voices
        assert listed_on and threading.main_thread() not in listed_on
        assert dialog.voice_combo.findData("Good") >= 0  # offered in the dialog once listed
    finally:
        harness.close()


# ---- 3. decoders bounded by what the result may be -------------------------------------------------

def silent_flac(path: Path, seconds: float, rate: int = 48_000, channels: int = 2) -> Path:
    """A long recording that is small as a file: ``seconds`` of near-silence (a quiet tone every
    second, so that it is a voice's level), written a block at a time."""
    import soundfile

    t = np.arange(rate) / rate
    second = np.repeat((0.2 * np.sin(2 * np.pi * 200 * t))[:, None], channels, axis=1)
    with soundfile.SoundFile(path, "w", rate, channels, format="FLAC", subtype="PCM_16") as f:
        for _ in range(int(seconds)):
            f.write(second)
    return path


def peak_bytes(call) -> tuple[object, int]:
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_importing_a_long_recording_as_a_voice_decodes_only_its_first_30_s(tmp_path):
    """A voice keeps 30 s: 10 minutes of 48 kHz stereo (230 MB decoded) must never be decoded."""
    flac = silent_flac(tmp_path / "long.flac", 600)
    library = VoiceLibrary(tmp_path / "voices")
    voice, peak = peak_bytes(lambda: library.import_file("Long", flac))
    assert voice.seconds == pytest.approx(30.0)
    # Measuring the 30 s kept (their loudness) takes ~55 MB; decoding the whole file took 230 MB more.
    assert peak < 100 * 2**20, peak
    _, decoding = peak_bytes(lambda: read_audio(flac, max_seconds=30, keep_first=True))
    assert decoding < 12 * 2**20, decoding  # 30 s at 24 kHz and a block of 48 kHz stereo: ~6 MB


def test_parley_voices_add_of_a_long_flac_stays_within_a_voices_memory(tmp_path):
    flac = silent_flac(tmp_path / "long.flac", 600)
    env = {**os.environ, "PARLEY_VOICES_DIR": str(tmp_path / "voices"), "HF_HUB_OFFLINE": "1"}
    code = ("import sys; from app.cli.command import main; rc = main(sys.argv[1:]);"
            "print('peak', [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0],"
            " file=sys.stderr); sys.exit(rc)")
    run = subprocess.run([sys.executable, "-c", code, "voices", "add", "Long", str(flac)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "added Long (30.0 s)" in run.stdout, run.stderr
    baseline = subprocess.run([sys.executable, "-c", code, "voices", "--json", "--model", "nowhere"], cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=120)
    added_kb = int(run.stderr.split("peak ")[1].split()[0]) - int(baseline.stderr.split("peak ")[1].split()[0])
    assert added_kb < 100 * 1024, added_kb  # decoding the whole file took 230 MB more than listing


def sparse_wav(path: Path, data_bytes: int, rate: int = 8000) -> Path:
    """A 16-bit mono WAV header claiming ``data_bytes`` of samples, the rest of the file a hole."""
    header = (b"RIFF" + struct.pack("<I", 36 + data_bytes) + b"WAVE"
              + b"fmt " + struct.pack("<IHHIIHH", 16, 1, 1, rate, 2 * rate, 2, 16)
              + b"data" + struct.pack("<I", data_bytes))
    with open(path, "wb") as f:
        f.write(header)
        f.truncate(len(header) + data_bytes)
    return path


def test_a_long_wav_is_refused_from_its_header_without_reading_its_samples(tmp_path):
    wav = sparse_wav(tmp_path / "long.wav", 300 * 2**20)  # 5.5 hours at 8 kHz
    with pytest.raises(AudioFileError, match=r"is 19661 s long; at most 3600 s") as refused:
        peak_bytes(lambda: read_audio(wav))
    _, peak = peak_bytes(lambda: pytest.raises(AudioFileError, read_audio, wav))
    assert "long.wav" in str(refused.value) and peak < 2**20, peak  # the chunk headers, never 300 MB


def test_a_long_wav_keeps_only_what_is_asked_for_and_reads_no_more(tmp_path):
    wav = sparse_wav(tmp_path / "long.wav", 300 * 2**20)
    pcm, peak = peak_bytes(lambda: read_audio(wav, max_seconds=30, keep_first=True))
    assert pcm.shape == (30 * SAMPLE_RATE,) and not pcm.any()
    assert peak < 12 * 2**20, peak


def test_decoding_a_block_at_a_time_gives_the_samples_of_decoding_the_whole(tmp_path):
    import soxr

    rate, seconds = 44_100, 5.3  # several blocks, resampled, two channels averaged
    stereo = np.random.default_rng(1).integers(-20000, 20000, (int(rate * seconds), 2)).astype(np.int16)
    whole = soxr.resample((stereo / 32768.0).astype(np.float32).mean(axis=1, dtype=np.float64).astype(np.float32),
                          rate, SAMPLE_RATE)
    wav = tmp_path / "stereo.wav"
    import wave

    with wave.open(str(wav), "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(stereo.tobytes())
    assert np.array_equal(read_audio(wav), whole)
    import soundfile

    soundfile.write(tmp_path / "stereo.flac", stereo, rate, subtype="PCM_16")
    assert np.array_equal(read_audio(tmp_path / "stereo.flac"), whole)



# ---- 7. a full disk under the journal loses no output -----------------------------------------------

def test_parley_offline_writes_its_outputs_when_the_journal_cannot_be_written(demo_model_dir, tmp_path):
    """A file-size limit stands in for a full disk: the output WAV (38 KB) fits under it, the
    journal (a header and the same samples with their codes) does not."""
    import resource

    from engine import write_wav

    frames = 10
    write_wav(tmp_path / "in.wav", (0.1 * np.sin(np.arange(frames * FRAME_SIZE) / 9)).astype(np.float32))
    wav_bytes = 44 + 2 * frames * FRAME_SIZE
    limit = wav_bytes + 512
    run = subprocess.run(
        [sys.executable, "-m", "app.cli.command", "offline", "--model", str(demo_model_dir), "--device", "cpu",
         "--input", str(tmp_path / "in.wav"), "--output", str(tmp_path / "out.wav"), "--json",
         str(tmp_path / "out.json"), "--journal", str(tmp_path / "talk.journal")],
        cwd=ROOT, env={**os.environ, "HF_HUB_OFFLINE": "1"}, capture_output=True, text=True, timeout=300,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)))
    assert run.returncode == 0, run.stderr
    assert "talk.journal could not be written" in run.stderr and "the outputs were written" in run.stderr
    assert (tmp_path / "out.wav").stat().st_size == wav_bytes and json.loads((tmp_path / "out.json").read_text())
    assert (tmp_path / "talk.journal").stat().st_size <= limit


def test_parley_offline_refuses_an_output_folder_it_cannot_write_before_the_run(tmp_path):
    from engine import write_wav

    write_wav(tmp_path / "in.wav", np.zeros(FRAME_SIZE, np.float32))
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    # A folder that is not there, everywhere; one without write permission where that binds (root
    # writes into any folder, so there only the first is a refusal).
    refused = {tmp_path / "not there" / "out.wav": "does not exist"}
    if os.name != "posix" or os.geteuid() != 0:
        refused[locked / "out.wav"] = "cannot be written"
    for output, why in refused.items():
        run = parley("offline", "--model", "demo", "--device", "cpu", "--input", str(tmp_path / "in.wav"),
                     "--output", str(output))
        assert run.returncode == 2 and why in run.stderr and "ms/frame" not in run.stderr, run.stderr


# ---- 9. what reaches a terminal ------------------------------------------------------------------------

@pytest.mark.skipif(os.name != "posix", reason="file names that are not UTF-8 are POSIX's")
def test_parley_conversations_escapes_control_characters_and_writes_valid_json(tmp_path, capsysbinary):
    from app.cli.command import main
    from tests.test_untrusted_files import GOOD_META, raw_conversation

    folder = tmp_path / "Conversations"
    folder.mkdir()
    meta = {"format": conversation.FORMAT_NAME, **GOOD_META, "model": "demo\u009b2J",
            "transcript": [[3, 0.24, "\u001b]0;pwned\u0007 hello"]]}
    raw_conversation(folder / "conversation 1.parley", json.dumps(meta))  # its title: the assistant's text
    (Path(os.fsdecode(os.fsencode(folder) + b"/bad\xff\x1b[2J.parley"))).write_bytes(b"not a conversation")
    for as_json in (False, True):
        assert main(["conversations", "--folder", str(folder), *(["--json"] if as_json else [])]) == 0
        out = capsysbinary.readouterr().out
        text = out.decode("utf-8")  # valid UTF-8, whatever the names
        assert not any(c in text for c in "\x1b\x07\x9b"), text
        assert "pwned" in text and "\\xff" in text
        if as_json:
            rows = [json.loads(line) for line in text.splitlines()]
            assert out.isascii() and len(rows) == 2
            assert any(row["title"].startswith("\x1b]0;pwned") for row in rows)  # the data, escaped only by JSON


def test_a_full_disk_is_said_plainly_naming_the_file_asked_for(demo_model_dir, tmp_path):
    """A real full disk: a 64 KB tmpfs mounted in a mount namespace of its own (unshare) under the
    output folder. The error names the file asked for (never the temp file the write goes through)
    and what to do, in one line without "run with --verbose"."""
    import shutil

    from engine import write_wav

    disk = tmp_path / "small disk"
    disk.mkdir()
    mount = ["unshare", "-rm", "sh", "-c", 'mount -t tmpfs -o size=64k tmpfs "$1" && shift && exec "$@"', "sh",
             str(disk)]
    if shutil.which("unshare") is None or subprocess.run([*mount, "true"], capture_output=True).returncode != 0:
        pytest.skip("no mount namespace here (unshare -rm) to make a small disk in")
    write_wav(tmp_path / "in.wav", (0.1 * np.sin(np.arange(25 * FRAME_SIZE) / 9)).astype(np.float32))  # 96 KB out
    model = ["--model", str(demo_model_dir), "--device", "cpu"]
    for output, state in ((disk / "out.wav", None), (tmp_path / "out.wav", disk / "talk.parley")):
        run = subprocess.run([*mount, sys.executable, "-m", "app.cli.command", "offline", *model, "--input",
                              str(tmp_path / "in.wav"), "--output", str(output),
                              *(["--save-state", str(state)] if state else [])],
                             cwd=ROOT, env={**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)},
                             capture_output=True, text=True, timeout=300)
        full = state or output
        assert run.returncode == 2, run.stderr
        assert run.stderr.strip() == (f"parley: error: {full} could not be written: the disk is full. Free some space "
                                      "on it, or save somewhere else, and try again"), run.stderr
