"""Live statistics for the reply being generated (or the last one).

Tokens per second, acceptance rate, mean accepted length per verify step,
per-position acceptance as a bar chart, the drafter's current draft length,
the CPU threads in use (chosen by measurement unless the settings force a number),
and the speedup against the target-only rate measured on this machine (by an
A/B run or a target-only reply), which is the number that says whether
speculation pays here; below 1x it says "slower than the target alone", and
the note under it names the baseline and when it last changed. Acceptance is
one figure, kept over drafted (the footer's): the Rules row gives the two
rules' expected acceptance from the same p_target and q_draft rows, exact
rejection sampling (sum min(p, q)) and the sample-and-match rule llama.cpp's
examples use (sum p * q), on the draft tokens the target judged, so the gap
exact verification recovers is visible live without a second measured rate.
The mean accepted length counts the steps that drafted (a step the controller
left undrafted accepts nothing by definition).
A remote server (llama-server, vLLM) reports no per-step timings, threads or
expected-acceptance rows: those rows say "not reported" rather than a made-up 0 ms.
Under "Prompt": the time to the first token, the prefill's prompt tokens per
second and how many prompt tokens the target's KV cache already held.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from PySide6.QtCore import QCoreApplication, Qt, QTime
from PySide6.QtGui import QFont, QPalette, QTextDocumentFragment
from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QVBoxLayout, QWidget

from app.core.decoding.stats import GenerationStats, PromptFigures
from app.core.display.wording import QT_TRANSLATE_NOOP
from app.core.reply.reasoning import Part, PartAcceptance
from app.ui import theme
from app.ui.chat.view.token_cards import SHORT_SOURCE_LABELS, copied_from_label
from app.ui.i18n.words import number, say
from app.ui.stats.charts import BarChart
from app.ui.threads.jobs import drafter_label

# Where a baseline came from, as the window and the tools name it; shown in the user's language.
BASELINE_SOURCES = (
    str(QT_TRANSLATE_NOOP("StatsPanel", "measured here")),
    str(QT_TRANSLATE_NOOP("StatsPanel", "pre-flight")),
)


class StatsPanel(QWidget):
    """Numbers and a per-position chart, updated once per verify step."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._baseline: float | None = None
        self._baseline_source = ""
        self._baseline_change = ""  # "changed from 4.8 tok/s at 14:32": the last change of a baseline
        self._stats = GenerationStats()
        self._adaptive = False
        self._ngram = False
        self._remote = False  # a server answers: figures it does not send read "not reported"
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(10)

        self.rate = QLabel("–")
        big = QFont(self.font())
        big.setPointSizeF(big.pointSizeF() * 1.8)
        big.setWeight(QFont.Weight.DemiBold)
        self.rate.setFont(big)
        self.speedup = QLabel("–")
        self.speedup.setFont(big)
        self.speedup.setWordWrap(True)  # "0.66×: slower than the target alone" may wrap in a narrow panel
        top = QFormLayout()
        top.addRow(self.tr("Tokens/s"), self.rate)
        top.addRow(self.tr("Speedup"), self.speedup)
        self.baseline_note = QLabel(self.tr("target-only rate not measured yet: run A/B"))
        self.baseline_note.setWordWrap(True)
        muted = self.baseline_note.palette()
        muted.setColor(QPalette.ColorRole.WindowText, theme.muted_text(self.palette()))
        self.baseline_note.setPalette(muted)
        top.addRow("", self.baseline_note)
        layout.addLayout(top)

        details = QGroupBox(self.tr("Speculation"))
        form = QFormLayout(details)
        self.drafter = QLabel("–")
        self.acceptance = QLabel("–")
        self.mean_length = QLabel("–")
        self.per_pass = QLabel("–")
        self.rules = QLabel("–")
        self.rules.setWordWrap(True)
        self.rules.setToolTip(
            self.tr(
                "expected acceptance per verified draft token, from the same target and draft distributions:\n"
                "exact rejection sampling keeps a draft with probability min(1, p/q), on average sum min(p, q);\n"
                "sample-and-match keeps it only when the target's own sample equals it, on average sum p·q"
            )
        )
        self.draft_length = QLabel("–")
        self.draft_length.setWordWrap(True)
        self.timing = QLabel("–")
        self.timing.setWordWrap(True)
        self.threads = QLabel("–")
        self.threads.setToolTip(
            self.tr(
                "llama.cpp's threads wait for each other, so a core another program keeps busy slows all of them:\n"
                "Auto measures which count is fastest here and re-checks during long replies"
            )
        )
        form.addRow(self.tr("Drafter"), self.drafter)
        form.addRow(self.tr("Acceptance"), self.acceptance)
        self.parts = QLabel("–")
        self.parts.setWordWrap(True)
        self.parts.setAccessibleName(self.tr("Acceptance in thinking and in the answer"))
        self.parts.setToolTip(
            self.tr(
                "a reasoning reply's thinking and its answer apart: accepted draft tokens per verdict\n"
                "the target gave on a draft there (each corrected token is one turned down)"
            )
        )
        self.parts_label = QLabel(self.tr("Thinking / answer"))
        form.addRow(self.parts_label, self.parts)
        form.addRow(self.tr("Rules"), self.rules)
        form.addRow(self.tr("Mean accepted"), self.mean_length)
        form.addRow(self.tr("Tokens per pass"), self.per_pass)
        form.addRow(self.tr("Draft length"), self.draft_length)
        form.addRow(self.tr("Per step"), self.timing)
        form.addRow(self.tr("Threads"), self.threads)
        self.copied = QLabel("–")
        self.copied.setWordWrap(True)
        self.copied.setToolTip(self.tr("accepted draft tokens prompt lookup copied, by where it copied them from"))
        self.copied.setAccessibleName(self.tr("Copied tokens per source"))
        form.addRow(self.tr("Copied from"), self.copied)
        layout.addWidget(details)

        prompt_box = QGroupBox(self.tr("Prompt"))
        prompt_form = QFormLayout(prompt_box)
        self.first_token = QLabel("–")
        self.first_token.setToolTip(
            self.tr("from the reply's start to its first tokens: the prefill and the first step")
        )
        self.prompt_rate = QLabel("–")
        self.prompt_rate.setToolTip(
            self.tr("prompt tokens the target read per second of prefill (cached ones not counted)")
        )
        self.prompt_cached = QLabel("–")
        self.prompt_cached.setToolTip(
            self.tr("prompt tokens the target's KV cache already held from the previous reply")
        )
        prompt_form.addRow(self.tr("First token"), self.first_token)
        prompt_form.addRow(self.tr("Prompt speed"), self.prompt_rate)
        prompt_form.addRow(self.tr("From cache"), self.prompt_cached)
        layout.addWidget(prompt_box)

        chart_box = QGroupBox(self.tr("Acceptance by draft position"))
        chart_layout = QVBoxLayout(chart_box)
        self.chart = BarChart(empty_text=self.tr("no drafts yet"))
        chart_layout.addWidget(self.chart)
        layout.addWidget(chart_box)
        layout.addStretch(1)
        for label in (self.acceptance, self.rules, self.mean_length, self.per_pass, self.draft_length, self.drafter):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        for label in (self.drafter, self.acceptance, self.mean_length, self.per_pass, self.threads):
            label.setWordWrap(True)  # a long value wraps rather than scroll the side panel sideways
        self.set_parts(None)  # shown only for a reply with a reasoning block

    def reset(self, drafter: str, adaptive: bool = False) -> None:
        """Clear the numbers for a new reply by ``drafter`` (``adaptive``: the controller picks lengths)."""
        self._adaptive = adaptive and drafter != "none"
        self._ngram = drafter == "ngram"
        name = drafter_label(drafter)
        self.drafter.setText(self.tr("{drafter}, adaptive").format(drafter=name) if self._adaptive else name)
        self.update_stats(GenerationStats())
        self.set_parts(None)

    def clear(self) -> None:
        """Nothing to show: a chat with no reply yet (its numbers are not the last chat's)."""
        self._adaptive = self._ngram = False
        self.drafter.setText("–")
        self.update_stats(GenerationStats())
        self.set_parts(None)

    def set_parts(self, split: Mapping[Part, PartAcceptance] | None) -> None:
        """Acceptance inside the thinking and in the answer apart; None hides the row (no reasoning block)."""
        self.parts.setVisible(split is not None)
        self.parts_label.setVisible(split is not None)
        if split is None:
            self.parts.setText("–")
            return
        self.parts.setText(
            self.tr("thinking {thinking} | answer {answer}").format(
                thinking=part_text(split[Part.THINKING]), answer=part_text(split[Part.ANSWER])
            )
        )

    def set_remote(self, remote: bool) -> None:
        """A server answers (True) or the local pair does: a server's missing figures read "not reported"."""
        self._remote = remote
        self.update_stats(self._stats)

    def set_copied(self, counts: Mapping[str, int]) -> None:
        """Copied tokens per source ("report.pdf": 120, "earlier in this chat": 30), most first."""
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        self.copied.setText(
            ", ".join(f"{copied_from_label(source)}: {number(n, ',')}" for source, n in ranked) if ranked else "–"
        )

    def set_baseline(self, tokens_per_second: float | None, source: str = "") -> None:
        """The target-only rate to compare against (None: not measured yet).

        A new rate for the same kind of baseline says what it replaced and when, so the speedup
        never moves without a word.
        """
        before = self._baseline
        if not tokens_per_second:
            self._baseline_change = ""
        elif before and abs(tokens_per_second - before) >= 0.05:
            self._baseline_change = say(
                QT_TRANSLATE_NOOP("StatsPanel", "changed from {rate:.1f} tok/s at {time}").fill(
                    rate=before, time=QTime.currentTime().toString("HH:mm")
                )
            )
        self._baseline = tokens_per_second
        self._baseline_source = source
        if tokens_per_second:
            text = say(
                QT_TRANSLATE_NOOP("StatsPanel", "vs {rate:.1f} tok/s target-only ({source})").fill(
                    rate=tokens_per_second, source=self.tr(source) if source else self.tr("this machine")
                )
            )
            self.baseline_note.setText(text + ("; " + self._baseline_change if self._baseline_change else ""))
        else:
            self.baseline_note.setText(self.tr("target-only rate not measured yet: run A/B"))
        self.update_stats(self._stats)  # the shown reply's speedup against the new baseline

    def update_stats(self, stats: GenerationStats) -> None:
        """Show ``stats`` (running totals for the current reply)."""
        self._stats = stats
        rate = stats.tokens_per_second
        self.rate.setText(number(rate, ".1f") if stats.steps else "–")
        if stats.steps and self._baseline:
            ratio = rate / self._baseline
            shown = number(ratio, ".2f")
            if shown == number(1.0, ".2f") or ratio >= 1:
                self.speedup.setTextFormat(Qt.TextFormat.PlainText)
                self.speedup.setText(shown + "×")
            else:  # a ratio below 1 is a slowdown: said, not left to be read as a speedup
                words = self.tr("{ratio}×: slower than the target alone").format(ratio=shown)
                self.speedup.setTextFormat(Qt.TextFormat.RichText)
                self.speedup.setText(slower_html(words, shown + "×", self.font().pointSizeF()))
            self.speedup.setAccessibleName(QTextDocumentFragment.fromHtml(self.speedup.text()).toPlainText())
            self.speedup.setToolTip(
                self.tr("faster than target-only") if ratio >= 1 else self.tr("slower than target-only here")
            )
        else:
            self.speedup.setTextFormat(Qt.TextFormat.PlainText)
            self.speedup.setText("–")
            self.speedup.setAccessibleName("–")
        if stats.drafted:
            text = f"{number(stats.acceptance_rate, '.0%')}  ({stats.accepted}/{stats.drafted})"
            if len(stats.by_source) > 1:  # a hybrid: each drafter's share apart
                text += "  · " + ", ".join(
                    f"{QCoreApplication.translate('TokenCards', SHORT_SOURCE_LABELS.get(src, src))} {a}/{d}"
                    for src, (d, a) in sorted(stats.by_source.items())
                )
            self.acceptance.setText(text)
        else:
            self.acceptance.setText(self.tr("– (nothing drafted)") if stats.steps else "–")
        self.rules.setText(rules_text(stats, self._remote))
        self.mean_length.setText(mean_accepted_text(stats))
        self.per_pass.setText(number(stats.tokens_per_step, ".2f") if stats.steps else "–")
        self.draft_length.setText(self._draft_length_text(stats))
        if stats.steps and self._remote:
            # A server's stream carries no draft/verify split (its steps are rebuilt from counters).
            self.timing.setText(not_reported())
        elif stats.steps:
            ms = 1000.0 / stats.steps
            self.timing.setText(
                say(
                    QT_TRANSLATE_NOOP(
                        "StatsPanel", "draft {draft:.0f} ms · verify {verify:.0f} ms · other {other:.0f} ms"
                    ).fill(draft=stats.draft_s * ms, verify=stats.verify_s * ms, other=stats.overhead_ms_per_step)
                )
            )
        else:
            self.timing.setText("–")
        self.threads.setText(threads_text(stats, self._remote))
        # Accepted tokens prompt lookup copied, per place ("report.pdf, p. 3"); older statistics have none.
        self.set_copied(getattr(stats, "copied", {}))
        self.chart.set_values(stats.per_position_acceptance)
        self._show_prompt(stats.prompt_figures)

    def _show_prompt(self, figures: PromptFigures | None) -> None:
        """The prompt's figures, or dashes before the first step."""
        if figures is None:
            for label in (self.first_token, self.prompt_rate, self.prompt_cached):
                label.setText("–")
            return
        self.first_token.setText(
            say(QT_TRANSLATE_NOOP("StatsPanel", "{ms:,.0f} ms").fill(ms=figures.time_to_first_token_ms))
        )
        rate = figures.prompt_tokens_per_second
        self.prompt_rate.setText(
            say(QT_TRANSLATE_NOOP("StatsPanel", "{rate:,.0f} tok/s").fill(rate=rate))
            if rate is not None
            else self.tr("– (nothing read)")
        )
        if figures.prompt_reused is None:
            self.prompt_cached.setText(
                say(
                    QT_TRANSLATE_NOOP("StatsPanel", "not reported (of {total:,} prompt tokens)").fill(
                        total=figures.prompt_tokens
                    )
                )
            )
        else:
            self.prompt_cached.setText(
                say(
                    QT_TRANSLATE_NOOP("StatsPanel", "{reused:,} of {total:,} prompt tokens").fill(
                        reused=figures.prompt_reused, total=figures.prompt_tokens
                    )
                )
            )

    def _draft_length_text(self, stats: GenerationStats) -> str:
        if not stats.steps:
            return "–"
        if self._adaptive and stats.last_draft_length == 0:
            # The controller switched drafting off: say why, or the missing colours look like a fault.
            if self._ngram:
                return self.tr("0: off for now, recent lookups were rejected (retried every few steps)")
            return self.tr("0: off, drafting is slower than the target alone here (re-checked now and then)")
        return str(stats.last_draft_length)


