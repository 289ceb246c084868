"""The GUI's adaptive switch: what its draft-length box means to the controller."""

from __future__ import annotations

from app.core.adaptive.controller import DEFAULT_MAX_LENGTH
from app.ui.main_window import adaptive_policy


def test_the_length_box_is_a_floor_on_the_controllers_maximum() -> None:
    assert adaptive_policy(4).max_length == DEFAULT_MAX_LENGTH == 12
    assert adaptive_policy(16).max_length == 16
