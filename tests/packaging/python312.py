"""Tandem on Python 3.12 too: the core tests, the wheel test and a short chat, in a cached 3.12 environment.

A step of ``.ci/run`` of its own (``python -m tests.packaging.python312``), after the
suite, which runs on the interpreter of ``.venv`` (3.11). Not a test module. It finds
a Python 3.12 (``TANDEM_PYTHON312``, else ``python3.12`` on PATH, else
pyenv's), keeps a virtual environment with the declared dependencies for it
outside the repository (``~/.cache/tandem/venv-py3.12``; ``TANDEM_PY312_VENV``
moves it) and runs the checks there. The environment is installed again only
when the declared requirements or the interpreter's version change: a stamp
file in it records both. llama-cpp-python is not compiled again for it: its
wheel is version-independent, and the one pip built for the suite's own
interpreter is installed (see :func:`reusable_wheel`); the other dependencies
come from PyPI or pip's cache (about 3 minutes the first time, on two cores).
With the environment in place the step takes a few minutes (the core tests,
the wheel test and a short chat, all on 3.12).

``TANDEM_TEST_PY312=0`` skips it; no Python 3.12 on the machine skips it too,
saying so. Exit code 0 when every check passed or was skipped, 1 otherwise.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from app.engine.models.packaged import small_pair_paths
from app.engine.paths import models_dir
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
VERSION = (3, 12)
STAMP_NAME = ".tandem-requirements"


def declared_requirements(root: Path = ROOT) -> list[str]:
    """The dependencies and the ``test`` extra of pyproject.toml: what the environment must hold."""
    with (root / "pyproject.toml").open("rb") as f:
        project = tomllib.load(f)["project"]
    return [*project["dependencies"], *project["optional-dependencies"]["test"]]


def interpreter_version(python: str | Path) -> str | None:
    """``sys.version`` of that interpreter when it is a 3.12, else ``None`` (a pyenv shim for another version fails)."""
    try:
        result = subprocess.run(
            [str(python), "-c", "import sys; print(sys.version_info[:2] == (3, 12), sys.version)"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except OSError:
        return None
    answer, _, version = result.stdout.strip().partition(" ")
    return version if result.returncode == 0 and answer == "True" else None


def find_python312() -> Path | None:
    """The first working Python 3.12 among the places the module docstring names."""
    candidates: list[str | None] = [os.environ.get("TANDEM_PYTHON312"), shutil.which("python3.12")]
    pyenv_root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates += [str(p) for p in sorted((pyenv_root / "versions").glob("3.12*/bin/python3.12"), reverse=True)]
    for candidate in candidates:
        if candidate and interpreter_version(candidate):
            return Path(candidate)
    return None


def stamp_text(requirements: list[str], version: str) -> str:
    """What the stamp records: a digest of the requirements and the interpreter's version."""
    digest = hashlib.sha256("\n".join([version, *requirements]).encode()).hexdigest()
    return f"{digest}\n"


def venv_path() -> Path:
    """Where the cached 3.12 environment lives."""
    override = os.environ.get("TANDEM_PY312_VENV")
    return Path(override) if override else platformdirs.user_cache_path("tandem", appauthor=False) / "venv-py3.12"


@dataclass(frozen=True)
class Py312:
    """The cached environment's interpreter and the environment variables to run it with."""

    python: Path
    env: dict[str, str]

    def run(self, *argv: str | Path, timeout: float) -> subprocess.CompletedProcess[str]:
        """Run the interpreter from the repository root; output captured."""
        return subprocess.run(
            [str(self.python), *map(str, argv)],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )


