"""One verify step told in words, for a newcomer watching the draft and the target work.

:func:`explain` reads a :class:`~app.core.reply.step_record.StepRecord` and
nothing else: every number it says is one the record holds (rounded to two
places), so the card, the HTML page and ``chats steps`` never invent one.
:func:`quoted` is how a token's text is shown inside those sentences (quotes,
with a newline or a tab made visible).

Each sentence is :class:`~app.core.display.wording.Words` (:func:`explain_words`):
the window renders them in its language with its locale's numbers, while
:func:`explain` joins their English for the page and the CLI. Sentences are
whole templates rather than pieces glued together, since German declines what
English leaves alone ("kept it" and "agreed with it" take different cases).
"""

from __future__ import annotations

import re
import string
from functools import cache

from app.core.adaptive.reasons import REASONS
from app.core.display.wording import QT_TRANSLATE_NOOP, Phrase, Words
from app.core.reply.step_record import DraftedRecord, StepRecord, TopEntry

Sentence = Words | Phrase

_ORDINALS = (
    QT_TRANSLATE_NOOP("StepWords", "first"),
    QT_TRANSLATE_NOOP("StepWords", "second"),
    QT_TRANSLATE_NOOP("StepWords", "third"),
    QT_TRANSLATE_NOOP("StepWords", "fourth"),
    QT_TRANSLATE_NOOP("StepWords", "fifth"),
    QT_TRANSLATE_NOOP("StepWords", "sixth"),
    QT_TRANSLATE_NOOP("StepWords", "seventh"),
    QT_TRANSLATE_NOOP("StepWords", "eighth"),
    QT_TRANSLATE_NOOP("StepWords", "ninth"),
    QT_TRANSLATE_NOOP("StepWords", "tenth"),
)
_NTH_TOKEN = QT_TRANSLATE_NOOP("StepWords", "token {n}")
_ONE_TOKEN = QT_TRANSLATE_NOOP("StepWords", "1 token")
_TOKENS = QT_TRANSLATE_NOOP("StepWords", "{n} tokens")

_LOOKUP = QT_TRANSLATE_NOOP("StepWords", "Prompt lookup copied {tokens} from earlier text.")
_LOOKUP_MATCH = QT_TRANSLATE_NOOP(
    "StepWords", "Prompt lookup copied {tokens} after a match of {match} from earlier text."
)
_PROPOSED = QT_TRANSLATE_NOOP("StepWords", "The draft proposed {tokens}.")

# Sampled, the kept ones: agreed (p >= q everywhere) or kept by their coins; all or the first ones; one or many.
_AGREED_ALL = QT_TRANSLATE_NOOP("StepWords", "The target agreed with all {n} (p >= q).")
_AGREED_FIRST_N = QT_TRANSLATE_NOOP("StepWords", "The target agreed with the first {n} (p >= q).")
_AGREED_IT = QT_TRANSLATE_NOOP("StepWords", "The target agreed with it (p >= q).")
_AGREED_FIRST = QT_TRANSLATE_NOOP("StepWords", "The target agreed with the first (p >= q).")
_KEPT_ALL = QT_TRANSLATE_NOOP("StepWords", "The target kept all {n}: each one's coin fell below its min(1, p/q).")
_KEPT_FIRST_N = QT_TRANSLATE_NOOP(
    "StepWords", "The target kept the first {n}: each one's coin fell below its min(1, p/q)."
)
_KEPT_IT = QT_TRANSLATE_NOOP("StepWords", "The target kept it: each one's coin fell below its min(1, p/q).")
_KEPT_FIRST = QT_TRANSLATE_NOOP("StepWords", "The target kept the first: each one's coin fell below its min(1, p/q).")

_REJECTED = QT_TRANSLATE_NOOP(
    "StepWords",
    "The {ordinal}, {token}, had p = {p:.2f} against q = {q:.2f}: kept with probability {chance:.2f}, rejected.",
)
_REJECTED_COIN = QT_TRANSLATE_NOOP(
    "StepWords",
    "The {ordinal}, {token}, had p = {p:.2f} against q = {q:.2f}: "
    "kept with probability {chance:.2f}, the coin drew {coin:.2f}, rejected.",
)
_CORRECTION = QT_TRANSLATE_NOOP(
    "StepWords",
    "The target then drew {token} (probability {p:.2f} in the residual) "
    "from what it wanted and the draft did not offer.",
)

