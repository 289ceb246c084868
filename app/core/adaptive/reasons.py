"""Why a draft-length policy chose what it chose, as sentences the window can translate.

The adaptive controller (:mod:`app.core.adaptive.controller`) gives each
step a reason. Reasons are kept in the step records as English text
(``str``) and read back against these templates
(``app/core/reply/step_words.reason_words``) so the window can say them in its
language. The numbers are fields, so a stored reason gives them back as
numbers.
"""

from __future__ import annotations

from app.core.display.wording import QT_TRANSLATE_NOOP, Phrase

NOT_ASKED = QT_TRANSLATE_NOOP("AdaptiveReason", "not asked yet")
MEASURING_DRAFT = QT_TRANSLATE_NOOP("AdaptiveReason", "measuring what a draft costs: K={k} until it is known")
PLAIN_STEP = QT_TRANSLATE_NOOP("AdaptiveReason", "a plain step, to measure what one target token costs")
BEST_AT = QT_TRANSLATE_NOOP(
    "AdaptiveReason",
    "expected speed best at K={k} (acceptance {acceptance:.2f}, "
    "draft {draft_ms:.0f} ms/token, verify {verify_ms:.0f} ms)",
)
OFF_HOPELESS = QT_TRANSLATE_NOOP("AdaptiveReason", "drafting off: even a fully accepted draft could not pay for itself")
OFF_COSTLY = QT_TRANSLATE_NOOP("AdaptiveReason", "drafting off: the draft costs more than it saves")
PROBE = QT_TRANSLATE_NOOP("AdaptiveReason", "a probe at K={k}: drafting is off, checking whether it pays again")
CATCH_UP = QT_TRANSLATE_NOOP(
    "AdaptiveReason",
    "the draft model stays off: reading the {backlog} tokens it missed (~{read_s:.1f} s) would cost "
    "more than its plan saves in the {remaining} tokens left (~{saved_s:.1f} s)",
)
# FixedDraftLength's reason (app/core/decoding/draft_policy.py writes the same English itself).
FIXED_AT = QT_TRANSLATE_NOOP("AdaptiveReason", "fixed at {length}")
REASONS: tuple[Phrase, ...] = (
    NOT_ASKED,
    MEASURING_DRAFT,
    PLAIN_STEP,
    BEST_AT,
    OFF_HOPELESS,
    OFF_COSTLY,
    PROBE,
    CATCH_UP,
    FIXED_AT,
)
"""Every reason a draft-length policy gives, as a template (the step view reads stored ones back)."""
