"""``scripts/build_llama_server.sh --tools``: llama-bench and llama-speculative-simple, cached like llama-server.

The script runs as it is in the setup scripts' sandbox (stand-in interpreter,
private cache; nothing compiled or downloaded): these tests check when it
builds and where it leaves the tools, not the compile itself.
"""

from __future__ import annotations

from pathlib import Path

from tests.packaging.sandbox import VERSION, Sandbox, write_script

TOOLS = ("llama-bench", "llama-speculative-simple")


def _cached_tools(sandbox: Sandbox, tools: tuple[str, ...] = TOOLS, args: str | None = None) -> Path:
    """A tools folder as the script leaves it, built with this machine's CPU options unless ``args`` says."""
    folder = sandbox.cache / f"llama-tools-{VERSION}"
    if args is None:
        args = sandbox.run("scripts/llama_wheel.sh", "--cmake-args", TANDEM_GPU="off").stdout
    folder.mkdir(parents=True)
    (folder / "cmake-args.txt").write_text(args)
    for tool in tools:
        write_script(folder, tool, "#!/bin/bash\n")
    return folder


def test_built_tools_with_the_same_options_are_not_built_again(sandbox: Sandbox) -> None:
    folder = _cached_tools(sandbox)
    done = sandbox.run("scripts/build_llama_server.sh", "--tools")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == str(folder)
    assert not any("pip download" in c for c in sandbox.calls())
    # The server's own cache is another folder: the tools never stand in for it.
    server = sandbox.run("scripts/build_llama_server.sh")
    assert any("pip download" in c for c in sandbox.calls()) and server.returncode != 0


def test_a_missing_tool_or_other_options_mean_a_new_build(sandbox: Sandbox) -> None:
    folder = _cached_tools(sandbox, tools=("llama-bench",))
    done = sandbox.run("scripts/build_llama_server.sh", "--tools")
    # The stand-in pip downloads nothing, so the build stops at unpacking: what matters is that it began.
    assert done.returncode != 0 and "fetching the llama-cpp-python" in done.stderr
    assert sum("pip download" in c for c in sandbox.calls()) == 1
    for tool in TOOLS:
        write_script(folder, tool, "#!/bin/bash\n")
    (folder / "cmake-args.txt").write_text("-DGGML_NATIVE=OFF\n")
    again = sandbox.run("scripts/build_llama_server.sh", "--tools")
    assert again.returncode != 0 and sum("pip download" in c for c in sandbox.calls()) == 2


def test_an_unknown_option_is_refused_in_one_line(sandbox: Sandbox) -> None:
    done = sandbox.run("scripts/build_llama_server.sh", "--everything")
    assert done.returncode == 2
    assert (
        done.stderr.strip()
        == "build_llama_server: unknown option --everything (use --tools, or nothing for llama-server)"
    )
    assert not sandbox.calls()


def test_a_cuda_llama_server_is_kept_beside_the_cpu_one(sandbox: Sandbox) -> None:
    """TANDEM_GPU=cuda (scripts/gpu_check.sh) builds into its own folder with llama_wheel.sh's CUDA options."""
    sandbox.fake("nvcc", "echo 'Cuda compilation tools, release 13.0, V13.0.88'")
    cpu = sandbox.cache / f"llama-server-{VERSION}"
    cpu.mkdir(parents=True)
    (cpu / "cmake-args.txt").write_text(sandbox.run("scripts/llama_wheel.sh", "--cmake-args", TANDEM_GPU="off").stdout)
    write_script(cpu, "llama-server", "#!/bin/bash\n")
    assert sandbox.run("scripts/build_llama_server.sh").stdout.strip() == str(cpu / "llama-server")
    # This stand-in toolkit has no cuBLAS, and no wheel build has fetched it yet: said in one line.
    cuda = sandbox.run("scripts/build_llama_server.sh", TANDEM_GPU="cuda", TANDEM_CUDA_ARCHS="90")
    assert cuda.returncode == 2 and "no cuBLAS: build the CUDA wheel first" in cuda.stderr
    (sandbox.cache / "cublas-cu13" / "nvidia" / "cu13" / "include").mkdir(parents=True)
    cuda = sandbox.run("scripts/build_llama_server.sh", TANDEM_GPU="cuda", TANDEM_CUDA_ARCHS="90")
    assert "fetching the llama-cpp-python" in cuda.stderr  # not the CPU binary: a build of its own began
    assert not (sandbox.cache / f"llama-server-{VERSION}-cuda" / "llama-server").exists()
    assert (cpu / "llama-server").exists()
    bad = sandbox.run("scripts/build_llama_server.sh", TANDEM_GPU="vulkan")
    assert bad.returncode == 2 and "TANDEM_GPU must be off or cuda here" in bad.stderr
