"""How much and how long Tandem reads from a remote server before it gives up on a reply.

One frozen record, shared by the client, the CLI options of ``chat --remote``
and the window's Settings (which keep the two time-outs in the machine
settings). The byte caps are far above what any real reply needs (a
16,384-token reply is about 100 KB of events with llama-server's timings on
each), and low enough that a server sending without end costs a bounded,
small amount of memory.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.core.errors import TandemError

DEFAULT_DEADLINE_S = 3600.0  # a whole reply: 16k tokens at 5 tokens/s take under an hour
DEFAULT_IDLE_S = 300.0  # a long prompt's prefill on a busy server sends nothing for a while
DEFAULT_MAX_EVENT_BYTES = 1 << 20  # one SSE line / event (a vLLM usage chunk with per-step lists is ~100 KB)
DEFAULT_MAX_RESPONSE_BYTES = 64 << 20  # one reply's stream
MAX_MODELS_BYTES = 16 << 20  # one /v1/models answer (a list of hundreds of models with descriptions is ~1 MB)


@dataclass(frozen=True, slots=True)
class RemoteLimits:
    """Bounds on one remote reply: its whole duration, the longest silence, bytes per event and in all."""

    deadline_s: float = DEFAULT_DEADLINE_S
    idle_s: float = DEFAULT_IDLE_S
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES

    def __post_init__(self) -> None:
        if not self.deadline_s > 0 or not self.idle_s > 0:
            raise TandemError("the remote deadline and idle time-out must be positive numbers of seconds")
        if self.max_event_bytes < 1024 or self.max_response_bytes < self.max_event_bytes:
            raise TandemError("the remote byte limits must be at least 1 KiB, the reply's at least an event's")
