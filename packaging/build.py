"""Build the Parley bundle (PyInstaller onedir) and its Linux installers (.tar.gz, .deb).

    python packaging/build.py               # what `make package` runs: always rebuilds the bundle
    python packaging/build.py --if-stale    # reuse dist/ when it is newer than everything it bundles
    build/venv-cuda/bin/python packaging/build.py --variant cuda   # what `make package-cuda` runs

Outputs in dist/, CPU variant: parley/ (the bundle), parley-<version>-linux-<arch>.tar.gz,
parley_<version>_<debarch>.deb, built from this environment, which must hold a CPU-only torch.
CUDA variant (from an environment with PyPI's CUDA torch, see packaging/cuda_venv.py): parley-cuda/,
parley-<version>-linux-<arch>-cuda.tar.gz, parley-cuda_<version>_<debarch>.deb. The two variants
install side by side: `parley` in /opt/parley (or ~/.local/opt/parley), `parley-cuda` in
/opt/parley-cuda (or ~/.local/opt/parley-cuda), no file in common.
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "packaging"
DIST = ROOT / "dist"
WORK = ROOT / "build"
DEB_DEPENDS = ("libgl1, libegl1, libasound2 | libasound2t64, libxkbcommon0, libxkbcommon-x11-0, libfontconfig1, "
               "libfreetype6, libglib2.0-0 | libglib2.0-0t64, libdbus-1-3, libxcb-cursor0, libxcb-icccm4, "
               "libxcb-keysyms1, libxcb-shape0, libxcb-xkb1, fonts-dejavu-core | fonts-freefont-ttf")
DEB_RECOMMENDS = "libasound2-plugins | pipewire-alsa"


class Variant:
    """Names of one variant's outputs; ``name`` is also its command, install folder and .deb package.
    (A plain class: tests load this file without registering it as a module, which dataclasses need.)"""

    def __init__(self, key: str, name: str, label: str, tar_suffix: str) -> None:
        self.key = key  # "cpu" | "cuda"
        self.name = name  # parley | parley-cuda
        self.label = label  # the menu entry's name
        self.tar_suffix = tar_suffix  # after linux-<arch> in the .tar.gz name

    @property
    def bundle(self) -> Path:
        return DIST / self.name

    @property
    def stamp(self) -> Path:  # written after a complete build
        return DIST / f".{self.name}-bundle.stamp"

    @property
    def work(self) -> Path:
        return WORK / ("pyinstaller" if self.key == "cpu" else f"pyinstaller-{self.key}")


CPU = Variant("cpu", "parley", "Parley", "")
CUDA = Variant("cuda", "parley-cuda", "Parley (CUDA)", "-cuda")
VARIANTS = {"cpu": CPU, "cuda": CUDA}


def version() -> str:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return re.search(r'^version\s*=\s*"([^"]+)"', text, re.MULTILINE).group(1)


def executable(variant: Variant = CPU) -> Path:
    return variant.bundle / ("parley.exe" if sys.platform == "win32" else "parley")


def artifacts(variant: Variant = CPU) -> dict[str, Path]:
    arch = platform.machine().lower()
    deb_arch = {"x86_64": "amd64", "aarch64": "arm64"}.get(arch, arch)
    return {"bundle": variant.bundle, "executable": executable(variant),
            "tarball": DIST / f"parley-{version()}-linux-{arch}{variant.tar_suffix}.tar.gz",
            "deb": DIST / f"{variant.name}_{version()}_{deb_arch}.deb"}


def bundle_sources() -> list[Path]:
    """Everything whose change calls for a new bundle: our code, assets, packaging, installed packages."""
    files = [p for d in ("app", "engine") for p in (ROOT / d).rglob("*.py")]
    files += [p for p in (ROOT / "assets").iterdir() if p.is_file()]
    files += list((ROOT / "app" / "translations").glob("*.qm")) + [ROOT / "app" / "widgets" / "tick.svg"]
    files += [PKG / "parley.spec", PKG / "launcher.py", PKG / "parley.png", PKG / "parley.svg", ROOT / "pyproject.toml"]
    files += list((PKG / "hooks").glob("*.py")) + [PKG / "elf_closure.py", PKG / "stub_libs.py"]
    files.append(Path(sysconfig.get_paths()["purelib"]))  # its mtime changes when a package is (un)installed
    return files


def _newest(paths) -> float:
    return max(p.stat().st_mtime for p in paths if p.exists())


def bundle_is_fresh(variant: Variant = CPU) -> bool:
    stamp = variant.stamp
    return executable(variant).exists() and stamp.exists() and stamp.stat().st_mtime > _newest(bundle_sources())


def check_torch(variant: Variant = CPU) -> None:
    import torch

    if variant.key == "cpu" and torch.version.cuda:
        sys.exit(f"build.py: torch here is a CUDA build (CUDA {torch.version.cuda}); the CPU bundle needs a CPU "
                 "torch.\n"
                 "Build from a CPU-only torch environment:\n"
                 "  python3 -m venv build/venv-cpu\n"
                 "  build/venv-cpu/bin/pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu\n"
                 "  make package VENV=build/venv-cpu\n"
                 "For the CUDA bundle: make package-cuda (it makes its own venv, build/venv-cuda).")
    if variant.key == "cuda" and not torch.version.cuda:
        sys.exit(f"build.py: --variant cuda needs a CUDA torch, this environment has {torch.__version__}; "
                 "run make package-cuda (it makes build/venv-cuda)")


def build_bundle(variant: Variant = CPU) -> None:
    check_torch(variant)
    variant.stamp.unlink(missing_ok=True)
    WORK.mkdir(exist_ok=True)
    log = WORK / f"pyinstaller-{variant.key}.log"
    started, started_wall = time.monotonic(), time.time()
    print(f"build.py: PyInstaller -> {variant.bundle} (log: {log})", flush=True)
    with log.open("w") as out:
        rc = subprocess.call([sys.executable, "-m", "PyInstaller", "--noconfirm", "--distpath", str(DIST),
                              "--workpath", str(variant.work), str(PKG / "parley.spec")],
                             cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                             env={**os.environ, "PARLEY_VARIANT": variant.key})
    if rc != 0:
        sys.exit(f"build.py: PyInstaller failed (exit {rc}); last lines of {log}:\n"
                 + "\n".join(log.read_text(errors="replace").splitlines()[-25:]))
    if variant.key == "cuda" and sys.platform.startswith("linux"):
        drop_dangling_links(variant.bundle)
        for soname, saved in _packaging_module("stub_libs").replace_with_stubs(variant.bundle).items():
            print(f"build.py: {soname} replaced by a stand-in (packaging/stub_libs.py), {saved / 1e6:.0f} MB less",
                  flush=True)
        check_elf_closure(variant.bundle)
    variant.stamp.touch()
    os.utime(variant.stamp, (started_wall, started_wall))  # sources edited during the build make it stale
    shutil.rmtree(variant.work)  # PyInstaller's stripped library copies: ~0.9 GB for the CUDA variant
    print(f"build.py: bundle built in {time.monotonic() - started:.0f} s, {tree_size(variant.bundle) / 1e6:.0f} MB",
          flush=True)


def drop_dangling_links(bundle: Path) -> None:
    """Remove links left pointing at pruned libraries (PyInstaller adds some top-folder links of
    its own after the spec's pruning, e.g. libcusolver.so.12)."""
    for link in [p for p in bundle.rglob("*") if p.is_symlink() and not p.exists()]:
        print(f"build.py: removing the link {link.relative_to(bundle)} to a pruned library", flush=True)
        link.unlink()


def _packaging_module(name: str):
    """A module of packaging/ (not a package: build.py runs as a script from any environment)."""
    sys.path.insert(0, str(PKG))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(PKG))


