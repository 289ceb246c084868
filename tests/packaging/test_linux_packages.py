"""Build the AppImage and the .deb and check them with packaging/check-linux-packages.sh (slow: minutes).

``bash packaging/build.sh --appimage --deb`` builds the PyInstaller bundle and both packages into
a temporary folder; the check script then validates the desktop entries and AppStream metainfo,
runs ``--selftest`` from the AppImage (``--appimage-extract-and-run`` and a plain start) and from
the .deb's bundle, opens the window of each under Xvfb, and checks that both read the data folder
a source checkout wrote. Like tests/packaging/test_bundle.py this runs only when packaging/**,
pyproject.toml or the installed packages changed since the last success (stamp
``~/.cache/tandem/linux-packages-stamp``, ``TANDEM_PACKAGES_STAMP`` moves it);
``TANDEM_BUILD_PACKAGES=1`` forces it and ``=0`` skips it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import platformdirs
import pytest

from tests.packaging.build_inputs import inputs_digest
from tests.paths import REPO_ROOT

# What the build and the checks run, and the apt package that brings each.
TOOLS = {
    "gcc": "gcc",
    "mksquashfs": "squashfs-tools",
    "dpkg-deb": "dpkg",
    "appstreamcli": "appstream",
    "desktop-file-validate": "desktop-file-utils",
    "xvfb-run": "xvfb",
    "xwininfo": "x11-utils",
}


def stamp_path() -> Path:
    override = os.environ.get("TANDEM_PACKAGES_STAMP")
    if override:
        return Path(override)
    return platformdirs.user_cache_path("tandem", appauthor=False) / "linux-packages-stamp"


def missing_tools() -> list[str]:
    """The apt packages to install before the packages can be built and checked here."""
    missing = sorted({package for tool, package in TOOLS.items() if not shutil.which(tool)})
    if not Path("/usr/include/sqfs/super.h").is_file():
        missing.append("libsquashfs-dev")
    return missing


def build_decision() -> tuple[bool, str]:
    """Whether to build now, and why (the reason becomes the skip message)."""
    flag = os.environ.get("TANDEM_BUILD_PACKAGES", "")
    if flag == "0":
        return False, "TANDEM_BUILD_PACKAGES=0"
    if not sys.platform.startswith("linux"):
        return False, "the AppImage and the .deb are built on Linux only"
    if flag == "1":
        return True, "TANDEM_BUILD_PACKAGES=1"
    stamp = stamp_path()
    recorded = stamp.read_text().split("\n", 1)[0].strip() if stamp.is_file() else ""
    if recorded == inputs_digest():
        return False, (
            "packaging/, pyproject.toml and the installed packages are unchanged since the AppImage and the .deb "
            f"last built and passed their checks (stamp {stamp}); run with TANDEM_BUILD_PACKAGES=1 to build them anyway"
        )
    return True, "packaging/, pyproject.toml or an installed package changed since the last successful package build"


def test_stamp_decides_the_package_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TANDEM_PACKAGES_STAMP", str(tmp_path / "stamp"))
    monkeypatch.delenv("TANDEM_BUILD_PACKAGES", raising=False)
    assert build_decision()[0]  # no stamp yet
    (tmp_path / "stamp").write_text(inputs_digest() + "\nbuilt earlier\n")
    run, reason = build_decision()
    assert not run and "TANDEM_BUILD_PACKAGES=1" in reason
    monkeypatch.setenv("TANDEM_BUILD_PACKAGES", "1")
    assert build_decision()[0]
    monkeypatch.setenv("TANDEM_BUILD_PACKAGES", "0")
    assert not build_decision()[0]


def test_appimage_and_deb_build_and_pass_their_checks(tmp_path: Path, small_pair: tuple[Path, Path]) -> None:
    run, reason = build_decision()
    if not run:
        pytest.skip(reason)
    missing = missing_tools()
    if missing:
        pytest.skip(f"to build and check the Linux packages here: apt-get install {' '.join(missing)}")
    digest = inputs_digest()
    dist = tmp_path / "dist"
    env = {
        **os.environ,
        "DIST_DIR": str(dist),
        "WORK_DIR": str(tmp_path / "work"),
        "SKIP_SELFTEST": "1",  # the checks run the self-test from each package instead
        "TANDEM_VENV": str(Path(sys.prefix)),
        "TANDEM_MODELS_DIR": str(small_pair[0].parent),
    }
    started = time.monotonic()
    build = subprocess.run(
        ["bash", "packaging/build.sh", "--appimage", "--deb"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=2400,
        check=False,
    )
    build_s = time.monotonic() - started
    assert build.returncode == 0, (build.stdout + build.stderr)[-5000:]
    check = subprocess.run(
        ["bash", "packaging/check-linux-packages.sh", str(dist)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert check.returncode == 0, (check.stdout + check.stderr)[-6000:]
    assert "check-linux-packages: all checks passed" in check.stdout

    sizes = {path.name: path.stat().st_size for path in dist.iterdir() if path.suffix in (".AppImage", ".deb")}
    assert len(sizes) == 2, sizes
    stamp = stamp_path()
    stamp.parent.mkdir(parents=True, exist_ok=True)
    summary = ", ".join(f"{name} {size / 2**20:.0f} MiB" for name, size in sorted(sizes.items()))
    stamp.write_text(
        f"{digest}\nbuilt {time.strftime('%Y-%m-%d %H:%M:%S')} in {build_s:.0f} s: {summary}; checks passed\n"
    )
