"""Where the translations live and how the shipped catalogue is built from them.

The sources are Qt Linguist files, ``translations/tandem_<lang>*.ts`` (one per
part of the window, written by ``pyside6-lupdate`` and filled in by hand).
All of a language's sources are compiled by ``lrelease`` into one
``app/ui/i18n/tandem_<lang>.qm``: a build output, ignored by git, made by
``scripts/setup.sh``, the bundle's spec and the translation test through
:func:`build_catalogue`, which does nothing when the catalogue is newer than
every source.

Run as ``python -m app.ui.i18n.catalog`` to build every shipped language.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import PySide6

TRANSLATED = ("de",)
"""Languages with a complete translation (English is the source text)."""
BUILT = ("en", *TRANSLATED)
"""Every catalogue built: English's holds only the plural forms of its "%n" texts ("1 message", "2 messages")."""

HERE = Path(__file__).resolve().parent
SOURCES = HERE.parents[2] / "translations"


class CatalogueError(RuntimeError):
    """The catalogue could not be built (no sources, no lrelease, or lrelease refused them)."""


def catalogue_path(language: str) -> Path:
    """The compiled catalogue of ``language`` beside this module (where the bundle keeps it too)."""
    return HERE / f"tandem_{language}.qm"


def sources_of(language: str, folder: Path = SOURCES) -> list[Path]:
    """Every .ts file of ``language`` in ``folder``, in name order."""
    return sorted(folder.glob(f"tandem_{language}*.ts"))


def lrelease() -> list[str]:
    """The command that runs Qt's lrelease: the binary PySide6 ships, else pyside6-lrelease on the PATH."""
    package = Path(PySide6.__file__).resolve().parent
    for name in ("lrelease", "lrelease.exe"):
        if (package / name).is_file():
            return [str(package / name)]
    beside = Path(sys.executable).parent / "pyside6-lrelease"
    found = str(beside) if beside.is_file() else shutil.which("pyside6-lrelease")
    if found is None:
        raise CatalogueError("lrelease not found: install PySide6 (it ships pyside6-lrelease)")
    return [found]


def is_stale(language: str, folder: Path = SOURCES) -> bool:
    """Whether the catalogue is missing or older than one of its sources."""
    target = catalogue_path(language)
    if not target.is_file():
        return True
    built = target.stat().st_mtime
    return any(source.stat().st_mtime > built for source in sources_of(language, folder))


def build_catalogue(language: str, folder: Path = SOURCES, force: bool = False) -> Path:
    """Compile ``language``'s sources into its catalogue when stale (or ``force``); returns its path."""
    target = catalogue_path(language)
    sources = sources_of(language, folder)
    if not sources:
        raise CatalogueError(f"no translations/tandem_{language}*.ts in {folder}")
    if not force and not is_stale(language, folder):
        return target
    command = [*lrelease(), *map(str, sources), "-qm", str(target)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not target.is_file():
        last = (done.stderr or done.stdout).strip().splitlines()
        raise CatalogueError(f"lrelease failed on {', '.join(s.name for s in sources)}: {last[-1] if last else '?'}")
    return target


def main(folder: Path = SOURCES) -> int:
    """Build every catalogue that is stale; one line each, saying whether it was built or already up to date."""
    for language in BUILT:
        stale = is_stale(language, folder)
        try:
            path = build_catalogue(language, folder)
        except CatalogueError as error:
            print(f"translations: {error}", file=sys.stderr)
            return 1
        # A rebuilt catalogue is news (it goes with the sources it came from); an untouched one is not.
        shown = path.relative_to(HERE.parents[2]) if path.is_relative_to(HERE.parents[2]) else path
        print(f"translations: {shown} {'built' if stale else 'up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
