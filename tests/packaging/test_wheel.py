"""Build the wheel, install it (not editable) into a fresh virtual environment, and run Tandem from there.

What this catches: a wheel that leaves out the resources (catalog, icons,
bench prompts) or a package, code that finds its files through the source
tree rather than the installed copy, and a broken ``tandem`` or
``python -m app`` entry point.

Cost: the dependencies are not installed again. The fresh environment sees
the running interpreter's site-packages through one path line in a ``.pth``
file; a folder named that way is only put on ``sys.path``, its own ``.pth``
files are not run, so the editable install's import hook there (which would
map ``app`` to the source tree) stays out. ``pip install --no-deps`` then puts
only the wheel into the new environment's own site-packages, which comes
first on ``sys.path``. The first build fetches setuptools into pip's cache;
after that the module takes some 15 seconds plus the self-test.

Every command runs with its working folder outside the checkout and without
PYTHONPATH, and one test checks that ``app`` and the resources are imported
from the new environment.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from dataclasses import dataclass
from pathlib import Path

import pytest

from app.engine.models.packaged import small_pair_paths
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
# What setuptools reads to build the wheel; the rest of the checkout (tests, docs, .git) is left behind.
BUILD_INPUTS = ("pyproject.toml", "setup.py", "README.md", "app", "resources")


@dataclass(frozen=True)
class Installed:
    """A virtual environment with the wheel installed, and where to run commands from."""

    python: Path
    tandem: Path
    prefix: Path
    workdir: Path
    env: dict[str, str]

    def run(self, *argv: str | Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """Run a command there; its output is captured as text."""
        return subprocess.run(
            [str(a) for a in argv],
            cwd=self.workdir,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )


def build_wheel(out: Path) -> Path:
    """The wheel built from a copy of the build inputs (an in-tree build would leave build/ in the checkout)."""
    source = out / "source"
    source.mkdir(parents=True)
    for name in BUILD_INPUTS:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(path, source / name)
    wheels = out / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(wheels), str(source)],
        check=True,
        timeout=600,
    )
    (wheel,) = wheels.glob("tandem_chat-*.whl")  # the distribution's name, normalised as wheels spell it
    return wheel


def site_packages(prefix: Path) -> Path:
    """The pure-Python site-packages of the virtual environment at ``prefix``."""
    return Path(sysconfig.get_path("purelib", vars={"base": str(prefix), "platbase": str(prefix)}))


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The wheel installed into a new environment that borrows this one's dependencies."""
    base = tmp_path_factory.mktemp("wheel")
    wheel = build_wheel(base)
    prefix = base / "venv"
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt").create(prefix)
    own = site_packages(prefix)
    borrowed = Path(sysconfig.get_path("purelib"))  # this interpreter's venv (sys.prefix), wherever it is
    assert own != borrowed
    (own / "tandem-deps.pth").write_text(f"{borrowed}\n", encoding="utf-8")
    scripts = Path(sysconfig.get_path("scripts", vars={"base": str(prefix), "platbase": str(prefix)}))
    python = scripts / ("python.exe" if os.name == "nt" else "python")
    workdir = base / "cwd"
    workdir.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["TANDEM_DATA_DIR"] = str(base / "data")
    # pip itself comes from the borrowed site-packages; --ignore-installed so that the
    # editable tandem it can see there is neither taken for this install nor touched.
    subprocess.run(
        [python, "-m", "pip", "install", "--no-deps", "--no-index", "--ignore-installed", "--quiet", wheel],
        cwd=workdir,
        env=env,
        check=True,
        timeout=300,
    )
    tandem = scripts / ("tandem.exe" if os.name == "nt" else "tandem")
    return Installed(python=python, tandem=tandem, prefix=prefix, workdir=workdir, env=env)


def test_the_installed_copy_is_what_runs(installed: Installed) -> None:
    probe = (
        "import app, importlib.metadata, tandem_resources\n"
        "from app.engine.paths import resources_dir\n"
        "print(app.__file__); print(tandem_resources.__file__); print(resources_dir()); print(app.version())\n"
        "print(importlib.metadata.metadata(app.DISTRIBUTION)['Name'])\n"
    )
    result = installed.run(installed.python, "-c", probe)
    assert result.returncode == 0, result.stderr
    app_file, resources_file, resources, version, name = result.stdout.splitlines()
    own = site_packages(installed.prefix).resolve()
    for path in (app_file, resources_file, resources):
        assert Path(path).resolve().is_relative_to(own), f"{path} is not in the new environment's {own}"
    assert (Path(resources) / "catalog.json").is_file()
    assert (Path(resources) / "icons" / "tandem-256.png").is_file()
    assert (Path(resources) / "bench_prompts.json").is_file()
    assert not Path(app_file).resolve().is_relative_to(ROOT)
    assert version == __import__("app").__version__
    assert name == "tandem-chat"  # installed under the name that is Tandem's on PyPI, not "tandem"


def test_models_catalog_runs_from_the_wheel(installed: Installed) -> None:
    result = installed.run(installed.tandem, "models", "catalog", "--json")
    assert result.returncode == 0, result.stderr
    shipped = json.loads((ROOT / "resources" / "catalog.json").read_text(encoding="utf-8"))
    listed = [pair["id"] for pair in json.loads(result.stdout)]
    assert listed == [pair["id"] for pair in shipped["pairs"]]
    assert listed


def test_python_dash_m_app_help(installed: Installed) -> None:
    result = installed.run(installed.python, "-m", "app", "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: tandem")
    for command in ("chat", "models", "serve"):
        assert command in result.stdout


def test_selftest_runs_from_the_wheel(installed: Installed, models_folder: Path) -> None:
    target, draft = small_pair_paths(models_folder)
    if not (target.is_file() and draft.is_file()):
        pytest.skip(f"the SmolLM2 pair is not installed in {models_folder}: run `python main.py models install-small`")
    result = installed.run(installed.tandem, "--selftest", "--selftest-target", target, "--selftest-draft", draft)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "selftest failed" not in result.stderr


def test_a_checkout_reads_its_own_resources() -> None:
    # Even where an editable install's import hook maps tandem_resources to another working tree.
    from app.engine.paths import resources_dir

    assert resources_dir() == ROOT / "resources"
