"""Fixtures for the GUI tests: windows on a fresh data folder, closed (and their engine thread stopped) afterwards.

Two kinds of window: ``make_window`` builds fresh ones for a test that needs a
fresh start (start-up, loading, closing, another data folder or pair);
``window`` hands a test the module's one loaded window (``loaded_window``: the
small pair loaded once per module) after :func:`~tests.ui.helpers.reset_window`
has brought it back to how it stood right after that load.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.core.conversation.chat_settings import ChatSettings
from app.ui.main_window import MainWindow
from tests.ui.helpers import FreshWindow, LoadedWindow, load, pair_choice, reset_window


@pytest.fixture
def make_window(qapp: object, data_dir: Path) -> Iterator[Callable[..., MainWindow]]:
    """Build main windows on the test's own data folder; every one is closed at the end."""
    windows: list[MainWindow] = []

    def make(autoload: bool = False, adaptive: bool = False, greedy: bool = True) -> MainWindow:
        window = _new_window(autoload, adaptive, greedy)
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.close()
        assert not window.host.thread.isRunning(), "the engine thread must stop when the window closes"


def _new_window(autoload: bool = False, adaptive: bool = False, greedy: bool = True) -> MainWindow:
    """A window on the data folder ``TANDEM_DATA_DIR`` names, shown at the tests' size.

    Adaptive drafting is the app's default, but on the small pair (a draft as big as
    its target) it turns drafting off at once; most tests need drafts to look at, so
    they run a fixed draft length unless they ask for the default. Sampling (temperature
    0.8) is the app's default too, but the tests compare replies with earlier ones and
    expect the greedy drafts' accepted, corrected and bonus tokens: their new chats are
    greedy (temperature 0) unless a test asks for the default. Both are the window's
    defaults for every new chat it starts, as the app's are.
    """
    defaults = ChatSettings(adaptive=adaptive)
    if greedy:
        defaults = dataclasses.replace(defaults, temperature=0.0)  # what the panel's Greedy box sets
    window = MainWindow(autoload=autoload, chat_defaults=defaults)
    window.resize(1280, 800)
    window.show()
    return window


@pytest.fixture(scope="module")
def loaded_window(
    qapp: object,
    small_pair: tuple[Path, Path],
    tmp_path_factory: pytest.TempPathFactory,
    request: pytest.FixtureRequest,
) -> Iterator[LoadedWindow]:
    """One window per test module on the module's own data folder, the small pair loaded once (real engine thread).

    Tests take it through ``window``, which resets it first; closed at the module's end.
    """
    folder = tmp_path_factory.mktemp("tandem-data")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TANDEM_DATA_DIR", str(folder))
        window = _new_window()
        try:
            choice = pair_choice(small_pair)
            load(QtBot(request), window, choice)  # pytest-qt's waits, with a bot of the module's own
            yield LoadedWindow(window=window, fresh=FreshWindow.of(window, choice), data_dir=folder)
        finally:
            window.close()
        assert not window.host.thread.isRunning(), "the engine thread must stop when the window closes"


@pytest.fixture
def window(loaded_window: LoadedWindow, qtbot: QtBot, request: pytest.FixtureRequest) -> MainWindow:
    """The module's loaded window, reset to how it stood right after its load (a new, empty chat)."""
    # data_dir would point TANDEM_DATA_DIR elsewhere while this window writes to its own folder.
    assert "data_dir" not in request.fixturenames, "the shared window's data folder is loaded_window.data_dir"
    reset_window(qtbot, loaded_window.window, loaded_window.fresh)
    return loaded_window.window


@pytest.fixture(scope="session", autouse=True)
def english_plurals(qapp: object) -> Iterator[None]:
    """The English catalogue, as the app installs it at start: "1 passage", "2 passages" for the "%n" texts."""
    from PySide6.QtWidgets import QApplication

    from app.ui.i18n.catalog import BUILT, build_catalogue
    from app.ui.i18n.install import Language, install_translators, remove_translators

    assert isinstance(qapp, QApplication)
    for language in BUILT:
        build_catalogue(language)
    translators = install_translators(qapp, Language.ENGLISH)
    yield
    remove_translators(qapp, translators)


@pytest.fixture
def german(qapp: object) -> Iterator[None]:
    """The window in German for one test: Tandem's catalogue and Qt's own, German number marks; English after.

    The catalogues are built when stale, as setup does; installing the German translators makes the
    German locale Qt's default, and taking them out again restores the system's.
    """
    from PySide6.QtWidgets import QApplication

    from app.ui.i18n.catalog import BUILT, build_catalogue
    from app.ui.i18n.install import Language, install_translators, remove_translators

    assert isinstance(qapp, QApplication)
    for language in BUILT:
        build_catalogue(language)
    translators = install_translators(qapp, Language.GERMAN)
    assert len(translators) == 2, "Tandem's German catalogue and Qt's qtbase_de.qm"
    yield
    remove_translators(qapp, translators)
