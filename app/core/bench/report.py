"""The benchmark report for people: Markdown rendered from the JSON report alone.

Rendering only reads the JSON form, so a saved report can be re-rendered
(or compared) without rerunning anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from app.core.bench.stats import BASELINE, LONG_CONTEXT


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return lines


def _speed_cell(s: dict[str, Any]) -> str:
    return f"{s['speedup']:.2f}x ({s['tokens_per_s']:.1f})"


def render_markdown(report: dict[str, Any]) -> str:
    """The benchmark report for people; ``report`` is the JSON form the engine writes."""
    settings = report.get("settings", {})
    machine = report.get("machine", {})
    lines = [
        "# Tandem benchmark",
        "",
        f"{report.get('created', '')}; {machine.get('cpu', '?')}, {machine.get('logical_cpus', '?')} logical CPUs, "
        f"{settings.get('n_threads') or 'auto'} threads; llama-cpp-python {machine.get('llama_cpp_python', '?')}.",
        f"{settings.get('repeats')} repeats, {settings.get('max_tokens')} tokens per reply, temperature "
        f"{', '.join(f'{t:g}' for t in settings.get('temperatures', []))}, suite `{settings.get('suite')}` "
        f"({settings.get('prompt_set', 'all')} set). "
        "Speedup: median over repeats of the configuration's tokens/s over target-only's in the same repeat "
        "(tokens/s in brackets; prompt processing, both models' reading of the prompt, excluded, as "
        "llama-server's own timings exclude it).",
        f"Near-tie threshold: a greedy divergence is explained when the target's top-two logit gap there is below "
        f"{report.get('near_tie_threshold')} logits (see each regime's numerics line).",
    ]
    if settings.get("n_ctx_asked") is not None and settings.get("n_ctx") != settings["n_ctx_asked"]:
        lines.append(
            f"Context: {settings['n_ctx']:,} tokens, raised from the {settings['n_ctx_asked']:,} asked for: "
            "the long-context prompts need it."
        )
    if machine.get("load_note"):
        lines.append(f"Machine load: {machine['load_note']}")
    targets = report.get("targets", [])
    if targets:
        lines += ["", "## Targets", ""]
        lines += _table(
            ["target", "measured", "met"],
            ([t["name"], t["measured"], "yes" if t["passed"] else "**no**"] for t in targets),
        )
    overhead = report.get("overhead_synthetic", [])
    if overhead:
        lines += [
            "",
            "## Per-step Python overhead",
            "",
            f"Time per step outside the models' calls, with synthetic models of a {overhead[0]['n_vocab']:,}-token "
            "vocabulary that answer in microseconds (so no machine noise), over "
            f"{overhead[0]['tokens']} generated tokens. The real runs' figure is in each details table. "
            "Lookup and the hybrid run over a 3,000-token context the reply copies from; the draft model's "
            "own rows include its sampling over the whole vocabulary for each drafted token.",
            "",
        ]
        lines += _table(
            ["temperature", "drafter", "draft length", "steps", "median ms", "mean ms", "p90 ms"],
            (
                [
                    f"{o['temperature']:g}",
                    str(o.get("drafter", "model")),  # reports before the column: the draft model only
                    str(o["draft_length"]),
                    str(o["steps"]),
                    f"{o['median_ms']:.2f}",
                    f"{o['mean_ms']:.2f}",
                    f"{o['p90_ms']:.2f}",
                ]
                for o in overhead
            ),
        )
    summaries = report.get("summaries", [])
    for regime in report.get("regimes", []):
        name = regime["name"]
        lines += [
            "",
            f"## {name}: {regime.get('label', '')}",
            "",
            f"Target `{regime['target']}`, draft `{regime['draft']}`"
            + (f", cheaper draft `{regime['cheaper_draft']}`." if regime.get("cheaper_draft") else "."),
        ]
        if regime.get("numerics"):
            n = regime["numerics"]
            lines.append(
                f"Numerics: batched vs single-token logits differ by up to {n['max_abs_diff']:.3f} "
                f"(top-two gap changes by up to {n['max_gap_change']:.3f}) over {n['rows']} positions."
            )
        if "runs_redone" in regime:
            lines.append(
                f"Runs redone because other processes took more than {settings.get('max_other_cpu', 0):.0%} of the "
                f"CPUs: {regime['runs_redone']}; other processes' share over the whole regime: "
                f"{regime.get('other_processes_cpu_share', 0):.1%}."
            )
        if regime.get("preflight"):
            p = regime["preflight"]
            lines.append(f"Pre-flight ({p['wall_s']:.0f} s): {p['recommendation']}")
            if p.get("cheaper_draft"):
                lines.append(f"Pre-flight on the cheaper draft: {p['cheaper_draft']['text']}")
        if regime.get("preflight_cheaper_draft"):
            p = regime["preflight_cheaper_draft"]
            lines.append(f"Pre-flight with the cheaper draft loaded ({p['wall_s']:.0f} s): {p['recommendation']}")
        for temperature in sorted({s["temperature"] for s in summaries if s["regime"] == name}):
            rows = [s for s in summaries if s["regime"] == name and s["temperature"] == temperature]
            configs = list(dict.fromkeys(s["config"] for s in rows))
            categories = list(dict.fromkeys(s["category"] for s in rows))
            cell = {(s["category"], s["config"]): s for s in rows}
            lines += ["", f"### {name}, temperature {temperature:g}: speedup (tokens/s)", ""]
            lines += _table(
                ["category", *configs],
                ([c, *(_speed_cell(cell[(c, k)]) if (c, k) in cell else "-" for k in configs)] for c in categories),
            )
            lines += ["", f"### {name}, temperature {temperature:g}: details", ""]
            lines += _table(
                [
                    "category",
                    "config",
                    "tok/s",
                    "speedup (min-max)",
                    "accept",
                    "mean acc. len",
                    "per-position accept",
                    "drafting steps",
                    "greedy match",
                    "divergences (near-tie)",
                    "overhead ms/step",
                    "peak RSS MB",
                ],
                (_detail_row(s) for s in rows),
            )
            lines += _prompt_table(name, temperature, [s for s in rows if s["category"] == LONG_CONTEXT])
    lines += _spread_table(report.get("spreads", []))
    divergences = report.get("divergences", [])
    if divergences:
        lines += ["", "## Greedy divergences", ""]
        lines += _table(
            ["regime", "config", "prompt", "repeat", "position", "top-two gap", "chosen behind best", "near-tie"],
            (
                [
                    d["regime"],
                    d["config"],
                    d["prompt_id"],
                    str(d["repeat"]),
                    str(d["position"]),
                    f"{d['gap']:.3f}",
                    f"{d['spread']:.3f}" if d.get("spread") is not None else "-",
                    "yes" if d["explained"] else "**no**",
                ]
                for d in divergences
            ),
        )
    return "\n".join(lines) + "\n"


def _spread_table(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Each configuration's speed on each prompt over the repeats: the run-to-run spread a user sees."""
    if not rows:
        return []
    lines = [
        "",
        "## Run-to-run spread",
        "",
        "The same prompt's tokens/s in each repeat (not paired with target-only), and (fastest - slowest) / median."
        " The verify steps per repeat tell the drafting decisions' share of it: at T = 0 the text is the same every"
        " time, so equal steps with unequal speeds are the machine's doing.",
        "",
    ]
    lines += _table(
        ["regime", "T", "config", "prompt", "tok/s per repeat", "median", "spread", "verify steps per repeat"],
        (
            [
                r["regime"],
                f"{r['temperature']:g}",
                r["config"],
                r["prompt_id"],
                ", ".join(f"{v:.1f}" for v in r["tokens_per_s"]),
                f"{r['median']:.1f}",
                f"{r['spread']:.0%}",
                ", ".join(str(n) for n in r.get("steps", ())) if any(r.get("steps", ())) else "-",
            ]
            for r in rows
        ),
    )
    return lines


