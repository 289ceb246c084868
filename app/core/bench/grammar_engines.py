"""Grammar engines compared: the schemas and JSON walks every engine runs, and the arithmetic of the report.

``scripts/compare_grammar_engines.py`` runs llguidance (what
:mod:`app.engine.llama.grammar` uses), outlines-core and xgrammar on one
model's vocabulary (:mod:`app.engine.bench.grammar_engines`). Each engine
compiles the same three schemas (:data:`CASES`), then follows the same
token sequence, the model's tokens of one valid document per schema, and
computes the next-token mask before every token; every few tokens it rolls
back :data:`ROLLBACK_TOKENS` tokens and consumes them again, as a rejected
draft makes the decoder do.

This module holds only what needs no engine: the cases, the figures of one
engine on one schema (:class:`EngineRun`), their summary (median and p95
of the mask times), the ratios to llguidance, and the Markdown rendered
from the JSON report alone, so a saved report can be re-rendered.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

BASELINE_ENGINE = "llguidance"
ROLLBACK_TOKENS = 4  # a rejected draft of a few tokens: the decoder rolls back that many
ROLLBACK_EVERY = 8  # tokens of the walk between two rollbacks


@dataclass(frozen=True, slots=True)
class GrammarCase:
    """One schema and one valid document of it, written with its keys in the schema's order.

    Every property is required and no other is allowed, so each engine's
    reading of the schema (whatever it does with optional keys and key
    order) accepts exactly this document; the walk is its compact JSON.
    """

    name: str
    schema: dict[str, Any]
    document: dict[str, Any]

    def walk_text(self) -> str:
        """The document as the model would write it: compact JSON, keys in schema order, text as UTF-8."""
        return json.dumps(self.document, separators=(",", ":"), ensure_ascii=False)


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


FLAT = GrammarCase(
    "flat",
    _object(
        {
            "id": {"type": "integer"},
            "name": {"type": "string"},
            "active": {"type": "boolean"},
            "score": {"type": "number"},
            "email": {"type": "string"},
        }
    ),
    {"id": 4217, "name": "Ada Lovelace", "active": True, "score": 98.5, "email": "ada@example.org"},
)

_ITEM = _object(
    {
        "sku": {"type": "string"},
        "qty": {"type": "integer", "minimum": 1},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["new", "sale", "gift", "fragile"]}},
    }
)
NESTED = GrammarCase(
    "nested",
    _object(
        {
            "order": {"type": "string"},
            "status": {"type": "string", "enum": ["open", "paid", "shipped", "closed"]},
            "items": {"type": "array", "items": _ITEM},
            "customer": _object(
                {"name": {"type": "string"}, "tier": {"type": "string", "enum": ["free", "pro", "team"]}}
            ),
            "notes": {"type": "array", "items": {"type": "integer"}},
        }
    ),
    {
        "order": "A-1029",
        "status": "shipped",
        "items": [
            {"sku": "KB-87", "qty": 2, "tags": ["new", "sale"]},
            {"sku": "MS-3", "qty": 1, "tags": []},
            {"sku": "CB-USB-C", "qty": 12, "tags": ["gift", "fragile", "sale"]},
        ],
        "customer": {"name": "Grace Hopper", "tier": "team"},
        "notes": [3, 14, 159],
    },
)

STRINGS = GrammarCase(
    "strings",
    _object(
        {
            "title": {"type": "string"},
            "summary": {"type": "string"},
            "body": {"type": "string"},
            "quotes": {"type": "array", "items": {"type": "string"}},
        }
    ),
    {
        "title": "Speculative decoding on two CPU cores",
        "summary": "A small draft model proposes tokens; the target checks them in one batch and keeps "
        "the longest prefix it agrees with, so the output is exactly what the target alone would write.",
        "body": "When the target is compute-bound, verifying K+1 tokens costs nearly K+1 single steps,\n"
        "so drafting rarely pays. An F16 target is memory-bound: the batch is almost free.\n"
        'The "adaptive" controller measures both costs and switches drafting off when it loses. '
        "Café, naïve, Größe: text outside ASCII is kept as it is.",
        "quotes": [
            "Premature optimisation is the root of all evil.",
            'She said: "measure first", then left.',
            "Tabs\tand back\\slashes stay escaped.",
        ],
    },
)

CASES: tuple[GrammarCase, ...] = (FLAT, NESTED, STRINGS)


def rollback_points(n_tokens: int, every: int = ROLLBACK_EVERY, back: int = ROLLBACK_TOKENS) -> list[int]:
    """After how many consumed tokens of a walk of ``n_tokens`` the engines roll back ``back`` and go on again."""
    return list(range(max(every, back), n_tokens + 1, every))


def median_p95(samples_ns: Sequence[int]) -> tuple[float, float]:
    """The median and the 95th percentile of ``samples_ns``, in microseconds (NaN for no samples)."""
    if not samples_ns:
        return float("nan"), float("nan")
    values = np.asarray(samples_ns, dtype=np.float64) / 1000.0
    return float(np.median(values)), float(np.percentile(values, 95))


@dataclass(slots=True)
class EngineRun:
    """What one engine did on one schema: its times (ns) and what it allowed.

    ``masks_equal`` counts the positions where its mask was bit for bit the
    baseline's (filled in by the runner, which keeps the baseline's masks);
    ``rollback_exact`` is False if a mask after a rollback and the same tokens
    again differed from the mask before it.
    """

    compile_ns: int = 0
    mask_ns: list[int] = field(default_factory=list)
    rollback_ns: list[int] = field(default_factory=list)
    allowed_counts: list[int] = field(default_factory=list)
    walk_allowed: bool = True  # every token of the walk was in the mask before it
    rollback_exact: bool = True
    masks_equal: int | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The report's figures for this run (times in ms for compiling, µs for a mask or a rollback)."""
        mask_median, mask_p95 = median_p95(self.mask_ns)
        rollback_median, _ = median_p95(self.rollback_ns)
        out: dict[str, Any] = {
            "error": self.error,
            "compile_ms": self.compile_ns / 1e6 if self.error is None else None,
            "masks": len(self.mask_ns),
            "mask_median_us": _finite(mask_median),
            "mask_p95_us": _finite(mask_p95),
            "rollbacks": len(self.rollback_ns),
            f"rollback{ROLLBACK_TOKENS}_median_us": _finite(rollback_median),
            "walk_allowed": self.walk_allowed,
            "rollback_exact": self.rollback_exact if self.rollback_ns else None,
            "mean_allowed": float(np.mean(self.allowed_counts)) if self.allowed_counts else None,
            "masks_equal_baseline": self.masks_equal,
        }
        return out


