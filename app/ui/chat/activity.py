"""What the engine thread is doing for the chat: the state the controller and the window switch on."""

from __future__ import annotations

import enum


class Activity(enum.Enum):
    """What the engine thread is doing for us."""

    IDLE = "idle"
    LOADING = "loading"
    GENERATING = "generating"
    COMPARING = "comparing"
    TOOLS = "tools"  # a reply's tool calls are being asked about or run (no reply runs meanwhile)