def slower_html(words: str, figure: str, point_size: float) -> str:
    """``words`` ("0.66×: slower than the target alone") with the figure big and the rest in the body's size."""
    start = words.find(figure)
    if start < 0:  # a translation that moved the figure: all of it in the body's size
        return f'<span style="font-size:{point_size:.1f}pt; font-weight:normal">{html.escape(words)}</span>'
    rest = html.escape(words[start + len(figure) :])
    return (
        html.escape(words[:start] + figure)
        + f'<span style="font-size:{point_size:.1f}pt; font-weight:normal">{rest}</span>'
    )


def mean_accepted_text(stats: GenerationStats) -> str:
    """Accepted draft tokens per step that drafted, and how many of the steps did."""
    if not stats.steps:
        return "–"
    if not stats.drafted:
        return QCoreApplication.translate("StatsPanel", "– (no step drafted)")
    if not stats.drafting_steps:  # statistics that did not count drafting steps: per step, as they can
        return say(QT_TRANSLATE_NOOP("StatsPanel", "{mean:.2f} per step").fill(mean=stats.mean_accepted_length))
    return say(
        QT_TRANSLATE_NOOP("StatsPanel", "{mean:.2f} per drafting step ({drafting} of {steps} steps drafted)").fill(
            mean=stats.accepted / stats.drafting_steps, drafting=stats.drafting_steps, steps=stats.steps
        )
    )


