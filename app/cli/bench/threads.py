"""`tandem bench-threads`: auto against fixed thread counts, with CPU-bound processes running beside."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app.cli.common import resolve_pair
from app.core.adaptive.threads import AdaptiveThreads
from app.core.errors import TandemError
from app.engine.bench.busy_machine import format_busy_report, run_busy_bench
from app.engine.cpu import max_useful_threads
from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig


def _counts(text: str) -> tuple[int, ...]:
    try:
        counts = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        counts = ()
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"expected comma-separated thread counts >= 1, got {text!r}")
    return counts


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register `bench-threads`."""
    parser = subparsers.add_parser(
        "bench-threads",
        help="compare auto threads with fixed counts while CPU-bound processes run beside (interleaved, medians)",
    )
    parser.add_argument("--target", type=Path, help="target GGUF (default: the demo pair's, else the small pair's)")
    parser.add_argument("--draft", type=Path, help="draft GGUF, for --drafter model (default: the pair's)")
    parser.add_argument(
        "--drafter", choices=[k.value for k in DrafterKind], default="none", help="drafter (default none)"
    )
    parser.add_argument(
        "--background-load", type=int, default=1, metavar="N", help="CPU-bound processes to run beside (default 1)"
    )
    parser.add_argument(
        "--fixed",
        type=_counts,
        default=None,
        metavar="N,M",
        help="fixed counts to compare with (default: every count from the usable cores down to 1)",
    )
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repeats; medians are reported (default 3)")
    parser.add_argument("--max-tokens", type=int, default=160, help="tokens per reply (default 160)")
    parser.add_argument("--ctx", type=int, default=2048, help="context size (default 2048)")
    parser.add_argument("--json", type=Path, default=None, metavar="OUT", help="also write the JSON report here")
    parser.set_defaults(run=run, ngram=False, no_draft=False)


def run(args: argparse.Namespace) -> int:
    """Load the pair with auto threads, run the interleaved comparison, print the table."""
    if args.repeats < 1 or args.max_tokens < 1 or args.background_load < 0 or args.ctx < 256:
        raise TandemError("--repeats and --max-tokens must be >= 1, --background-load >= 0 and --ctx >= 256")
    target, draft = resolve_pair(args)
    kind = DrafterKind(args.drafter)
    if kind.uses_draft_model and draft is None:
        raise TandemError(f"--drafter {kind.value} needs a draft model: pass --draft")
    fixed = args.fixed or tuple(range(max_useful_threads(), 0, -1))
    config = PairConfig(target, draft if kind.uses_draft_model else None, kind, args.ctx, None)
    with LoadedPair(config) as pair:
        if not isinstance(pair.threads, AdaptiveThreads):  # pragma: no cover - n_threads None always means auto
            raise TandemError("the pair did not load with auto threads")
        report = run_busy_bench(
            pair, pair.threads, fixed, args.background_load, args.repeats, args.max_tokens, _progress
        )
    text = format_busy_report(report)
    print(text)
    if args.json is not None:
        try:
            args.json.write_text(json.dumps(report.to_dict(), indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            raise TandemError(f"cannot write {args.json}: {exc.strerror or exc} (the table is above)") from exc
    return 0


def _progress(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