def check_elf_closure(bundle: Path) -> None:
    """Fail the build when a library torch's CUDA side needs is missing from the bundle (see elf_closure.py)."""
    report = _packaging_module("elf_closure").check_bundle(bundle)
    if report.unresolved:
        sys.exit("build.py: the CUDA bundle misses libraries its torch needs (pruned too much?):\n"
                 + "\n".join(f"  {lib} needs {name}" for lib, name in report.unresolved))
    print(f"build.py: DT_NEEDED closure of {len(report.checked)} torch/CUDA libraries resolves in the bundle "
          f"(outside it: {', '.join(sorted(report.system))})", flush=True)


def tree_size(path: Path) -> int:
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def _stage_bundle(target: Path, variant: Variant) -> None:
    """Copy the bundle into a staging tree; hard links when possible (fast, no extra disk)."""

    def link_or_copy(src, dst):
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    shutil.copytree(variant.bundle, target, symlinks=True, copy_function=link_or_copy)


def _fresh_stage(name: str, variant: Variant) -> Path:
    stage = WORK / "installers" / variant.name / name
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir(parents=True)
    return stage


def _install_files(variant: Variant) -> dict[str, bytes]:
    """The desktop entry and icons, named after the variant (parley.desktop / parley-cuda.desktop, ...)."""
    desktop = (PKG / "linux" / "parley.desktop").read_text(encoding="utf-8")
    if variant is not CPU:
        desktop = (desktop.replace("Name=Parley\n", f"Name={variant.label}\n")
                   .replace("Exec=parley\n", f"Exec={variant.name}\n")
                   .replace("Icon=parley\n", f"Icon={variant.name}\n")
                   .replace("Comment=Local real-time voice assistant",
                            "Comment=Local real-time voice assistant (NVIDIA GPU build)"))
    return {f"{variant.name}.desktop": desktop.encode("utf-8"),
            f"{variant.name}.png": (PKG / "parley.png").read_bytes(),
            f"{variant.name}.svg": (PKG / "parley.svg").read_bytes()}


