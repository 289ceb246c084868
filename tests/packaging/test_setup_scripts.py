"""The setup scripts run for real with a stand-in interpreter: what they install, build and choose.

``scripts/setup.sh``, ``scripts/test.sh``, ``scripts/llama_wheel.sh`` and ``scripts/gpu_check.sh``
run as they are, in a private cache and virtual-environment folder, with ``PATH`` limited to
the system folders plus a folder of stand-in commands (an interpreter that logs its arguments
and writes the wheel it is asked to build; ``nvcc``, ``nvidia-smi``, ``glslc``, ``uname`` where a
test wants them). Nothing is compiled or downloaded: these tests check the scripts' decisions.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.packaging.sandbox import VERSION, Sandbox, vulkan_prefix, write_script


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


CUDA_13 = (
    'case "$1" in --list-gpu-arch) printf "compute_%s\\n" 75 80 86 87 89 90 100 120;;'
    ' *) echo "Cuda compilation tools, release ${FAKE_CUDA:-13.0}, V13.0.88";; esac'
)


def test_cuda_builds_the_given_architectures_or_turing_to_blackwell_without_nvidia_smi(sandbox: Sandbox) -> None:
    sandbox.fake("nvcc", CUDA_13)  # a toolkit without a GPU: no nvidia-smi on PATH
    every = _backend(sandbox, TANDEM_GPU="cuda")[1]
    assert "-DCMAKE_CUDA_ARCHITECTURES=75-real;80-real;86-real;89-real;90-real;100-real;120-real;120-virtual" in every
    assert "ARCHITECTURES=89 " in _backend(sandbox, TANDEM_GPU="cuda", TANDEM_CUDA_ARCHS="89")[1]
    assert "ARCHITECTURES=86;89 " in _backend(sandbox, TANDEM_GPU="cuda", TANDEM_CUDA_ARCHS="86;89")[1]
    old = sandbox.run("scripts/llama_wheel.sh", "--cmake-args", TANDEM_GPU="cuda", TANDEM_CUDA_ARCHS="61")
    assert old.returncode == 2 and "cannot compile for architecture 61" in old.stderr
    junk = sandbox.run("scripts/llama_wheel.sh", "--cmake-args", TANDEM_GPU="cuda", TANDEM_CUDA_ARCHS="sm_89")
    assert junk.returncode == 2 and "TANDEM_CUDA_ARCHS must be all, native or numbers" in junk.stderr


def test_a_cuda_wheel_is_kept_per_architectures_and_nvcc_release_with_its_stamp(sandbox: Sandbox) -> None:
    sandbox.fake("nvcc", CUDA_13)
    python = str(sandbox.venv / "bin" / "python")

    def stamp(**extra: str) -> list[str]:
        done = sandbox.run("scripts/llama_wheel.sh", "--stamp", python, TANDEM_GPU="cuda", **extra)
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    one = stamp(TANDEM_CUDA_ARCHS="89")
    assert "-cuda-" in one[0] and "detail release 13.0" in one and any("ARCHITECTURES=89 " in line for line in one)
    assert stamp(TANDEM_CUDA_ARCHS="89") == one  # the same options: the same folder
    assert stamp(TANDEM_CUDA_ARCHS="86")[0] != one[0]
    assert stamp(TANDEM_CUDA_ARCHS="89", FAKE_CUDA="13.1")[0] != one[0]  # another toolkit: another build
    assert not any(" -m pip " in c for c in sandbox.calls())  # a stamp builds and installs nothing

    built = sandbox.run("scripts/llama_wheel.sh", python, TANDEM_GPU="cuda", TANDEM_CUDA_ARCHS="89")
    assert built.returncode == 0, built.stderr
    folder = Path(built.stdout.strip())
    assert folder == Path(one[0])
    assert (folder / "stamp.txt").read_text().splitlines() == one[1:]
    # This stand-in toolkit has no cuBLAS: NVIDIA's PyPI package fills it in, once, beside the wheels.
    assert any("nvidia-cublas>=13,<14" in c and "--target" in c for c in sandbox.calls())
    again = sandbox.run("scripts/llama_wheel.sh", python, TANDEM_GPU="cuda", TANDEM_CUDA_ARCHS="89")
    assert Path(again.stdout.strip()) == folder and "built before" in again.stderr
    assert sum(" -m pip wheel " in c for c in sandbox.calls()) == 1


def test_vulkan_is_chosen_only_with_everything_its_build_needs(sandbox: Sandbox, tmp_path: Path) -> None:
    complete = vulkan_prefix(tmp_path / "sdk")
    sandbox.fake("glslc", "true")
    backend, args = _backend(sandbox, TANDEM_VULKAN_PREFIXES=str(complete))
    assert backend.startswith("vulkan (") and "-DGGML_VULKAN=on" in args
    # What was found is what CMake is pointed at, so a second install elsewhere cannot be picked up instead.
    assert f"-DVulkan_INCLUDE_DIR={complete}/include" in args
    assert f"-DSPIRV-Headers_DIR={complete}/share/cmake/SPIRV-Headers" in args
    assert f"-DVulkan_LIBRARY={complete}/lib/x86_64-linux-gnu/libvulkan.so.1" in args


def test_auto_says_what_the_vulkan_build_lacks_and_builds_for_the_cpu(sandbox: Sandbox, tmp_path: Path) -> None:
    sandbox.fake("glslc", "true")
    old = vulkan_prefix(tmp_path / "debian12", header_version=239, layer_settings=False)
    chosen = sandbox.run("scripts/llama_wheel.sh", "--backend", TANDEM_VULKAN_PREFIXES=str(old))
    assert chosen.stdout.startswith("cpu (glslc found but not all the Vulkan build needs)")
    lines = chosen.stderr.strip().splitlines()
    assert len(lines) == 1 and "1.3.239" in lines[0] and "VK_EXT_layer_settings" in lines[0], lines
    assert "building for the CPU" in lines[0]
    no_spirv = vulkan_prefix(tmp_path / "no-spirv", spirv=False)
    chosen = sandbox.run("scripts/llama_wheel.sh", "--backend", TANDEM_VULKAN_PREFIXES=str(no_spirv))
    assert chosen.stdout.startswith("cpu (") and "the SPIR-V headers (spirv-headers)" in chosen.stderr
    assert "Vulkan headers" not in chosen.stderr  # only what is missing is named
    built = sandbox.run("scripts/llama_wheel.sh", str(sandbox.venv / "bin" / "python"), TANDEM_VULKAN_PREFIXES=str(old))
    assert built.returncode == 0, built.stderr
    assert "-vulkan-" not in built.stdout and "GGML_VULKAN" not in sandbox.calls()[-1]


def test_tandem_gpu_vulkan_fetches_newer_headers_once(sandbox: Sandbox, tmp_path: Path) -> None:
    sandbox.fake("glslc", "true")
    # apt-get and dpkg stand-ins: download writes the two packages' names, dpkg -x lays out a complete prefix.
    sandbox.fake("apt-get", 'echo "apt-get $*" >>"$FAKE_LOG"; [ "${*: -3:1}" = download ] && touch a.deb b.deb; exit 0')
    layout = (
        'echo "dpkg $*" >>"$FAKE_LOG"; mkdir -p "$3/usr/include/vulkan" "$3/usr/share/cmake/SPIRV-Headers"; '
        'echo "#define VK_EXT_LAYER_SETTINGS_EXTENSION_NAME 1" >"$3/usr/include/vulkan/vulkan_core.h"; '
        'touch "$3/usr/include/vulkan/vulkan.hpp" "$3/usr/share/cmake/SPIRV-Headers/SPIRV-HeadersConfig.cmake"'
    )
    sandbox.fake("dpkg", layout)
    system = vulkan_prefix(tmp_path / "usr", header_version=239, layer_settings=False, spirv=False)
    python = str(sandbox.venv / "bin" / "python")
    done = sandbox.run("scripts/llama_wheel.sh", python, TANDEM_GPU="vulkan", TANDEM_VULKAN_PREFIXES=str(system))
    assert done.returncode == 0, done.stderr
    fetched = sandbox.cache / "vulkan-headers" / "debian-trixie" / "usr"
    apt_calls = [c for c in sandbox.calls() if c.startswith("apt-get")]
    assert any(" update " in c for c in apt_calls) and any(
        "download -qq libvulkan-dev spirv-headers" in c for c in apt_calls
    )
    assert all("Dir::Etc::sourcelist=" in c and "Dir::Etc::sourcelist=/etc" not in c for c in apt_calls)
    args = (Path(done.stdout.strip()) / "cmake-args.txt").read_text()
    assert f"-DVulkan_INCLUDE_DIR={fetched}/include" in args and f"-DSPIRV-Headers_DIR={fetched}/share" in args
    assert f"-DVulkan_LIBRARY={system}/lib/x86_64-linux-gnu/libvulkan.so.1" in args  # the system's loader
    again = sandbox.run("scripts/llama_wheel.sh", python, TANDEM_GPU="vulkan", TANDEM_VULKAN_PREFIXES=str(system))
    assert again.returncode == 0 and "built before" in again.stderr
    assert len([c for c in sandbox.calls() if c.startswith("apt-get")]) == len(apt_calls)  # fetched once


def test_tandem_gpu_vulkan_without_glslc_fails_before_cmake(sandbox: Sandbox, tmp_path: Path) -> None:
    if shutil.which("glslc", path="/usr/bin:/bin"):
        pytest.skip("glslc is installed on this machine: the sandbox cannot hide it")
    complete = vulkan_prefix(tmp_path / "sdk")
    python = str(sandbox.venv / "bin" / "python")
    done = sandbox.run("scripts/llama_wheel.sh", python, TANDEM_GPU="vulkan", TANDEM_VULKAN_PREFIXES=str(complete))
    assert done.returncode == 2 and "needs glslc" in done.stderr
    assert not any(" -m pip wheel " in c for c in sandbox.calls())


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
    # Each built wheel is repacked to store its libraries once, before it is cached; not again when reused.
    assert sum("scripts/wheel_libraries.py" in c for c in sandbox.calls()) == 2
    assert (cpu_dir / "libraries.txt").is_file() and (cuda_dir / "libraries.txt").is_file()


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


def test_gpu_check_stages_carried_parts_and_refuses_what_does_not_join(sandbox: Sandbox, tmp_path: Path) -> None:
    """The lent machine's half: parts carried one call at a time are staged, then joined and checked."""
    pack, stage = tmp_path / "pack", tmp_path / "stage"
    env = {"TANDEM_GPU_CHECK_PACK": str(pack), "TANDEM_GPU_CHECK_STAGE": str(stage)}
    nothing = sandbox.run("scripts/gpu_check.sh", "receive", **env)
    assert nothing.returncode == 2 and "carry one with this call" in nothing.stderr
    for n, piece in ((1, b"not a tar"), (2, b"archive")):
        (pack / f"part-0{n}").mkdir(parents=True)
        (pack / f"part-0{n}" / f"payload.0{n - 1}").write_bytes(piece)
        staged = sandbox.run("scripts/gpu_check.sh", "receive", **env)
        assert staged.returncode == 0, staged.stderr
    assert sorted(p.name for p in stage.iterdir()) == ["payload.00", "payload.01"]
    no_gpu = sandbox.run("scripts/gpu_check.sh", "run", **env)
    assert no_gpu.returncode == 2 and "nvidia-smi is not on PATH" in no_gpu.stderr
    sandbox.fake("nvidia-smi", 'case "$1" in -L) echo "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)";; esac')
    cut = sandbox.run("scripts/gpu_check.sh", "run", **env)
    assert cut.returncode == 2 and "do not join" in cut.stderr
    no_nvcc = sandbox.run("scripts/gpu_check.sh", "pack", **env)
    assert no_nvcc.returncode == 2 and "nvcc is not on PATH" in no_nvcc.stderr
    assert sandbox.calls() == []  # nothing was installed or built
