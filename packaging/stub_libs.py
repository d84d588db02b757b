"""Stand-ins, in the CUDA bundle, for two libraries torch links but Parley never calls.

libtorch_cuda.so (and libtorch_python.so) name libnccl.so.2 (communication between GPUs) and
libcusparseLt.so.0 (2:4 structured-sparse matmuls) in DT_NEEDED, so the loader must find them when
torch is imported. Parley runs one model on one GPU with dense weights and calls neither; torch
calls them only from torch.distributed's NCCL backend, torch.cuda.nccl and semi-structured sparse
tensors. The bundle carries a small library with the same soname instead: every function the real
one exports, each returning the library's "invalid usage" / "not supported" status, and its
error-string functions a sentence saying what was left out, so a call that does arrive fails with a
readable error instead of a crash. It saves ~430 MB in the bundle and ~360 MB in the .tar.gz.

Made at package time with the system's C compiler and binutils' nm (the build needs binutils' strip
already); without them the real libraries stay and the build says so. Every symbol a bundled library
imports from a real library must be in its stand-in, or the build fails.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from elf_closure import read_dynamic


@dataclass(frozen=True)
class Stub:
    path: str  # under _internal
    prefixes: tuple[str, ...]  # the library's C API; C++ template instances it also exports are not API
    error_status: int
    string_functions: frozenset[str]  # these return const char*
    left_out: str  # what a caller is told

    @property
    def soname(self) -> str:
        return Path(self.path).name


STUBS = (
    Stub("nvidia/nccl/lib/libnccl.so.2", ("nccl", "pnccl"), 5,  # ncclInvalidUsage
         frozenset({"ncclGetErrorString", "ncclGetLastError", "pncclGetErrorString", "pncclGetLastError"}),
         "NCCL (communication between GPUs) is left out of Parley's CUDA build, which runs on one GPU"),
    Stub("nvidia/cusparselt/lib/libcusparseLt.so.0", ("cusparseLt",), 10,  # CUSPARSE_STATUS_NOT_SUPPORTED
         frozenset({"cusparseLtGetErrorName", "cusparseLtGetErrorString"}),
         "cuSPARSELt (2:4 structured-sparse matmuls) is left out of Parley's CUDA build"),
)


def _symbols(lib: Path, which: str) -> set[str]:
    """Dynamic symbols, ``--defined-only`` (functions: T or W) or ``--undefined-only``."""
    out = subprocess.run(["nm", "-D", which, str(lib)], capture_output=True, text=True, check=True).stdout
    fields = [line.split() for line in out.splitlines()]
    if which == "--undefined-only":
        return {f[-1].split("@")[0] for f in fields if f}
    return {f[2] for f in fields if len(f) == 3 and f[1] in "TW"}


def source(stub: Stub, functions: list[str]) -> str:
    message = stub.left_out.replace('"', r"\"")
    lines = [f"/* Parley's stand-in for {stub.soname}, written by packaging/stub_libs.py. */",
             f'static const char left_out[] = "{message}";']
    for name in functions:
        if name in stub.string_functions:
            lines.append(f"const char *{name}(void) {{ return left_out; }}")
        else:
            lines.append(f"int {name}(void) {{ return {stub.error_status}; }}")
    return "\n".join(lines) + "\n"


def _importers(internal: Path, soname: str) -> list[Path]:
    found = []
    for path in internal.rglob("*.so*"):
        if path.is_file() and not path.is_symlink():
            dynamic = read_dynamic(path)
            if dynamic is not None and soname in dynamic.needed:
                found.append(path)
    return found


def replace_with_stubs(bundle: Path) -> dict[str, int]:
    """Swap each real library in ``bundle`` for its stand-in; returns the bytes saved per soname."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None or shutil.which("nm") is None:
        print("build.py: no C compiler or nm: NCCL and cuSPARSELt stay whole (~430 MB more); "
              "install gcc and binutils", flush=True)
        return {}
    internal = bundle / "_internal"
    saved = {}
    for stub in STUBS:
        real = internal / stub.path
        functions = sorted(name for name in _symbols(real, "--defined-only") if name.startswith(stub.prefixes))
        wanted = set().union(*(_symbols(lib, "--undefined-only") for lib in _importers(internal, stub.soname)))
        missing = (wanted & _symbols(real, "--defined-only")) - set(functions)
        if missing:
            raise SystemExit(f"build.py: the bundle imports {sorted(missing)} from {stub.soname}, which its "
                             "stand-in lacks (see packaging/stub_libs.py)")
        with tempfile.TemporaryDirectory() as scratch:
            c_file, built = Path(scratch) / "stub.c", Path(scratch) / stub.soname
            c_file.write_text(source(stub, functions), encoding="utf-8")
            subprocess.run([compiler, "-shared", "-fPIC", "-O2", f"-Wl,-soname,{stub.soname}", "-o", str(built),
                            str(c_file)], check=True)
            saved[stub.soname] = real.stat().st_size - built.stat().st_size
            shutil.copyfile(built, real)
    return saved
