"""A tiny MCP server for the tests, written with the official SDK and run over stdio.

``add`` and ``weather`` answer; ``echo`` returns its text unchanged (chat-template
markers included); ``hang`` never answers; ``crash`` ends the process mid-call;
``fail`` raises, which the SDK reports as an error result. ``write_note``
and ``remove_label`` say nothing of what they change (their names mark them);
``tidy`` is annotated destructive and ``delete_preview`` read-only, which
the client believes over their names. ``harbour_clock`` answers with a
time no model could guess (the window's and the CLI's real-model checks of
what follows a result). With
``TANDEM_TEST_WEATHER=hang`` in its environment, ``weather`` never answers either.

Run as ``mcp_test_server.py streamable-http FD`` or ``mcp_test_server.py sse
FD`` it serves the same tools over HTTP on the listening socket it inherited
as file descriptor ``FD`` (the test bound it to a free port on 127.0.0.1), at
``/mcp`` or ``/sse``.
"""

from __future__ import annotations

import os
import socket
import sys
import time

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("tandem-test")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def weather(city: str) -> str:
    """Get the current weather in a city."""
    if os.environ.get("TANDEM_TEST_WEATHER") == "hang":  # a server that stops answering (the GUI's bad-server test)
        time.sleep(3600)
    # An unusual reading, so an answer that states it can only have come from the tool.
    return f'{{"city": "{city}", "temperature_c": 37, "sky": "purple hail"}}'


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool()
def hang() -> str:
    """Never answer."""
    time.sleep(3600)
    return "late"


@server.tool()
def crash() -> str:
    """End the server's process in the middle of the call."""
    os._exit(3)


@server.tool()
def fail() -> str:
    """Raise an error."""
    raise RuntimeError("the tool broke on purpose")


@server.tool()
def write_note(text: str) -> str:
    """Pretend to write a note (nothing is written)."""
    return f"noted: {text}"


@server.tool()
def remove_label(label: str) -> str:
    """Pretend to remove a label (nothing is removed)."""
    return f"removed: {label}"


@server.tool(annotations=ToolAnnotations(destructiveHint=True))
def tidy() -> str:
    """Pretend to tidy a folder up (nothing is touched)."""
    return "tidied"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def delete_preview(path: str) -> str:
    """Say what deleting a path would remove, without deleting it."""
    return f"would remove {path}"


@server.tool()
def harbour_clock(port: str) -> str:
    """Get the current local time and tide at a harbour."""
    # An unusual reading, so an answer that states it can only have come from the tool.
    return f'{{"port": "{port}", "local_time": "04:17", "tide": "ebbing"}}'


def serve_http(transport: str, fd: int) -> None:
    """Serve over HTTP on the inherited listening socket ``fd`` until killed."""
    import anyio
    import uvicorn

    listening = socket.socket(fileno=fd)
    app = server.sse_app() if transport == "sse" else server.streamable_http_app()
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    anyio.run(lambda: uvicorn.Server(config).serve(sockets=[listening]))


if __name__ == "__main__":
    if len(sys.argv) == 3:
        serve_http(sys.argv[1], int(sys.argv[2]))
    else:
        server.run("stdio")
