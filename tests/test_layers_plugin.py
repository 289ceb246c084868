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
    assert any("stopped after the window layer failed: subprocess, packaging, vulkan not run" in line for line in lines)


def test_under_xdist_a_files_tests_in_one_layer_are_one_unit_and_packaging_is_one() -> None:
    from tests.layers import _layer_scopes

    collection = [
        "tests/core/test_a.py::test_pure_1",
        "tests/core/test_a.py::test_pure_2",
        "tests/engine/test_b.py::test_pure",
        "tests/engine/test_b.py::test_model",  # the same file again, in a later layer: its own unit
        "tests/core/test_a.py::test_model",
        "tests/packaging/test_wheel.py::test_one",
        "tests/packaging/test_bundle.py::test_two",
    ]
    scopes = _layer_scopes(collection)
    assert scopes[collection[0]] == scopes[collection[1]]
    assert scopes[collection[1]] != scopes[collection[2]]
    assert scopes[collection[2]] == scopes[collection[3]]  # consecutive: one run of the file
    assert scopes[collection[4]] != scopes[collection[0]]
    assert scopes[collection[5]] == scopes[collection[6]]
    assert len(set(scopes.values())) == 4


@pytest.mark.subprocess  # pytest-xdist starts two worker interpreters
def test_two_workers_report_every_layer_in_the_controllers_summary(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("xdist")
    from tests.paths import REPO_ROOT

    monkeypatch.setenv("PYTHONPATH", str(REPO_ROOT))
    _suite(pytester, window_passes=False, unmarked_spawn=False)
    result = pytester.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(passed=4, failed=1)
    lines = result.outlines
    for layer, count in (("pure", 1), ("gui", 1), ("model", 1), ("subprocess", 1)):
        ok = [line for line in lines if line.startswith(f"{layer} ") and line.endswith("ok")]
        assert ok and f"{count:>6} tests" in ok[0], (layer, lines)
    assert any(line.startswith("window ") and "1 failed" in line for line in lines), lines
    assert any(line.startswith("all ") and "5 tests" in line for line in lines), lines


def test_the_vulkan_folders_tests_are_their_own_last_layer_whatever_else_they_use() -> None:
    from tests.layers import _TEST_ROOT, ORDER, layer_marks, layer_of

    marks = layer_marks(_TEST_ROOT / "vulkan" / "test_x.py", ["small_pair"], None, [])
    assert marks == {"model", "vulkan"}
    assert layer_of(marks | {"subprocess"}) == "vulkan" and ORDER[-1] == "vulkan"
    assert layer_of(layer_marks(_TEST_ROOT / "engine" / "test_x.py", ["small_pair"], None, [])) == "model"