def _finite(value: float) -> float | None:
    return value if np.isfinite(value) else None


RATIO_KEYS = ("compile_ms", "mask_median_us", "mask_p95_us", f"rollback{ROLLBACK_TOKENS}_median_us")


def ratios(
    runs: Mapping[str, Mapping[str, Any]], baseline: str = BASELINE_ENGINE
) -> dict[str, dict[str, float | None]]:
    """Each engine's figures over the baseline's (2.0: twice llguidance's time); None where either is missing."""
    base = runs.get(baseline, {})
    out: dict[str, dict[str, float | None]] = {}
    for engine, figures in runs.items():
        row: dict[str, float | None] = {}
        for key in RATIO_KEYS:
            mine, theirs = figures.get(key), base.get(key)
            if isinstance(mine, int | float) and isinstance(theirs, int | float) and theirs > 0:
                row[key] = float(mine) / float(theirs)
            else:
                row[key] = None
        out[engine] = row
    return out


def _cell(value: Any, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def render_markdown(report: Mapping[str, Any]) -> str:
    """The report for people, from its JSON form alone."""
    lines = [
        "# Grammar engines compared",
        "",
        f"Model vocabulary: {report.get('model', '?')} ({report.get('n_vocab', '?')} tokens). "
        f"Ratios are each engine's time over {BASELINE_ENGINE}'s (below 1: faster). "
        f"Rollback: {ROLLBACK_TOKENS} tokens undone every {ROLLBACK_EVERY} tokens of the walk, then consumed again. "
        "Compile: schema to a matcher ready for its first mask (work an engine defers shows in the mask p95).",
        "",
        "## Engines",
        "",
        "| engine | version | tokenizer build (s) | rollback | limit | note |",
        "|---|---|---|---|---|---|",
    ]
    for name, engine in report.get("engines", {}).items():
        rollback = engine.get("rollback") or {}
        lines.append(
            f"| {name} | {_cell(engine.get('version'))} | {_cell(engine.get('tokenizer_s'))} | "
            f"{_cell(rollback.get('supported'))} | {_cell(rollback.get('limit'))} | {engine.get('error') or ''} |"
        )
    rollback_key = f"rollback{ROLLBACK_TOKENS}_median_us"
    for case in report.get("schemas", []):
        lines += [
            "",
            f"## Schema `{case['name']}` ({case['walk_tokens']} tokens in the walk)",
            "",
            "| engine | compile (ms) | mask median (µs) | mask p95 (µs) | rollback of 4 (µs) | "
            "compile ratio | mask median ratio | mask p95 ratio | rollback ratio | walk allowed | "
            "masks = llguidance | rollback exact | mean allowed |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for engine, run in case["engines"].items():
            ratio = case.get("ratios", {}).get(engine, {})
            if run.get("error"):
                lines.append(f"| {engine} | {run['error']} |" + " |" * 11)
                continue
            equal = run.get("masks_equal_baseline")
            lines.append(
                f"| {engine} | {_cell(run.get('compile_ms'), 1)} | {_cell(run.get('mask_median_us'), 1)} | "
                f"{_cell(run.get('mask_p95_us'), 1)} | {_cell(run.get(rollback_key), 1)} | "
                f"{_cell(ratio.get('compile_ms'))} | {_cell(ratio.get('mask_median_us'))} | "
                f"{_cell(ratio.get('mask_p95_us'))} | {_cell(ratio.get(rollback_key))} | "
                f"{_cell(run.get('walk_allowed'))} | {_cell(equal)}/{run.get('masks', 0)} | "
                f"{_cell(run.get('rollback_exact'))} | {_cell(run.get('mean_allowed'), 0)} |"
            )
    lines.append("")
    return "\n".join(lines)
