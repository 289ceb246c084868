"""An MCP server that speaks the handshake correctly but answers every tool call with a malformed result.

Written by hand (the SDK would never send such a result): newline-delimited
JSON-RPC over stdio, the initialize answer echoing the client's protocol
version, one tool listed, and ``tools/call`` answered with ``content`` that
is not a list of content blocks.
"""

from __future__ import annotations

import json
import sys


def answer(request_id: object, result: object) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    message = json.loads(line)
    method, request_id = message.get("method"), message.get("id")
    if request_id is None:
        continue  # a notification
    if method == "initialize":
        version = message["params"]["protocolVersion"]
        answer(
            request_id,
            {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": {"name": "bad", "version": "1"}},
        )
    elif method == "tools/list":
        answer(request_id, {"tools": [{"name": "broken", "inputSchema": {"type": "object"}}]})
    elif method == "tools/call":
        answer(request_id, {"content": "not a list", "isError": "perhaps"})
    else:
        sys.stdout.write(
            json.dumps({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "no"}}) + "\n"
        )
        sys.stdout.flush()
