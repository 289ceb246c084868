"""The setup scripts run for real with a stand-in interpreter: what they install, build and choose.

``scripts/setup.sh``, ``scripts/test.sh``, ``scripts/llama_wheel.sh`` and ``scripts/gpu_check.sh``
run as they are, in a private cache and virtual-environment folder, with ``PATH`` limited to
the system folders plus a folder of stand-in commands (an interpreter that logs its arguments
and writes the wheel it is asked to build; ``nvcc``, ``nvidia-smi``, ``glslc``, ``uname`` where a
test wants them). Nothing is compiled or downloaded: these tests check the scripts' decisions.
"""

from __future__ import annotations

from pathlib import Path

from tests.packaging.sandbox import VERSION, Sandbox, write_script


def test_setup_installs_the_app_without_test_tools_and_builds_no_llama_server(sandbox: Sandbox) -> None:
    done = sandbox.run("scripts/setup.sh")
    assert done.returncode == 0, done.stderr
    installs = [c for c in sandbox.calls() if " -m pip install " in c]
    assert any(c.endswith(" -e .") for c in installs), installs
    assert not any("[test]" in c for c in installs)  # the test extra is test.sh's
    assert not any("pip download" in c for c in sandbox.calls())  # build_llama_server.sh fetches the sdist
    assert not list(sandbox.cache.glob("llama-server-*"))
    assert any("models install-small" in c for c in sandbox.calls())
    assert any("models install-demo" in c for c in sandbox.calls())
    assert "cpu backend" in done.stderr


def _cached_llama_server(sandbox: Sandbox) -> Path:
    """A llama-server already built with this machine's CPU options, as build_llama_server.sh leaves it."""
    args = sandbox.run("scripts/llama_wheel.sh", "--cmake-args", TANDEM_GPU="off").stdout
    folder = sandbox.cache / f"llama-server-{VERSION}"
    (folder / "cmake-args.txt").parent.mkdir(parents=True)
    (folder / "cmake-args.txt").write_text(args)
    version = '#!/bin/bash\necho "version: 0.5.0-dev (build 1, commit 0c1e570)" >&2\n'
    return write_script(folder, "llama-server", version)


def test_test_sh_adds_the_test_tools_once_and_names_the_llama_server_it_uses(sandbox: Sandbox) -> None:
    binary = _cached_llama_server(sandbox)
    done = sandbox.run("scripts/test.sh", "-k", "nothing")
    assert done.returncode == 0, done.stderr
    assert f"test: llama-server {binary} (version: 0.5.0-dev (build 1, commit 0c1e570))" in done.stdout
    assert sum("-e .[test]" in c for c in sandbox.calls()) == 1
    pytest_run = "-m pytest -n 2 --layer-stop --durations=30 --durations-min=1 -k nothing"
    assert any(c.endswith(pytest_run) for c in sandbox.calls()), sandbox.calls()
    assert any(c.startswith("mypy") for c in sandbox.calls())
    again = sandbox.run("scripts/test.sh", TANDEM_TEST_WORKERS="0")
    assert again.returncode == 0, again.stderr
    assert sum("-e .[test]" in c for c in sandbox.calls()) == 1  # the stamp holds
    assert sandbox.calls()[-1].endswith("-m pytest -n 0 --layer-stop --durations=30 --durations-min=1")


def test_test_sh_skips_llama_server_when_asked(sandbox: Sandbox) -> None:
    done = sandbox.run("scripts/test.sh", TANDEM_SKIP_LLAMA_SERVER="1")
    assert done.returncode == 0, done.stderr
    assert "llama-server" not in done.stdout
    assert not any("pip download" in c for c in sandbox.calls())


def _backend(sandbox: Sandbox, **extra: str) -> tuple[str, str]:
    chosen = sandbox.run("scripts/llama_wheel.sh", "--backend", **extra)
    assert chosen.returncode == 0, chosen.stderr
    args = sandbox.run("scripts/llama_wheel.sh", "--cmake-args", **extra).stdout
    return chosen.stdout.strip(), args


def test_cuda_is_chosen_with_nvcc_and_a_gpu(sandbox: Sandbox) -> None:
    sandbox.fake_gpu()
    backend, args = _backend(sandbox)
    assert backend.startswith("cuda (")
    assert "-DGGML_CUDA=on" in args and "-DCMAKE_CUDA_ARCHITECTURES=native" in args
    assert "-mno-amx-tile" in args or "GGML_NATIVE" not in args  # the CPU options stay beside it


