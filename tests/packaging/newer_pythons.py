"""Tandem on Python 3.12 and 3.13 too: the core tests, the wheel test and a short chat, in a cached environment each.

A step of ``.ci/run`` of its own (``python -m tests.packaging.newer_pythons``,
or with versions to run only those: ``... newer_pythons 3.13``), after the
suite, which runs on the interpreter of ``.venv`` (3.11). Not a test module.
For each version X.Y in :data:`VERSIONS` it finds that Python
(``TANDEM_PYTHON3Y``, e.g. ``TANDEM_PYTHON313``, else ``python3.Y`` on PATH,
else pyenv's), keeps a virtual environment with the declared dependencies for
it outside the repository, in the build scripts' cache
(``~/.cache/tandem/venv-py3.Y``; ``TANDEM_PY3Y_VENV`` moves it), and runs the
checks there. An environment is installed again only when the declared
requirements or the interpreter's version change: a stamp file in it records
both. llama-cpp-python is not compiled again for it: its wheel is
version-independent, and the one scripts/llama_wheel.sh built for the suite's
own interpreter is installed (see :func:`reusable_wheel`); the other
dependencies come from PyPI or pip's cache (a few minutes the first time, on
two cores). With the environment in place a version takes a few minutes.

``TANDEM_TEST_PY3Y=0`` skips that version; no such Python on the machine skips
it too, saying so. Exit code 0 when every check passed or was skipped, 1
otherwise. Each version's time is printed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

from app.engine.models.packaged import small_pair_paths
from app.engine.paths import models_dir
from app.engine.remote.llama_server import cache_dir as tools_cache_dir
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
VERSIONS: tuple[tuple[int, int], ...] = ((3, 12), (3, 13))
STAMP_NAME = ".tandem-requirements"


def declared_requirements(root: Path = ROOT) -> list[str]:
    """The dependencies and the ``test`` extra of pyproject.toml: what the environment must hold."""
    with (root / "pyproject.toml").open("rb") as f:
        project = tomllib.load(f)["project"]
    return [*project["dependencies"], *project["optional-dependencies"]["test"]]


def parse_version(text: str) -> tuple[int, int]:
    """``"3.13"`` as ``(3, 13)``; anything else is a usage error."""
    major, dot, minor = text.partition(".")
    if not (dot and major.isdigit() and minor.isdigit()):
        raise SystemExit(f"newer_pythons: a version is written like 3.13, not {text!r}")
    return int(major), int(minor)


@dataclass(frozen=True, slots=True)
class Version:
    """One Python version the step covers, with the names of its environment variables."""

    major: int
    minor: int

    @property
    def dotted(self) -> str:
        return f"{self.major}.{self.minor}"

    @property
    def compact(self) -> str:
        """``313`` for 3.13: how the environment variables name it."""
        return f"{self.major}{self.minor}"

    def interpreter_version(self, python: str | Path) -> str | None:
        """``sys.version`` of that interpreter when it is this version, else ``None`` (as a shim for another)."""
        code = f"import sys; print(sys.version_info[:2] == ({self.major}, {self.minor}), sys.version)"
        try:
            result = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=30, check=False)
        except OSError:
            return None
        answer, _, version = result.stdout.strip().partition(" ")
        return version if result.returncode == 0 and answer == "True" else None

    def find_interpreter(self) -> Path | None:
        """The first working interpreter of this version among the places the module docstring names."""
        candidates: list[str | None] = [
            os.environ.get(f"TANDEM_PYTHON{self.compact}"),
            shutil.which(f"python{self.dotted}"),
        ]
        pyenv_root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
        pattern = f"{self.dotted}*/bin/python{self.dotted}"
        candidates += [str(p) for p in sorted((pyenv_root / "versions").glob(pattern), reverse=True)]
        for candidate in candidates:
            if candidate and self.interpreter_version(candidate):
                return Path(candidate)
        return None

    def venv_path(self) -> Path:
        """Where this version's cached environment lives (with the build scripts' wheels, not the app's cache)."""
        override = os.environ.get(f"TANDEM_PY{self.compact}_VENV")
        return Path(override) if override else tools_cache_dir() / f"venv-py{self.dotted}"

    def skipped_by_env(self) -> bool:
        return os.environ.get(f"TANDEM_TEST_PY{self.compact}") == "0"


def stamp_text(requirements: list[str], version: str) -> str:
    """What the stamp records: a digest of the requirements and the interpreter's version."""
    digest = hashlib.sha256("\n".join([version, *requirements]).encode()).hexdigest()
    return f"{digest}\n"


@dataclass(frozen=True)
class Environment:
    """A cached environment's interpreter, its version and the environment variables to run it with."""

    python: Path
    version: Version
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


