"""The GUI's adaptive switch: what its draft-length box means to the controller (the planner's rule)."""

from __future__ import annotations

from app.core.adaptive.controller import DEFAULT_MAX_LENGTH
from app.core.decoding.drafters import DrafterKind
from app.core.reply.plan import DraftPlan


def test_the_length_box_is_a_floor_on_the_controllers_maximum() -> None:
    assert DraftPlan.for_chat(DrafterKind.MODEL, 4, adaptive=True).length == DEFAULT_MAX_LENGTH == 12
    assert DraftPlan.for_chat(DrafterKind.MODEL, 16, adaptive=True).length == 16
