"""The layer plugin (tests/layers.py) on a small suite of its own, run in-process by pytester.

The suite's fixtures only carry the names the plugin reads (they load nothing):
the checks are the order the layers run in, the stop after a failing layer,
each layer's line in the summary and the guard against a process started
outside the subprocess layer.
"""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

CONFTEST = """
import pytest
from tests.layers import LayerRun

def pytest_addoption(parser):
    parser.addoption("--layer-stop", action="store_true")

def pytest_configure(config):
    config.pluginmanager.register(LayerRun(config), "tandem-layers")

@pytest.fixture
def small_pair():
    return None

@pytest.fixture
def qtbot():
    return None
"""

SUITE = """
import subprocess
import pytest

def test_window(qtbot, small_pair):
    assert WINDOW_PASSES

def test_model(small_pair):
    pass

def test_pure():
    pass

def test_gui(qtbot):
    pass

@pytest.mark.subprocess
def test_spawn_marked():
    subprocess.run(["true"], check=True)
"""

UNMARKED = """
def test_spawn_unmarked():
    subprocess.run(["true"], check=True)
"""


def _suite(pytester: pytest.Pytester, window_passes: bool, unmarked_spawn: bool) -> None:
    pytester.makeconftest(CONFTEST)
    suite = SUITE.replace("WINDOW_PASSES", str(window_passes)) + (UNMARKED if unmarked_spawn else "")
    pytester.makepyfile(test_suite=suite)


@pytest.mark.subprocess  # the suite's spawning tests start `true`
def test_layers_run_cheapest_first_and_the_summary_times_each(pytester: pytest.Pytester) -> None:
    _suite(pytester, window_passes=True, unmarked_spawn=True)
    result = pytester.runpytest_inprocess("-v", "-p", "no:randomly", "-p", "no:cacheprovider")
    ran = [line.split("::")[1].split()[0] for line in result.outlines if "::test_" in line and "PASSED" in line]
    assert ran[:4] == ["test_pure", "test_gui", "test_model", "test_window"]
    assert "test_spawn_marked" in ran  # the subprocess layer, marked by hand
    result.assert_outcomes(passed=5, failed=1)
    text = result.stdout.str()
    assert "test_spawn_unmarked started a process but is not in the 'subprocess' layer" in text
    for layer, count in (("pure", 2), ("gui", 1), ("model", 1), ("window", 1), ("subprocess", 1)):
        assert any(line.startswith(f"{layer} ") and f"{count:>6} tests" in line for line in result.outlines), layer


def test_a_failing_window_test_stops_the_run_after_the_window_layer(pytester: pytest.Pytester) -> None:
    _suite(pytester, window_passes=False, unmarked_spawn=False)
    result = pytester.runpytest_inprocess("--layer-stop", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, failed=1)  # pure, gui and model ran; the subprocess layer did not
    lines = result.outlines
    assert any(line.startswith("window ") and "1 failed" in line for line in lines), lines
    assert any(line.startswith("gui ") and line.endswith("ok") for line in lines), lines
    assert any("stopped after the window layer failed: subprocess, packaging not run" in line for line in lines)
