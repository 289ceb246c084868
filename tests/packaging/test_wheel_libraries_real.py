"""scripts/wheel_libraries.py on the llama-cpp-python wheels that scripts/llama_wheel.sh built and cached here.

Each cached wheel is copied and repacked: afterwards every library is stored once, the names llama_cpp
opens are there, every name a kept library needs that the wheel itself provided is still in it, and
RECORD verifies. The CPU wheel is then installed (pip, offline) into a folder of its own and a
fresh interpreter imports llama_cpp from there, starts the backend and answers with the SmolLM2 model;
then the same folder, laid out as packaging/tandem.spec lays out the bundle's (one file per library,
symlinks for its other names), answers too with one file mapped per library. A GPU wheel's libraries
load only where its driver is: for those the names are checked, not loaded.
Skips, saying why, where no wheel has been built (``scripts/llama_wheel.sh PYTHON`` builds one).
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path, PurePosixPath

import pytest

from app.engine.models.packaged import small_pair_paths
from tests.paths import load_script

wheel_libraries = load_script("wheel_libraries")

CACHE = Path(os.environ.get("TANDEM_CACHE") or Path.home() / ".cache" / "tandem") / "wheels"
# Every test starts readelf (through the repack); the install test also pip and a fresh interpreter.
pytestmark = pytest.mark.subprocess

WHEELS = sorted(CACHE.glob("llama-cpp-python-*/llama_cpp_python-*.whl"))


def _backend(wheel: Path) -> str:
    marker = wheel.parent / "backend.txt"
    return marker.read_text().strip() if marker.is_file() else "cpu"


def _libraries(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as archive:
        return {
            info.filename: archive.read(info)
            for info in archive.infolist()
            if ".so" in PurePosixPath(info.filename).name and archive.read(info)[:4] == b"\x7fELF"
        }


@pytest.fixture(params=WHEELS or [None], ids=[f"{_backend(w)}-{w.parent.name[-12:]}" for w in WHEELS] or ["none"])
def repacked(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, dict[str, bytes], str]:
    """A repacked copy of one cached wheel, the libraries the cached wheel held, and its backend."""
    if request.param is None:
        pytest.skip(f"no llama-cpp-python wheel is cached in {CACHE}: scripts/llama_wheel.sh PYTHON builds one")
    copy = tmp_path / request.param.name
    shutil.copyfile(request.param, copy)
    before = _libraries(copy)
    done = wheel_libraries.repack(copy)
    assert done.size_after <= done.size_before
    return copy, before, _backend(request.param)


def test_each_library_is_stored_once_and_nothing_needed_is_lost(
    repacked: tuple[Path, dict[str, bytes], str], tmp_path: Path
) -> None:
    wheel, before, _ = repacked
    after = _libraries(wheel)
    assert wheel_libraries.record_problems(wheel) == []
    folder = {PurePosixPath(name).name: data for name, data in after.items()}
    assert all(str(PurePosixPath(name).parent) == wheel_libraries.LOADER_FOLDER for name in after), sorted(after)
    assert {"libllama.so", "libggml.so"} <= set(folder)
    provided = {PurePosixPath(name).name for name in before}
    extract = tmp_path / "lib"
    extract.mkdir()
    dynamic = {}
    for name, data in folder.items():
        (extract / name).write_bytes(data)
        dynamic[name] = wheel_libraries.read_dynamic(extract / name)
    needed = {need for entry in dynamic.values() for need in entry.needed}
    assert needed & provided <= set(folder), sorted((needed & provided) - set(folder))
    # Two names of one library only where both are used: one opened by llama_cpp, the other needed.
    opened = {"libllama.so", "libggml.so", "libmtmd.so", "libllava.so"}
    for data in folder.values():
        twins = {other for other, same in folder.items() if same == data}
        assert len(twins) == 1 or (len(twins) == 2 and twins & opened and twins & needed), sorted(twins)


def test_the_repacked_cpu_wheel_installs_and_answers(
    repacked: tuple[Path, dict[str, bytes], str], tmp_path: Path
) -> None:
    wheel, _, backend = repacked
    if backend != "cpu":
        pytest.skip(f"a {backend} wheel loads only where its driver is; its libraries' names are checked instead")
    target, _draft = small_pair_paths()
    if not target.is_file():
        pytest.skip(f"the SmolLM2 model is not installed ({target}): run `python main.py models install-small`")
    site = tmp_path / "site"
    installed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            "--target",
            str(site),
            str(wheel),
        ],
        capture_output=True,
        text=True,
    )
    assert installed.returncode == 0, installed.stderr
    lib = site / "llama_cpp" / "lib"
    where, answer, mapped = _answer(site, target, tmp_path)
    assert Path(where).is_relative_to(site)
    assert answer == "True"
    assert {Path(path).parent for path in mapped} == {lib}

    # The bundle's layout (packaging/tandem.spec): each library one file, another name a symlink to it.
    chosen = wheel_libraries.select_folder(lib, leave_out=re.compile("llava", re.IGNORECASE))  # as the spec does
    for name in chosen.dropped:
        (lib / name).unlink()
    for name, stored in chosen.links.items():
        (lib / name).unlink()
        (lib / name).symlink_to(stored)
    assert chosen.links, "libggml is opened as libggml.so and needed as libggml.so.0"
    _, answer, mapped = _answer(site, target, tmp_path)
    assert answer == "True"
    # One file per library is mapped: ctypes and the dynamic loader reach libggml's one copy.
    assert sorted(Path(path).name for path in mapped) == sorted(chosen.files)


def _answer(site: Path, model: Path, folder: Path) -> tuple[str, str, list[str]]:
    """Where llama_cpp was imported from, whether the model answered, and which llama.cpp files are mapped."""
    script = (
        "import llama_cpp, sys; import llama_cpp._ggml, llama_cpp.mtmd_cpp; llama_cpp.llama_backend_init();"
        "print(llama_cpp.__file__);"
        "m = llama_cpp.Llama(sys.argv[1], n_ctx=128, verbose=False);"
        "print(m('The capital of France is', max_tokens=4)['choices'][0]['text'] != '');"
        "print(sorted({l.split()[-1] for l in open('/proc/self/maps') if '/llama_cpp/lib/' in l}))"
    )
    ran = subprocess.run(
        [sys.executable, "-c", script, str(model)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(site)},
        cwd=folder,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    where, answer, mapped = ran.stdout.splitlines()[-3:]
    return where, answer, ast.literal_eval(mapped)