def _install_script(name: str, variant: Variant) -> str:
    """install.sh / uninstall.sh with the variant's names (the scripts read NAME=parley at the top)."""
    text = (PKG / "linux" / name).read_text(encoding="utf-8")
    marker = "\nname=parley\n"
    assert marker in text, f"{name} must set name=parley on a line of its own"
    return text.replace(marker, f"\nname={variant.name}\n")


def stage_tarball(out: Path, variant: Variant = CPU) -> tuple[Path, list[str]]:
    """(the staged tree, the command that writes ``out`` from it): <top>/{<name>/, install.sh,
    uninstall.sh, <name>.desktop, <name>.png, <name>.svg}; <name> is parley or parley-cuda."""
    top = out.name.removesuffix(".tar.gz")
    stage = _fresh_stage("tarball", variant)
    _stage_bundle(stage / top / variant.name, variant)
    for script in ("install.sh", "uninstall.sh"):
        (stage / top / script).write_text(_install_script(script, variant), encoding="utf-8")
        (stage / top / script).chmod(0o755)
    for name, data in _install_files(variant).items():
        (stage / top / name).write_bytes(data)
    return stage, ["tar", "-czf", "{tmp}", "--owner=0", "--group=0", "-C", str(stage), top]


def stage_deb(out: Path, variant: Variant = CPU) -> tuple[Path, list[str]]:
    """(the staged tree, the command that writes ``out`` from it): /opt/<name>, /usr/bin/<name> ->
    /opt/<name>/parley, the desktop entry and the icons; <name> is parley or parley-cuda, so the two
    packages share no file and install side by side."""
    name = variant.name
    stage = _fresh_stage("deb", variant)
    _stage_bundle(stage / "opt" / name, variant)
    (stage / "usr" / "bin").mkdir(parents=True)
    os.symlink(f"/opt/{name}/parley", stage / "usr" / "bin" / name)
    share = stage / "usr" / "share"
    files = _install_files(variant)
    for file, dest in ((f"{name}.desktop", "applications"), (f"{name}.png", "icons/hicolor/256x256/apps"),
                       (f"{name}.svg", "icons/hicolor/scalable/apps")):
        (share / dest).mkdir(parents=True, exist_ok=True)
        (share / dest / file).write_bytes(files[file])
    (stage / "DEBIAN").mkdir()
    if variant is CPU:
        summary = "local real-time voice assistant"
        extra = " Runs the Moshi-family speech models and a built-in demo model (no download).\n"
    else:
        summary = "local real-time voice assistant (NVIDIA GPU build)"
        extra = (" This build carries the CUDA runtime libraries and runs the 7B Moshi-family\n"
                 " models on an NVIDIA GPU (~16 GB, ~8 GB with int8); it needs only the NVIDIA\n"
                 " driver. Without one it runs on the CPU. Installs beside the parley package\n"
                 " (command: parley-cuda).\n")
    (stage / "DEBIAN" / "control").write_text(
        f"Package: {name}\nVersion: {version()}\nArchitecture: {out.stem.rsplit('_', 1)[1]}\n"
        f"Maintainer: Parley developers <parley@localhost>\nInstalled-Size: {tree_size(stage) // 1024}\n"
        f"Depends: {DEB_DEPENDS}\nRecommends: {DEB_RECOMMENDS}\nSection: sound\nPriority: optional\n"
        f"Description: {summary}\n"
        " Hold a key, talk, and hear the assistant answer in speech, on your own machine.\n"
        f"{extra}", encoding="utf-8")
    # gzip's level 6, as tar's: dpkg-deb's own default (9) takes ~1.5x as long for ~0.5% less.
    return stage, ["dpkg-deb", "--root-owner-group", "-Zgzip", "-z6", "--build", str(stage), "{tmp}"]


