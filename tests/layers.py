"""The suite's layers: every test is marked by what it needs, read from what it uses, and run in layer order.

Not a test module. ``tests/conftest.py`` registers :class:`LayerRun`, which
marks each collected test with what it needs (model, gui, subprocess,
packaging, vulkan) and with its layer, one of :data:`ORDER`, and runs the layers in
that order, the cheap ones first. It prints each layer's wall time at the
end; with ``--layer-stop`` (``scripts/test.sh``) the run ends after the first
layer with a failure.

What a test needs is read from two places:

- the fixtures it uses, transitively (``item.fixturenames`` is the closure):
  a model pair, a Qt application, a llama-server, a packaging sandbox;
- the names its code refers to, followed through the test modules' own
  helpers (a test calling ``run_cli`` from ``tests/cli/helpers.py`` starts a
  process because ``run_cli`` refers to :mod:`subprocess`).

A test that starts a process through the app's own code (llama-server, an
MCP server, pip, a build script) is marked by hand, ``@pytest.mark.subprocess``
with a comment saying what it starts: the app is not read.

A test that needs something it was not marked for is caught when it runs:
:class:`SpawnGuard` fails a test outside the ``subprocess`` layer that starts
a process, so a mark missed here shows up as a failure rather than as a slow
test in the fast layer.
"""

from __future__ import annotations

import inspect
import sys
import time
import types
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

# Each layer and what puts a test in it; the texts are the markers' help (pytest --markers).
LAYERS: dict[str, str] = {
    "model": "loads real GGUF model files (the small or the demo pair)",
    "gui": "builds Qt widgets (a QApplication, often a window)",
    "subprocess": "starts another process: main.py, a server, a build, another interpreter",
    "packaging": "builds or checks what ships: wheels, setup scripts, the bundle, the AppImage and .deb",
    "vulkan": "runs on a Vulkan device in the Vulkan build's environment (python -m tests.vulkan.step)",
}

# The layers in the order they run; each test is in exactly one (see layer_of).
ORDER = ("pure", "gui", "model", "window", "subprocess", "packaging", "vulkan")
LAYER_HELP: dict[str, str] = {
    "pure": "layer: no model, Qt, process or packaging (the fast one)",
    "window": "layer: Qt widgets with a loaded model (gui and model)",
}

# Fixtures that put a test in a layer (a fixture that uses one of these counts too: the closure is read).
_FIXTURE_LAYERS: dict[str, str] = {
    "small_pair": "model",
    "demo_pair": "model",
    "models_folder": "model",
    "loaded_window": "model",
    "qapp": "gui",
    "qtbot": "gui",
    "make_window": "gui",
    "cli_process": "subprocess",
    "llama_server_binary": "subprocess",
}

# Modules whose use means starting a process.
_SPAWNING_MODULES = frozenset({"subprocess", "multiprocessing", "asyncio.subprocess"})
_SPAWNING_FUNCTIONS = frozenset(
    {
        "run",
        "Popen",
        "call",
        "check_call",
        "check_output",
        "getoutput",
        "getstatusoutput",
        "Process",
        "Pool",
        "create_subprocess_exec",
        "create_subprocess_shell",
    }
)
_SPAWNING_CALLS = frozenset({"system", "fork", "posix_spawn", "posix_spawnp", "popen", "spawnv", "execv"})
_TEST_ROOT = Path(__file__).resolve().parent


def _defined_in_tests(obj: object) -> bool:
    """True for a function or class written in this test tree (helpers are followed, library code is not)."""
    module = getattr(obj, "__module__", None) or ""
    return module == "tests" or module.startswith("tests.")


def _code_objects(obj: object) -> Iterable[types.CodeType]:
    """The code of a function, of a class's methods, and of everything nested in them."""
    functions: list[object] = []
    if isinstance(obj, type):
        functions.extend(vars(obj).values())
    else:
        functions.append(obj)
    for candidate in functions:
        if isinstance(candidate, (staticmethod, classmethod)):
            candidate = candidate.__func__
        if isinstance(candidate, property):
            candidate = candidate.fget
        code = getattr(inspect.unwrap(candidate), "__code__", None) if callable(candidate) else None
        if not isinstance(code, types.CodeType):
            continue
        stack = [code]
        while stack:
            current = stack.pop()
            yield current
            stack.extend(c for c in current.co_consts if isinstance(c, types.CodeType))


