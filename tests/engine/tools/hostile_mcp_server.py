"""An MCP server that misbehaves around its process, for the client's bounds: run as ``hostile_mcp_server.py MODE``.

``flood``: writes ``TANDEM_TEST_FLOOD_MB`` MiB to stderr before it serves
(the client must drain it without keeping it), then serves ``add`` normally.
``flood-and-die``: writes the same flood, then one last line, then exits
before the handshake (the client shows that last line, not the flood).
``fork``: starts a sleeping grandchild, writes its pid to the file named by
``TANDEM_TEST_PID_FILE``, then serves ``add``; on stdin's end the server
leaves, the grandchild would stay.
"""

from __future__ import annotations

import os
import subprocess
import sys

from mcp.server.mcpserver import MCPServer

LAST_WORDS = "hostile server: the key file /nowhere/key is missing"


def flood() -> None:
    block = (b"x" * 1023 + b"\n") * 64  # 64 KiB of lines, none of them the last words
    for _ in range(int(os.environ.get("TANDEM_TEST_FLOOD_MB", "20")) * 16):
        os.write(2, block)


def main(mode: str) -> None:
    if mode.startswith("flood"):
        flood()
    if mode == "flood-and-die":
        os.write(2, (LAST_WORDS + "\n").encode())
        sys.exit(1)
    if mode == "fork":
        sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        with open(os.environ["TANDEM_TEST_PID_FILE"], "w", encoding="utf-8") as out:
            out.write(str(sleeper.pid))
    server = MCPServer("tandem-hostile")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    server.run("stdio")


if __name__ == "__main__":
    main(sys.argv[1])
