"""`tandem preflight`: measure this machine and predict whether speculative decoding pays here."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace

from app.cli.common import add_model_options, resolve_pair
from app.core.decoding.sampling import SamplingParams
from app.core.errors import TandemError
from app.engine.bench.cheaper_draft import measure_cheaper_draft
from app.engine.bench.preflight import format_report, run_preflight
from app.engine.llama.quantize import make_cheaper_draft
from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register `preflight`."""
    parser = subparsers.add_parser(
        "preflight", help="measure draft and verify costs and acceptance, predict the speedup, recommend a setting"
    )
    add_model_options(parser)
    parser.add_argument("--temperature", type=float, default=0.0, help="sampling temperature to predict for")
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    parser.add_argument(
        "--cheaper-draft",
        action="store_true",
        help="make a Q4_0 copy of the draft with a Q4_0 output layer (once, in the models folder) and measure "
        "whether it predicts a gain here",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Load the pair, measure, print the verdict."""
    if args.ctx < 256:
        raise TandemError("--ctx must be at least 256 for the pre-flight prompts")
    try:
        params = SamplingParams(temperature=args.temperature)
    except ValueError as exc:
        raise TandemError(str(exc)) from exc
    target, draft = resolve_pair(args)
    no_model = args.no_draft or args.ngram or draft is None
    kind = DrafterKind.NGRAM if no_model else DrafterKind.MODEL
    config = PairConfig(target, None if no_model else draft, kind, args.ctx, args.threads, args.ngl, args.ngld)
    if args.cheaper_draft and no_model:
        raise TandemError("--cheaper-draft needs a draft model to make a cheaper copy of")
    with LoadedPair(config) as pair:
        report = run_preflight(pair, _progress, params)
        if args.cheaper_draft and pair.draft is not None:
            sys.stderr.write(f"\rmaking the cheaper draft of {pair.draft.name} (once)...")
            sys.stderr.flush()
            path = make_cheaper_draft(pair.draft.path)
            report = replace(report, cheaper_draft=measure_cheaper_draft(pair, report, path, params, _progress))
    sys.stderr.write("\r" + " " * 60 + "\r")
    if args.json:
        json.dump(report.to_dict(), sys.stdout)
        sys.stdout.write("\n")
    else:
        print(format_report(report))
    return 0


def _progress(stage: str, fraction: float) -> None:
    sys.stderr.write(f"\rpre-flight: {stage:<12} {fraction:4.0%}")
    sys.stderr.flush()
