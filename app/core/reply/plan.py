"""The decisions behind one reply that need no model: drafter, draft-length policy, seed, prompt policy.

Each front end used to make these itself and they had drifted apart (the
window ran the adaptive controller up to 12 tokens where ``chat --chat`` ran
it up to the chat's 4, and the seeds and the drafter fallback came from
different rules). They live here once, with the reasons.

**The adaptive bound.** A chat's draft length is the length drafted every
step when Adaptive is off. With Adaptive on, the controller picks each
step's length from measured costs and acceptance, and the chat's length is
a *floor on its maximum*: the maximum is ``max(draft_length,
DEFAULT_MAX_LENGTH)``. Capping the controller at the fixed-mode length (4 by
default) would cut the long drafts a memory-bound pair gains from (an F16
target accepting long runs of code) and would make the app's default chat
differ from what its benchmarks measure (the controller's own default of
12); the settings panel's tooltip has always said "floor on the maximum".
"""

from __future__ import annotations

import enum
import secrets
from dataclasses import dataclass

from app.core.adaptive.controller import DEFAULT_MAX_LENGTH, AdaptiveDraftLength
from app.core.decoding.draft_policy import DraftLengthPolicy, FixedDraftLength
from app.core.decoding.drafters import DrafterKind

# The fixed draft length of the window's "show speculation anyway": long enough to show
# runs of accepted drafts and corrections, short enough to waste little when rejected.
DEMO_DRAFT_LENGTH = 4
# A seed drawn for a reply whose chat asks for a fresh one: below 2**31 so every front end
# and every server that takes an int32 seed can replay it.
_SEED_RANGE = 2**31


class DraftMode(enum.StrEnum):
    """How the draft length is chosen."""

    NONE = "none"  # no drafting: the target alone
    FIXED = "fixed"  # the same length every step
    ADAPTIVE = "adaptive"  # chosen every step by the controller, up to a maximum


@dataclass(frozen=True, slots=True)
class DraftPlan:
    """The draft-length policy of one reply: its mode and its length (fixed K, or the controller's maximum)."""

    mode: DraftMode
    length: int = 0
    demo: bool = False  # the window's "show speculation anyway" chose this fixed length

    def __post_init__(self) -> None:
        if self.mode is DraftMode.NONE and self.length != 0:
            raise ValueError("a plan without drafting has length 0")
        if self.mode is not DraftMode.NONE and self.length < 1:
            raise ValueError(f"a {self.mode.value} draft plan needs a length of at least 1")

    @classmethod
    def none(cls) -> DraftPlan:
        """No drafting."""
        return cls(DraftMode.NONE)

    @classmethod
    def fixed(cls, length: int, demo: bool = False) -> DraftPlan:
        """``length`` tokens every step (0: no drafting)."""
        return cls(DraftMode.FIXED, length, demo) if length > 0 else cls.none()

    @classmethod
    def adaptive(cls, draft_length: int = 0) -> DraftPlan:
        """The controller, with ``draft_length`` as a floor on its maximum (see the module's docstring)."""
        return cls(DraftMode.ADAPTIVE, adaptive_max_length(draft_length))

    @classmethod
    def for_chat(cls, drafter: DrafterKind, draft_length: int, adaptive: bool, demo: bool = False) -> DraftPlan:
        """The plan a chat's settings give for a reply drafted by ``drafter``."""
        if drafter is DrafterKind.NONE:
            return cls.none()
        if demo:
            return cls.fixed(DEMO_DRAFT_LENGTH, demo=True)
        return cls.adaptive(draft_length) if adaptive else cls.fixed(draft_length)

    @classmethod
    def for_run(cls, drafter: DrafterKind, draft_length: int | None) -> DraftPlan:
        """A measuring run's plan: ``draft_length`` tokens every step, or the controller at its default when None."""
        if drafter is DrafterKind.NONE:
            return cls.none()
        return cls.adaptive() if draft_length is None else cls.fixed(draft_length)

    @property
    def is_adaptive(self) -> bool:
        """The controller chooses the length."""
        return self.mode is DraftMode.ADAPTIVE

    def words(self) -> str:
        """The policy as a reply's record says it: "adaptive, up to 12", "fixed 4", "none"."""
        if self.mode is DraftMode.NONE:
            return "none"
        if self.mode is DraftMode.ADAPTIVE:
            return f"adaptive, up to {self.length}"
        return f"fixed {self.length}" + (" (speculation demo)" if self.demo else "")

    def policy(self) -> DraftLengthPolicy:
        """A fresh policy object for one generation (the adaptive one is attached to a pair's profile later)."""
        if self.mode is DraftMode.ADAPTIVE:
            return AdaptiveDraftLength(self.length)
        # A chat's fixed length lets the first token come before the draft reads the prompt; the demo drafts every step.
        return FixedDraftLength(self.length, first_token_first=not self.demo)


def adaptive_max_length(draft_length: int) -> int:
    """The adaptive controller's maximum for a chat's draft length: a floor on the maximum, not a fixed K."""
    return max(draft_length, DEFAULT_MAX_LENGTH)


class PromptPolicy(enum.StrEnum):
    """What to do when the conversation does not fit the context with room for the reply."""

    # A chat (the window, `chat --chat`): leave out the oldest turns, as chat apps do, and say so.
    DROP_OLDEST = "drop-oldest"
    # One prompt (`chat`, `serve`): the caller owns the context; refuse instead of cutting it.
    REFUSE = "refuse"


def effective_drafter(
    wanted: DrafterKind, draft_loaded: bool, loaded: DrafterKind, own_layers_loaded: bool = False
) -> DrafterKind:
    """The drafter a reply uses: the chat's, unless it needs a draft model or MTP layers the loaded pair lacks.

    Then the pair's own drafter stands in (whichever it was loaded with, else
    prompt lookup), so a chat set to the draft model still answers on a pair
    loaded without one, and a chat set to the MTP layers on a pair loaded without them.
    """

    def runs(kind: DrafterKind) -> bool:
        if kind.uses_draft_model:
            return draft_loaded
        if kind.uses_own_layers:
            return own_layers_loaded
        return True

    if runs(wanted):
        return wanted
    return loaded if runs(loaded) else DrafterKind.NGRAM


def concrete_seed(seed: int | None) -> int:
    """The seed a reply runs with: the one asked for, else one drawn now, so every reply can be replayed."""
    return seed if seed is not None and seed >= 0 else secrets.randbelow(_SEED_RANGE)
