"""Declared dependencies match the code: every third-party import is declared, and what is installed fits.

An undeclared import still works wherever another package happens to pull the
distribution in (httpx2 came with huggingface-hub 2.x), and fails at import
time where it does not; a bound the installed version misses means the tests
ran against something the package metadata does not allow.
"""

from __future__ import annotations

import ast
import importlib.metadata
import sys
import tomllib
from collections import defaultdict

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.paths import REPO_ROOT

ROOT = REPO_ROOT


def declared_requirements() -> list[Requirement]:
    """``[project].dependencies`` of pyproject.toml."""
    with (ROOT / "pyproject.toml").open("rb") as f:
        return [Requirement(line) for line in tomllib.load(f)["project"]["dependencies"]]


def third_party_imports() -> dict[str, set[str]]:
    """Top-level module names app/ imports that are neither stdlib nor app, each with the files importing it."""
    found: dict[str, set[str]] = defaultdict(set)
    for path in sorted((ROOT / "app").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        # ast.walk, not tree.body: the optional and slow libraries (pynvml, llama_cpp,
        # psutil) are imported inside functions.
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.partition(".")[0]
                # _typeshed is the type checker's own stub module, imported under TYPE_CHECKING only.
                if top not in ("app", "_typeshed") and top not in sys.stdlib_module_names:
                    found[top].add(path.relative_to(ROOT).as_posix())
    return found


def test_the_walk_sees_module_level_and_lazy_imports() -> None:
    # Without this the declaration test below would pass on an empty walk.
    assert {"numpy", "PySide6", "httpx2", "huggingface_hub", "pynvml", "llama_cpp"} <= set(third_party_imports())


def test_every_imported_distribution_is_declared() -> None:
    declared = {canonicalize_name(r.name) for r in declared_requirements()}
    owners = importlib.metadata.packages_distributions()
    problems = []
    for module, files in sorted(third_party_imports().items()):
        distributions = {canonicalize_name(d) for d in owners.get(module, ())}
        where = ", ".join(sorted(files))
        if not distributions:
            problems.append(f"{module} (imported by {where}) is not installed, so its distribution is unknown")
        elif not distributions & declared:
            problems.append(f"{module} (imported by {where}) comes from {', '.join(sorted(distributions))}, undeclared")
    assert not problems, "\n".join(problems)


def test_installed_versions_satisfy_the_declared_bounds() -> None:
    problems = []
    for requirement in declared_requirements():
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        try:
            installed = importlib.metadata.version(requirement.name)
        except importlib.metadata.PackageNotFoundError:
            problems.append(f"{requirement} is declared but not installed")
            continue
        if not requirement.specifier.contains(installed, prereleases=True):
            problems.append(f"{requirement} is declared but {installed} is installed")
    assert not problems, "\n".join(problems)
