"""A reply's verify steps as one self-contained HTML page, for slides and for sharing.

:func:`render_page` is pure: it takes the reply's token texts and origins and
its :class:`~app.core.reply.step_record.StepRecord` list and returns the page
as text. Everything is inline (CSS, SVG, a few lines of script for
next/previous); nothing is fetched from the net, so the file opens anywhere,
offline. Without the script every card shows, one under the other.

The page has the reply's text coloured by origin (a click on a token opens
its step), a timeline strip with one small column per step, and one card per
step: the drafted tokens with their q and p as bars, the accept test (the coin
against min(1, p/q)), the rejected token struck through, the residual's
largest entries with the correction, the bonus, the step's words
(:func:`app.core.reply.step_words.explain`) and its cost. Every text that
came from a model is data: it goes through :func:`html.escape`.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from app.core.reply.step_record import DraftedRecord, StepRecord, TopEntry
from app.core.reply.step_words import explain, quoted

# Colours of the origins: the same meaning as the chat view's (draft kept, target's correction, bonus, plain).
_ORIGIN_COLOURS = {
    "draft": "#2e7d32",
    "corrected": "#c62828",
    "bonus": "#1565c0",
    "target": "#424242",
}
_CELL = 9  # one timeline cell, in pixels
_GAP = 2

_CSS = """
body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:60em;padding:0 1em;color:#212121}
h1{font-size:1.4em}
.reply{white-space:pre-wrap;border:1px solid #ddd;border-radius:6px;padding:.8em;background:#fafafa}
.reply span{cursor:pointer;border-radius:2px}
.reply span.sel{background:#fff59d}
.o-draft{color:#2e7d32}.o-corrected{color:#c62828;font-weight:600}.o-bonus{color:#1565c0}
.o-target{color:#424242}.o-other{color:#6a1b9a}
.legend span{margin-right:1.2em}
.timeline{overflow-x:auto;margin:1em 0;padding-bottom:4px}
.timeline rect{stroke:#fff;stroke-width:1}
.timeline a.sel rect.frame{stroke:#000;stroke-width:2;fill:none}
nav{margin:.5em 0}
nav button{font-size:1em;margin-right:.5em}
.card{border:1px solid #ccc;border-radius:8px;padding:.8em 1em;margin:1em 0}
body.one .card{display:none}body.one .card.sel{display:block}
.card h2{font-size:1.05em;margin:.1em 0 .6em}
.card table{border-collapse:collapse;margin:.4em 0}
.card td,.card th{padding:2px 8px 2px 0;text-align:left;vertical-align:middle;font-size:.92em}
.tok{font-family:ui-monospace,monospace;white-space:pre}
.no{text-decoration:line-through;color:#c62828}
.yes{color:#2e7d32}
.bar{display:inline-block;height:10px;background:#90a4ae;vertical-align:middle;min-width:1px}
.bar.q{background:#ffb74d}.bar.p{background:#64b5f6}.bar.pick{background:#c62828}
.words{background:#f5f5f5;border-left:4px solid #90a4ae;padding:.5em .8em;margin:.6em 0}
.cost{color:#616161;font-size:.9em}
"""

_SCRIPT = """
(function(){
var cards=document.querySelectorAll('.card');if(!cards.length)return;
var cols=document.querySelectorAll('.timeline a');var toks=document.querySelectorAll('.reply span');
var at=0;document.body.classList.add('one');
function show(i){at=Math.max(0,Math.min(cards.length-1,i));
cards.forEach(function(c,n){c.classList.toggle('sel',n===at)});
cols.forEach(function(c,n){c.classList.toggle('sel',n===at)});
toks.forEach(function(t){t.classList.toggle('sel',t.dataset.step===String(at))});
document.getElementById('where').textContent='step '+(at+1)+' of '+cards.length;}
document.getElementById('prev').onclick=function(){show(at-1)};
document.getElementById('next').onclick=function(){show(at+1)};
cols.forEach(function(c,n){c.onclick=function(e){e.preventDefault();show(n)}});
toks.forEach(function(t){t.onclick=function(){if(t.dataset.step)show(parseInt(t.dataset.step,10))}});
document.addEventListener('keydown',function(e){
if(e.key==='ArrowRight'||e.key==='j'||e.key===' '){e.preventDefault();show(at+1)}
else if(e.key==='ArrowLeft'||e.key==='k'){e.preventDefault();show(at-1)}
else if(e.key==='Home'){show(0)}else if(e.key==='End'){show(cards.length-1)}});
show(0);})();
"""


def _e(text: str) -> str:
    return escape(text, quote=True)


def _token_label(text: str) -> str:
    """A token shown alone: quoted, with blanks made visible, escaped for HTML."""
    return _e(quoted(text))


def _bar(p: float, kind: str = "", width_px: int = 160) -> str:
    width = max(0.0, min(1.0, p)) * width_px
    return f'<span class="bar {kind}" style="width:{width:.1f}px"></span> {p:.3f}'


def _accept_test(token: DraftedRecord) -> str:
    """The accept test as a bar: filled to min(1, p/q), with the coin as a black tick (none when greedy)."""
    w, h = 160, 14
    limit = token.accept_probability
    parts = [
        f'<svg width="{w}" height="{h}" role="img" aria-label="accept test">',
        f'<rect x="0" y="2" width="{w}" height="{h - 4}" fill="#eceff1"/>',
        f'<rect x="0" y="2" width="{limit * w:.1f}" height="{h - 4}" fill="#a5d6a7"/>',
    ]
    if token.coin is not None:
        x = max(0.0, min(1.0, token.coin)) * w
        parts.append(f'<line x1="{x:.1f}" y1="0" x2="{x:.1f}" y2="{h}" stroke="#000" stroke-width="2"/>')
    parts.append("</svg>")
    if token.coin is None:
        words = "argmax" if token.accepted else f"argmax was {_token_label(token.target_top or '?')}"
    else:
        sign = "&lt;" if token.coin < limit else "&ge;"
        words = f"coin {token.coin:.3f} {sign} {limit:.3f}"
    return "".join(parts) + f" {words}"


def _drafted_table(step: StepRecord) -> str:
    if not step.drafted:
        return ""
    rows = [
        "<table><tr><th>#</th><th>token</th><th>q (draft)</th><th>p (target)</th><th>accept test</th><th></th></tr>"
    ]
    at = step.rejected_at
    for i, token in enumerate(step.drafted):
        if at is not None and i > at:
            break  # the verifier never reached these
        css = "yes" if token.accepted else "no"
        verdict = "kept" if token.accepted else "rejected"
        rows.append(
            f'<tr><td>{i + 1}</td><td class="tok {css}">{_token_label(token.text)}</td>'
            f"<td>{_bar(token.q_draft, 'q')}</td><td>{_bar(token.p_target, 'p')}</td>"
            f"<td>{_accept_test(token)}</td><td>{verdict}</td></tr>"
        )
    unreached = len(step.drafted) - (at + 1) if at is not None else 0
    if unreached:
        rows.append(
            f'<tr><td colspan="6" class="cost">{unreached} drafted token(s) after the rejection'
            " were discarded unchecked.</td></tr>"
        )
    rows.append("</table>")
    return "".join(rows)


def _entries(title: str, entries: Sequence[TopEntry], chosen: TopEntry | None) -> str:
    if not entries and chosen is None:
        return ""
    rows = [f"<div><b>{_e(title)}</b><table>"]
    for entry in entries:
        pick = chosen is not None and entry.text == chosen.text
        mark = " &larr; drawn" if pick else ""
        rows.append(
            f'<tr><td class="tok">{_token_label(entry.text)}</td>'
            f"<td>{_bar(entry.p, 'pick' if pick else 'p')}{mark}</td></tr>"
        )
    if chosen is not None and not any(entry.text == chosen.text for entry in entries):
        rows.append(
            f'<tr><td class="tok">{_token_label(chosen.text)}</td><td>{_bar(chosen.p, "pick")} &larr; drawn</td></tr>'
        )
    rows.append("</table></div>")
    return "".join(rows)


def _heading(step: StepRecord) -> str:
    parts = [f"Step {step.index + 1}"]
    if step.drafter == "lookup":
        parts.append(f"lookup (match {step.lookup_match})" if step.lookup_match is not None else "lookup")
    elif step.drafter is not None:
        parts.append(f"{step.drafter} draft")
    else:
        parts.append("no draft")
    parts.append(f"K={step.draft_length} asked: {step.reason!r}")
    if step.drafted:
        parts.append(f"drafted {len(step.drafted)}, kept {step.n_accepted}")
    if step.greedy:
        parts.append("greedy")
    last = step.first_token + step.n_emitted
    parts.append(f"tokens {step.first_token + 1}–{last}" if step.n_emitted else "no tokens")
    return _e(" · ".join(parts))


def _card(step: StepRecord) -> str:
    residual_title = (
        "the target's choice after the rejection" if step.greedy else "residual max(0, p − q), renormalised"
    )
    bonus_title = "the target's own distribution (bonus)" if step.drafted else "the target's own distribution"
    return "".join(
        [
            f'<section class="card" id="step-{step.index}">',
            f"<h2>{_heading(step)}</h2>",
            _drafted_table(step),
            _entries(residual_title, step.residual_top, step.correction),
            _entries(bonus_title, step.bonus_top, step.bonus),
            f'<p class="words">{_e(explain(step))}</p>',
            f'<p class="cost">draft {step.draft_ms:.1f} ms + verify {step.verify_ms:.1f} ms</p>',
            "</section>",
        ]
    )


def _column(step: StepRecord, x: int) -> str:
    """One timeline column, bottom up: kept drafts (green), the rejected one (red), the target's token."""
    cells: list[str] = []
    kept = step.n_accepted
    colours = ["#66bb6a"] * kept
    if step.rejected_at is not None:
        colours.append("#ef5350")
        colours.append(_ORIGIN_COLOURS["corrected"])
    elif step.bonus is not None:
        colours.append(_ORIGIN_COLOURS["bonus"] if step.drafted else "#9e9e9e")
    top = 0
    for n, colour in enumerate(colours):
        y = _TIMELINE_H - (n + 1) * _CELL
        cells.append(f'<rect x="{x}" y="{y}" width="{_CELL}" height="{_CELL}" fill="{colour}"/>')
        top = y
    height = _TIMELINE_H - top if colours else _CELL
    frame = f'<rect class="frame" x="{x}" y="{_TIMELINE_H - height}" width="{_CELL}" height="{height}"/>'
    tip = f"step {step.index + 1}: drafted {len(step.drafted)}, kept {kept}, emitted {step.n_emitted}"
    return f'<a href="#step-{step.index}"><title>{_e(tip)}</title>{"".join(cells)}{frame}</a>'


_TIMELINE_H = 14 * _CELL


def _timeline(steps: Sequence[StepRecord]) -> str:
    width = max(1, len(steps)) * (_CELL + _GAP)
    columns = "".join(_column(step, n * (_CELL + _GAP)) for n, step in enumerate(steps))
    return (
        f'<div class="timeline"><svg width="{width}" height="{_TIMELINE_H}" role="img" '
        f'aria-label="one column per step">{columns}</svg></div>'
    )


def _reply(token_texts: Sequence[str], token_origins: Sequence[str], steps: Sequence[StepRecord]) -> str:
    step_at: dict[int, int] = {}  # token index -> the position in ``steps`` of the step that emitted it
    for n, step in enumerate(steps):
        for i in range(step.first_token, step.first_token + step.n_emitted):
            step_at.setdefault(i, n)
    spans: list[str] = []
    for i, text in enumerate(token_texts):
        origin = token_origins[i] if i < len(token_origins) else ""
        css = f"o-{origin}" if origin in _ORIGIN_COLOURS else "o-other"
        data = f' data-step="{step_at[i]}"' if i in step_at else ""
        spans.append(f'<span class="{css}" title="{_e(origin)}"{data}>{_e(text)}</span>')
    return f'<div class="reply">{"".join(spans)}</div>'


def _summary(token_texts: Sequence[str], steps: Sequence[StepRecord]) -> str:
    drafted = sum(len(step.drafted) for step in steps)
    kept = sum(step.n_accepted for step in steps)
    rate = f", {kept / drafted:.0%} of drafted tokens kept" if drafted else ""
    return f"<p>{len(token_texts)} tokens in {len(steps)} steps; {drafted} drafted, {kept} kept{rate}.</p>"


def render_page(
    title: str, token_texts: Sequence[str], token_origins: Sequence[str], steps: Sequence[StepRecord]
) -> str:
    """The whole page for one reply: text by origin, the timeline and one card per step."""
    legend = "".join(
        f'<span class="o-{origin}">&#9632; {_e(words)}</span>'
        for origin, words in (
            ("draft", "drafted and kept"),
            ("corrected", "the target's correction"),
            ("bonus", "bonus"),
            ("target", "the target alone"),
        )
    )
    nav = (
        '<nav><button id="prev" type="button">&larr; previous</button>'
        '<button id="next" type="button">next &rarr;</button> <span id="where"></span>'
        " <small>(keys: &larr; &rarr;, Home, End; click a token or a column)</small></nav>"
    )
    body = [
        f"<h1>{_e(title)}</h1>",
        _summary(token_texts, steps),
        f'<p class="legend">{legend}</p>',
        _reply(token_texts, token_origins, steps),
        _timeline(steps),
        nav if steps else "<p>No steps were recorded for this reply.</p>",
        *(_card(step) for step in steps),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{_e(title)}</title>'
        f"<style>{_CSS}</style></head><body>{''.join(body)}<script>{_SCRIPT}</script></body></html>\n"
    )
