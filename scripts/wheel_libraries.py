"""Which names of llama.cpp's shared libraries the loaders use, and a wheel repacked to store each library once.

A wheel is a zip, which holds no symlinks, so a llama-cpp-python wheel stores every library under each
name of the build tree's link chain (``libX.so``, ``libX.so.0``, ``libX.so.0.N.N``), and once more in
the wheel's top-level ``lib/`` (installed as ``site-packages/lib``, which nothing loads from). What
loads them, on Linux:

- llama_cpp's Python modules open ``<package>/lib/lib<name>.so`` by path through ``load_shared_library``
  (``llama``, ``ggml``, ``mtmd``, ``llava``: the base names are read from the wheel's own modules);
- the dynamic loader then opens each ``DT_NEEDED`` name (``libggml.so.0``…) in the same folder
  (the libraries' ``RUNPATH`` is ``$ORIGIN``).

So in llama_cpp's ``lib`` folder the names kept are the opened ones and, followed until nothing new
is named, every name a kept library needs; a library that none of those names reaches (a backend
module that ggml finds by scanning the folder in a ``GGML_BACKEND_DL`` build) keeps its ``SONAME``
name, or its one name. Every other shared library in the wheel is dropped, and ``RECORD`` is written
again for what is left. The ELF dynamic sections are read with ``readelf`` (binutils, which the C
toolchain that compiles the wheel brings). Standard library only: it runs with the interpreter the
wheel is built for.

Usage: ``python wheel_libraries.py WHEEL`` repacks WHEEL in place and says in one line what it did.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

# The folder llama_cpp's loader reads (``pathlib.Path(__file__).parent / "lib"`` in its modules).
LOADER_FOLDER = "llama_cpp/lib"
_ELF_MAGIC = b"\x7fELF"
_SHARED_NAME = re.compile(r"\.so(\.\d+)*$")
# How llama_cpp's modules name what they open: ``_lib_base_name = "llama"`` then
# ``load_shared_library(_lib_base_name, …)``, or ``load_shared_library("ggml", …)``.
_BASE_NAME = re.compile(r"""(?:_base_name\s*=\s*|load_shared_library\(\s*)["']([\w.+-]+)["']""")
_NEEDED = re.compile(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]")
_SONAME = re.compile(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]")


class RepackError(Exception):
    """The wheel cannot be repacked as asked; the message says why in one line."""


@dataclass(frozen=True)
class Dynamic:
    """What an ELF shared library's dynamic section names: its ``SONAME`` and its ``DT_NEEDED`` entries."""

    soname: str | None
    needed: tuple[str, ...]


@dataclass(frozen=True)
class Selection:
    """The names to store for one folder of libraries: ``files`` stored with their bytes, ``links`` as other
    names of a stored file (link name to stored name), ``dropped`` not at all."""

    files: tuple[str, ...]
    links: Mapping[str, str]
    dropped: tuple[str, ...]


@dataclass(frozen=True)
class Repacked:
    """What a repack did to one wheel."""

    size_before: int
    size_after: int
    kept: tuple[str, ...]
    dropped: tuple[str, ...] = field(default=())


def read_dynamic(library: Path) -> Dynamic:
    """The dynamic section of ``library`` as ``readelf -d`` prints it."""
    try:
        shown = subprocess.run(
            ["readelf", "-d", "-W", str(library)],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "LC_ALL": "C"},
        ).stdout
    except FileNotFoundError as error:
        raise RepackError("readelf is missing (apt: binutils)") from error
    except subprocess.CalledProcessError as error:
        raise RepackError(f"readelf cannot read {library.name}: {error.stderr.strip()[:200]}") from error
    soname = _SONAME.search(shown)
    return Dynamic(soname=soname.group(1) if soname else None, needed=tuple(_NEEDED.findall(shown)))


def loader_names(sources: Iterable[str]) -> set[str]:
    """The file names llama_cpp's modules (their ``sources``) open with ``load_shared_library`` on Linux."""
    bases = {base for text in sources for base in _BASE_NAME.findall(text)}
    return {f"lib{base}.so" for base in bases}


def select(names: Mapping[str, bytes], dynamic: Mapping[bytes, Dynamic], opened: Iterable[str]) -> Selection:
    """The names of one folder's libraries to store.

    ``names`` maps each file name to a digest of its bytes (equal digests: copies of one library),
    ``dynamic`` each digest's dynamic section, ``opened`` the names something opens by path.
    """
    by_digest: dict[bytes, list[str]] = {}
    for name, digest in sorted(names.items()):
        by_digest.setdefault(digest, []).append(name)
    wanted: set[str] = set()
    pending = [name for name in opened if name in names]
    while pending:
        name = pending.pop()
        if name in wanted:
            continue
        wanted.add(name)
        pending.extend(needed for needed in dynamic[names[name]].needed if needed in names)
    for digest, copies in by_digest.items():
        if not wanted.intersection(copies):
            soname = dynamic[digest].soname
            wanted.add(soname if soname in copies else min(copies, key=len))
    files: list[str] = []
    links: dict[str, str] = {}
    for digest, copies in by_digest.items():
        kept = sorted(name for name in copies if name in wanted)
        # The SONAME file holds the bytes and the other kept names point at it (a bundle's symlinks).
        soname = dynamic[digest].soname
        stored = soname if soname in kept else kept[0]
        files.append(stored)
        links.update({name: stored for name in kept if name != stored})
    dropped = tuple(sorted(set(names) - wanted))
    return Selection(files=tuple(sorted(files)), links=links, dropped=dropped)


def select_folder(folder: Path, leave_out: re.Pattern[str] | None = None) -> Selection:
    """The selection for an installed llama_cpp ``lib`` folder (beside llama_cpp's modules), leaving out
    every library whose file name ``leave_out`` matches (a symlink counts as a copy)."""
    package = folder.parent
    opened = loader_names(path.read_text(encoding="utf-8") for path in package.glob("*.py"))
    if not opened:
        raise RepackError(f"no load_shared_library call found in {package}")
    names: dict[str, bytes] = {}
    dynamic: dict[bytes, Dynamic] = {}
    for path in sorted(folder.iterdir()):
        data = path.read_bytes() if path.is_file() else b""
        if _is_library(path.name, data[:4]) and not (leave_out and leave_out.search(path.name)):
            digest = hashlib.sha256(data).digest()
            names[path.name] = digest
            if digest not in dynamic:
                dynamic[digest] = read_dynamic(path)
    return select(names, dynamic, opened)


def repack(wheel: Path) -> Repacked:
    """Rewrite ``wheel`` in place so that each shared library in it is stored once (see the module's text)."""
    size_before = wheel.stat().st_size
    with zipfile.ZipFile(wheel) as archive:
        infos = archive.infolist()
        record = _record_name(infos)
        libraries = {info.filename for info in infos if _is_library(info.filename, _head(archive, info))}
        loader = {name for name in libraries if str(PurePosixPath(name).parent) == LOADER_FOLDER}
        if not loader:
            return Repacked(size_before=size_before, size_after=size_before, kept=())
        sources = (
            archive.read(info).decode("utf-8", "replace")
            for info in infos
            if str(PurePosixPath(info.filename).parent) == "llama_cpp" and info.filename.endswith(".py")
        )
        opened = loader_names(sources)
        if not opened:
            raise RepackError("no load_shared_library call found in the wheel's llama_cpp modules")
        names: dict[str, bytes] = {}
        dynamic: dict[bytes, Dynamic] = {}
        with tempfile.TemporaryDirectory() as scratch:
            for member in sorted(loader):
                data = archive.read(member)
                digest = hashlib.sha256(data).digest()
                names[PurePosixPath(member).name] = digest
                if digest not in dynamic:
                    path = Path(scratch) / PurePosixPath(member).name
                    path.write_bytes(data)
                    dynamic[digest] = read_dynamic(path)
        selection = select(names, dynamic, opened)
        # Two names of one library that are both used stay two copies: a zip stores no symlinks.
        kept = {f"{LOADER_FOLDER}/{name}" for name in (*selection.files, *selection.links)}
        dropped = sorted(libraries - kept)
        partial = wheel.with_name(wheel.name + ".partial")
        try:
            _write(archive, [info for info in infos if info.filename not in dropped], record, partial)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
    os.replace(partial, wheel)
    return Repacked(
        size_before=size_before, size_after=wheel.stat().st_size, kept=tuple(sorted(kept)), dropped=tuple(dropped)
    )


def record_problems(wheel: Path) -> list[str]:
    """What in ``wheel``'s RECORD does not match its files (hash, size, listed or not); empty when it verifies."""
    problems: list[str] = []
    with zipfile.ZipFile(wheel) as archive:
        infos = [info for info in archive.infolist() if not info.is_dir()]
        record = _record_name(infos)
        rows = {row[0]: row for row in csv.reader(io.StringIO(archive.read(record).decode("utf-8"))) if row}
        for info in infos:
            row = rows.pop(info.filename, None)
            if row is None:
                problems.append(f"{info.filename}: not in RECORD")
            elif info.filename != record and row[1:] != list(_hash_and_size(archive.read(info))):
                problems.append(f"{info.filename}: RECORD says {row[1:]}")
    problems += [f"{name}: in RECORD but not in the wheel" for name in rows]
    return problems


def _write(archive: zipfile.ZipFile, infos: list[zipfile.ZipInfo], record: str, target: Path) -> None:
    rows: list[list[str]] = []
    with zipfile.ZipFile(target, "w") as out:
        for info in infos:
            if info.filename == record:
                continue
            data = archive.read(info)
            out.writestr(info, data, compress_type=info.compress_type)
            if not info.is_dir():
                rows.append([info.filename, *_hash_and_size(data)])
        rows.append([record, "", ""])
        text = io.StringIO()
        csv.writer(text, lineterminator="\n").writerows(rows)
        record_info = next(info for info in archive.infolist() if info.filename == record)
        out.writestr(record_info, text.getvalue().encode("utf-8"), compress_type=record_info.compress_type)


def _hash_and_size(data: bytes) -> tuple[str, str]:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"sha256={digest}", str(len(data))


def _record_name(infos: Iterable[zipfile.ZipInfo]) -> str:
    records = [info.filename for info in infos if re.fullmatch(r"[^/]+\.dist-info/RECORD", info.filename)]
    if len(records) != 1:
        raise RepackError(f"a wheel has one .dist-info/RECORD; this one has {len(records)}")
    return records[0]


def _head(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    with archive.open(info) as member:
        return member.read(4)


def _is_library(name: str, head: bytes) -> bool:
    return bool(_SHARED_NAME.search(name)) and head == _ELF_MAGIC


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: wheel_libraries.py WHEEL", file=sys.stderr)
        return 2
    wheel = Path(argv[1])
    try:
        done = repack(wheel)
    except (RepackError, OSError, zipfile.BadZipFile) as error:
        print(f"wheel_libraries: {wheel.name} left as built: {error}", file=sys.stderr)
        return 1
    if not done.kept:
        print(f"wheel_libraries: {wheel.name}: no ELF library in {LOADER_FOLDER}, nothing to repack", file=sys.stderr)
        return 0
    if not done.dropped:
        print(f"wheel_libraries: {wheel.name}: each library is stored once already", file=sys.stderr)
        return 0
    names = ", ".join(PurePosixPath(name).name for name in done.kept)
    print(
        f"wheel_libraries: {wheel.name}: {len(done.dropped)} extra copies dropped, kept {names};"
        f" {done.size_before / 1e6:.1f} MB -> {done.size_after / 1e6:.1f} MB",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