def ensure_venv(version: Version, interpreter: Path, prefix: Path) -> Path:
    """The environment's interpreter, installing the requirements first if the stamp is stale."""
    full_version = version.interpreter_version(interpreter)
    assert full_version is not None
    with tempfile.TemporaryDirectory(prefix=f"tandem-py{version.compact}-") as folder:
        # The wheel chosen is part of the stamp: a llama.cpp built with other options is installed again.
        to_install = [reusable_wheel(r, Path(folder)) for r in declared_requirements()]
        wanted = stamp_text(to_install, full_version)
        python = prefix / "bin" / "python"
        stamp = prefix / STAMP_NAME
        if python.is_file() and stamp.is_file() and stamp.read_text() == wanted:
            return python
        if not (python.is_file() and version.interpreter_version(python) == full_version):
            subprocess.run([str(interpreter), "-m", "venv", "--clear", str(prefix)], check=True, timeout=300)
        stamp.unlink(missing_ok=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "--force-reinstall", *to_install], check=True, timeout=3000
        )
    stamp.write_text(wanted)
    return python


def reusable_wheel(requirement: str, folder: Path) -> str:
    """llama-cpp-python as the wheel scripts/setup.sh built for the suite's interpreter, else the requirement.

    Its wheel is tagged py3-none (ctypes bindings, no extension module), so the
    one built for 3.11 serves 3.12 and 3.13 as well; it comes from Tandem's own
    wheel cache (scripts/llama_wheel.sh: built without AMX, which this CI
    machine's CPU reports but cannot run), not pip's, which ignores the build
    options.
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


def check(environment: Environment) -> list[str]:
    """Run the checks in that environment; the failures, each a short text (empty: all passed)."""
    name = f"python{environment.version.dotted}"
    version = environment.version
    failures: list[str] = []
    found = environment.run("-c", "import sys; print(sys.version_info[:2])", timeout=30)
    if found.stdout.strip() != str((version.major, version.minor)):
        failures.append(f"the environment's interpreter is not {version.dotted}: {found.stdout.strip()!r}")
    print(f"{name}: tests/core and tests/packaging/test_wheel.py", flush=True)
    tests = subprocess.run(
        [str(environment.python), *_PYTEST_ARGS], cwd=ROOT, env=environment.env, timeout=1500, check=False
    )
    if tests.returncode != 0:
        failures.append(f"pytest on {version.dotted} exited {tests.returncode}")
    target, draft = small_pair_paths(models_dir())
    if not (target.is_file() and draft.is_file()):
        print(f"{name}: chat skipped, the SmolLM2 pair is not installed in {models_dir()}")
        return failures
    print(f"{name}: a short chat on the small pair", flush=True)
    chat = environment.run(
        "main.py", "chat", "--target", target, "--draft", draft, "--max-tokens", "12", "--json",
        "List three colours.",
        timeout=300,
    )  # fmt: skip
    if chat.returncode != 0:
        failures.append(f"chat on {version.dotted} exited {chat.returncode}: {chat.stderr[-2000:]}")
        return failures
    reply = json.loads(chat.stdout)
    if not reply["text"].strip() or reply["drafter"] not in ("model", "hybrid") or not 0 < len(reply["tokens"]) <= 12:
        failures.append(f"chat on {version.dotted} answered unexpectedly: {chat.stdout[:500]}")
    return failures


def run_version(version: Version) -> list[str]:
    """One version's step: skipped (with a line saying why), or its environment made and checked."""
    name = f"python{version.dotted}"
    if version.skipped_by_env():
        print(f"{name}: skipped (TANDEM_TEST_PY{version.compact}=0)")
        return []
    if sys.version_info[:2] == (version.major, version.minor):
        print(f"{name}: skipped, the suite itself runs on Python {version.dotted}")
        return []
    interpreter = version.find_interpreter()
    if interpreter is None:
        print(
            f"{name}: skipped, no Python {version.dotted} found "
            f"(set TANDEM_PYTHON{version.compact}, or put python{version.dotted} on PATH)"
        )
        return []
    started = time.monotonic()
    python = ensure_venv(version, interpreter, version.venv_path())
    print(f"{name}: environment ready in {time.monotonic() - started:.0f} s", flush=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    failures = check(Environment(python=python, version=version, env=env))
    print(f"{name}: {time.monotonic() - started:.0f} s in all", flush=True)
    return [f"{name}: {failure}" for failure in failures]


def main(argv: list[str]) -> int:
    chosen = [parse_version(a) for a in argv] or list(VERSIONS)
    failures = [f for major, minor in chosen for f in run_version(Version(major, minor))]
    for failure in failures:
        print(f"newer_pythons: FAILED: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
