"""An MCP server that misbehaves around its process, for the client's bounds: run as ``hostile_mcp_server.py MODE``.

``flood``: writes ``TANDEM_TEST_FLOOD_MB`` MiB to stderr before it serves
(the client must drain it without keeping it), then serves ``add`` normally.
``flood-and-die``: writes the same flood, then one last line, then exits
before the handshake (the client shows that last line, not the flood).
``fork``: starts a sleeping grandchild, writes its pid to the file named by
``TANDEM_TEST_PID_FILE``, then serves ``add``; on stdin's end the server
leaves, the grandchild would stay.
``endless``: speaks JSON-RPC by hand (the SDK's server keeps its own stdout
clean) and offers ``add`` (described by ``TANDEM_TEST_DESCRIPTION`` when
given) and ``huge``; ``huge`` is answered with a message
of ``TANDEM_TEST_HUGE_MB`` MiB that has no line end, then nothing: a message
no client should try to hold whole.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from mcp.server.mcpserver import MCPServer

LAST_WORDS = "hostile server: the key file /nowhere/key is missing"


def flood() -> None:
    block = (b"x" * 1023 + b"\n") * 64  # 64 KiB of lines, none of them the last words
    for _ in range(int(os.environ.get("TANDEM_TEST_FLOOD_MB", "20")) * 16):
        os.write(2, block)


def answer(request_id: object, result: object) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}) + "\n")
    sys.stdout.flush()


def endless() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        method, request_id, params = message.get("method"), message.get("id"), message.get("params", {})
        if request_id is None:
            continue  # a notification
        if method == "initialize":
            info = {"name": "endless", "version": "1"}
            answer(
                request_id,
                {"protocolVersion": params["protocolVersion"], "capabilities": {"tools": {}}, "serverInfo": info},
            )
        elif method == "tools/list":
            schema = {"type": "object"}
            said = os.environ.get("TANDEM_TEST_DESCRIPTION", "Add two integers.")
            add = {"name": "add", "description": said, "inputSchema": schema}
            answer(request_id, {"tools": [add, {"name": "huge", "inputSchema": schema}]})
        elif method == "tools/call" and params["name"] == "add":
            total = params["arguments"]["a"] + params["arguments"]["b"]
            answer(request_id, {"content": [{"type": "text", "text": str(total)}]})
        elif method == "tools/call":
            head = json.dumps(
                {"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "text", "text": ""}]}}
            )
            sys.stdout.write(head[: head.rindex('""') + 1])
            block = "x" * (1 << 20)
            for _ in range(int(os.environ.get("TANDEM_TEST_HUGE_MB", "70"))):
                sys.stdout.write(block)
            sys.stdout.flush()
            time.sleep(3600)


def main(mode: str) -> None:
    if mode == "endless":
        endless()
        return
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
