"""The AppImage runtime (packaging/appimage/runtime.c) on a small AppImage made here (seconds, no bundle).

Compiles the runtime with packaging/appimage/build-runtime.sh, appends a SquashFS image of a
small AppDir made with mksquashfs, and checks the type-2 layout and each way of starting it:
``--appimage-offset``, ``--appimage-extract`` (whole and by pattern), ``--appimage-extract-and-run``
(arguments, environment, exit status, clean-up) and a plain start (unpacked once into the cache,
reused afterwards). Skips, naming the apt packages, where gcc, libsquashfs-dev or squashfs-tools
are missing.
"""

from __future__ import annotations

import os
import shutil
import stat
import struct
import subprocess
from pathlib import Path

import pytest

from tests.paths import REPO_ROOT

BUILD_RUNTIME = REPO_ROOT / "packaging" / "appimage" / "build-runtime.sh"

APPRUN = """#!/bin/sh
echo "args:$*"
echo "APPDIR=$APPDIR"
echo "APPIMAGE=$APPIMAGE"
echo "OWD=$OWD"
cat "$APPDIR/usr/share/payload.txt"
exit 7
"""


def _missing_tools() -> list[str]:
    missing = [] if shutil.which("gcc") else ["gcc"]
    if not Path("/usr/include/sqfs/super.h").is_file():
        missing.append("libsquashfs-dev")
    if not shutil.which("mksquashfs"):
        missing.append("squashfs-tools")
    return missing


pytestmark = pytest.mark.skipif(
    bool(_missing_tools()), reason=f"to build an AppImage here: apt-get install {' '.join(_missing_tools())}"
)


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small AppImage: the runtime followed by a SquashFS image of an AppDir."""
    work = tmp_path_factory.mktemp("appimage")
    runtime = work / "runtime"
    subprocess.run(["bash", str(BUILD_RUNTIME), str(runtime)], check=True, timeout=300)
    appdir = work / "AppDir"
    (appdir / "usr" / "share").mkdir(parents=True)
    (appdir / "AppRun").write_text(APPRUN)
    (appdir / "AppRun").chmod(0o755)
    (appdir / "usr" / "share" / "payload.txt").write_text("payload from the image\n")
    # More than one SquashFS block (1 MiB here) and not compressible: data blocks, not only fragments.
    (appdir / "usr" / "big.bin").write_bytes(os.urandom(3 * 2**20 + 123))
    (appdir / "link").symlink_to("usr/share/payload.txt")
    (appdir / "locked").mkdir()
    (appdir / "locked" / "inside.txt").write_text("in a read-only folder\n")
    (appdir / "locked").chmod(0o555)
    squashfs = work / "image.squashfs"
    subprocess.run(
        ["mksquashfs", str(appdir), str(squashfs), "-comp", "zstd", "-b", "1M", "-root-owned", "-noappend", "-quiet"],
        check=True,
        capture_output=True,
        timeout=300,
    )
    result = work / "Test-x86_64.AppImage"
    result.write_bytes(runtime.read_bytes() + squashfs.read_bytes())
    result.chmod(0o755)
    (appdir / "locked").chmod(0o755)  # so that pytest can remove its temporary folder
    return result


def _run(image: Path, *args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(image), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_layout_is_type_2_with_squashfs_at_the_offset(image: Path, tmp_path: Path) -> None:
    data = image.read_bytes()
    assert data[:4] == b"\x7fELF" and data[8:11] == b"AI\x02"
    # The ELF file ends with its section header table (e_shoff + e_shentsize * e_shnum).
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    offset = _run(image, "--appimage-offset", cwd=tmp_path)
    assert offset.returncode == 0
    assert int(offset.stdout) == shoff + shentsize * shnum
    assert data[int(offset.stdout) : int(offset.stdout) + 4] == b"hsqs"


def test_extract_reproduces_the_appdir(image: Path, tmp_path: Path) -> None:
    result = _run(image, "--appimage-extract", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    root = tmp_path / "squashfs-root"
    assert (root / "usr" / "share" / "payload.txt").read_text() == "payload from the image\n"
    assert (root / "usr" / "big.bin").stat().st_size == 3 * 2**20 + 123
    assert os.readlink(root / "link") == "usr/share/payload.txt"
    assert os.access(root / "AppRun", os.X_OK)
    assert stat.S_IMODE((root / "locked").stat().st_mode) == 0o555
    assert (root / "locked" / "inside.txt").read_text() == "in a read-only folder\n"
    assert str(root / "usr" / "big.bin") in result.stdout.splitlines()
    # Extracting again over the first copy (the read-only folder included) works.
    again = _run(image, "--appimage-extract", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    (root / "locked").chmod(0o755)


def test_extract_by_pattern_takes_only_matching_paths(image: Path, tmp_path: Path) -> None:
    result = _run(image, "--appimage-extract", "usr/share/*", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    root = tmp_path / "squashfs-root"
    assert (root / "usr" / "share" / "payload.txt").is_file()
    assert not (root / "AppRun").exists() and not (root / "usr" / "big.bin").exists()


def test_extract_and_run_passes_arguments_and_cleans_up(image: Path, tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    result = _run(image, "--appimage-extract-and-run", "one", "two words", cwd=tmp_path, env=env)
    assert result.returncode == 7, result.stderr  # AppRun's own exit status
    lines = result.stdout.splitlines()
    assert lines[0] == "args:one two words"
    assert lines[1].startswith(f"APPDIR={scratch}/appimage_extracted_")
    assert lines[2] == f"APPIMAGE={image}" and lines[3] == f"OWD={tmp_path}"
    assert lines[4] == "payload from the image"
    assert list(scratch.iterdir()) == []  # removed once the app exited

    kept = _run(image, "--appimage-extract-and-run", cwd=tmp_path, env={**env, "NO_CLEANUP": "1"})
    assert kept.returncode == 7 and len(list(scratch.iterdir())) == 1


def test_plain_start_unpacks_once_into_the_cache(image: Path, tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    first = _run(image, "a", cwd=tmp_path, env=env)
    assert first.returncode == 7, first.stderr
    (unpacked,) = (tmp_path / "cache" / "appimage-run").iterdir()
    assert f"APPDIR={unpacked}" in first.stdout.splitlines()
    assert (unpacked / ".unpacked").is_file()
    (unpacked / "usr" / "share" / "payload.txt").write_text("from the cache\n")
    second = _run(image, "b", cwd=tmp_path, env=env)
    assert second.stdout.splitlines()[0] == "args:b"
    assert "from the cache" in second.stdout  # the same folder, not unpacked again
    assert list((tmp_path / "cache" / "appimage-run").iterdir()) == [unpacked]

    forced = _run(image, cwd=tmp_path, env={**env, "APPIMAGE_EXTRACT_AND_RUN": "1", "TMPDIR": str(tmp_path)})
    assert "payload from the image" in forced.stdout  # a fresh unpack, not the cache


def test_unknown_option_and_damaged_image_fail_plainly(image: Path, tmp_path: Path) -> None:
    unknown = _run(image, "--appimage-mount", cwd=tmp_path)
    assert unknown.returncode == 2 and "unknown option --appimage-mount" in unknown.stderr
    offset = int(_run(image, "--appimage-offset", cwd=tmp_path).stdout)
    damaged = tmp_path / "damaged.AppImage"
    damaged.write_bytes(image.read_bytes()[: offset + 4096])  # a download cut short
    damaged.chmod(0o755)
    result = _run(damaged, "--appimage-extract", cwd=tmp_path)
    assert result.returncode == 127
    assert "damaged or incomplete" in result.stderr