@dataclass
class _Reader:
    """Follows a test's names through the test tree's helpers, remembering what it has read."""

    seen: set[int] = field(default_factory=set)
    cache: dict[int, bool] = field(default_factory=dict)

    def spawns(self, obj: object) -> bool:
        key = id(obj)
        if key in self.cache:
            return self.cache[key]
        if key in self.seen:
            return False  # a cycle: the first visit decides
        self.seen.add(key)
        found = self._spawns(obj)
        self.cache[key] = found
        return found

    def _spawns(self, obj: object) -> bool:
        namespace = getattr(inspect.unwrap(obj), "__globals__", None) if not isinstance(obj, type) else None
        if namespace is None:
            namespace = vars(sys.modules[obj.__module__]) if obj.__module__ in sys.modules else {}
        for code in _code_objects(obj):
            for name in code.co_names:
                value = namespace.get(name)
                if value is None:
                    continue
                if _is_spawner(value, code.co_names):
                    return True
                helper = _defined_in_tests(value) and (inspect.isfunction(value) or isinstance(value, type))
                if helper and self.spawns(value):
                    return True
                if isinstance(value, types.ModuleType) and value.__name__.startswith("tests."):
                    # ``helpers.run_cli(...)``: the attribute names are among co_names too.
                    for attribute in code.co_names:
                        member = getattr(value, attribute, None)
                        if member is not None and _defined_in_tests(member) and self.spawns(member):
                            return True
        return False


def _is_spawner(value: object, names: tuple[str, ...]) -> bool:
    if isinstance(value, types.ModuleType):
        if value.__name__ in _SPAWNING_MODULES:  # subprocess.run, not subprocess.CompletedProcess
            return any(n in _SPAWNING_FUNCTIONS for n in names)
        if value.__name__ == "sys":  # a command line naming this interpreter (an MCP server, a child script)
            return "executable" in names
        return value.__name__ == "os" and any(n in _SPAWNING_CALLS for n in names)
    module = getattr(value, "__module__", None)
    return module in _SPAWNING_MODULES and getattr(value, "__name__", None) in _SPAWNING_FUNCTIONS


_READER = _Reader()


def layer_marks(
    path: Path,
    fixturenames: Iterable[str],
    function: Callable[..., object] | None,
    fixture_functions: Iterable[Callable[..., object]],
) -> set[str]:
    """The layers a test belongs to (none: the pure layer)."""
    marks = {_FIXTURE_LAYERS[name] for name in fixturenames if name in _FIXTURE_LAYERS}
    resolved = path.resolve()
    folder = resolved.relative_to(_TEST_ROOT).parts[0] if resolved.is_relative_to(_TEST_ROOT) else ""
    if folder == "packaging":
        marks.add("packaging")
    if folder == "vulkan":
        marks.add("vulkan")  # the Vulkan build's own run; elsewhere these tests skip
    if folder == "ui":
        marks.add("gui")  # widgets need the QApplication even where a test does not name qapp
    followed = [f for f in (function, *fixture_functions) if f is not None and _defined_in_tests(f)]
    if any(_READER.spawns(f) for f in followed):
        marks.add("subprocess")
    return marks


def layer_of(marks: set[str]) -> str:
    """The one layer a test with these needs runs in."""
    if "vulkan" in marks:
        return "vulkan"
    if "packaging" in marks:
        return "packaging"
    if "subprocess" in marks:
        return "subprocess"
    if "gui" in marks:
        return "window" if "model" in marks else "gui"
    return "model" if "model" in marks else "pure"


# Programs that run briefly as a step of something else, not as a process a test is about: the standard
# library's lookups, which run once and cache what they said (ctypes.util.find_library runs ldconfig while a
# shared library loads; platform runs ``uname -p``), and the window's catalogues compiled by lrelease when a
# .ts is newer than its .qm (app.ui.i18n.catalog, as setup does).
_LOOKUP_MODULES = frozenset({"ctypes.util", "platform", "app.ui.i18n.catalog"})


