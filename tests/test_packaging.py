"""The frozen bundle and the Linux installers, end to end (packaging/build.py, packaging/linux/).

One build per session, reused when dist/ is newer than everything it bundles. Each test runs the
frozen program the way a user would: from a temporary HOME, without the project's Python.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUNDLE_BUDGET_BYTES = 1_200_000_000
SELFTEST_TIMEOUT_S = 600  # the first run builds the demo model (~10-30 s here)
BUILD_TIMEOUT_S = 1500  # PyInstaller of torch + PySide6 takes ~3-5 min on 2 busy cores, the installers ~1-2 min
STDERR_FAILURES = ("ImportError", "ModuleNotFoundError", "error while loading shared libraries",
                   "could not find or load", "Traceback", "Aborted", "core dumped")

pytestmark = [
    pytest.mark.bundle,
    pytest.mark.timeout(BUILD_TIMEOUT_S + 2 * SELFTEST_TIMEOUT_S),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="builds and installs the Linux packages"),
]


def _load_build_script():
    spec = importlib.util.spec_from_file_location("parley_packaging_build", ROOT / "packaging" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def packaged() -> dict[str, Path]:
    """dist/parley/ and the installers, built now unless dist/ is up to date."""
    return _load_build_script().main(["--if-stale"])


@pytest.fixture(scope="session")
def demo_cache(tmp_path_factory) -> Path:
    """One PARLEY_CACHE_DIR for every frozen run: the demo model is built by the first one only."""
    return tmp_path_factory.mktemp("parley-cache")


def _user_env(home: Path, cache: Path) -> dict[str, str]:
    """A user's environment: a fresh HOME, no project Python, no settings leaking in from this shell."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("XDG_", "PARLEY_", "PYTHON", "QT_", "HF_", "VIRTUAL_ENV"))}
    env.update(HOME=str(home), PARLEY_CACHE_DIR=str(cache), QT_QPA_PLATFORM="offscreen", PATH="/usr/bin:/bin")
    return env


def _run_selftest(program: Path, home: Path, cache: Path) -> dict:
    result = subprocess.run([str(program), "selftest"], env=_user_env(home, cache), cwd=home,
                            capture_output=True, text=True, timeout=SELFTEST_TIMEOUT_S)
    problems = [word for word in STDERR_FAILURES if word in result.stderr]
    assert not problems, f"{problems} in the frozen program's stderr:\n{result.stderr[-4000:]}"
    lines = result.stdout.splitlines()
    assert len(lines) == 1, f"expected one JSON line on stdout, got {lines!r}\nstderr:\n{result.stderr[-4000:]}"
    report = json.loads(lines[0])
    assert result.returncode == 0 and report["ok"], f"selftest failed: {report}\nstderr:\n{result.stderr[-4000:]}"
    return report


def test_frozen_selftest_and_size(packaged, demo_cache, tmp_path, capsys):
    report = _run_selftest(packaged["executable"], tmp_path, demo_cache)
    assert report["checks"]["model"]["name"] == "demo"
    assert report["checks"]["audio_processing"]["erle_db"] >= 10  # pywebrtc-audio is bundled and initialises
    internal = packaged["bundle"] / "_internal"
    assert (internal / "assets" / "demo_model.json").is_file()  # engine/files/demo.py: Path(__file__).parent.parent
    for recipe in ("demo_stt_model.json", "demo_interpreter_model.json"):  # every model folder's recognition reads them
        assert (internal / "assets" / recipe).is_file()
    assert (internal / "libportaudio.so.2").is_file()
    for language in ("en", "fr", "de", "es"):  # the interface's translations (app/i18n.py), and Qt's own
        assert (internal / "app" / "translations" / f"parley_{language}.qm").is_file()
    assert list(internal.rglob("qtbase_fr.qm"))
    assert not (internal / "moshi").exists() and not (internal / "torch" / "include").exists()
    assert not list(internal.rglob("libcudart*")) and not list(internal.rglob("libcublas*"))
    size = _load_build_script().tree_size(packaged["bundle"])
    with capsys.disabled():
        print(f"\nbundle {packaged['bundle']}: {size / 1e6:.0f} MB (budget {BUNDLE_BUDGET_BYTES / 1e6:.0f} MB)")
    assert size <= BUNDLE_BUDGET_BYTES


def test_tarball_install_run_uninstall(packaged, demo_cache, tmp_path):
    unpacked, home = tmp_path / "download", tmp_path / "home"
    unpacked.mkdir()
    home.mkdir()
    subprocess.run(["tar", "-xzf", str(packaged["tarball"]), "-C", str(unpacked)], check=True)
    (top,) = unpacked.iterdir()
    env = _user_env(home, demo_cache)
    subprocess.run(["sh", str(top / "install.sh")], env=env, check=True, capture_output=True, timeout=300)
    installed = home / ".local" / "opt" / "parley" / "parley"
    assert installed.stat().st_ino == (top / "parley" / "parley").stat().st_ino, "same disk: linked, not copied"
    shutil.rmtree(unpacked)  # the installed copy must not need the archive

    launcher = home / ".local" / "bin" / "parley"
    desktop = home / ".local" / "share" / "applications" / "parley.desktop"
    icon = home / ".local" / "share" / "icons" / "hicolor" / "256x256" / "apps" / "parley.png"
    assert launcher.is_symlink() and desktop.is_file() and icon.is_file()
    assert f'Exec="{home}/.local/opt/parley/parley"' in desktop.read_text()
    _run_selftest(launcher, home, demo_cache)

    kept = home / "Documents" / "Parley" / "Conversations" / "talk.parley"
    kept.parent.mkdir(parents=True)
    kept.write_bytes(b"user data")
    uninstall = home / ".local" / "opt" / "parley" / "uninstall.sh"
    subprocess.run(["sh", str(uninstall)], env=env, check=True, capture_output=True, timeout=60)
    assert not launcher.exists() and not launcher.is_symlink()
    assert not desktop.exists() and not icon.exists()
    assert not (home / ".local" / "opt" / "parley").exists()
    assert kept.read_bytes() == b"user data"
    purge = ["sh", str(ROOT / "packaging" / "linux" / "uninstall.sh"), "--purge"]  # the same script, from the source
    subprocess.run(purge, env=env, check=True, capture_output=True, timeout=60)
    assert not kept.exists()