def _detail_row(s: dict[str, Any]) -> list[str]:
    low, high = s["speedup_range"]
    drafts = s["config"] != BASELINE
    match = "-" if s.get("match_rate") is None else f"{s['match_rate']:.1%}"
    return [
        s["category"],
        s["config"],
        f"{s['tokens_per_s']:.2f}",
        f"{s['speedup']:.2f}x ({low:.2f}-{high:.2f})",
        f"{s['acceptance_rate']:.0%}" if drafts else "-",
        f"{s['mean_accepted_length']:.2f}" if drafts else "-",
        " ".join(f"{a:.2f}" for a in s["per_position_acceptance"][:6]) if drafts else "-",
        f"{s['drafting_share']:.0%}" if drafts else "-",
        match,
        f"{s['divergences']} ({s['explained']})" if s.get("match_rate") is not None else "-",
        f"{s['overhead_ms_per_step']:.2f}",
        f"{s['peak_rss_mb']:.0f}",
    ]


def _prompt_table(regime: str, temperature: float, rows: Sequence[dict[str, Any]]) -> list[str]:
    """The long-context category's prompt processing per configuration (empty without such rows)."""
    if not rows:
        return []
    lines = [
        "",
        f"### {regime}, temperature {temperature:g}: {LONG_CONTEXT} prompt processing",
        "",
        "Every run reads its prompt afresh (no cache reused). Prefill: prompt tokens read per second "
        "(median over repeats); first token: median time from the start to the first tokens "
        "(llama-server does not report it).",
        "",
    ]
    lines += _table(
        ["config", "prompts", "prefill tok/s", "first token ms"],
        (
            [
                s["config"],
                str(s["prompts"]),
                f"{s['prefill_tokens_per_s']:.1f}" if s.get("prefill_tokens_per_s") is not None else "-",
                f"{s['time_to_first_token_ms']:,.0f}" if s.get("time_to_first_token_ms") is not None else "-",
            ]
            for s in rows
        ),
    )
    return lines
