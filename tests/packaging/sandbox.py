"""The setup scripts' sandbox: a private cache, a virtual environment of stand-ins and a folder of fake commands.

Not a test module: tests/packaging/test_setup_scripts.py and test_build_llama_tools.py run the
scripts in it (the ``sandbox`` fixture in tests/packaging/conftest.py makes one per test).
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VERSION = re.search(r'"llama-cpp-python==([0-9.]+)"', (ROOT / "pyproject.toml").read_text()).group(1)  # type: ignore[union-attr]

FAKE_PYTHON = f"""#!/bin/bash
echo "python $*" >>"$FAKE_LOG"
if [ "$1" = -c ]; then echo cp311; exit 0; fi
if [ "$1 $2 $3" = "-m pip wheel" ]; then
  while [ $# -gt 0 ]; do
    [ "$1" = --wheel-dir ] && touch "$2/llama_cpp_python-{VERSION}-py3-none-linux_x86_64.whl"
    shift
  done
fi
exit 0
"""


def write_script(folder: Path, name: str, body: str) -> Path:
    """Write ``body`` to an executable file ``folder/name``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


class Sandbox:
    """A cache, a virtual environment of stand-ins, a folder of fake commands and the log they write."""

    def __init__(self, root: Path) -> None:
        self.cache = root / "cache"
        self.venv = root / "venv"
        self.bin = root / "bin"
        self.log = root / "log.txt"
        self.log.write_text("")
        self.bin.mkdir()
        write_script(self.venv / "bin", "python", FAKE_PYTHON)
        for tool in ("ruff", "lint-imports", "mypy"):
            write_script(self.venv / "bin", tool, f'#!/bin/bash\necho "{tool} $*" >>"$FAKE_LOG"\n')

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TANDEM_", "CMAKE_ARGS", "VULKAN_SDK"))}
        env.update(
            PATH=f"{self.bin}:/usr/bin:/bin",  # not /usr/local/bin: a CUDA toolkit may sit there
            HOME=str(self.cache.parent),
            TANDEM_CACHE=str(self.cache),
            TANDEM_VENV=str(self.venv),
            FAKE_LOG=str(self.log),
            # The Vulkan build's headers are looked for here only (a test adds what it wants), not in /usr.
            TANDEM_VULKAN_PREFIXES=str(self.cache.parent / "no-vulkan"),
        )
        env.update(extra)
        return env

    def run(self, *command: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", *command], cwd=ROOT, env=self.env(**extra), capture_output=True, text=True, timeout=120
        )

    def fake(self, name: str, body: str) -> None:
        write_script(self.bin, name, "#!/bin/bash\n" + body + "\n")

    def fake_gpu(self) -> None:
        """``nvcc`` and an ``nvidia-smi`` that lists one GPU (compute capability 9.0)."""
        self.fake("nvcc", "echo 'Cuda compilation tools, release 12.4'")
        self.fake(
            "nvidia-smi",
            'case "$*" in -L) echo "GPU 0: NVIDIA H200 (UUID: GPU-1)";; *compute_cap*) echo 9.0;; *) echo table;; esac',
        )

    def calls(self) -> list[str]:
        return self.log.read_text().splitlines()


def vulkan_prefix(folder: Path, *, header_version: int = 309, layer_settings: bool = True, spirv: bool = True) -> Path:
    """A prefix laid out like a Vulkan install: headers of that version, the SPIR-V CMake package, the loader."""
    include = folder / "include" / "vulkan"
    include.mkdir(parents=True)
    minor = 3 if header_version < 300 else 4
    core = [
        f"#define VK_HEADER_VERSION {header_version}",
        f"#define VK_HEADER_VERSION_COMPLETE VK_MAKE_API_VERSION(0, 1, {minor}, VK_HEADER_VERSION)",
    ]
    if layer_settings:
        core.append('#define VK_EXT_LAYER_SETTINGS_EXTENSION_NAME "VK_EXT_layer_settings"')
    (include / "vulkan_core.h").write_text("\n".join(core) + "\n")
    (include / "vulkan.hpp").write_text("")
    if spirv:
        (folder / "share" / "cmake" / "SPIRV-Headers").mkdir(parents=True)
        (folder / "share" / "cmake" / "SPIRV-Headers" / "SPIRV-HeadersConfig.cmake").write_text("")
    (folder / "lib" / "x86_64-linux-gnu").mkdir(parents=True)
    (folder / "lib" / "x86_64-linux-gnu" / "libvulkan.so.1").write_text("")
    return folder
