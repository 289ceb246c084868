"""llama-server built on first use (``bench --vs-llama-server``), saying so, through the real build script's contract.

The build script is replaced by a small one that leaves an executable where
``scripts/build_llama_server.sh`` leaves the real binary (the cache folder named after the
installed llama-cpp-python), so these tests take a second instead of ten minutes.
"""

from __future__ import annotations

import importlib.metadata
import stat
from pathlib import Path

import pytest

from app.core.errors import TandemError
from app.engine.remote.llama_server import BUILD_SCRIPT, ensure_binary, find_binary

VERSION = importlib.metadata.version("llama-cpp-python")


def _build_script(folder: Path, body: str) -> Path:
    script = folder / "build.sh"
    script.write_text("#!/bin/bash\n" + body + "\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


@pytest.fixture
def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TANDEM_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("TANDEM_LLAMA_SERVER", raising=False)
    return tmp_path / "cache"


def test_the_build_script_it_runs_is_the_repository_one() -> None:
    assert BUILD_SCRIPT.is_file() and BUILD_SCRIPT.name == "build_llama_server.sh"


@pytest.mark.subprocess  # runs the build script
def test_missing_binary_is_built_once_saying_so_in_one_line(empty_cache: Path, tmp_path: Path) -> None:
    out = f"$TANDEM_CACHE/llama-server-{VERSION}"
    script = _build_script(tmp_path, f'mkdir -p "{out}"; printf "#!/bin/sh\\n" >"{out}/llama-server"; '
                           f'chmod +x "{out}/llama-server"; echo "$TANDEM_VENV" >"$TANDEM_CACHE/venv.txt"')  # fmt: skip
    said: list[str] = []
    assert find_binary() is None
    path = ensure_binary(said.append, script)
    assert path == empty_cache / f"llama-server-{VERSION}" / "llama-server" == find_binary()
    assert len(said) == 1 and "building llama-server" in said[0]
    assert (empty_cache / "venv.txt").read_text().strip()  # told which environment's pip to use
    assert ensure_binary(said.append, script) == path and len(said) == 1  # found: no second build


@pytest.mark.subprocess  # runs the build script
def test_a_failed_build_is_an_error_with_its_last_words(empty_cache: Path, tmp_path: Path) -> None:
    script = _build_script(tmp_path, 'echo "build_llama_server: cmake is needed" >&2; exit 2')
    with pytest.raises(TandemError, match="building llama-server failed: build_llama_server: cmake is needed"):
        ensure_binary(lambda _line: None, script)


def test_no_script_and_a_wrong_override_are_plain_errors(empty_cache: Path, tmp_path: Path, monkeypatch) -> None:
    with pytest.raises(TandemError, match=r"no scripts/build_llama_server\.sh"):
        ensure_binary(lambda _line: None, tmp_path / "absent.sh")
    monkeypatch.setenv("TANDEM_LLAMA_SERVER", str(tmp_path / "nothing"))
    with pytest.raises(TandemError, match="TANDEM_LLAMA_SERVER names"):
        ensure_binary(lambda _line: None, BUILD_SCRIPT)