def test_install_copies_from_another_file_system(tmp_path):
    """Where hard links cannot reach (the archive unpacked on another disk), install.sh copies."""
    shm = Path("/dev/shm")
    if not shm.is_dir() or shm.stat().st_dev == tmp_path.stat().st_dev:
        pytest.skip("needs /dev/shm on a file system of its own")
    unpacked = Path(tempfile.mkdtemp(dir=shm))
    try:
        for source in ("linux/install.sh", "linux/uninstall.sh", "linux/parley.desktop", "parley.png", "parley.svg"):
            shutil.copy(ROOT / "packaging" / source, unpacked)
        (unpacked / "parley").mkdir()
        (unpacked / "parley" / "parley").write_text("#!/bin/sh\necho frozen\n")
        (unpacked / "parley" / "parley").chmod(0o755)
        home = tmp_path / "home"
        home.mkdir()
        done = subprocess.run(["sh", str(unpacked / "install.sh")], env=_user_env(home, tmp_path), capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0 and not done.stderr, done.stderr
    finally:
        shutil.rmtree(unpacked)
    program = home / ".local" / "opt" / "parley" / "parley"
    assert subprocess.run([str(program)], capture_output=True, text=True).stdout == "frozen\n"
    assert not (home / ".local" / "opt" / "parley.new").exists()


def test_deb_contents(packaged):
    if not shutil.which("dpkg-deb"):
        pytest.skip("dpkg-deb is not installed (not a Debian-like system)")
    listing = subprocess.run(["dpkg-deb", "-c", str(packaged["deb"])], check=True, capture_output=True,
                             text=True).stdout
    paths = {line.split()[5].removeprefix(".") for line in listing.splitlines()}
    for expected in ("/opt/parley/parley", "/opt/parley/_internal/libportaudio.so.2",
                     "/opt/parley/_internal/assets/demo_model.json", "/usr/share/applications/parley.desktop",
                     "/usr/share/icons/hicolor/256x256/apps/parley.png"):
        assert expected in paths, f"{expected} missing from the .deb"
    assert "./usr/bin/parley -> /opt/parley/parley" in listing
    fields = subprocess.run(["dpkg-deb", "-f", str(packaged["deb"]), "Package", "Depends"], check=True,
                            capture_output=True, text=True).stdout
    assert "Package: parley" in fields and "libgl1" in fields and "libasound2" in fields
    assert not any(p.startswith("/opt/parley/_internal/moshi") for p in paths)


def test_frozen_say_and_chat_speak_from_the_bundle(packaged, demo_cache, tmp_path):
    """`parley say` (Pocket TTS) and `parley chat` (the speech to text, an OpenAI-compatible server
    through openai/httpx2, the keyring, the voice) run from the bundle: a random-weight Pocket TTS
    model in the released layout, built here with kyutai's package, and a stand-in chat server."""
    pytest.importorskip("pocket_tts")
    import soundfile

    from bench.pocket_reference import VOICE, build
    from engine.pocket_tts.releases import package_dict
    from tests.bad_chat_server import BadServer

    voice_model = tmp_path / "pocket-english"
    build(voice_model, package_dict("english"), eos_bias=1e4)
    env, said = _user_env(tmp_path, demo_cache), tmp_path / "said.wav"
    voice = ["--tts-model", str(voice_model), "--voice", VOICE]

    def frozen(*args: str) -> subprocess.CompletedProcess:
        done = subprocess.run([str(packaged["executable"]), *args], env=env, cwd=tmp_path, capture_output=True,
                              text=True, timeout=SELFTEST_TIMEOUT_S)
        problems = [word for word in STDERR_FAILURES if word in done.stderr]
        assert done.returncode == 0 and not problems, f"{args[0]}: exit {done.returncode}\n{done.stderr[-4000:]}"
        return done

    frozen("say", "--model", str(voice_model), "--voice", VOICE, "--text", "Hello there.", "--output", str(said))
    audio, rate = soundfile.read(said)
    assert rate == 24000 and audio.size > 0 and abs(audio).max() > 0
    with BadServer("ok") as server:
        frozen("chat", "--llm", server.url, "--llm-model", "m", "--stt-model", "demo-stt", "--device", "cpu",
               *voice, "--input", str(ROOT / "assets" / "hello_24k.wav"), "--output", str(tmp_path / "answer.wav"),
               "--json", str(tmp_path / "turns.json"))
    (turn,) = json.loads((tmp_path / "turns.json").read_text())["turns"]
    assert turn["error"] is None and turn["answer"] == "Hello there, my friend." and turn["audio_s"] > 0
