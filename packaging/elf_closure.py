"""The DT_NEEDED closure of torch's libraries in a bundle: does every library they need resolve?

    python packaging/elf_closure.py dist/parley-cuda      # prints the closure, exit 1 if a library is missing

Starts from every ELF file under ``_internal/torch`` and ``_internal/nvidia`` (libtorch_cuda.so and its
kin, the CUDA runtime libraries) and follows DT_NEEDED the way the dynamic loader searches: the
object's DT_RPATH (when it has no DT_RUNPATH), the bundle's top folder (``_internal``, where
PyInstaller puts shared libraries; the bootloader exports it in LD_LIBRARY_PATH), then the object's
DT_RUNPATH, with ``$ORIGIN`` expanded. A name found nowhere in the bundle is accepted only when it is
a library every Linux system has (glibc, libgcc_s, libstdc++, zlib) or the NVIDIA driver's
``libcuda.so.1``; anything else is reported as unresolved. Libraries that torch ``dlopen``s by name
(cuDNN's parts, cuSOLVER through libtorch_cuda_linalg.so) are not in DT_NEEDED: the spec's comment
says which of those the bundle drops and why.

Reads ELF64 little-endian files with the standard library only (no readelf, no pyelftools).
"""

from __future__ import annotations

import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path

PT_LOAD, PT_DYNAMIC = 1, 2
DT_NULL, DT_NEEDED, DT_STRTAB, DT_RPATH, DT_RUNPATH = 0, 1, 5, 15, 29

# Outside the bundle: what every glibc system has, and the driver (installed with the NVIDIA driver).
SYSTEM = frozenset({"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1", "libutil.so.1",
                    "ld-linux-x86-64.so.2", "libgcc_s.so.1", "libstdc++.so.6", "libz.so.1"})
DRIVER = frozenset({"libcuda.so.1"})


@dataclass(frozen=True)
class Dynamic:
    needed: tuple[str, ...]
    rpath: tuple[str, ...]
    runpath: tuple[str, ...]


def read_dynamic(path: Path) -> Dynamic | None:
    """DT_NEEDED, DT_RPATH and DT_RUNPATH of an ELF64 LE file; None for anything else (or no dynamic section)."""
    with path.open("rb") as f:
        head = f.read(64)
        if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
            return None
        phoff, = struct.unpack_from("<Q", head, 32)
        phentsize, phnum = struct.unpack_from("<HH", head, 54)
        f.seek(phoff)
        table = f.read(phentsize * phnum)
        loads, dynamic = [], None
        for i in range(phnum):
            p_type, _flags, p_offset, p_vaddr, _paddr, p_filesz = struct.unpack_from("<IIQQQQ", table, i * phentsize)
            if p_type == PT_LOAD:
                loads.append((p_vaddr, p_offset, p_filesz))
            elif p_type == PT_DYNAMIC:
                dynamic = (p_offset, p_filesz)
        if dynamic is None:
            return None
        f.seek(dynamic[0])
        raw = f.read(dynamic[1])
        entries = []
        for off in range(0, len(raw) - 15, 16):
            tag, value = struct.unpack_from("<qQ", raw, off)
            if tag == DT_NULL:
                break
            entries.append((tag, value))
        strtab = next((v for t, v in entries if t == DT_STRTAB), None)
        if strtab is None:
            return None
        base = next((off + strtab - vaddr for vaddr, off, size in loads if vaddr <= strtab < vaddr + size), None)
        if base is None:
            return None

        def string(offset: int) -> str:
            f.seek(base + offset)
            data = b""
            while b"\0" not in data:
                chunk = f.read(256)
                if not chunk:
                    break
                data += chunk
            return data.split(b"\0", 1)[0].decode("utf-8", "replace")

        def paths(tag: int) -> tuple[str, ...]:
            return tuple(p for t, v in entries if t == tag for p in string(v).split(":") if p)

        return Dynamic(tuple(string(v) for t, v in entries if t == DT_NEEDED), paths(DT_RPATH), paths(DT_RUNPATH))


@dataclass
class Report:
    checked: list[Path] = field(default_factory=list)  # every library visited (roots and what they pulled in)
    unresolved: list[tuple[str, str]] = field(default_factory=list)  # (library, needed name)
    system: set[str] = field(default_factory=set)  # names left to the system or the driver
    resolved: dict[tuple[str, str], str] = field(default_factory=dict)  # (library, name) -> path in the bundle


def _expand(entry: str, origin: Path) -> Path:
    return Path(entry.replace("${ORIGIN}", str(origin)).replace("$ORIGIN", str(origin)))


def _search(name: str, lib: Path, dyn: Dynamic, top: Path) -> Path | None:
    origin = lib.parent
    dirs = [] if dyn.runpath else [_expand(p, origin) for p in dyn.rpath]
    dirs.append(top)
    dirs += [_expand(p, origin) for p in dyn.runpath]
    for folder in dirs:
        candidate = folder / name
        if candidate.exists():
            return candidate
    return None


def check_bundle(bundle: Path) -> Report:
    """The closure from the torch and nvidia folders of ``bundle`` (a PyInstaller onedir folder)."""
    top = bundle / "_internal"
    roots = [p for d in ("torch", "nvidia") for p in sorted((top / d).rglob("*.so*")) if p.is_file()]
    report, seen, queue = Report(), set(), list(roots)
    while queue:
        lib = queue.pop()
        real = lib.resolve()
        if real in seen:
            continue
        seen.add(real)
        dyn = read_dynamic(lib)
        if dyn is None:
            continue
        report.checked.append(lib)
        rel = str(lib.relative_to(top)) if lib.is_relative_to(top) else str(lib)
        for name in dyn.needed:
            found = _search(name, lib, dyn, top)
            if found is not None:
                if not found.resolve().is_relative_to(bundle.resolve()):
                    report.unresolved.append((rel, f"{name} (points outside the bundle: {found.resolve()})"))
                    continue
                report.resolved[(rel, name)] = str(found.relative_to(top) if found.is_relative_to(top) else found)
                queue.append(found)
            elif name in SYSTEM or name in DRIVER:
                report.system.add(name)
            else:
                report.unresolved.append((rel, name))
    return report


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.splitlines()[2].strip(), file=sys.stderr)
        return 2
    report = check_bundle(Path(argv[0]))
    for (lib, name), path in sorted(report.resolved.items()):
        print(f"{lib}: {name} -> {path}")
    print(f"{len(report.checked)} libraries; outside the bundle: {', '.join(sorted(report.system))}")
    for lib, name in report.unresolved:
        print(f"UNRESOLVED {lib}: {name}")
    return 1 if report.unresolved else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