def test_nvcc_without_a_gpu_stays_on_the_cpu_and_says_why(sandbox: Sandbox) -> None:
    sandbox.fake("nvcc", "true")
    backend, args = _backend(sandbox)
    assert backend.startswith("cpu (") and "no NVIDIA GPU" in backend
    assert "GGML_CUDA" not in args


def test_tandem_gpu_off_skips_the_gpu_and_cuda_forces_it(sandbox: Sandbox) -> None:
    assert "-DGGML_CUDA=on" in _backend(sandbox, TANDEM_GPU="cuda")[1]  # no GPU here: forced
    sandbox.fake_gpu()
    assert _backend(sandbox, TANDEM_GPU="off")[0] == "cpu (TANDEM_GPU=off)"
    bad = sandbox.run("scripts/llama_wheel.sh", "--backend", TANDEM_GPU="rocm")
    assert bad.returncode == 2 and "TANDEM_GPU must be" in bad.stderr


def test_vulkan_with_glslc_and_headers(sandbox: Sandbox, tmp_path: Path) -> None:
    sandbox.fake("glslc", "true")
    assert _backend(sandbox)[0].startswith("cpu (")  # no headers yet
    (tmp_path / "sdk" / "include" / "vulkan").mkdir(parents=True)
    (tmp_path / "sdk" / "include" / "vulkan" / "vulkan.h").write_text("")
    backend, args = _backend(sandbox, VULKAN_SDK=str(tmp_path / "sdk"))
    assert backend.startswith("vulkan (") and "-DGGML_VULKAN=on" in args


def test_metal_on_apple_silicon(sandbox: Sandbox) -> None:
    sandbox.fake("uname", 'case "$1" in -s) echo Darwin;; -m) echo arm64;; *) echo Darwin;; esac')
    backend, args = _backend(sandbox)
    assert backend == "metal (Apple Silicon)" and "-DGGML_METAL=on" in args


def test_the_wheel_cache_is_kept_per_backend(sandbox: Sandbox) -> None:
    cpu = sandbox.run("scripts/llama_wheel.sh", str(sandbox.venv / "bin" / "python"))
    assert cpu.returncode == 0, cpu.stderr
    assert "building" in cpu.stderr and "cpu backend" in cpu.stderr
    sandbox.fake_gpu()
    cuda = sandbox.run("scripts/llama_wheel.sh", str(sandbox.venv / "bin" / "python"))
    assert cuda.returncode == 0, cuda.stderr
    cpu_dir, cuda_dir = Path(cpu.stdout.strip()), Path(cuda.stdout.strip())
    assert cpu_dir != cuda_dir and "-cuda-" in cuda_dir.name and "-cuda-" not in cpu_dir.name
    assert (cuda_dir / "backend.txt").read_text().strip() == "cuda"
    assert "-DGGML_CUDA=on" in (cuda_dir / "cmake-args.txt").read_text()
    again = sandbox.run("scripts/llama_wheel.sh", str(sandbox.venv / "bin" / "python"), TANDEM_GPU="off")
    assert Path(again.stdout.strip()) == cpu_dir and "built before" in again.stderr
    assert sum(" -m pip wheel " in c for c in sandbox.calls()) == 2  # one build per backend


def test_gpu_check_stops_early_without_an_nvidia_gpu_or_nvcc(sandbox: Sandbox, tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    no_gpu = sandbox.run("scripts/gpu_check.sh", str(model), str(model))
    assert no_gpu.returncode == 2 and "nvidia-smi is not on PATH" in no_gpu.stderr
    sandbox.fake("nvidia-smi", 'case "$1" in -L) echo "GPU 0: NVIDIA H200 (UUID: GPU-1)";; esac')
    no_nvcc = sandbox.run("scripts/gpu_check.sh", str(model), str(model))
    assert no_nvcc.returncode == 2 and "nvcc is not on PATH" in no_nvcc.stderr
    sandbox.fake("nvcc", "true")
    missing = sandbox.run("scripts/gpu_check.sh", str(model), str(tmp_path / "absent.gguf"))
    assert missing.returncode == 2 and "no such model file" in missing.stderr
    assert sandbox.calls() == []  # nothing was installed or built
    usage = sandbox.run("scripts/gpu_check.sh")
    assert usage.returncode == 2 and "usage:" in usage.stderr
