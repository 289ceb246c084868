"""Prefill beside llama.cpp: Tandem's prompt processing and ``llama-bench -p`` on the same model and threads.

Pure records and arithmetic for ``bench --prefill``
(:mod:`app.engine.bench.prefill` measures): one row per prompt size with
Tandem's rate (prompt tokens read per second of prefill, through the reply's
own decoder) and llama-bench's (its ``avg_ts`` for ``pp<size>``), their ratio,
and the issue's bar (Tandem at >= 0.95x llama.cpp). llama-bench's own JSON
rows are read here too, so a saved report re-renders without rerunning.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from app.core.errors import TandemError

# Issue 31, item 1: Tandem's prefill at 95 % of llama.cpp's or better.
PREFILL_BAR = 0.95


@dataclass(frozen=True, slots=True)
class LlamaBenchRow:
    """One ``llama-bench -o json`` result of a prompt-processing test (``n_gen`` 0)."""

    n_prompt: int
    n_threads: int
    n_batch: int
    n_ubatch: int
    flash_attn: str  # as llama-bench writes it (a bool in older builds, "auto"/"on"/"off" or 0/1 in newer)
    avg_ts: float  # tokens per second, the mean over its repetitions
    stddev_ts: float
    samples_ts: tuple[float, ...]


def _flash_attn(value: object) -> str:
    """llama-bench's flash-attention field in words: -1 is llama.cpp's "auto" (on wherever the device has it)."""
    words = {-1: "auto", 0: "off", 1: "on"}
    if isinstance(value, int) and not isinstance(value, bool) and value in words:
        return words[value]
    return str(value).lower()


def parse_llama_bench(text: str) -> list[LlamaBenchRow]:
    """llama-bench's ``-o json`` output: its prompt-processing rows (a row that generates tokens is skipped)."""
    try:
        data = json.loads(text)
        if not isinstance(data, list):
            raise TypeError("not a list of results")
        rows = [
            LlamaBenchRow(
                n_prompt=int(item["n_prompt"]),
                n_threads=int(item["n_threads"]),
                n_batch=int(item["n_batch"]),
                n_ubatch=int(item["n_ubatch"]),
                flash_attn=_flash_attn(item.get("flash_attn", "?")),
                avg_ts=float(item["avg_ts"]),
                stddev_ts=float(item.get("stddev_ts", 0.0)),
                samples_ts=tuple(float(x) for x in item.get("samples_ts", ())),
            )
            for item in data
            if int(item.get("n_gen", 0)) == 0
        ]
    except (ValueError, KeyError, TypeError) as exc:
        raise TandemError(f"cannot read llama-bench's JSON output: {exc}") from exc
    return rows


@dataclass(frozen=True, slots=True)
class TandemPrefill:
    """Tandem's prefill of one prompt size: each repetition's rate, and how the target was set up."""

    n_prompt: int
    samples_ts: tuple[float, ...]  # prompt tokens read per second of prefill, one per repetition
    n_threads: int
    n_batch: int
    n_ubatch: int
    flash_attn: bool

    @property
    def median_ts(self) -> float:
        """The median repetition's rate (0 with none)."""
        return statistics.median(self.samples_ts) if self.samples_ts else 0.0


@dataclass(frozen=True, slots=True)
class PrefillComparison:
    """One prompt size, both sides."""

    tandem: TandemPrefill
    llama_bench: LlamaBenchRow | None  # None: llama-bench gave no row for this size

    @property
    def ratio(self) -> float | None:
        """Tandem's median rate over llama-bench's mean (None without llama-bench's)."""
        if self.llama_bench is None or self.llama_bench.avg_ts <= 0:
            return None
        return self.tandem.median_ts / self.llama_bench.avg_ts

    def to_dict(self) -> dict[str, Any]:
        """The JSON report's row."""
        return {
            "tandem": asdict(self.tandem),
            "llama_bench": asdict(self.llama_bench) if self.llama_bench is not None else None,
            "ratio": self.ratio,
        }


def pair_up(tandem: Sequence[TandemPrefill], llama_bench: Sequence[LlamaBenchRow]) -> list[PrefillComparison]:
    """Each of Tandem's sizes beside llama-bench's row for the same prompt length."""
    by_size = {row.n_prompt: row for row in llama_bench}
    return [PrefillComparison(t, by_size.get(t.n_prompt)) for t in tandem]


def render_prefill(report: Mapping[str, Any]) -> str:
    """The Markdown of a ``bench --prefill`` report (its JSON form)."""
    rows = report.get("rows", [])
    lines = [
        "# Tandem prefill beside llama-bench",
        "",
        f"{report.get('created', '')}; model `{report.get('model', '?')}`, {report.get('threads', '?')} threads, "
        f"{report.get('repetitions', '?')} repetitions after a warm-up on each side. Tandem: the prompt read by "
        "the reply's own decoder (target only), tokens read per second of prefill, median. llama-bench: "
        "`-p` with `-n 0`, its mean.",
        "",
        "| prompt tokens | Tandem tok/s | llama-bench tok/s (sd) | ratio | >= 0.95x |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        tandem, peer, ratio = row["tandem"], row.get("llama_bench"), row.get("ratio")
        median = statistics.median(tandem["samples_ts"]) if tandem["samples_ts"] else 0.0
        theirs = f"{peer['avg_ts']:.1f} ({peer['stddev_ts']:.1f})" if peer else "-"
        met = "-" if ratio is None else ("yes" if ratio >= PREFILL_BAR else "**no**")
        lines.append(
            f"| {tandem['n_prompt']:,} | {median:.1f} | {theirs} | "
            f"{'-' if ratio is None else f'{ratio:.2f}x'} | {met} |"
        )
    lines += ["", "Settings (batch, micro-batch, flash attention, threads):", ""]
    for row in rows:
        tandem, peer = row["tandem"], row.get("llama_bench")
        line = (
            f"- {tandem['n_prompt']:,} tokens: Tandem n_batch {tandem['n_batch']}, n_ubatch {tandem['n_ubatch']}, "
            f"flash attention {'on' if tandem['flash_attn'] else 'off'}, {tandem['n_threads']} threads"
        )
        if peer:
            line += (
                f"; llama-bench n_batch {peer['n_batch']}, n_ubatch {peer['n_ubatch']}, flash attention "
                f"{peer['flash_attn']}, {peer['n_threads']} threads"
            )
        lines.append(line + ".")
    if report.get("load_note"):
        lines += ["", f"Machine load: {report['load_note']}"]
    return "\n".join(lines) + "\n"
