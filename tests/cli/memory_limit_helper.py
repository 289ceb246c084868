"""`tandem chat` under an address-space limit, so llama.cpp runs out of memory for real.

Run by ``test_chat_cli.py`` as ``python -m tests.cli.memory_limit_helper MODE TARGET COMMAND ARGS...``
(``--target TARGET`` is added after COMMAND); the helper sets ``RLIMIT_AS`` and then runs the
command line in this process:

- ``weights``: the limit leaves room for one and a half model files: the header read and
  llama.cpp's mapping of the weights fit (one file each, one after the other), a CPU copy of
  the weights beside the mapping does not (llama.cpp repacks Q4_0 for AMX or AVX2 kernels);
- ``context``: the model loads with a tiny context first, to measure what that takes; the limit
  leaves 64 MB more, and the context the command asks for needs far more for its cache.

Not a test module.
"""

from __future__ import annotations

import resource
import sys
from pathlib import Path

MB = 1 << 20


def address_space() -> int:
    """This process's virtual size now (what RLIMIT_AS limits), in bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize in /proc/self/status")


def main() -> int:
    """Measure, limit, run the CLI; its exit code is this process's."""
    mode, target, command, *args = sys.argv[1:]
    # Everything the command imports is imported before the limit, so only its allocations count.
    import app.cli.chat.local
    import app.cli.chat.stored
    import app.cli.serve_command  # noqa: F401
    from app.cli import main as cli_main
    from app.engine.llama.model import LlamaModel, LoadOptions

    if mode == "weights":
        limit = address_space() + Path(target).stat().st_size * 3 // 2
    else:
        model = LlamaModel(target, LoadOptions(n_ctx=64, n_threads=1))
        limit = address_space() + 64 * MB
        model.close()
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
    return cli_main([command, "--target", target, *args])


if __name__ == "__main__":
    sys.exit(main())
