"""`tandem bench`: target-only vs every drafter on a prompt suite, in one process, with a report."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TextIO

from app.cli.common import add_threads_option, resolve_pair
from app.core.bench.prefill import render_prefill
from app.core.bench.report import render_markdown
from app.core.decoding.sampling import TEMPERATURE
from app.core.errors import TandemError
from app.engine.bench.llama_tools import ensure_tool
from app.engine.bench.peer import NGRAM_MODES
from app.engine.bench.prefill import PrefillSettings, run_prefill
from app.engine.bench.runner import regimes_for, run_benchmark, write_outputs
from app.engine.bench.suite import LONG_CONTEXT_CTX, PROMPT_SETS, BenchSettings, Regime
from app.engine.paths import resources_dir
from app.engine.remote.llama_server import ensure_binary


def _floats(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(x) for x in text.split(",") if x.strip())
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from exc


def _ints(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from exc
    if any(v < 1 for v in values):
        raise argparse.ArgumentTypeError("draft lengths must be at least 1")
    return values


def _sizes(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        sizes = ()
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"expected comma-separated positive integers, got {text!r}")
    return sizes


def _peer_lengths(text: str) -> tuple[int, ...]:
    """Like the draft lengths, but "0" alone means no speculative llama-server at all."""
    return (0,) if text.strip() == "0" else _ints(text)


def _modes(text: str) -> tuple[str, ...]:
    modes = tuple(m.strip() for m in text.split(",") if m.strip())
    unknown = [m for m in modes if m not in NGRAM_MODES]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown n-gram modes {unknown}: choose from {', '.join(NGRAM_MODES)}")
    return modes


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register `bench`."""
    parser = subparsers.add_parser(
        "bench", help="benchmark target-only against each drafter on a prompt suite (JSON and Markdown reports)"
    )
    parser.add_argument("--target", type=Path, help="target GGUF (default: the demo pair, else the small pair)")
    parser.add_argument("--draft", type=Path, help="draft GGUF (default: the pair's draft)")
    parser.add_argument("--ngram", action="store_true", help="also run the n-gram (prompt lookup) drafter")
    parser.add_argument("--ngram-lengths", type=_ints, default=(), help="fixed n-gram draft lengths, e.g. 4,8")
    parser.add_argument(
        "--ngram-all-regimes", action="store_true", help="run n-gram in the F16 regime too (default: first regime only)"
    )
    parser.add_argument(
        "--no-hybrid", action="store_true", help="leave out hybrid drafting (lookup where trusted, else the model)"
    )
    parser.add_argument(
        "--cheaper-draft",
        action="store_true",
        help="also run the default with the cheaper draft pre-flight offers (a Q4_0 copy, made once in the models "
        "folder), and with --vs-llama-server llama.cpp speculating with that copy too",
    )
    parser.add_argument("--no-draft-model", action="store_true", help="bench without the draft model (n-gram only)")
    parser.add_argument("--prompts", type=Path, default=None, help="prompt suite JSON (default: the bundled suite)")
    parser.add_argument(
        "--set",
        dest="prompt_set",
        choices=PROMPT_SETS,
        default="check",
        help="which prompts of the suite: the held-out check set (default, for reports), the tuning set (the only "
        "one to tune drafting on) or all",
    )
    parser.add_argument("--categories", default="", help="comma-separated categories to run (default: all)")
    parser.add_argument("--prompts-per-category", type=int, default=None, help="use at most N prompts per category")
    parser.add_argument("--temperatures", type=_floats, default=(0.0,), help="comma-separated (default 0)")
    parser.add_argument("--max-tokens", type=int, default=96, help="tokens per reply (default 96)")
    parser.add_argument("--repeats", type=int, default=3, help="repeats; medians are reported (default 3)")
    parser.add_argument("--draft-lengths", type=_ints, default=(2, 4, 8), help="fixed draft lengths (default 2,4,8)")
    parser.add_argument(
        "--no-fixed-lengths",
        action="store_true",
        help="leave out Tandem's fixed draft lengths (--vs-llama-server still speculates at the largest one)",
    )
    parser.add_argument("--no-adaptive", action="store_true", help="leave out the adaptive configurations")
    parser.add_argument(
        "--default-only",
        action="store_true",
        help="of Tandem's drafters only the default (hybrid adaptive), and --ngram's if given, beside target-only "
        "(with --repeats 5: the default's run-to-run spread)",
    )
    parser.add_argument("--no-preflight", action="store_true", help="do not run (and seed adaptive with) pre-flight")
    parser.add_argument(
        "--learned-costs",
        type=Path,
        default=None,
        metavar="FILE",
        help="start the controller from what it learned in earlier runs kept in FILE, and keep what it learns there, "
        "as the app does across restarts (default: learn from scratch; combine with --no-preflight)",
    )
    parser.add_argument(
        "--no-overhead-probe",
        action="store_true",
        help="leave out the per-step Python overhead table measured with synthetic models (it does not depend "
        "on the models benched)",
    )
    regime = parser.add_mutually_exclusive_group()
    regime.add_argument("--regimes", action="store_true", help="also bench an F16 copy of the target (memory-bound)")
    regime.add_argument(
        "--f16-only", action="store_true", help="bench only the F16 copy of the target (made once, cached)"
    )
    add_threads_option(parser)
    parser.add_argument(
        "--max-other-cpu",
        type=float,
        default=0.1,
        help="wait before a run, and redo it (twice at most), while other processes use more than this share of "
        "the CPUs (default 0.1)",
    )
    parser.add_argument(
        "--max-wait", type=float, default=600.0, help="longest wait in seconds for a quiet machine before a run"
    )
    parser.add_argument(
        "--vs-llama-server",
        action="store_true",
        help="also run llama.cpp's llama-server (speculating at the largest --draft-lengths, and target only) "
        "on the same prompts, interleaved (build it with scripts/build_llama_server.sh)",
    )
    parser.add_argument(
        "--vs-speculative-simple",
        action="store_true",
        help="also run llama.cpp's llama-speculative-simple at each --peer-draft-lengths on the same prompts, "
        "interleaved, greedy only (built once on first use)",
    )
    parser.add_argument(
        "--peer-ngram",
        type=_modes,
        default=NGRAM_MODES,
        help=f"llama-server's n-gram modes for --vs-llama-server (default {','.join(NGRAM_MODES)}; '' for none)",
    )
    parser.add_argument(
        "--peer-draft-lengths",
        type=_peer_lengths,
        default=(),
        help="draft lengths llama-server speculates at for --vs-llama-server, e.g. 4,8,16 "
        "(default: the largest --draft-lengths; 0: none)",
    )
    parser.add_argument(
        "--ctx",
        type=int,
        default=2048,
        help=f"context size (default 2048; raised to {LONG_CONTEXT_CTX} when long-context prompts run)",
    )
    parser.add_argument(
        "--prefill",
        action="store_true",
        help="instead of the suite: the target's prefill through Tandem beside llama.cpp's llama-bench -p on the "
        "same model and threads, in one run, with their ratio (llama-bench is built once on first use)",
    )
    parser.add_argument(
        "--prefill-sizes", type=_sizes, default=(512, 4096), help="prompt sizes for --prefill (default 512,4096)"
    )
    parser.add_argument("--json", type=Path, default=None, metavar="OUT", help="write the JSON report here")
    parser.add_argument("--markdown", type=Path, default=None, metavar="OUT", help="write the Markdown report here")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and write the reports."""
    if args.max_tokens < 1 or args.repeats < 1 or args.ctx < 256:
        raise TandemError("--max-tokens and --repeats must be >= 1 and --ctx >= 256")
    if not args.temperatures:
        raise TandemError("--temperatures needs one or more numbers")
    for temperature in args.temperatures:
        if not TEMPERATURE.accepts(temperature):  # the one range every front end uses
            raise TandemError(f"--temperatures: {TEMPERATURE.problem(temperature)}")
    target, draft = _pair(args)
    # A run takes minutes: find an unwritable output now, not after it.
    _check_writable(args.json, "--json")
    _check_writable(args.markdown, "--markdown")
    if args.prefill:
        return _run_prefill(args, target)
    settings = BenchSettings(
        suite=args.prompts or resources_dir() / "bench_prompts.json",
        temperatures=args.temperatures,
        max_tokens=args.max_tokens,
        repeats=args.repeats,
        draft_lengths=args.draft_lengths,
        fixed_lengths=not (args.no_fixed_lengths or args.default_only),
        draft_adaptive=not args.default_only,
        adaptive=not args.no_adaptive,
        ngram=args.ngram,
        ngram_lengths=args.ngram_lengths,
        ngram_all_regimes=args.ngram_all_regimes,
        hybrid=not args.no_hybrid,
        cheaper_draft=args.cheaper_draft,
        max_other_cpu=args.max_other_cpu,
        max_wait_s=args.max_wait,
        n_threads=args.threads,
        n_ctx=args.ctx,
        categories=tuple(c.strip() for c in args.categories.split(",") if c.strip()),
        prompt_set=args.prompt_set,
        prompts_per_category=args.prompts_per_category,
        preflight=not args.no_preflight,
        vs_llama_server=args.vs_llama_server,
        peer_ngram_modes=args.peer_ngram,
        peer_draft_lengths=args.peer_draft_lengths,
        vs_speculative_simple=args.vs_speculative_simple,
        learned_costs=args.learned_costs,
        overhead_probe=not args.no_overhead_probe,
    )
    if args.vs_speculative_simple:
        if any(t > 0 for t in args.temperatures):
            raise TandemError("--vs-speculative-simple compares greedy replies only: use --temperatures 0")
        ensure_tool("llama-speculative-simple", lambda line: print(f"bench: {line}", file=sys.stderr, flush=True))
    if args.vs_llama_server:  # built on first use, saying so: the app's setup does not build it
        ensure_binary(lambda line: print(f"bench: {line}", file=sys.stderr, flush=True))
    regimes: list[Regime] = regimes_for(target, args.regimes or args.f16_only)
    if args.f16_only:
        regimes = regimes[1:]
    bar = ProgressBar(sys.stderr)
    report = run_benchmark(regimes, draft, settings, bar.update)
    bar.close()
    try:
        write_outputs(report, args.json, args.markdown)
    except OSError as exc:
        # The outputs were writable at the start; keep the results when they no longer are (a full disk).
        sys.stdout.write(render_markdown(report))
        raise TandemError(f"the report could not be written ({exc}); its Markdown is on standard output") from exc
    if args.json is None and args.markdown is None:
        sys.stdout.write(render_markdown(report))
    else:
        written = ", ".join(str(p) for p in (args.json, args.markdown) if p is not None)
        print(f"benchmark written to {written}")
    return 0


def _check_writable(path: Path | None, option: str) -> None:
    """Open ``path`` for appending (creating it if needed, then removing what was created)."""
    if path is None:
        return
    existed = path.exists()
    try:
        with path.open("a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise TandemError(f"cannot write the {option} output {path}: {exc.strerror or exc}") from exc
    if not existed:
        path.unlink(missing_ok=True)


def _pair(args: argparse.Namespace) -> tuple[Path, Path | None]:
    target, draft = resolve_pair(args)
    if args.no_draft_model:
        draft = None
    for role, path in (("target", target), ("draft", draft)):
        if path is not None and not path.is_file():
            raise TandemError(f"{role} model not found: {path}")
    return target, draft


class ProgressBar:
    """A one-line progress bar on stderr (one line per update when stderr is not a terminal)."""

    def __init__(self, stream: TextIO, width: int = 30) -> None:
        self.stream = stream
        self.width = width
        self.started = time.monotonic()
        self.tty = stream.isatty()
        self._last_line = ""

    def update(self, done: int, total: int, label: str) -> None:
        """Redraw with ``done`` of ``total`` runs finished, ``label`` running."""
        fraction = done / total if total else 1.0
        filled = int(self.width * fraction)
        elapsed = time.monotonic() - self.started
        eta = f" eta {elapsed / fraction - elapsed:4.0f}s" if 0 < fraction < 1 else ""
        line = f"[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} {elapsed:5.0f}s{eta} {label}"
        if self.tty:
            self.stream.write("\r\x1b[K" + line[:160])
        elif line != self._last_line:
            self.stream.write(line + "\n")
        self._last_line = line
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line."""
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _run_prefill(args: argparse.Namespace, target: Path) -> int:
    """`bench --prefill`: Tandem's prefill beside llama-bench's, written like the suite's reports."""

    def say(line: str) -> None:
        print(f"bench: {line}", file=sys.stderr, flush=True)

    settings = PrefillSettings(
        target=target,
        llama_bench=ensure_tool("llama-bench", say),
        sizes=args.prefill_sizes,
        repetitions=args.repeats,
        n_threads=args.threads,
        max_other_cpu=args.max_other_cpu,
        max_wait_s=args.max_wait,
    )
    report = run_prefill(settings, say)
    text = render_prefill(report)
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    if args.markdown is not None:
        args.markdown.write_text(text, encoding="utf-8")
    if args.json is None and args.markdown is None:
        sys.stdout.write(text)
    return 0