def _library_lookup() -> bool:
    """True while one of those steps starts its program (not a process the test is about)."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_globals.get("__name__") in _LOOKUP_MODULES:
            return True
        frame = frame.f_back
    return False


class SpawnGuard:
    """Fails a test outside the ``subprocess`` layer that starts a process (an audit hook sees every start).

    Audit hooks cannot be removed, so one hook is installed for the session and
    reads which test is running from :attr:`current`.
    """

    _EVENTS = frozenset({"subprocess.Popen", "os.system", "os.posix_spawn", "os.fork", "os.exec"})

    def __init__(self) -> None:
        self.current: str | None = None  # the running test's id while it may not spawn
        self.spawned: list[str] = []
        sys.addaudithook(self._hook)

    def _hook(self, event: str, args: tuple[object, ...]) -> None:
        if self.current is not None and event in self._EVENTS and not _library_lookup():
            what = args[1] if event == "subprocess.Popen" and len(args) > 1 else args[:1]
            self.spawned.append(f"{event} {what!r}"[:200])

    def check(self, test_id: str) -> str | None:
        """What the test started, as a failure message, or None; resets for the next test."""
        spawned, self.spawned, self.current = self.spawned, [], None
        if not spawned:
            return None
        return (
            f"{test_id} started a process but is not in the 'subprocess' layer: {spawned[0]}. "
            "Mark it @pytest.mark.subprocess (saying what it starts) or use the cli_process fixture."
        )


_LAYER = pytest.StashKey[str]()


@dataclass
class _Clock:
    tests: int = 0
    failed: int = 0
    first_start: float | None = None  # epoch seconds, from the reports (a worker's clock is the same wall clock)
    last_stop: float = 0.0
    seconds: float = 0.0  # the layer's tests' own time, summed over every worker

    def add(self, report: pytest.TestReport) -> None:
        self.first_start = report.start if self.first_start is None else min(self.first_start, report.start)
        self.last_stop = max(self.last_stop, report.stop)
        self.seconds += report.duration
        self.tests += report.when == "teardown"
        self.failed += report.failed

    @property
    def wall(self) -> float:
        return 0.0 if self.first_start is None else self.last_stop - self.first_start


def _layer_scopes(collection: list[str]) -> dict[str, str]:
    """Each test's unit of work for pytest-xdist: a file's run of tests within one layer.

    The collection is in layer order, so a file with tests in two layers forms
    two runs and each is scheduled with its layer. One unit per file keeps its
    module fixtures (a loaded window, a server) on one worker; ``tests/packaging``
    is one unit, because its builds share folders and stamps.
    """
    scopes: dict[str, str] = {}
    previous, runs = "", 0
    for nodeid in collection:
        path = nodeid.split("::", 1)[0]
        unit = "tests/packaging" if path.startswith("tests/packaging/") else path
        if unit != previous:
            runs += 1
            previous = unit
        scopes[nodeid] = f"{unit}#{runs}"
    return scopes


def _layer_scheduler(config: pytest.Config, log: object) -> object:
    """pytest-xdist's scope scheduler over :func:`_layer_scopes`, keeping the layer order."""
    from xdist.scheduler import LoadScopeScheduling

    class LayerScheduling(LoadScopeScheduling):
        _scopes: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self._scopes is None:
                assert self.collection is not None  # set by schedule() before it splits
                self._scopes = _layer_scopes(self.collection)
            return self._scopes.get(nodeid, nodeid)

    # In collection order (the layers' order), not biggest unit first.
    config.option.loadscopereorder = False
    return LayerScheduling(config, log)  # type: ignore[arg-type]