_GREEDY_ALL = QT_TRANSLATE_NOOP(
    "StepWords", "Each of all {n} was the target's most likely token, so the target kept them."
)
_GREEDY_FIRST_N = QT_TRANSLATE_NOOP(
    "StepWords", "Each of the first {n} was the target's most likely token, so the target kept them."
)
_GREEDY_IT = QT_TRANSLATE_NOOP("StepWords", "It was the target's most likely token, so the target kept it.")
_GREEDY_FIRST = QT_TRANSLATE_NOOP("StepWords", "The first was the target's most likely token, so the target kept it.")
_TURNED_DOWN_TOP = QT_TRANSLATE_NOOP(
    "StepWords",
    "The {ordinal}, {token} (p = {p:.2f}), was turned down: "
    "the target's most likely token was {top}, which the reply takes instead.",
)
_TURNED_DOWN = QT_TRANSLATE_NOOP(
    "StepWords", "The {ordinal}, {token} (p = {p:.2f}), was turned down: it was not the target's most likely token."
)

_BONUS_GREEDY = QT_TRANSLATE_NOOP(
    "StepWords", "The target then added its most likely next token, {token} (p = {p:.2f}), as a bonus."
)
_BONUS_SAMPLED = QT_TRANSLATE_NOOP(
    "StepWords", "The target then drew a bonus token, {token} (p = {p:.2f}), from its own distribution."
)

_NOTHING = QT_TRANSLATE_NOOP("StepWords", "Nothing was drafted this step.")
_NOTHING_WHY = QT_TRANSLATE_NOOP("StepWords", "Nothing was drafted this step ({reason}).")
_ALONE_GREEDY = QT_TRANSLATE_NOOP("StepWords", "The target's most likely token was {token} (p = {p:.2f}).")
_ALONE_SAMPLED = QT_TRANSLATE_NOOP("StepWords", "The target drew {token} (p = {p:.2f}) on its own.")
_ENDED = QT_TRANSLATE_NOOP("StepWords", "The reply ended within this step: it added {tokens}.")


_NUMBER = r"-?\d+(?:\.\d+)?"


@cache
def _pattern(phrase: Phrase) -> re.Pattern[str]:
    """The English template as a regular expression, each field a named number group."""
    parts: list[str] = []
    for literal, field, _spec, _conversion in string.Formatter().parse(phrase.source):
        parts.append(re.escape(literal))
        if field is not None:
            parts.append(f"(?P<{field}>{_NUMBER})")
    return re.compile("".join(parts))


def reason_words(reason: str) -> Sentence | str:
    """A stored policy reason read back as the words it was made from, else the text as it is.

    Step records keep the reason in English (they outlive the window's language); read against the
    policies' templates, its numbers come back as numbers, so the window can say it in German. A
    reading counts only when it prints the very same English again.
    """
    for phrase in REASONS:
        found = _pattern(phrase).fullmatch(reason)
        if found is None:
            continue
        values = {name: float(text) if "." in text else int(text) for name, text in found.groupdict().items()}
        words = phrase.fill(**values) if values else phrase
        if str(words) == reason:
            return words
    return reason


def quoted(text: str) -> str:
    """``text`` in double quotes, with newlines and tabs written as ``\\n`` and ``\\t`` so a blank shows."""
    return '"' + text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r") + '"'


def ordinal(position: int) -> str:
    """ "first", "second", ... for a draft position from 0; "token 11" past the tenth."""
    return str(ordinal_words(position))


def ordinal_words(position: int) -> Sentence:
    """:func:`ordinal` as words the window translates."""
    return _ORDINALS[position] if position < len(_ORDINALS) else _NTH_TOKEN.fill(n=position + 1)


def _tokens(n: int) -> Sentence:
    return _ONE_TOKEN if n == 1 else _TOKENS.fill(n=n)


