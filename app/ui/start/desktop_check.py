"""Can a window open here? A display, and the system libraries Qt's X11 (xcb) platform needs.

Without them Qt aborts the process (exit 134) with a message that misleads
(with no display at all it blames xcb-cursor). This check runs before the
application object exists and says in one line what to install, or that the
terminal chat works without a display. It imports no Qt, so the self-test
(which never loads PySide6) uses it too, and it starts no subprocess: it asks
the dynamic loader directly, the way Qt will.

The exact test is loading Qt's own xcb plugin (``libqxcb.so``), which resolves
every library it needs with the plugin's own search path (a frozen bundle's
copies included). Only when that fails are the libraries looked up one by
one, to name all the missing packages at once instead of the first.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class SystemLibrary:
    """A library the xcb platform loads, and the package that provides it on each distribution."""

    soname: str
    debian: str
    fedora: str
    arch: str


# The libraries Qt 6's xcb platform needs that minimal and server installs often lack.
XCB_LIBRARIES = (
    SystemLibrary("libxcb-cursor.so.0", "libxcb-cursor0", "xcb-util-cursor", "xcb-util-cursor"),
    SystemLibrary("libxkbcommon-x11.so.0", "libxkbcommon-x11-0", "libxkbcommon-x11", "libxkbcommon-x11"),
    SystemLibrary("libxcb-icccm.so.4", "libxcb-icccm4", "xcb-util-wm", "xcb-util-wm"),
    SystemLibrary("libxcb-keysyms.so.1", "libxcb-keysyms1", "xcb-util-keysyms", "xcb-util-keysyms"),
    SystemLibrary("libxcb-image.so.0", "libxcb-image0", "xcb-util-image", "xcb-util-image"),
    SystemLibrary("libxcb-render-util.so.0", "libxcb-render-util0", "xcb-util-renderutil", "xcb-util-renderutil"),
    SystemLibrary("libEGL.so.1", "libegl1", "libglvnd-egl", "libglvnd"),
    SystemLibrary("libGL.so.1", "libgl1", "libglvnd-glx", "libglvnd"),
    SystemLibrary("libfontconfig.so.1", "fontconfig", "fontconfig", "fontconfig"),
)


def terminal_chat_command() -> str:
    """How this installation runs the terminal chat."""
    return "tandem chat" if getattr(sys, "frozen", False) else "python main.py chat"


def install_line(missing: list[SystemLibrary]) -> str:
    """The install commands for ``missing`` on Debian/Ubuntu, Fedora and Arch."""
    debian = " ".join(dict.fromkeys(m.debian for m in missing))
    fedora = " ".join(dict.fromkeys(m.fedora for m in missing))
    arch = " ".join(dict.fromkeys(m.arch for m in missing))
    return (
        f"`sudo apt install {debian}` (Debian/Ubuntu), `sudo dnf install {fedora}` (Fedora) "
        f"or `sudo pacman -S {arch}` (Arch)"
    )


def xcb_plugin() -> Path | None:
    """Qt's xcb platform plugin inside the installed PySide6, if present."""
    spec = importlib.util.find_spec("PySide6")
    for location in (spec.submodule_search_locations or []) if spec else []:
        plugin = Path(location) / "Qt" / "plugins" / "platforms" / "libqxcb.so"
        if plugin.is_file():
            return plugin
    return None


def _loads(name: str) -> str | None:
    """None when the loader can load ``name``, else its reason."""
    try:
        ctypes.CDLL(name)
    except OSError as exc:
        return str(exc)
    return None


def missing_libraries() -> tuple[list[SystemLibrary], str | None]:
    """The known libraries that do not load, and the loader's reason when the plugin itself does not.

    The plugin is tried first: when it loads, nothing is missing, whatever the list says.
    """
    plugin = xcb_plugin()
    reason = _loads(str(plugin)) if plugin is not None else None
    if plugin is not None and reason is None:
        return [], None
    return [lib for lib in XCB_LIBRARIES if _loads(lib.soname) is not None], reason


def _display_reachable(display: str) -> str | None:
    """None when an X server answers at ``display``, else why not (libxcb's own connect, no window made)."""
    try:
        xcb = ctypes.CDLL("libxcb.so.1")
    except OSError as exc:
        return str(exc)
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    connection = xcb.xcb_connect(display.encode(), None)
    try:
        error = xcb.xcb_connection_has_error(connection)
    finally:
        xcb.xcb_disconnect(connection)
    return None if error == 0 else f"no X server answers at DISPLAY={display}"


def desktop_problem(environ: dict[str, str] | None = None) -> str | None:
    """One line saying why the window cannot open here, or None when it can (or the check does not apply).

    An explicit ``QT_QPA_PLATFORM`` other than xcb (offscreen, wayland, vnc)
    skips the check: whoever chose it knows what the platform needs. Only
    Linux and the BSDs use xcb.
    """
    env = os.environ if environ is None else environ
    if not sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return None
    platform = env.get("QT_QPA_PLATFORM", "").strip()
    if platform and not platform.startswith("xcb"):
        return None
    display, wayland = env.get("DISPLAY", "").strip(), env.get("WAYLAND_DISPLAY", "").strip()
    if wayland and not platform:
        return None  # a Wayland session: Qt uses its Wayland platform, which needs none of the xcb libraries
    chat = f"`{terminal_chat_command()}` works without one"
    if not display:
        return (
            "there is no display to open the window on (DISPLAY and WAYLAND_DISPLAY are not set): "
            f"start Tandem from a desktop session, or chat in the terminal: {chat}"
        )
    missing, reason = missing_libraries()
    if missing:
        names = ", ".join(m.soname for m in missing)
        return (
            f"the window cannot start: Qt's X11 platform needs {names}; install {install_line(missing)}, "
            f"or chat in the terminal: {chat}"
        )
    if reason is not None:
        return f"the window cannot start: Qt's X11 platform does not load ({reason}); or chat in the terminal: {chat}"
    unreachable = _display_reachable(display)
    if unreachable is not None:
        return f"the window cannot start: {unreachable}; or chat in the terminal: {chat}"
    return None
