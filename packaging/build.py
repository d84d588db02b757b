"""Build the Parley bundle (PyInstaller onedir) and its Linux installers (.tar.gz, .deb).

    python packaging/build.py               # what `make package` runs: always rebuilds the bundle
    python packaging/build.py --if-stale    # reuse dist/ when it is newer than everything it bundles

Outputs in dist/: parley/ (the bundle), parley-<version>-linux-<arch>.tar.gz, parley_<version>_<debarch>.deb.
The bundle is built from this environment, which must hold a CPU-only torch (a CUDA torch makes a
3-5 GB bundle; set PARLEY_CUDA_BUNDLE=1 to build one on purpose).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "packaging"
DIST = ROOT / "dist"
WORK = ROOT / "build"
BUNDLE = DIST / "parley"
STAMP = DIST / ".parley-bundle.stamp"  # written after a complete build
DEB_DEPENDS = ("libgl1, libegl1, libasound2 | libasound2t64, libxkbcommon0, libxkbcommon-x11-0, libfontconfig1, "
               "libfreetype6, libglib2.0-0 | libglib2.0-0t64, libdbus-1-3, libxcb-cursor0, libxcb-icccm4, "
               "libxcb-keysyms1, libxcb-shape0, libxcb-xkb1, fonts-dejavu-core | fonts-freefont-ttf")
DEB_RECOMMENDS = "libasound2-plugins | pipewire-alsa"


def version() -> str:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return re.search(r'^version\s*=\s*"([^"]+)"', text, re.MULTILINE).group(1)


def executable() -> Path:
    return BUNDLE / ("parley.exe" if sys.platform == "win32" else "parley")


def artifacts() -> dict[str, Path]:
    arch = platform.machine().lower()
    deb_arch = {"x86_64": "amd64", "aarch64": "arm64"}.get(arch, arch)
    return {"bundle": BUNDLE, "executable": executable(),
            "tarball": DIST / f"parley-{version()}-linux-{arch}.tar.gz",
            "deb": DIST / f"parley_{version()}_{deb_arch}.deb"}


def bundle_sources() -> list[Path]:
    """Everything whose change calls for a new bundle: our code, assets, packaging, installed packages."""
    files = [p for d in ("app", "engine") for p in (ROOT / d).rglob("*.py")]
    files += [p for p in (ROOT / "assets").iterdir() if p.is_file()]
    files += [PKG / "parley.spec", PKG / "launcher.py", PKG / "parley.png", PKG / "parley.svg", ROOT / "pyproject.toml"]
    files += list((PKG / "hooks").glob("*.py"))
    files.append(Path(sysconfig.get_paths()["purelib"]))  # its mtime changes when a package is (un)installed
    return files


def _newest(paths) -> float:
    return max(p.stat().st_mtime for p in paths if p.exists())


def bundle_is_fresh() -> bool:
    return executable().exists() and STAMP.exists() and STAMP.stat().st_mtime > _newest(bundle_sources())


def check_torch() -> None:
    import torch

    if torch.version.cuda and os.environ.get("PARLEY_CUDA_BUNDLE") != "1":
        sys.exit(f"build.py: torch here is a CUDA build (CUDA {torch.version.cuda}); the bundle would weigh 3-5 GB.\n"
                 "Build from a CPU-only torch environment:\n"
                 "  python3 -m venv build/venv-cpu\n"
                 "  build/venv-cpu/bin/pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu\n"
                 "  make package VENV=build/venv-cpu\n"
                 "or set PARLEY_CUDA_BUNDLE=1 to build a CUDA bundle on purpose.")


def build_bundle() -> None:
    check_torch()
    STAMP.unlink(missing_ok=True)
    WORK.mkdir(exist_ok=True)
    log = WORK / "pyinstaller.log"
    started, started_wall = time.monotonic(), time.time()
    print(f"build.py: PyInstaller -> {BUNDLE} (log: {log})", flush=True)
    with log.open("w") as out:
        rc = subprocess.call([sys.executable, "-m", "PyInstaller", "--noconfirm", "--distpath", str(DIST),
                              "--workpath", str(WORK / "pyinstaller"), str(PKG / "parley.spec")],
                             cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    if rc != 0:
        sys.exit(f"build.py: PyInstaller failed (exit {rc}); last lines of {log}:\n"
                 + "\n".join(log.read_text(errors="replace").splitlines()[-25:]))
    STAMP.touch()
    os.utime(STAMP, (started_wall, started_wall))  # sources edited during the build make it stale
    print(f"build.py: bundle built in {time.monotonic() - started:.0f} s, {tree_size(BUNDLE) / 1e6:.0f} MB", flush=True)


def tree_size(path: Path) -> int:
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def _stage_bundle(target: Path) -> None:
    """Copy the bundle into a staging tree; hard links when possible (fast, no extra disk)."""

    def link_or_copy(src, dst):
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    shutil.copytree(BUNDLE, target, symlinks=True, copy_function=link_or_copy)


def _fresh_stage(name: str) -> Path:
    stage = WORK / "installers" / name
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir(parents=True)
    return stage


def build_tarball(out: Path) -> None:
    """parley-<v>-linux-<arch>/{parley/, install.sh, uninstall.sh, parley.desktop, parley.png, parley.svg}."""
    top = out.name.removesuffix(".tar.gz")
    stage = _fresh_stage("tarball")
    _stage_bundle(stage / top / "parley")
    for src in (PKG / "linux" / "install.sh", PKG / "linux" / "uninstall.sh", PKG / "linux" / "parley.desktop",
                PKG / "parley.png", PKG / "parley.svg"):
        shutil.copy2(src, stage / top / src.name)
    _write(out, ["tar", "-czf", "{tmp}", "--owner=0", "--group=0", "-C", str(stage), top])
    shutil.rmtree(stage)


def build_deb(out: Path) -> None:
    """/opt/parley, /usr/bin/parley -> /opt/parley/parley, the desktop entry and the icons."""
    stage = _fresh_stage("deb")
    _stage_bundle(stage / "opt" / "parley")
    (stage / "usr" / "bin").mkdir(parents=True)
    os.symlink("/opt/parley/parley", stage / "usr" / "bin" / "parley")
    share = stage / "usr" / "share"
    for src, dest in ((PKG / "linux" / "parley.desktop", "applications"),
                      (PKG / "parley.png", "icons/hicolor/256x256/apps"),
                      (PKG / "parley.svg", "icons/hicolor/scalable/apps")):
        (share / dest).mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, share / dest / src.name)
    (stage / "DEBIAN").mkdir()
    (stage / "DEBIAN" / "control").write_text(
        f"Package: parley\nVersion: {version()}\nArchitecture: {out.stem.rsplit('_', 1)[1]}\n"
        f"Maintainer: Parley developers <parley@localhost>\nInstalled-Size: {tree_size(stage) // 1024}\n"
        f"Depends: {DEB_DEPENDS}\nRecommends: {DEB_RECOMMENDS}\nSection: sound\nPriority: optional\n"
        "Description: local real-time voice assistant\n"
        " Hold a key, talk, and hear the assistant answer in speech, on your own machine.\n"
        " Runs the Moshi-family speech models and a built-in demo model (no download).\n", encoding="utf-8")
    _write(out, ["dpkg-deb", "--root-owner-group", "-Zgzip", "--build", str(stage), "{tmp}"])
    shutil.rmtree(stage)


def _write(out: Path, command: list[str]) -> None:
    """Run ``command`` writing to a temporary name ({tmp}), then move the result into place."""
    tmp = out.with_name(out.name + ".part")
    subprocess.run([str(tmp) if part == "{tmp}" else part for part in command], check=True, stdout=subprocess.DEVNULL)
    tmp.replace(out)


def build_installers(if_stale: bool) -> None:
    if not sys.platform.startswith("linux"):
        print("build.py: installers for Windows/macOS: see packaging/windows and packaging/macos")
        return
    sources = [STAMP, *(PKG / "linux").iterdir(), Path(__file__)]
    outputs = artifacts()
    for key, build in (("tarball", build_tarball), ("deb", build_deb)):
        out = outputs[key]
        if key == "deb" and not shutil.which("dpkg-deb"):
            print("build.py: dpkg-deb not found, no .deb (apt-get install dpkg)")
            continue
        if if_stale and out.exists() and out.stat().st_mtime > _newest(sources):
            continue
        started = time.monotonic()
        build(out)
        print(f"build.py: {out.name} in {time.monotonic() - started:.0f} s, {out.stat().st_size / 1e6:.0f} MB",
              flush=True)


def main(argv: list[str] | None = None) -> dict[str, Path]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--if-stale", action="store_true", help="reuse dist/ when it is up to date")
    args = parser.parse_args(argv)
    if args.if_stale and bundle_is_fresh():
        print(f"build.py: {BUNDLE} is up to date")
    else:
        build_bundle()
    build_installers(args.if_stale)
    return artifacts()


if __name__ == "__main__":
    main()
