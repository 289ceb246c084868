"""Tandem's name, version and icon, and the About dialog.

The main window, the desktop entry and the frozen bundle all take the name,
version and icon from here so they cannot drift apart. Icons are read from
``resources/icons`` (:func:`app.engine.paths.resources_dir` finds it in a
checkout, an installed wheel or the frozen bundle).
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QSize
from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtWidgets import QMessageBox, QWidget

import app
from app.engine.paths import resources_dir
from app.ui.i18n.words import say_error

APP_NAME = app.APP_NAME
APP_ID = "tandem"  # desktop file and icon theme name (the distribution is app.DISTRIBUTION)
DESCRIPTION = str(
    QT_TRANSLATE_NOOP("Branding", "Offline chat with local GGUF models, with speculative decoding you can see.")
)
ICON_SIZES = (16, 32, 48, 64, 128, 256, 512)


def app_version() -> str:
    """The installed distribution's version, else the source tree's ``app.__version__``."""
    return app.version()


def icon_path(size: int | None = None) -> Path:
    """The PNG of one rendered size, or the SVG master when ``size`` is None."""
    folder = resources_dir() / "icons"
    return folder / ("tandem.svg" if size is None else f"tandem-{size}.png")


@functools.cache
def app_icon() -> QIcon:
    """The application icon with every rendered size (needs a QGuiApplication).

    PNGs are preferred to the SVG because rendering SVG needs the QtSvg image
    plugin, which the bundle leaves out to stay small; the SVG is only a
    fallback for a source tree whose PNGs were not rendered.
    """
    icon = QIcon()
    for size in ICON_SIZES:
        path = icon_path(size)
        if path.is_file():
            icon.addFile(str(path), QSize(size, size))
    if icon.isNull() and icon_path().is_file():
        icon.addFile(str(icon_path()))
    return icon


def window_title(detail: str | None = None) -> str:
    """``"Tandem 0.1.0"``, or ``"<detail> — Tandem 0.1.0"`` for a named chat or file."""
    base = f"{APP_NAME} {app_version()}"
    return f"{detail} — {base}" if detail else base


def apply_branding(application: QGuiApplication) -> None:
    """Name, version, icon and desktop-file id for the running application.

    Call it right after creating the QApplication and before showing a window:
    X11 takes the window class (matched by the desktop entry's StartupWMClass)
    from the application name when the first window is mapped, and Wayland
    compositors find the icon through the desktop-file name.
    """
    application.setApplicationName(APP_NAME)
    application.setApplicationVersion(app_version())
    application.setDesktopFileName(APP_ID)
    # Not setApplicationDisplayName: Qt would append it to every window title.
    application.setWindowIcon(app_icon())


def backend_info() -> str:
    """Which backends the running llama.cpp build has, from ggml's registry ("Vulkan (GPU) and CPU")."""
    from app.engine.memory.hardware import build_backend_words
    from app.ui.i18n.words import say

    return say(build_backend_words())


def llama_build_info() -> str:
    """One line about the llama.cpp build: its version and its backends (or that it has no GPU one)."""
    try:
        import llama_cpp

        return f"llama-cpp-python {llama_cpp.__version__}, {backend_info()}"
    except Exception as exc:  # the dialog must open even when llama.cpp cannot load
        return QCoreApplication.translate("Branding", "llama.cpp unavailable: {error}").format(error=say_error(exc))


def about_text() -> str:
    """The About dialog's body (rich text)."""
    from app.engine.paths import cache_dir, config_dir, data_dir

    return (
        f"<h3>{APP_NAME} {app_version()}</h3>"
        f"<p>{QCoreApplication.translate('Branding', DESCRIPTION)}</p>"
        f"<p>{llama_build_info()}<br>Python {sys.version.split()[0]}</p>"
        + QCoreApplication.translate(
            "Branding",
            "<p>Models and chats are kept in<br><code>{folder}</code><br>"
            "and stay there when the app is reinstalled or removed.<br>"
            "Settings: <code>{config}</code><br>Cache: <code>{cache}</code></p>",
        ).format(folder=data_dir(), config=config_dir(), cache=cache_dir())
    )


def show_about(parent: QWidget | None) -> None:
    """Show the modal About dialog."""
    QMessageBox.about(
        parent, QCoreApplication.translate("Branding", "About {name}").format(name=APP_NAME), about_text()
    )