def _write(out: Path, command: list[str]) -> None:
    """Run ``command`` writing to a temporary name ({tmp}), then move the result into place. Its scratch
    files go beside the output (dpkg-deb compresses the data member into a temporary file first: 2.2 GB
    for the CUDA package), not to /tmp, which may be a small RAM-backed file system."""
    tmp = out.with_name(out.name + ".part")
    try:
        subprocess.run([str(tmp) if part == "{tmp}" else part for part in command], check=True,
                       stdout=subprocess.DEVNULL, env={**os.environ, "TMPDIR": str(out.parent)})
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    tmp.replace(out)


def build_installers(if_stale: bool, variant: Variant = CPU) -> None:
    if not sys.platform.startswith("linux"):
        print("build.py: installers for Windows/macOS: see packaging/windows and packaging/macos")
        return
    sources = [variant.stamp, *(PKG / "linux").iterdir(), Path(__file__)]
    outputs = artifacts(variant)
    staged = []
    for key, stage in (("tarball", stage_tarball), ("deb", stage_deb)):
        out = outputs[key]
        if key == "deb" and not shutil.which("dpkg-deb"):
            print("build.py: dpkg-deb not found, no .deb (apt-get install dpkg)")
            continue
        if if_stale and out.exists() and out.stat().st_mtime > _newest(sources):
            continue
        staged.append((out, *stage(out, variant)))

    def write(out: Path, command: list[str]) -> None:
        started = time.monotonic()
        _write(out, command)
        print(f"build.py: {out.name} in {time.monotonic() - started:.0f} s, {out.stat().st_size / 1e6:.0f} MB",
              flush=True)

    # Staged before and removed after every archive is written (making or removing a hard link
    # changes the shared file's ctime, which a reading tar takes for a change), compressed side by
    # side in between: each is one single-threaded gzip, so two cores halve the wait.
    try:
        with ThreadPoolExecutor(max_workers=max(1, len(staged))) as pool:
            for done in [pool.submit(write, out, command) for out, _, command in staged]:
                done.result()
    finally:
        for _, stage, _ in staged:
            shutil.rmtree(stage, ignore_errors=True)


def main(argv: list[str] | None = None) -> dict[str, Path]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--if-stale", action="store_true", help="reuse dist/ when it is up to date")
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="cpu",
                        help="cpu (this environment's CPU torch) or cuda (an environment with the CUDA torch)")
    args = parser.parse_args(argv)
    variant = VARIANTS[args.variant]
    if args.if_stale and bundle_is_fresh(variant):
        print(f"build.py: {variant.bundle} is up to date")
    else:
        build_bundle(variant)
    build_installers(args.if_stale, variant)
    return artifacts(variant)


if __name__ == "__main__":
    main()
