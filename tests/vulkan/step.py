"""The Vulkan tests as a step of ``.ci/run``: the Vulkan build, its environment, and ``pytest tests/vulkan`` in it.

Not a test module: ``python -m tests.vulkan.step``, run by the CPU environment's
interpreter (``.venv``). It

1. builds llama-cpp-python for Vulkan (``TANDEM_GPU=vulkan bash scripts/llama_wheel.sh``:
   once per version and options, about 12 minutes on two idle cores; the wheel is
   cached beside the CPU one, and Debian 13's Vulkan headers are fetched into
   ``~/.cache/tandem`` where the system's are too old);
2. keeps a virtual environment of its own for that wheel (``~/.cache/tandem/venv-vulkan``,
   ``TANDEM_VULKAN_VENV`` moves it; the app's ``.venv`` stays the CPU build). It holds
   llama-cpp-python alone and reads every other package from the CPU environment (a
   ``.pth`` line naming its site-packages, after its own), so the two run the same
   versions of everything but llama.cpp and nothing else is installed twice;
3. runs ``pytest tests/vulkan`` there with ``GGML_VK_VISIBLE_DEVICES=0`` (ggml skips
   CPU-type Vulkan devices such as lavapipe unless named) and ``TANDEM_CPU_PYTHON`` set
   to this interpreter (the CPU build the greedy reply is compared with), and prints
   the step's wall time.

Where the Vulkan build cannot be made (no glslc, no headers to be had) or no Vulkan
device is listed (no driver: ``apt-get install mesa-vulkan-drivers`` gives lavapipe),
it says so in one line and exits 0: a skipped step, not a failure.
``TANDEM_TEST_VULKAN=0`` skips it too. Exit code: pytest's, else 0.
"""

from __future__ import annotations

import os
import site
import subprocess
import sys
import time
from pathlib import Path

import platformdirs

from tests.paths import REPO_ROOT

STAMP_NAME = ".tandem-vulkan-wheel"
SHARED_PTH = "tandem-cpu-environment.pth"


def venv_path() -> Path:
    """Where the Vulkan environment lives."""
    override = os.environ.get("TANDEM_VULKAN_VENV")
    return Path(override) if override else platformdirs.user_cache_path("tandem", appauthor=False) / "venv-vulkan"


def build_wheel() -> tuple[Path | None, str]:
    """The folder with the Vulkan wheel, or None and the build script's last words (its lines pass through)."""
    said: list[str] = []
    with subprocess.Popen(
        ["bash", str(REPO_ROOT / "scripts" / "llama_wheel.sh"), sys.executable],
        cwd=REPO_ROOT,
        env={**os.environ, "TANDEM_GPU": "vulkan"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as built:
        assert built.stderr is not None and built.stdout is not None
        for line in built.stderr:
            sys.stderr.write(line)
            if line.strip():
                said.append(line.strip())
        folder = built.stdout.read().strip()
    if built.returncode != 0 or not folder:
        return None, said[-1] if said else f"llama_wheel.sh exited {built.returncode}"
    return Path(folder.splitlines()[-1]), said[-1] if said else ""


def shared_site_packages() -> list[str]:
    """This (CPU) environment's site-packages folders, for the Vulkan environment's ``.pth`` line."""
    return [p for p in site.getsitepackages() if Path(p).is_dir()]


def ensure_venv(wheels: Path, prefix: Path) -> Path:
    """The Vulkan environment's interpreter, with the wheel in ``wheels`` installed (again when it changed)."""
    python = prefix / "bin" / "python"
    wanted = f"{wheels}\n{sys.executable}\n"
    stamp = prefix / STAMP_NAME
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(prefix)], check=True, timeout=300)
    own = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout.strip()
    )
    (own / SHARED_PTH).write_text("".join(f"{folder}\n" for folder in shared_site_packages()))
    (wheel,) = sorted(wheels.glob("llama_cpp_python-*.whl"))
    # The CPU environment's pip installs into the Vulkan one (--prefix would mix the two; --target is exact).
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--upgrade",
         "--target", str(own), str(wheel)],
        check=True,
        timeout=600,
    )  # fmt: skip
    stamp.write_text(wanted)
    return python


def vulkan_env() -> dict[str, str]:
    """The environment the tests run with: lavapipe (device 0) made visible unless the caller chose."""
    env = {**os.environ, "TANDEM_CPU_PYTHON": sys.executable}
    env.setdefault("GGML_VK_VISIBLE_DEVICES", "0")
    return env


def device_line(python: Path, env: dict[str, str]) -> str | None:
    """ "Vulkan0: llvmpipe (...)" as the Vulkan environment lists it, or None without a Vulkan device."""
    probe = "from tests.vulkan.device import vulkan_device as v; d = v(); print(d.label if d else '')"
    found = subprocess.run(
        [str(python), "-c", probe], cwd=REPO_ROOT, env=env, capture_output=True, text=True, check=False, timeout=300
    )
    line = found.stdout.strip().splitlines()[-1:] if found.returncode == 0 else []
    return line[0] if line and line[0] else None


def main(argv: list[str] | None = None) -> int:
    """Build, set up, run; one line when skipped, the wall time at the end."""
    start = time.monotonic()
    print("== vulkan", flush=True)
    try:
        if os.environ.get("TANDEM_TEST_VULKAN") == "0":
            print("vulkan step: skipped (TANDEM_TEST_VULKAN=0)")
            return 0
        wheels, said = build_wheel()
        if wheels is None:
            print(f"vulkan step: skipped, the Vulkan build cannot be made here: {said}")
            return 0
        python = ensure_venv(wheels, venv_path())
        env = vulkan_env()
        device = device_line(python, env)
        if device is None:
            print(
                "vulkan step: skipped, the Vulkan build lists no Vulkan device here "
                "(no driver; on Debian `apt-get install mesa-vulkan-drivers` gives lavapipe)"
            )
            return 0
        print(f"vulkan step: {device}, llama-cpp-python from {wheels}", flush=True)
        args = ["-m", "pytest", "-p", "no:cacheprovider", "-ra", "--durations=10", "tests/vulkan", *(argv or [])]
        return subprocess.run([str(python), *args], cwd=REPO_ROOT, env=env, check=False).returncode
    finally:
        print(f"vulkan step: {time.monotonic() - start:.0f} s")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
