"""One verify step told in words, for a newcomer watching the draft and the target work.

:func:`explain` reads a :class:`~app.core.reply.step_record.StepRecord` and
nothing else: every number it says is one the record holds (rounded to two
places), so the card, the HTML page and ``chats steps`` never invent one.
:func:`quoted` is how a token's text is shown inside those sentences (quotes,
with a newline or a tab made visible).
"""

from __future__ import annotations

from app.core.reply.step_record import DraftedRecord, StepRecord, TopEntry

_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


def quoted(text: str) -> str:
    """``text`` in double quotes, with newlines and tabs written as ``\\n`` and ``\\t`` so a blank shows."""
    return '"' + text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r") + '"'


def ordinal(position: int) -> str:
    """ "first", "second", ... for a draft position from 0; "token 11" past the tenth."""
    return _ORDINALS[position] if position < len(_ORDINALS) else f"token {position + 1}"


def _num(value: float) -> str:
    return f"{value:.2f}"


def _tokens(n: int) -> str:
    return "1 token" if n == 1 else f"{n} tokens"


def _proposal(step: StepRecord) -> str:
    n = len(step.drafted)
    if step.drafter == "lookup":
        match = f" after a match of {_tokens(step.lookup_match)}" if step.lookup_match else ""
        return f"Prompt lookup copied {_tokens(n)}{match} from earlier text."
    return f"The draft proposed {_tokens(n)}."


def _agreed_sampled(kept: list[DraftedRecord], everything: bool) -> str:
    if not kept:
        return ""
    which = f"all {len(kept)}" if everything else f"the first {len(kept)}"
    if len(kept) == 1:
        which = "it" if everything else "the first"
    if all(token.p_target >= token.q_draft for token in kept):
        return f"The target agreed with {which} (p >= q)."
    return f"The target kept {which}: each one's coin fell below its min(1, p/q)."


def _rejected_sampled(position: int, token: DraftedRecord, correction: TopEntry | None) -> str:
    coin = "" if token.coin is None else f", the coin drew {_num(token.coin)}"
    said = (
        f"The {ordinal(position)}, {quoted(token.text)}, had p = {_num(token.p_target)}"
        f" against q = {_num(token.q_draft)}: "
        f"kept with probability {_num(token.accept_probability)}{coin}, rejected."
    )
    if correction is not None:
        said += (
            f" The target then drew {quoted(correction.text)} (probability {_num(correction.p)} in the residual)"
            " from what it wanted and the draft did not offer."
        )
    return said


def _greedy(step: StepRecord) -> list[str]:
    kept = [token for token in step.drafted if token.accepted]
    everything = len(kept) == len(step.drafted)
    said: list[str] = []
    if kept:
        which = (f"all {len(kept)}" if len(kept) > 1 else "it") if everything else f"the first {len(kept)}"
        said.append(f"Each of {which} was the target's most likely token, so the target kept them.")
        if len(kept) == 1:
            said[-1] = (
                "It was the target's most likely token, so the target kept it."
                if everything
                else "The first was the target's most likely token, so the target kept it."
            )
    at = step.rejected_at
    if at is not None:
        token = step.drafted[at]
        top = token.target_top if token.target_top is not None else (step.correction.text if step.correction else None)
        top_words = (
            f"the target's most likely token was {quoted(top)}"
            if top is not None
            else "it was not the target's most likely token"
        )
        said.append(
            f"The {ordinal(at)}, {quoted(token.text)} (p = {_num(token.p_target)}), was turned down: {top_words}"
            + (", which the reply takes instead." if top is not None else ".")
        )
    return said


def _bonus(step: StepRecord) -> str:
    if step.bonus is None:
        return ""
    chance = f" (p = {_num(step.bonus.p)})"
    if step.greedy:
        return f"The target then added its most likely next token, {quoted(step.bonus.text)}{chance}, as a bonus."
    return f"The target then drew a bonus token, {quoted(step.bonus.text)}{chance}, from its own distribution."


def explain(step: StepRecord) -> str:
    """The step in a few sentences, every number taken from ``step``."""
    said: list[str] = []
    if not step.drafted:
        why = f" ({step.reason})" if step.reason else ""
        said.append(f"Nothing was drafted this step{why}.")
        if step.bonus is not None:
            if step.greedy:
                said.append(f"The target's most likely token was {quoted(step.bonus.text)} (p = {_num(step.bonus.p)}).")
            else:
                said.append(f"The target drew {quoted(step.bonus.text)} (p = {_num(step.bonus.p)}) on its own.")
        return " ".join(said)
    said.append(_proposal(step))
    if step.greedy:
        said.extend(_greedy(step))
    else:
        kept = [token for token in step.drafted if token.accepted]
        at = step.rejected_at
        agreed = _agreed_sampled(kept, at is None)
        if agreed:
            said.append(agreed)
        if at is not None:
            said.append(_rejected_sampled(at, step.drafted[at], step.correction))
    bonus = _bonus(step)
    if bonus:
        said.append(bonus)
    if step.n_emitted < step.n_accepted + 1:
        said.append(f"The reply ended within this step: it added {_tokens(step.n_emitted)}.")
    return " ".join(said)
