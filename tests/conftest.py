"""Shared fixtures: real model files, and a private data folder per test session.

Model files live in the user's normal models folder (installed by
``scripts/setup.sh``; installed here on demand if missing) so they are
fetched once per machine. Everything else Tandem writes (conversations,
settings, downloads) goes to a temporary data folder that is removed
afterwards, so tests never touch the user's real data.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.layers import LayerRun

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _real_models_dir() -> Path:
    from app.engine.paths import models_dir

    return models_dir()


# A pytest-xdist worker shares the cores with the others: llama.cpp gets its share, not every core
# (its threads spin at each step's barrier, and two processes that each take both cores crawl).
if os.environ.get("PYTEST_XDIST_WORKER"):
    from app.engine.cpu import MAX_THREADS_ENV, usable_cpus

    _workers = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    os.environ.setdefault(MAX_THREADS_ENV, str(max(1, usable_cpus() // _workers)))

_MODELS = _real_models_dir()
_DATA = Path(tempfile.mkdtemp(prefix="tandem-test-data-"))
os.environ["TANDEM_MODELS_DIR"] = str(_MODELS)
os.environ["TANDEM_DATA_DIR"] = str(_DATA)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    shutil.rmtree(_DATA, ignore_errors=True)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--layer-stop", action="store_true", help="end the run after the first layer with a failure (tests/layers.py)"
    )


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(LayerRun(config), "tandem-layers")


@pytest.fixture(scope="session")
def models_folder() -> Path:
    """The folder with the installed model files."""
    return _MODELS


@pytest.fixture(scope="session")
def small_pair() -> tuple[Path, Path]:
    """SmolLM2-135M Q4_1 (target) and its Q4_0 re-quantisation (draft)."""
    from app.engine.models.packaged import install_small_pair

    return install_small_pair(_MODELS)


@pytest.fixture(scope="session")
def demo_pair() -> tuple[Path, Path]:
    """Qwen2.5-Coder 1.5B (target) and 0.5B (draft), Q4_K_M."""
    from app.engine.models.packaged import install_demo_pair

    return install_demo_pair(_MODELS)


@pytest.fixture
def load_timing(monkeypatch: pytest.MonkeyPatch, small_pair: tuple[Path, Path]) -> None:
    """A recorded timing at load, not the machine's: the small pair's draft decodes in a tenth of its target's time.

    What the adaptive controller does with a fresh pair's first reply follows that timing (whether the draft
    model reads the prompt and a draft is measured); on a busy machine the measured one can say anything, so
    the tests that check what is learned take the timing from here.
    """
    from app.engine.llama.model import LlamaModel

    seconds = {small_pair[0]: 0.010, small_pair[1]: 0.001}

    def timed(model: LlamaModel, repeats: int = 3) -> float:
        return seconds[model.path] if repeats > 0 else 0.0

    monkeypatch.setattr(LlamaModel, "one_token_seconds", timed)


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh, empty Tandem data folder for one test."""
    folder = tmp_path / "tandem-data"
    folder.mkdir()
    monkeypatch.setenv("TANDEM_DATA_DIR", str(folder))
    yield folder