def part_text(part: PartAcceptance) -> str:
    """One part's acceptance: the rate and its counts, or a dash where nothing was drafted there."""
    judged = part.from_draft + part.rejections
    if not judged:
        return QCoreApplication.translate("StatsPanel", "– ({tokens} tokens, nothing drafted)").format(
            tokens=part.tokens
        )
    return QCoreApplication.translate("StatsPanel", "{rate:.0%} ({accepted}/{judged}, {tokens} tokens)").format(
        rate=part.acceptance_rate, accepted=part.from_draft, judged=judged, tokens=part.tokens
    )


NOT_REPORTED = str(QT_TRANSLATE_NOOP("StatsPanel", "not reported"))


def not_reported() -> str:
    """ "not reported", in the user's language: a figure the server in use does not send."""
    return QCoreApplication.translate("StatsPanel", NOT_REPORTED)


def threads_text(stats: GenerationStats, remote: bool = False) -> str:
    """The thread count of the latest step, and whether it was measured or forced."""
    if remote and stats.steps and not stats.threads:
        return not_reported()
    if not stats.steps or not stats.threads:
        return "–"
    if stats.threads_auto:
        return QCoreApplication.translate("StatsPanel", "{n} (auto: fastest measured here)").format(n=stats.threads)
    return QCoreApplication.translate("StatsPanel", "{n} (set in Settings)").format(n=stats.threads)


def rules_text(stats: GenerationStats, remote: bool = False) -> str:
    """The two rules' expected acceptance next to what verification measured on the same positions."""
    if remote and stats.steps and not stats.rule_positions:
        return not_reported()
    if not stats.rule_positions:
        return "–"
    # Expected rates only: a second measured acceptance here read as contradicting the Acceptance row.
    return QCoreApplication.translate(
        "StatsPanel", "exact {exact:.0%} · sample-and-match {match:.0%} expected, over {verified} judged draft tokens"
    ).format(
        exact=stats.rejection_sampling_expected,
        match=stats.sample_and_match_expected,
        verified=stats.rule_positions,
    )