def ensure_venv(python312: Path, prefix: Path) -> Path:
    """The environment's interpreter, installing the requirements first if the stamp is stale."""
    version = interpreter_version(python312)
    assert version is not None
    with tempfile.TemporaryDirectory(prefix="tandem-py312-") as folder:
        # The wheel chosen is part of the stamp: a llama.cpp built with other options is installed again.
        to_install = [reusable_wheel(r, Path(folder)) for r in declared_requirements()]
        wanted = stamp_text(to_install, version)
        python = prefix / "bin" / "python"
        stamp = prefix / STAMP_NAME
        if python.is_file() and stamp.is_file() and stamp.read_text() == wanted:
            return python
        if not (python.is_file() and interpreter_version(python) == version):
            subprocess.run([str(python312), "-m", "venv", "--clear", str(prefix)], check=True, timeout=300)
        stamp.unlink(missing_ok=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "--force-reinstall", *to_install], check=True, timeout=3000
        )
    stamp.write_text(wanted)
    return python


def reusable_wheel(requirement: str, folder: Path) -> str:
    """llama-cpp-python as the wheel scripts/setup.sh built for the suite's interpreter, else the requirement.

    Its wheel is tagged py3-none (ctypes bindings, no extension module), so the
    one built for 3.11 serves 3.12 as well; it comes from Tandem's own wheel
    cache (scripts/llama_wheel.sh: built without AMX, which this CI machine's
    CPU reports but cannot run), not pip's, which ignores the build options.
    """
    if not requirement.startswith("llama-cpp-python"):
        return requirement
    built = subprocess.run(
        ["bash", str(ROOT / "scripts" / "llama_wheel.sh"), sys.executable],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=3000,
    )
    wheels = (
        sorted(Path(built.stdout.strip()).glob("llama_cpp_python-*-py3-none-*.whl")) if built.returncode == 0 else []
    )
    return str(wheels[0]) if wheels else requirement


_PYTEST_ARGS = ("-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/core", "tests/packaging/test_wheel.py")


def check(py312: Py312) -> list[str]:
    """Run the checks on 3.12; the failures, each a short text (empty: all passed)."""
    failures: list[str] = []
    version = py312.run("-c", "import sys; print(sys.version_info[:2])", timeout=30)
    if version.stdout.strip() != "(3, 12)":
        failures.append(f"the environment's interpreter is not 3.12: {version.stdout.strip()!r}")
    print("python312: tests/core and tests/packaging/test_wheel.py", flush=True)
    tests = subprocess.run(
        [str(py312.python), *_PYTEST_ARGS],
        cwd=ROOT,
        env=py312.env,
        timeout=1500,
        check=False,
    )
    if tests.returncode != 0:
        failures.append(f"pytest on 3.12 exited {tests.returncode}")
    target, draft = small_pair_paths(models_dir())
    if not (target.is_file() and draft.is_file()):
        print(f"python312: chat skipped, the SmolLM2 pair is not installed in {models_dir()}")
        return failures
    print("python312: a short chat on the small pair", flush=True)
    chat = py312.run(
        "main.py",
        "chat",
        "--target",
        target,
        "--draft",
        draft,
        "--max-tokens",
        "12",
        "--json",
        "List three colours.",
        timeout=300,
    )
    if chat.returncode != 0:
        failures.append(f"chat on 3.12 exited {chat.returncode}: {chat.stderr[-2000:]}")
        return failures
    reply = json.loads(chat.stdout)
    if not reply["text"].strip() or reply["drafter"] not in ("model", "hybrid") or not 0 < len(reply["tokens"]) <= 12:
        failures.append(f"chat on 3.12 answered unexpectedly: {chat.stdout[:500]}")
    return failures


def main() -> int:
    if os.environ.get("TANDEM_TEST_PY312") == "0":
        print("python312: skipped (TANDEM_TEST_PY312=0)")
        return 0
    if sys.version_info[:2] == VERSION:
        print("python312: skipped, the suite itself runs on Python 3.12")
        return 0
    python312 = find_python312()
    if python312 is None:
        print("python312: skipped, no Python 3.12 found (set TANDEM_PYTHON312, or put python3.12 on PATH)")
        return 0
    python = ensure_venv(python312, venv_path())
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    failures = check(Py312(python=python, env=env))
    for failure in failures:
        print(f"python312: FAILED: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
