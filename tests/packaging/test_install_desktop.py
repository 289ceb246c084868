"""packaging/install-desktop.sh on a stand-in bundle, in a private HOME: install, reinstall, uninstall."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
SCRIPT = ROOT / "packaging" / "install-desktop.sh"
SIZES = (16, 32, 48, 64, 128, 256, 512)


def fake_bundle(folder: Path, version: str = "9.8.7") -> Path:
    """A folder shaped like dist/Tandem whose executable only answers --version."""
    bundle = folder / "Tandem"
    internal = bundle / "_internal"
    shutil.copytree(ROOT / "resources" / "icons", internal / "resources" / "icons")
    (internal / "share" / "applications").mkdir(parents=True)
    shutil.copy(ROOT / "packaging" / "tandem.desktop", internal / "share" / "applications" / "tandem.desktop")
    executable = bundle / "Tandem"
    executable.write_text(f'#!/bin/sh\n[ "$1" = --version ] && echo "Tandem {version}"\n')
    executable.chmod(executable.stat().st_mode | stat.S_IXUSR)
    return bundle


def run_script(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home)}
    env.pop("XDG_DATA_HOME", None)
    return subprocess.run(["bash", str(SCRIPT), *args], env=env, capture_output=True, text=True, check=False)


def test_install_places_bundle_icons_entry_and_command(tmp_path: Path) -> None:
    home = tmp_path / "home"
    bundle = fake_bundle(tmp_path)
    result = run_script(home, "--bundle", str(bundle))
    assert result.returncode == 0, result.stderr
    prefix = home / ".local" / "opt" / "tandem"
    assert (prefix / "Tandem").is_file()
    share = home / ".local" / "share"
    for size in SIZES:
        icon = share / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "tandem.png"
        assert icon.read_bytes() == (ROOT / "resources" / "icons" / f"tandem-{size}.png").read_bytes()
    assert (share / "icons" / "hicolor" / "scalable" / "apps" / "tandem.svg").is_file()
    entry = (share / "applications" / "tandem.desktop").read_text()
    assert f'Exec="{prefix}/Tandem"' in entry
    assert f"TryExec={prefix}/Tandem" in entry
    assert "Icon=tandem" in entry and "Name=Tandem" in entry
    assert "X-AppVersion=9.8.7" in entry
    assert "@" not in entry and "\n#" not in entry
    assert os.readlink(home / ".local" / "bin" / "tandem") == str(prefix / "Tandem")
    if shutil.which("desktop-file-validate"):
        check = subprocess.run(
            ["desktop-file-validate", str(share / "applications" / "tandem.desktop")], capture_output=True, text=True
        )
        assert check.returncode == 0, check.stdout + check.stderr


def test_reinstall_replaces_the_bundle_and_keeps_user_data(tmp_path: Path) -> None:
    home = tmp_path / "home"
    data = home / ".local" / "share" / "Tandem"
    data.mkdir(parents=True)
    (data / "conversations.sqlite3").write_text("chats")
    assert run_script(home, "--bundle", str(fake_bundle(tmp_path / "v1", "1.0.0"))).returncode == 0
    assert run_script(home, "--bundle", str(fake_bundle(tmp_path / "v2", "2.0.0"))).returncode == 0
    entry = (home / ".local" / "share" / "applications" / "tandem.desktop").read_text()
    assert "X-AppVersion=2.0.0" in entry

    result = run_script(home, "--uninstall")
    assert result.returncode == 0, result.stderr
    assert not (home / ".local" / "opt" / "tandem").exists()
    assert not (home / ".local" / "share" / "applications" / "tandem.desktop").exists()
    assert not (home / ".local" / "bin" / "tandem").exists()
    assert not list((home / ".local" / "share" / "icons").rglob("tandem.*"))
    assert (data / "conversations.sqlite3").read_text() == "chats"  # data outlives the app


def test_custom_prefix_and_no_command(tmp_path: Path) -> None:
    home = tmp_path / "home"
    prefix = tmp_path / "apps with space" / "tandem"
    result = run_script(home, "--bundle", str(fake_bundle(tmp_path)), "--prefix", str(prefix), "--no-bin")
    assert result.returncode == 0, result.stderr
    entry = (home / ".local" / "share" / "applications" / "tandem.desktop").read_text()
    assert f'Exec="{prefix}/Tandem"' in entry
    assert not (home / ".local" / "bin" / "tandem").exists()
    assert run_script(home, "--uninstall", "--prefix", str(prefix)).returncode == 0
    assert not prefix.exists()


@pytest.mark.parametrize("mode", ["install", "uninstall"])
def test_refuses_to_replace_a_folder_that_is_not_tandem(tmp_path: Path, mode: str) -> None:
    home = tmp_path / "home"
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.txt").write_text("keep me")
    args = ["--uninstall"] if mode == "uninstall" else ["--bundle", str(fake_bundle(tmp_path))]
    result = run_script(home, *args, "--prefix", str(precious))
    assert result.returncode != 0
    assert "not" in result.stderr and "Tandem install" in result.stderr
    assert (precious / "thesis.txt").read_text() == "keep me"


def test_missing_bundle_says_how_to_build(tmp_path: Path) -> None:
    result = run_script(tmp_path / "home", "--bundle", str(tmp_path / "nothing"))
    assert result.returncode != 0
    assert "packaging/build.sh" in result.stderr
