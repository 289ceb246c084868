"""A small MCP server over HTTP that misbehaves on purpose, run on a thread of the test on a free 127.0.0.1 port.

Not a test module: the remote MCP tests use it. It speaks just enough of
streamable HTTP by hand (JSON answers, no session id) to be started: it
answers ``initialize`` and ``tools/list`` (tools ``add`` and ``bad``), takes
notifications with 202, and adds for ``add``. How it answers ``bad`` is its
mode:

``huge``: a JSON answer of :attr:`HostileServer.huge` bytes.
``huge-event``: a server-sent event of as many bytes.
``malformed``: a 200 whose JSON body is not a JSON-RPC message.
``drop``: promises a body of 100000 bytes, sends a few, and closes the connection.
``hang``: never answers (nor, in mode ``hang-all``, anything at all).
``refuse``: answers every request with 401 Unauthorized (``missing``: 404 Not Found).
``sse-flood`` and ``sse-drop``: offer only SSE (a POST gets 405), and their event
stream sends one event of :attr:`HostileServer.huge` bytes, or half an event, then ends.

Every request's headers are kept in :attr:`HostileServer.seen`.
"""

from __future__ import annotations

import json
import threading
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOOLS = [
    {"name": "add", "description": "Add two integers.", "inputSchema": {"type": "object"}},
    {"name": "bad", "description": "Misbehave.", "inputSchema": {"type": "object"}},
]


class _Quiet(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # the client hanging up on a huge answer is the point, not a failure of the test's server


class HostileServer:
    """The server, serving on a daemon thread from construction until :meth:`close`."""

    def __init__(self, mode: str, huge: int = 2 << 20) -> None:
        self.mode = mode
        self.huge = huge
        self.seen: list[Message] = []  # each request's headers (names read in any case)
        self.released = threading.Event()  # set on close: a hanging answer gives up
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet: the test says what went wrong

            def do_GET(self) -> None:
                owner.seen.append(self.headers)
                if owner.mode in ("sse-flood", "sse-drop"):  # an SSE-only server: its event stream misbehaves
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    if owner.mode == "sse-flood":
                        self.wfile.write(b"event: endpoint\ndata: /messages?" + b"x" * owner.huge + b"\n\n")
                    else:
                        self.wfile.write(b"event: endpoint\ndata: /mess")
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.send_response(404 if owner.mode == "missing" else 405)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_DELETE(self) -> None:
                self.do_GET()

            def do_POST(self) -> None:
                owner.seen.append(self.headers)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if owner.mode == "hang-all":
                    owner.released.wait(60)
                    return
                if owner.mode in ("refuse", "missing", "sse-flood", "sse-drop"):
                    self.send_response({"refuse": 401, "missing": 404}.get(owner.mode, 405))
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                message = json.loads(body)
                method, request_id, params = message.get("method"), message.get("id"), message.get("params") or {}
                if request_id is None:
                    self.send_response(202)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                elif method == "initialize":
                    info = {"name": "hostile", "version": "1"}
                    version = params.get("protocolVersion")
                    self.answer(
                        request_id, {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
                    )
                elif method == "tools/list":
                    self.answer(request_id, {"tools": TOOLS})
                elif method == "tools/call" and params.get("name") == "add":
                    total = params["arguments"]["a"] + params["arguments"]["b"]
                    self.answer(request_id, {"content": [{"type": "text", "text": str(total)}]})
                else:
                    self.misbehave(request_id)

            def answer(self, request_id: object, result: object) -> None:
                self.send_body(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}).encode())

            def send_body(self, body: bytes, kind: str = "application/json") -> None:
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def misbehave(self, request_id: object) -> None:
                text = {"content": [{"type": "text", "text": "x" * owner.huge}]}
                whole = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": text}).encode()
                if owner.mode == "huge":
                    self.send_body(whole)
                elif owner.mode == "huge-event":
                    self.send_body(b"event: message\ndata: " + whole + b"\n\n", "text/event-stream")
                elif owner.mode == "malformed":
                    self.send_body(b'{"this is": "not a JSON-RPC message"}')
                elif owner.mode == "drop":
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", "100000")
                    self.end_headers()
                    self.wfile.write(whole[:40])
                    self.wfile.flush()
                    self.close_connection = True
                else:  # hang
                    owner.released.wait(60)

        self.http = _Quiet(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/mcp"
        threading.Thread(target=self.http.serve_forever, name="hostile-mcp-http", daemon=True).start()

    def close(self) -> None:
        """Stop serving; answers still hanging give up."""
        self.released.set()
        self.http.shutdown()
        self.http.server_close()
