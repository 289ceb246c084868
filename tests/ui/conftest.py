"""Fixtures for the GUI tests: windows on a fresh data folder, closed (and their engine thread stopped) afterwards."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.ui.main_window import MainWindow


@pytest.fixture
def make_window(qapp: object, data_dir: Path) -> Iterator[Callable[..., MainWindow]]:
    """Build main windows on the test's own data folder; every one is closed at the end."""
    windows: list[MainWindow] = []

    def make(autoload: bool = False, adaptive: bool = False) -> MainWindow:
        # Adaptive drafting is the app's default, but on the small pair (a draft as big as
        # its target) it turns drafting off at once; most tests need drafts to look at, so
        # they run a fixed draft length unless they ask for the default.
        window = MainWindow(autoload=autoload)
        window.settings_panel.adaptive.setChecked(adaptive)
        window.resize(1280, 800)
        window.show()
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.close()
        assert not window.host.thread.isRunning(), "the engine thread must stop when the window closes"


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
