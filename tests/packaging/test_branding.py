"""Name, version and icon: one source for the window, the About box, the bundle and the desktop entry."""

from __future__ import annotations

import ast
import re
import struct
import tomllib
from pathlib import Path

import pytest

import app
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
ICONS = ROOT / "resources" / "icons"
SIZES = (16, 32, 48, 64, 128, 256, 512)


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk comes first
    return width, height


def test_fallback_version_matches_pyproject() -> None:
    with (ROOT / "pyproject.toml").open("rb") as f:
        project = tomllib.load(f)["project"]
    assert app.__version__ == project["version"]
    assert app.version() == project["version"]


def test_the_distribution_name_is_the_one_the_code_reads() -> None:
    # "tandem" on PyPI is another project: pip install tandem would install someone else's code.
    with (ROOT / "pyproject.toml").open("rb") as f:
        project = tomllib.load(f)["project"]
    assert project["name"] == app.DISTRIBUTION != "tandem"


def test_rendered_icons_exist_at_every_size() -> None:
    assert (ICONS / "tandem.svg").read_text().lstrip().startswith("<?xml")
    for size in SIZES:
        assert png_size((ICONS / f"tandem-{size}.png").read_bytes()) == (size, size)


def test_windows_and_macos_icon_containers_hold_pngs() -> None:
    ico = (ICONS / "tandem.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", ico[:6])
    assert (reserved, kind) == (0, 1) and count >= 5
    for i in range(count):
        width, _h, _c, _r, _planes, _bpp, length, offset = struct.unpack("<BBBBHHII", ico[6 + 16 * i : 22 + 16 * i])
        size = png_size(ico[offset : offset + length])[0]
        assert size == (width or 256)
    icns = (ICONS / "tandem.icns").read_bytes()
    assert icns[:4] == b"icns" and struct.unpack(">I", icns[4:8])[0] == len(icns)
    offset, kinds = 8, []
    while offset < len(icns):
        kinds.append(icns[offset : offset + 4])
        length = struct.unpack(">I", icns[offset + 4 : offset + 8])[0]
        png_size(icns[offset + 8 : offset + length])
        offset += length
    assert b"ic08" in kinds and b"ic10" in kinds  # 256 px and 1024 px (512@2x)


def _spec_qt_modules() -> set[str]:
    tree = ast.parse((ROOT / "packaging" / "tandem.spec").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "QT_MODULES_USED" for t in node.targets):
            return set(ast.literal_eval(node.value))
    raise AssertionError("QT_MODULES_USED not found in tandem.spec")


def test_bundle_keeps_every_qt_module_the_app_imports() -> None:
    # The spec excludes all other PySide6 modules to keep the bundle small; a
    # new import of, say, QtSvg must be added to QT_MODULES_USED or the frozen
    # app would fail where the source tree works.
    used = set()
    for source in (ROOT / "app").rglob("*.py"):
        text = source.read_text(encoding="utf-8")
        used.update(re.findall(r"PySide6\.(Qt\w+)", text))
        for names in re.findall(r"from PySide6 import \(?([\w, \n]+)\)?", text):
            used.update(re.findall(r"Qt\w+", names))
    missing = used - _spec_qt_modules()
    assert not missing, f"add {sorted(missing)} to QT_MODULES_USED in packaging/tandem.spec"


def test_bundle_keeps_the_image_reader_the_app_imports() -> None:
    # Images in a chat are read through llama_cpp.mtmd_cpp, which opens libmtmd: the spec must keep both.
    assert "from llama_cpp import mtmd_cpp" in (ROOT / "app" / "engine" / "llama" / "vision.py").read_text()
    tree = ast.parse((ROOT / "packaging" / "tandem.spec").read_text())
    dropped: str | None = None
    excluded: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "_UNUSED_LIBS" for t in node.targets):
            assert isinstance(node.value, ast.Call)
            dropped = ast.literal_eval(node.value.args[0])
        if isinstance(node, ast.List):
            excluded.update(e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str))
    assert dropped is not None, "_UNUSED_LIBS not found in tandem.spec"
    for name in ("libmtmd.so", "libmtmd.so.0", "mtmd.dll", "libmtmd.dylib"):
        assert not re.search(dropped, name, re.IGNORECASE), f"tandem.spec drops {name}"
    assert "llama_cpp.mtmd_cpp" not in excluded


def test_desktop_entry_names_the_app_and_its_icon() -> None:
    entry = (ROOT / "packaging" / "tandem.desktop").read_text()
    assert "Name=Tandem" in entry
    assert "Icon=tandem" in entry
    assert "StartupWMClass=Tandem" in entry  # X11 matches windows to the entry by this class
    assert "@EXEC@" in entry and "@VERSION@" in entry


def test_window_title_and_about_text(qapp: object) -> None:
    from app.ui.start import branding

    assert branding.window_title() == f"Tandem {app.version()}"
    assert branding.window_title("notes.md") == f"notes.md — Tandem {app.version()}"
    text = branding.about_text()
    assert f"Tandem {app.version()}" in text
    assert "llama-cpp-python" in text and ("(GPU) and CPU" in text or "CPU only: no GPU backend in this build" in text)
    from app.engine.paths import cache_dir, config_dir, data_dir

    for folder in (data_dir(), config_dir(), cache_dir()):  # where everything is: chats, settings, cache
        assert f"<code>{folder}</code>" in text


def test_app_icon_has_every_size(qapp: object) -> None:
    from app.ui.start import branding

    icon = branding.app_icon()
    assert not icon.isNull()
    assert {s.width() for s in icon.availableSizes()} >= set(SIZES)


def test_apply_branding_sets_identity(qapp: object) -> None:
    from PySide6.QtWidgets import QApplication

    from app.ui.start import branding

    application = QApplication.instance()
    assert isinstance(application, QApplication)
    old_name = application.applicationName()
    try:
        branding.apply_branding(application)
        assert application.applicationName() == "Tandem"
        assert application.applicationVersion() == app.version()
        assert application.desktopFileName() == "tandem"
        assert not application.windowIcon().isNull()
    finally:
        application.setApplicationName(old_name)


def test_resources_are_found_when_frozen(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import sys

    from app.ui.start import branding

    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert branding.icon_path(48) == tmp_path / "resources" / "icons" / "tandem-48.png"
