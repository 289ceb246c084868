"""Build the frozen app with PyInstaller and run its self-test (slow: a few minutes).

The build runs only when its inputs changed: a digest of packaging/**,
pyproject.toml and the versions of the installed distributions (what the
bundle is actually made of) is compared with a stamp written after the last
successful build and self-test (``~/.cache/tandem/bundle-stamp``;
``TANDEM_BUNDLE_STAMP`` moves it). ``TANDEM_BUILD_BUNDLE=1`` forces the build,
``=0`` skips it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import platformdirs
import pytest

import app
from tests.packaging.build_inputs import inputs_digest
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT


def stamp_path() -> Path:
    override = os.environ.get("TANDEM_BUNDLE_STAMP")
    return Path(override) if override else platformdirs.user_cache_path("tandem", appauthor=False) / "bundle-stamp"


def build_decision() -> tuple[bool, str]:
    """Whether to build now, and why (the reason becomes the skip message)."""
    flag = os.environ.get("TANDEM_BUILD_BUNDLE", "")
    if flag == "0":
        return False, "TANDEM_BUILD_BUNDLE=0"
    if flag == "1":
        return True, "TANDEM_BUILD_BUNDLE=1"
    stamp = stamp_path()
    recorded = stamp.read_text().split("\n", 1)[0].strip() if stamp.is_file() else ""
    if recorded == inputs_digest():
        return False, (
            f"packaging/, pyproject.toml and the installed packages are unchanged since the bundle last built and "
            "passed its self-test "
            f"(stamp {stamp}); run with TANDEM_BUILD_BUNDLE=1 to build and test it anyway"
        )
    return True, "packaging/, pyproject.toml or an installed package changed since the last successful bundle build"


def test_digest_follows_packaging_inputs(tmp_path: Path) -> None:
    (tmp_path / "packaging").mkdir()
    (tmp_path / "packaging" / "tandem.spec").write_text("a")
    (tmp_path / "pyproject.toml").write_text("b")
    first = inputs_digest(tmp_path, ["numpy==2.0"])
    assert inputs_digest(tmp_path, ["numpy==2.0"]) == first
    assert inputs_digest(tmp_path, ["numpy==2.1"]) != first  # a dependency upgrade rebuilds
    (tmp_path / "packaging" / "tandem.spec").write_text("c")
    assert inputs_digest(tmp_path, ["numpy==2.0"]) != first


def test_stamp_decides_the_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TANDEM_BUNDLE_STAMP", str(tmp_path / "stamp"))
    monkeypatch.delenv("TANDEM_BUILD_BUNDLE", raising=False)
    assert build_decision()[0]  # no stamp yet
    (tmp_path / "stamp").write_text(inputs_digest() + "\nbuilt earlier\n")
    run, reason = build_decision()
    assert not run and "TANDEM_BUILD_BUNDLE=1" in reason
    monkeypatch.setenv("TANDEM_BUILD_BUNDLE", "1")
    assert build_decision()[0]


def _run(command: list[str], env: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False)


def _gui_stays_up(executable: Path, env: dict[str, str], seconds: float = 8.0) -> None:
    """Start the bundled GUI offscreen and check it neither crashes nor prints a traceback."""
    gui_env = {**env, "QT_QPA_PLATFORM": "offscreen"}
    with subprocess.Popen(
        [str(executable)], env=gui_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        try:
            exit_code = process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            exit_code = None
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        _, stderr = process.communicate()
    assert exit_code is None, f"the bundled GUI exited with {exit_code}:\n{stderr[-3000:]}"
    assert "Traceback" not in stderr, stderr[-3000:]


def _serve_answers(executable: Path, env: dict[str, str], pair: tuple[Path, Path]) -> None:
    """``Tandem serve`` from the bundle answers the official openai client, timings and origins included."""
    import openai

    command = [str(executable), "serve", "--port", "0", "--target", str(pair[0]), "--draft", str(pair[1])]
    command += ["--ctx", "512", "--threads", "1", "--draft-max", "3"]
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None
            line = process.stdout.readline()  # "serving NAME (...) at URL", once the models are loaded
            assert " at http://127.0.0.1:" in line, line + process.stderr.read(3000) if process.stderr else line
            url = line.rsplit(" at ", 1)[1].strip()
            client = openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=120)
            reply = client.chat.completions.create(
                model="tandem", messages=[{"role": "user", "content": "Say hi."}], max_tokens=6, temperature=0
            )
            extra = reply.model_extra or {}
            assert reply.choices[0].message.content
            assert extra["timings"]["predicted_n"] == reply.usage.completion_tokens if reply.usage else False
            assert {t["origin"] for t in extra["tandem"]["tokens"]} <= {"draft", "corrected", "bonus", "target"}
        finally:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


def test_frozen_bundle_builds_and_passes_its_selftest(tmp_path: Path, small_pair: tuple[Path, Path]) -> None:
    run, reason = build_decision()
    if not run:
        pytest.skip(reason)
    digest = inputs_digest()
    dist = tmp_path / "dist"
    env = {
        **os.environ,
        "DIST_DIR": str(dist),
        "WORK_DIR": str(tmp_path / "work"),
        "SKIP_SELFTEST": "1",
        "TANDEM_VENV": str(Path(sys.prefix)),
    }
    started = time.monotonic()
    build = _run(["bash", "packaging/build.sh"], env, timeout=1800)
    build_s = time.monotonic() - started
    assert build.returncode == 0, (build.stdout + build.stderr)[-5000:]
    executable = dist / "Tandem" / "Tandem"
    assert executable.is_file() and os.access(executable, os.X_OK)
    assert (dist / "Tandem" / "install-desktop.sh").is_file()
    internal = dist / "Tandem" / "_internal"
    assert (internal / "resources" / "icons" / "tandem-256.png").is_file()
    assert (internal / "share" / "applications" / "tandem.desktop").is_file()
    assert list((internal / "llama_cpp" / "lib").glob("libllama.*"))
    assert list((internal / "llama_cpp" / "lib").glob("libmtmd.*"))  # images in a chat read through it
    _each_llama_library_stored_once(internal / "llama_cpp" / "lib")

    version = _run([str(executable), "--version"], env, timeout=120)
    assert version.stdout.strip() == f"{app.APP_NAME} {app.version()}", version

    selftest = _run([str(executable), "--selftest"], env, timeout=600)
    assert selftest.returncode == 0, selftest.stdout + selftest.stderr
    assert "selftest passed" in selftest.stdout

    _gui_stays_up(executable, env)
    _serve_answers(executable, env, small_pair)

    size = sum(f.stat().st_size for f in (dist / "Tandem").rglob("*") if f.is_file() and not f.is_symlink())
    stamp = stamp_path()
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(
        f"{digest}\nbuilt {time.strftime('%Y-%m-%d %H:%M:%S')} in {build_s:.0f} s, {size / 2**20:.0f} MiB, "
        "self-test passed\n"
    )


def _each_llama_library_stored_once(lib: Path) -> None:
    """One file per llama.cpp library; other names it is opened or needed by are links within the folder."""
    files = [path for path in lib.iterdir() if not path.is_symlink()]
    contents = [path.read_bytes() for path in files]
    assert len(set(contents)) == len(contents), sorted(path.name for path in files)
    for link in (path for path in lib.iterdir() if path.is_symlink()):
        assert link.resolve().parent == lib.resolve() and link.resolve().is_file(), link
    assert (lib / "libllama.so").is_file() and (lib / "libggml.so").is_file()  # what ctypes opens