class LayerRun:
    """The pytest plugin: marks, orders and times the layers, and guards the ``subprocess`` mark.

    It works alone and under pytest-xdist (``scripts/test.sh`` runs two workers):
    each worker marks and orders its collection; the scheduler hands out a file's
    run of tests within a layer as one unit, in layer order; the clocks and the
    ``--layer-stop`` decision live where the reports arrive (the only process
    without xdist, the controller with it).
    """

    def __init__(self, config: pytest.Config) -> None:
        self.stop = bool(config.getoption("layer_stop"))
        self.config = config
        self.clocks = {name: _Clock() for name in ORDER}
        self.stopped_after: str | None = None
        self.started = time.time()
        self.guard = SpawnGuard()
        self.layer_of_test: dict[str, str] = {}  # node id -> layer (a report carries every mark, not the layer)
        for name, why in (*LAYERS.items(), *LAYER_HELP.items()):
            config.addinivalue_line("markers", f"{name}: {why}")

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            marks: set[str] = set()
            if isinstance(item, pytest.Function):
                fixture_functions = [
                    definition.func
                    for definitions in item._fixtureinfo.name2fixturedefs.values()
                    for definition in definitions
                ]
                marks = layer_marks(item.path, item.fixturenames, item.obj, fixture_functions)
            # Marked by hand: what a test reaches through the app's code (a server it starts, pip, a build).
            marks |= {mark.name for mark in item.iter_markers() if mark.name in LAYERS}
            layer = layer_of(marks)
            item.stash[_LAYER] = layer
            # The report carries it to the xdist controller, which collects nothing itself.
            item.user_properties.append(("layer", layer))
            self.layer_of_test[item.nodeid] = layer
            for mark in sorted({*marks, layer}):
                item.add_marker(mark)
        # Stable: within a layer the tests keep the order of their files (module fixtures stay shared).
        items.sort(key=lambda item: ORDER.index(item.stash[_LAYER]))

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: object) -> object:
        return _layer_scheduler(config, log)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
        # Without xdist: stop when the next test is in a later layer and this one's layer failed.
        layer = item.stash[_LAYER]
        try:
            return (yield)
        finally:
            ends_layer = nextitem is None or nextitem.stash[_LAYER] != layer
            if self.stop and ends_layer and self.clocks[layer].failed and nextitem is not None:
                self.stopped_after = layer
                item.session.shouldstop = f"the {layer} layer failed; later layers not run (--layer-stop)"

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # A window test is marked gui, model and window: its layer is the one it was sorted into.
        layer = dict(report.user_properties).get("layer") or self.layer_of_test.get(report.nodeid)
        if not isinstance(layer, str) or layer not in self.clocks:
            return
        self.clocks[layer].add(report)
        if self.stop and self.stopped_after is None:
            self._stop_after_failed_layer(layer)

    def _stop_after_failed_layer(self, layer: str) -> None:
        """Under xdist: once a test of a later layer reports, a failed earlier layer ends the run."""
        dsession = self.config.pluginmanager.getplugin("dsession")
        if dsession is None:
            return
        failed = [name for name in ORDER[: ORDER.index(layer)] if self.clocks[name].failed]
        if failed:
            self.stopped_after = failed[0]
            dsession.shouldstop = f"the {failed[0]} layer failed; later layers not run (--layer-stop)"

    def _guarded(self, item: pytest.Item) -> Iterator[None]:
        self.guard.current = None if item.get_closest_marker("subprocess") else item.nodeid
        try:
            result = yield
        finally:
            failure = self.guard.check(item.nodeid)
        if failure is not None:
            pytest.fail(failure, pytrace=False)
        return result

    # A test outside the subprocess layer fails if it (or a fixture it sets up) starts a process.
    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Iterator[None]:
        return (yield from self._guarded(item))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Iterator[None]:
        return (yield from self._guarded(item))

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        ran = [(name, clock) for name, clock in self.clocks.items() if clock.tests]
        if not ran:
            return
        # Wall: from the layer's first test starting to its last ending (layers overlap a little under
        # xdist); in tests: the tests' own time summed over the workers.
        terminalreporter.section("layers (wall time)")
        for name, clock in ran:
            verdict = f"{clock.failed} failed" if clock.failed else "ok"
            terminalreporter.line(
                f"{name:<11}{clock.tests:>6} tests {_minutes(clock.wall)} wall {_minutes(clock.seconds)} in tests"
                f"   {verdict}"
            )
        count = sum(clock.tests for _, clock in ran)
        summed = sum(clock.seconds for _, clock in ran)
        whole = time.time() - self.started
        terminalreporter.line(f"{'all':<11}{count:>6} tests {_minutes(whole)} wall {_minutes(summed)} in tests")
        if self.stopped_after is not None:
            later = ORDER[ORDER.index(self.stopped_after) + 1 :]
            terminalreporter.line(f"stopped after the {self.stopped_after} layer failed: {', '.join(later)} not run")


def _minutes(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes:>4} min {rest:02d} s"