def _proposal(step: StepRecord) -> Sentence:
    n = len(step.drafted)
    if step.drafter == "lookup":
        if step.lookup_match:
            return _LOOKUP_MATCH.fill(tokens=_tokens(n), match=_tokens(step.lookup_match))
        return _LOOKUP.fill(tokens=_tokens(n))
    return _PROPOSED.fill(tokens=_tokens(n))


def _agreed_sampled(kept: list[DraftedRecord], everything: bool) -> Sentence | None:
    if not kept:
        return None
    agreed = all(token.p_target >= token.q_draft for token in kept)
    if len(kept) == 1:
        if agreed:
            return _AGREED_IT if everything else _AGREED_FIRST
        return _KEPT_IT if everything else _KEPT_FIRST
    if agreed:
        return (_AGREED_ALL if everything else _AGREED_FIRST_N).fill(n=len(kept))
    return (_KEPT_ALL if everything else _KEPT_FIRST_N).fill(n=len(kept))


def _rejected_sampled(position: int, token: DraftedRecord, correction: TopEntry | None) -> list[Sentence]:
    values: dict[str, float | str | Sentence] = {
        "ordinal": ordinal_words(position),
        "token": quoted(token.text),
        "p": token.p_target,
        "q": token.q_draft,
        "chance": token.accept_probability,
    }
    said: list[Sentence] = [
        _REJECTED.fill(**values) if token.coin is None else _REJECTED_COIN.fill(**values, coin=token.coin)
    ]
    if correction is not None:
        said.append(_CORRECTION.fill(token=quoted(correction.text), p=correction.p))
    return said


def _greedy(step: StepRecord) -> list[Sentence]:
    kept = [token for token in step.drafted if token.accepted]
    everything = len(kept) == len(step.drafted)
    said: list[Sentence] = []
    if len(kept) == 1:
        said.append(_GREEDY_IT if everything else _GREEDY_FIRST)
    elif kept:
        said.append((_GREEDY_ALL if everything else _GREEDY_FIRST_N).fill(n=len(kept)))
    at = step.rejected_at
    if at is not None:
        token = step.drafted[at]
        top = token.target_top if token.target_top is not None else (step.correction.text if step.correction else None)
        values: dict[str, float | str | Sentence] = {
            "ordinal": ordinal_words(at),
            "token": quoted(token.text),
            "p": token.p_target,
        }
        said.append(_TURNED_DOWN.fill(**values) if top is None else _TURNED_DOWN_TOP.fill(**values, top=quoted(top)))
    return said


def _bonus(step: StepRecord) -> Sentence | None:
    if step.bonus is None:
        return None
    phrase = _BONUS_GREEDY if step.greedy else _BONUS_SAMPLED
    return phrase.fill(token=quoted(step.bonus.text), p=step.bonus.p)


def explain_words(step: StepRecord) -> list[Sentence]:
    """The step's sentences, every number taken from ``step`` (the window renders each in its language)."""
    said: list[Sentence] = []
    if not step.drafted:
        said.append(_NOTHING_WHY.fill(reason=reason_words(step.reason)) if step.reason else _NOTHING)
        if step.bonus is not None:
            alone = _ALONE_GREEDY if step.greedy else _ALONE_SAMPLED
            said.append(alone.fill(token=quoted(step.bonus.text), p=step.bonus.p))
        return said
    said.append(_proposal(step))
    if step.greedy:
        said.extend(_greedy(step))
    else:
        kept = [token for token in step.drafted if token.accepted]
        at = step.rejected_at
        agreed = _agreed_sampled(kept, at is None)
        if agreed is not None:
            said.append(agreed)
        if at is not None:
            said.extend(_rejected_sampled(at, step.drafted[at], step.correction))
    bonus = _bonus(step)
    if bonus is not None:
        said.append(bonus)
    if step.n_emitted < step.n_accepted + 1:
        said.append(_ENDED.fill(tokens=_tokens(step.n_emitted)))
    return said


def explain(step: StepRecord) -> str:
    """The step in a few sentences, every number taken from ``step`` (English)."""
    return " ".join(str(sentence) for sentence in explain_words(step))
