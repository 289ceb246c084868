"""scripts/wheel_libraries.py on a small wheel made here from system libraries: each library stored once,
under the names something opens or needs, and a RECORD that verifies.

The libraries are real ELF files (libstdc++, which needs libm, and libz, which nothing here needs), copied
under every name of a link chain as a llama-cpp-python wheel stores them.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import zipfile
from pathlib import Path

import pytest

from tests.paths import load_script

wheel_libraries = load_script("wheel_libraries")

_SYSTEM_FOLDERS = (
    "/lib/x86_64-linux-gnu",
    "/usr/lib/x86_64-linux-gnu",
    "/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/lib64",
)


def _system_library(name: str) -> bytes:
    for folder in _SYSTEM_FOLDERS:
        path = Path(folder) / name
        if path.is_file():
            return path.resolve().read_bytes()
    pytest.skip(f"no {name} in {', '.join(_SYSTEM_FOLDERS)} (a Linux system library this test copies)")


def _entry(name: str, data: bytes) -> list[str]:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return [name, f"sha256={digest}", str(len(data))]


def _make_wheel(path: Path, files: dict[str, bytes]) -> Path:
    """A wheel holding ``files`` and a dist-info whose RECORD lists each with its hash and size."""
    info = "llama_cpp_python-0.0.1.dist-info"
    files = {
        **files,
        f"{info}/METADATA": b"Metadata-Version: 2.1\nName: llama_cpp_python\nVersion: 0.0.1\n",
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = io.StringIO()
    csv.writer(record, lineterminator="\n").writerows(
        [*(_entry(n, d) for n, d in files.items()), [f"{info}/RECORD", "", ""]]
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        archive.writestr(f"{info}/RECORD", record.getvalue())
    return path


@pytest.fixture
def wheel(tmp_path: Path) -> Path:
    stdcpp = _system_library("libstdc++.so.6")  # NEEDED: libm.so.6
    libm = _system_library("libm.so.6")
    libz = _system_library("libz.so.1")
    loader = b'_lib_base_name = "stdc++"\n_lib = load_shared_library(_lib_base_name, _base_path)\n'
    return _make_wheel(
        tmp_path / "llama_cpp_python-0.0.1-py3-none-linux_x86_64.whl",
        {
            "llama_cpp/__init__.py": b"",
            "llama_cpp/llama_cpp.py": loader,
            "llama_cpp/lib/libstdc++.so": stdcpp,
            "llama_cpp/lib/libstdc++.so.6": stdcpp,
            "llama_cpp/lib/libm.so": libm,
            "llama_cpp/lib/libm.so.6": libm,
            "llama_cpp/lib/libm.so.6.0.1": libm,
            "llama_cpp/lib/libz.so": libz,
            "llama_cpp/lib/libz.so.1": libz,
            "llama_cpp/lib/libz.so.1.2.13": libz,
            "lib/libm.so.6": libm,  # the top-level copy (site-packages/lib): nothing loads from there
            "include/m.h": b"/* a header stays */\n",
        },
    )


# Starts readelf, which reads each library's SONAME and NEEDED entries.
@pytest.mark.subprocess
def test_each_library_is_stored_once_under_the_names_used(wheel: Path) -> None:
    before = wheel.stat().st_size
    done = wheel_libraries.repack(wheel)
    names = set(zipfile.ZipFile(wheel).namelist())
    libraries = {name for name in names if ".so" in name}
    assert libraries == {
        "llama_cpp/lib/libstdc++.so",  # opened by llama_cpp's loader (lib<base name>.so)
        "llama_cpp/lib/libm.so.6",  # what libstdc++ needs
        "llama_cpp/lib/libz.so.1",  # needed by nothing here: kept once, under its SONAME
    }
    assert {"include/m.h", "llama_cpp/llama_cpp.py"} <= names
    assert set(done.dropped) == {
        "llama_cpp/lib/libstdc++.so.6",
        "llama_cpp/lib/libm.so",
        "llama_cpp/lib/libm.so.6.0.1",
        "llama_cpp/lib/libz.so",
        "llama_cpp/lib/libz.so.1.2.13",
        "lib/libm.so.6",
    }
    assert done.size_before == before and done.size_after == wheel.stat().st_size < before
    assert wheel_libraries.record_problems(wheel) == []
    # Repacking again finds nothing more to drop.
    assert wheel_libraries.repack(wheel).dropped == ()


def test_record_problems_name_what_does_not_match(tmp_path: Path) -> None:
    wheel = _make_wheel(tmp_path / "x-0.0.1-py3-none-any.whl", {"llama_cpp/a.py": b"a = 1\n"})
    assert wheel_libraries.record_problems(wheel) == []
    with zipfile.ZipFile(wheel) as archive:
        entries = {info.filename: archive.read(info) for info in archive.infolist()}
    entries["llama_cpp/a.py"] = b"a = 2\n"  # changed after RECORD was written
    entries["llama_cpp/b.py"] = b""  # never listed
    tampered = tmp_path / "tampered-0.0.1-py3-none-any.whl"
    with zipfile.ZipFile(tampered, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    problems = wheel_libraries.record_problems(tampered)
    assert len(problems) == 2
    assert problems[0].startswith("llama_cpp/a.py: RECORD says") and problems[1] == "llama_cpp/b.py: not in RECORD"


def test_a_library_needed_under_two_names_keeps_both() -> None:
    # libggml.so is opened by llama_cpp and libggml.so.0 is what libllama needs: a zip keeps both as copies,
    # a bundle stores one file and links the other name to it.
    names = {
        "libllama.so": b"L",
        "libllama.so.0": b"L",
        "libggml.so": b"G",
        "libggml.so.0": b"G",
        "libggml.so.0.1": b"G",
    }
    dynamic = {
        b"L": wheel_libraries.Dynamic(soname="libllama.so.0", needed=("libggml.so.0", "libc.so.6")),
        b"G": wheel_libraries.Dynamic(soname="libggml.so.0", needed=("libc.so.6",)),
    }
    chosen = wheel_libraries.select(names, dynamic, opened=["libllama.so", "libggml.so"])
    assert chosen.files == ("libggml.so.0", "libllama.so")
    assert dict(chosen.links) == {"libggml.so": "libggml.so.0"}
    assert chosen.dropped == ("libggml.so.0.1", "libllama.so.0")


def test_the_loader_names_are_read_from_llama_cpps_modules() -> None:
    sources = [
        '_lib_base_name = "llama"\n_lib = load_shared_library(_lib_base_name, _base_path)\n',
        'libggml = ctypes_ext.load_shared_library("ggml", libggml_base_path)\n',
        '_libmtmd_base_name = "mtmd"\n',
    ]
    assert wheel_libraries.loader_names(sources) == {"libllama.so", "libggml.so", "libmtmd.so"}
