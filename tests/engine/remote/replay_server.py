"""A real local HTTP server that answers with recorded or hand-written OpenAI-style responses.

It stands in for servers that cannot run here (vLLM needs a GPU) and for
servers that misbehave (garbage events, a stream that stops, a refused key,
no answer at all). Not a test module: the tests import it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Script = Callable[["ReplayHandler"], None]


class ReplayHandler(BaseHTTPRequestHandler):
    """Runs the server's script for every POST, and answers /v1/models."""

    protocol_version = "HTTP/1.1"
    server: ReplayServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        """The model list."""
        self.send_json(200, {"object": "list", "data": [{"id": "replayed-model", "owned_by": self.server.owner}]})

    def do_POST(self) -> None:
        """Read the body (kept for the test), then play the script."""
        n = int(self.headers.get("Content-Length") or 0)
        self.server.bodies.append(json.loads(self.rfile.read(n) or b"{}"))
        self.server.script(self)

    def send_json(self, status: int, payload: dict[str, Any]) -> None:
        """A complete JSON answer."""
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_events(self, events: list[Any], done: bool = True, pause_s: float = 0.0) -> None:
        """An event stream: each item is a JSON object or a raw string sent as is after ``data: ``."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        for event in events:
            payload = event if isinstance(event, str) else json.dumps(event)
            self.wfile.write(f"data: {payload}\n\n".encode())
            self.wfile.flush()
            time.sleep(pause_s)
        if done:
            self.wfile.write(b"data: [DONE]\n\n")


class ReplayServer(ThreadingHTTPServer):
    """Listens on 127.0.0.1 on a free port until closed."""

    daemon_threads = True

    def __init__(self, script: Script, owner: str = "replay") -> None:
        super().__init__(("127.0.0.1", 0), ReplayHandler)
        self.script = script
        self.owner = owner
        self.bodies: list[dict[str, Any]] = []
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The base URL with ``/v1``."""
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def __enter__(self) -> ReplayServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()


def chat_chunk(content: str | None = None, finish: str | None = None, **extra: Any) -> dict[str, Any]:
    """One chat.completion.chunk in OpenAI's shape."""
    delta: dict[str, Any] = {} if content is None else {"content": content}
    chunk = {
        "id": "chatcmpl-replay",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "replayed-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    chunk.update(extra)
    return chunk
