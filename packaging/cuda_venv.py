"""Create or update the CUDA build environment for `make package-cuda` (default build/venv-cuda).

    python3 packaging/cuda_venv.py --venv build/venv-cuda --torch 2.13.0 --pyinstaller pyinstaller==6.22.3

A venv of its own, apart from the developer's `.venv` (which keeps its CPU torch). It holds
PyPI's default torch build for Linux x86_64, which is the CUDA one, with its nvidia-* runtime
wheels, plus Parley's dependencies and PyInstaller. pip's cache is used as usual, so a rebuild
downloads nothing it has seen before; nothing is installed when the inputs (this script's
requirements, pyproject.toml, the Python version) are unchanged since the last successful run.

The torch requirement is ``torch===<version>`` (arbitrary equality): it matches the version string
exactly, so a local variant such as ``2.13.0+cpu`` (which pip would otherwise prefer: it sorts
above ``2.13.0``) from a find-links folder or an extra index can never be picked. The result is
checked: ``torch.version.cuda`` must be set, or the script fails.

~3 GB of downloads from PyPI fail now and then part way (a reset connection, a read timeout, a truncated
wheel whose hash then mismatches): pip is run again up to ``PIP_ATTEMPTS`` times, keeping what it
installed. Too little disk is said before anything is downloaded.

Stdlib only: it runs with any Python 3.10+ (the Makefile uses the system ``python3``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAMP_NAME = ".parley-cuda-venv.json"
PIP_ATTEMPTS = 3
PIP_RETRY_WAIT_S = 20
GB = 1_000_000_000
# torch 2.13.0+cu130 with its nvidia-* wheels: 5.2 GB installed, ~3 GB of wheels unpacked from pip's
# temporary folder on the way (measured); the margin is for the rest of the dependencies.
NEEDED_FREE_BYTES = int(9 * GB)


def requirements(torch_version: str, pyinstaller: str) -> list[str]:
    return [f"torch==={torch_version}", "-e", str(ROOT), pyinstaller]


def inputs_digest(reqs: list[str]) -> str:
    h = hashlib.sha256()
    h.update(json.dumps(reqs).encode())
    h.update((ROOT / "pyproject.toml").read_bytes())
    h.update(Path(__file__).read_bytes())
    h.update(sys.version.encode())
    return h.hexdigest()


def venv_python(path: Path) -> Path:
    return path / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


def probe(python: Path) -> dict:
    """What torch the venv holds (None when it has none)."""
    code = ("import json, torch; print(json.dumps({'version': torch.__version__, 'cuda': torch.version.cuda, "
            "'cudnn': torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None}))")
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True)
    return json.loads(done.stdout) if done.returncode == 0 else {}


def free_space_problem(path: Path) -> str | None:
    """Why the install would run out of disk, or None (checked where the venv and pip's downloads go)."""
    existing = next(p for p in (path, *path.parents) if p.exists())
    short = [f"{shutil.disk_usage(p).free / GB:.1f} GB free in {p}" for p in (existing, Path(tempfile.gettempdir()))
             if shutil.disk_usage(p).free < NEEDED_FREE_BYTES]
    return (f"{', '.join(short)}; the CUDA venv needs ~{NEEDED_FREE_BYTES / GB:.0f} GB there (5.2 GB installed, "
            "~3 GB of wheels on the way). Free some space or pass --venv on a larger disk.") if short else None


def pip_install(python: Path, reqs: list[str]) -> None:
    command = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--progress-bar", "off", *reqs]
    for attempt in range(1, PIP_ATTEMPTS + 1):
        print(f"cuda_venv: pip install {' '.join(reqs)} (downloads ~3 GB unless pip's cache has them; "
              f"attempt {attempt} of {PIP_ATTEMPTS})", flush=True)
        code = subprocess.run(command).returncode
        if code == 0:
            return
        if attempt < PIP_ATTEMPTS:
            print(f"cuda_venv: pip failed (exit {code}); trying again in {PIP_RETRY_WAIT_S} s", flush=True)
            time.sleep(PIP_RETRY_WAIT_S)
    sys.exit(f"cuda_venv: pip install failed {PIP_ATTEMPTS} times (last exit {code}); its own error is above. "
             "Check the network and your pip index (pip config list).")


def ensure(path: Path, torch_version: str, pyinstaller: str) -> dict:
    reqs = requirements(torch_version, pyinstaller)
    digest = inputs_digest(reqs)
    stamp = path / STAMP_NAME
    python = venv_python(path)
    if stamp.exists() and python.exists():
        recorded = json.loads(stamp.read_text())
        if recorded.get("inputs") == digest:
            print(f"cuda_venv: {path} is up to date (torch {recorded['torch']['version']}, "
                  f"CUDA {recorded['torch']['cuda']})", flush=True)
            return recorded["torch"]
    started = time.monotonic()
    if not python.exists() and (problem := free_space_problem(path)):
        sys.exit(f"cuda_venv: not enough disk for {path}: {problem}")
    if not python.exists():
        print(f"cuda_venv: creating {path}", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(path)
    stamp.unlink(missing_ok=True)
    pip_install(python, reqs)
    torch_info = probe(python)
    if not torch_info.get("cuda"):
        sys.exit(f"cuda_venv: {path} got torch {torch_info.get('version')!r} without CUDA "
                 f"(torch.version.cuda is {torch_info.get('cuda')!r}); the CUDA bundle needs PyPI's default "
                 "Linux x86_64 wheel. Check that your pip index (pip config list) serves it.")
    if torch_info["version"].split("+")[0] != torch_version:  # e.g. 2.13.0+cu130
        sys.exit(f"cuda_venv: expected torch {torch_version}, {path} holds {torch_info['version']}")
    stamp.write_text(json.dumps({"inputs": digest, "torch": torch_info,
                                 "seconds": round(time.monotonic() - started, 1)}, indent=1))
    print(f"cuda_venv: {path} ready in {time.monotonic() - started:.0f} s: torch {torch_info['version']}, "
          f"CUDA {torch_info['cuda']}, cuDNN {torch_info['cudnn']}", flush=True)
    return torch_info


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=ROOT / "build" / "venv-cuda")
    parser.add_argument("--torch", required=True, help="the torch version (the Makefile's pin)")
    parser.add_argument("--pyinstaller", default="pyinstaller==6.22.3")
    args = parser.parse_args(argv)
    if not (sys.platform.startswith("linux") and os.uname().machine == "x86_64"):
        sys.exit("cuda_venv: the CUDA bundle is built on Linux x86_64 (Windows: see packaging/windows/parley.iss)")
    ensure(args.venv.resolve(), args.torch, args.pyinstaller)
    return 0


if __name__ == "__main__":
    sys.exit(main())
