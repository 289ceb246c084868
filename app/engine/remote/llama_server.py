"""llama.cpp's own llama-server as a child process: for the tests, and to compare with Tandem side by side.

``scripts/build_llama_server.sh`` builds it from the sources the pinned
llama-cpp-python vendors and caches it per version outside the repository;
:func:`find_binary` finds that build (or ``TANDEM_LLAMA_SERVER``), and
:func:`ensure_binary` runs the build on first use (``bench --vs-llama-server``:
the app's setup does not build it, since the window never runs it). The server
speculates only when told which kind: ``-md DRAFT`` alone loads the draft
and never uses it, so :class:`LlamaServerProcess` always passes
``--spec-type`` with a draft.
"""

from __future__ import annotations

import importlib.metadata
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx2

from app.core.errors import TandemError
from app.engine.cpu import capped_threads


def cache_dir() -> Path:
    """Where build scripts keep slow-to-build tools (``TANDEM_CACHE``, else ``~/.cache/tandem``)."""
    return Path(os.environ.get("TANDEM_CACHE") or Path.home() / ".cache" / "tandem")


def find_binary() -> Path | None:
    """The llama-server to run: ``TANDEM_LLAMA_SERVER`` if set, else this version's cached build."""
    override = os.environ.get("TANDEM_LLAMA_SERVER")
    # The build script names the folder after the llama-cpp-python it took the sources from.
    version = importlib.metadata.version("llama-cpp-python")
    path = Path(override) if override else cache_dir() / f"llama-server-{version}" / "llama-server"
    return path if path.is_file() and os.access(path, os.X_OK) else None


# The build script, where a source checkout has one (an installed bundle has none).
BUILD_SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "build_llama_server.sh"


def ensure_binary(say: Callable[[str], None], script: Path = BUILD_SCRIPT) -> Path:
    """:func:`find_binary`, else build it once with ``script``, saying so in one line first."""
    found = find_binary()
    if found is not None:
        return found
    if os.environ.get("TANDEM_LLAMA_SERVER"):
        raise TandemError(f"TANDEM_LLAMA_SERVER names {os.environ['TANDEM_LLAMA_SERVER']}, which is not a program")
    if not script.is_file():
        raise TandemError(
            "llama-server is not built, and this install has no scripts/build_llama_server.sh to build it"
        )
    say("building llama-server from the vendored llama.cpp once (about 10 minutes on two cores)")
    # The script reuses the interpreter's own pip (TANDEM_VENV: the environment this runs in).
    env = {**os.environ, "TANDEM_VENV": str(Path(sys.prefix))}
    done = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True, check=False)
    found = find_binary()
    if done.returncode != 0 or found is None:
        raise TandemError(f"building llama-server failed: {(done.stderr or done.stdout).strip()[-500:]}")
    return found


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LlamaServerProcess:
    """One llama-server on 127.0.0.1, started and stopped by us."""

    def __init__(
        self,
        target: Path,
        draft: Path | None = None,
        *,
        spec_type: str | None = None,
        draft_max: int = 4,
        n_ctx: int = 2048,
        threads: int = 2,
        api_key: str | None = None,
        binary: Path | None = None,
        gpu_layers: tuple[int, int] = (0, 0),
    ) -> None:
        """``gpu_layers``: the target's and the draft's layers on the GPU (negative: all), as Tandem loaded them."""
        found = binary or find_binary()
        if found is None:
            raise TandemError("llama-server is not built: run `bash scripts/build_llama_server.sh`")
        self.port = free_port()
        self.api_key = api_key
        command = [str(found), "-m", str(target), "--host", "127.0.0.1", "--port", str(self.port)]
        threads = capped_threads(threads)  # the machine's sharing cap holds for the server we start too
        ngl, ngld = (str(layers) if layers >= 0 else "999" for layers in gpu_layers)
        command += ["-c", str(n_ctx), "-t", str(threads), "-tb", str(threads), "-ngl", ngl, "--no-webui"]
        if draft is not None:
            command += ["-md", str(draft), "--spec-type", spec_type or "draft-simple", "-ngld", ngld]
            command += ["--spec-draft-n-max", str(draft_max)]
        elif spec_type is not None:  # prompt lookup (ngram-*) needs no draft model
            command += ["--spec-type", spec_type, "--spec-draft-n-max", str(draft_max)]
        if api_key:
            command += ["--api-key", api_key]
        self.command = command
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The OpenAI base URL."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout_s: float = 300.0) -> LlamaServerProcess:
        """Launch and wait until ``/health`` answers 200 (the models are loaded)."""
        self.process = subprocess.Popen(self.command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode("utf-8", "replace") if self.process.stderr else ""
                raise TandemError(f"llama-server exited with {self.process.returncode}: {err.strip()[-500:]}")
            try:
                if httpx2.get(f"http://127.0.0.1:{self.port}/health", timeout=2).status_code == 200:
                    return self
            except httpx2.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise TandemError(f"llama-server did not become ready within {timeout_s:.0f} s")

    def restart(self, timeout_s: float = 300.0) -> LlamaServerProcess:
        """Stop and start again on a fresh port: a new process that remembers nothing of earlier requests."""
        self.stop()
        old = str(self.port)
        self.port = free_port()
        self.command = [str(self.port) if part == old else part for part in self.command]
        return self.start(timeout_s)

    def kill(self) -> None:
        """SIGKILL, as a crash would."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def stop(self) -> None:
        """Terminate and reap."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stderr is not None:
            self.process.stderr.close()

    def __enter__(self) -> LlamaServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
