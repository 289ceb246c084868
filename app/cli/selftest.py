"""`tandem --selftest`: prove that this install can load a pair and decode speculatively.

It loads a target and a draft model (the SmolLM2 test pair from the models
folder unless paths are given), generates a short greedy reply twice, target
only and speculatively, and checks that the two agree: at temperature 0
speculative decoding must reproduce the target's own output. It runs headless
and never imports PySide6, so it works over SSH, in CI and inside the frozen
bundle (``Tandem --selftest``), which reads models from the same platform data
folder as a source checkout. It also checks that the window could open: Qt's
X11 libraries load (``app/ui/start/desktop_check.py``, no Qt imported) and, where
there is a display, the GUI platform starts in a child process.

llama.cpp's batched and single-token kernels are not bit-identical (see
docs/architecture.md, "Exactness"), so a divergence is inspected rather than simply reported: the target is
re-run up to the diverging position and the gap between its two best logits
there tells numerics (a near-tie) from a real bug. The first few tokens must
match exactly; a later divergence passes only when it sits at a near-tie.

Exit codes: 0 passed; 1 the outputs disagree; 2 the test could not run (a
missing or unreadable model, llama.cpp failing). A failure ends with exactly
one line on stderr that starts with ``selftest failed:``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import app
from app.core.conversation.chat import Message
from app.core.decoding.decoder import GenerationRequest
from app.core.decoding.divergence import NEAR_TIE_LOGIT_GAP, divergence_explained, first_divergence, top_two
from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.decoding.model_port import CausalLM, sync_cache
from app.core.decoding.sampling import SamplingParams
from app.core.decoding.stats import GenerationStats
from app.core.errors import TandemError
from app.core.reply.plan import DraftPlan

if TYPE_CHECKING:
    from app.engine.llama.session import DrafterKind, LoadedPair

# Tokens at the start of the reply that must match exactly: before any
# near-tie has had a chance to occur, a mismatch points at the algorithm.
STRICT_PREFIX = 4
DEFAULT_TOKENS = 16
DEFAULT_PROMPT = "List five fruits."
SELFTEST_CTX = 512  # a short prompt and 16 tokens need little; keeps memory low
# A fixed draft length, not the adaptive controller: the controller may turn
# drafting off where it does not pay, and the self-test must exercise the
# draft-and-verify path whatever the machine's speed.
DRAFT_LENGTH = 4
# Libraries the app needs at run time besides llama.cpp. Importing each one
# catches a frozen bundle that left one out; the GUI-only ones are imported
# without Qt, which the self-test never loads.
# ``llama_cpp.mtmd_cpp`` opens libmtmd, which reads images in a chat (app/engine/llama/vision.py).
RUNTIME_MODULES = (
    "numpy",
    "gguf",
    "jinja2",
    "psutil",
    "pynvml",
    "huggingface_hub",
    "platformdirs",
    "llama_cpp.mtmd_cpp",
    "ziamath",
)


class SelftestError(Exception):
    """The test ran and found a problem; ``code`` is the exit status to return."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def add_options(parser: argparse.ArgumentParser) -> None:
    """The ``--selftest-*`` options on the top-level parser."""
    group = parser.add_argument_group("self-test (with --selftest)")
    group.add_argument("--selftest-target", type=Path, metavar="GGUF", help="target model (default: the SmolLM2 pair)")
    group.add_argument("--selftest-draft", type=Path, metavar="GGUF", help="draft model for --selftest-target")
    group.add_argument("--selftest-tokens", type=int, default=DEFAULT_TOKENS, metavar="N", help="tokens to generate")
    group.add_argument("--selftest-prompt", default=DEFAULT_PROMPT, metavar="TEXT", help="the user message")


@dataclass(frozen=True, slots=True)
class Divergence:
    """Where the speculative reply first differs from the target-only reply."""

    position: int
    baseline: int | None  # token id, or None where that run had ended
    speculative: int | None
    top_two: tuple[int, int]  # the target's two best tokens at this position
    gap: float  # logit difference between them
    pair_is_top_two: bool  # the two runs chose between exactly those two

    @property
    def near_tie(self) -> bool:
        """True when the disagreement is explained by the target being almost undecided."""
        return self.pair_is_top_two and self.gap < NEAR_TIE_LOGIT_GAP


@dataclass(frozen=True, slots=True)
class RunResult:
    """One generation's token ids, text and statistics."""

    tokens: list[int]
    text: str
    stats: GenerationStats


def analyse_divergence(
    target: CausalLM, prompt: Sequence[int], baseline: Sequence[int], speculative: Sequence[int], position: int
) -> Divergence:
    """Re-run the target on the shared prefix and measure how close its top two tokens are there."""
    context = [*prompt, *baseline[:position]]
    sync_cache(target, context[:-1])
    gap, best_two = top_two(target.decode([context[-1]], "last")[0])
    chosen = [
        run[position] if position < len(run) else None for run in (baseline, speculative)
    ]  # None: that run stopped on an end-of-generation token here
    # No threshold here: whether the runs chose between the two best is kept apart from the gap
    # so the failure message can say which of the two conditions failed.
    between_them = divergence_explained(gap, best_two, chosen, target.is_eog, threshold=float("inf"))
    return Divergence(position, chosen[0], chosen[1], best_two, gap, between_them)


def _generate(pair: LoadedPair, prompt: list[int], max_tokens: int, drafter: DrafterKind) -> RunResult:
    decoder = pair.decoder(
        SamplingParams(temperature=0.0), DraftPlan.for_run(drafter, DRAFT_LENGTH).policy(), drafter=drafter
    )
    tokens: list[int] = []
    for event in decoder.generate(GenerationRequest(prompt, max_tokens=max_tokens)):
        if isinstance(event, StepEvent):
            tokens.extend(event.token_ids)
        elif isinstance(event, FinishedEvent):
            return RunResult(tokens, event.text, event.stats)
    raise SelftestError("the decoder ended without a finished event")


def _resolve_paths(args: argparse.Namespace) -> tuple[Path, Path]:
    from app.engine.models.packaged import small_pair_paths
    from app.engine.paths import models_dir

    target, draft = args.selftest_target, args.selftest_draft
    if target is not None:
        target = target.expanduser()
    if draft is not None:
        draft = draft.expanduser()
    if (target is None) != (draft is None):
        raise SelftestError("give both --selftest-target and --selftest-draft, or neither", 2)
    if target is None:
        target, draft = small_pair_paths()
        if not (target.is_file() and draft.is_file()):
            raise SelftestError(
                f"the SmolLM2 test pair is not installed in {models_dir()}: run `python main.py models "
                "install-small` from a source checkout, or pass --selftest-target and --selftest-draft",
                2,
            )
    for role, path in (("target", target), ("draft", draft)):
        if not path.is_file():
            raise SelftestError(f"{role} model not found: {path}", 2)
    return target, draft


def check_runtime_modules() -> str:
    """Import every runtime library; return "name version, ..." or raise SelftestError naming the missing one."""
    import importlib

    found = []
    for name in RUNTIME_MODULES:
        try:
            module = importlib.import_module(name)
        except Exception as exc:
            raise SelftestError(f"the {name} module cannot be imported: {type(exc).__name__}: {exc}", 2) from exc
        version = getattr(module, "__version__", None)
        found.append(f"{name} {version}" if isinstance(version, str) else name)
    try:
        # The chat view's formulas need ziamath's math font and latex2mathml's symbol table beside the code.
        importlib.import_module("ziamath").Latex(r"\frac{1}{2}").svg()
    except Exception as exc:
        raise SelftestError(f"formulas cannot be set: {type(exc).__name__}: {exc}", 2) from exc
    return ", ".join(found)


def check_gui(environ: dict[str, str] | None = None) -> str:
    """One line about the window: Qt's X11 libraries load and, where there is a display, the platform starts.

    The platform is started in a child process (``--probe-gui``), since Qt
    aborts the process it cannot start in. Without a display the libraries are
    still checked, so a headless build machine passes but one missing them does not.
    """
    import os
    import subprocess

    from app.ui.start.desktop_check import desktop_problem, install_line, missing_libraries

    env = dict(os.environ if environ is None else environ)
    platform = env.get("QT_QPA_PLATFORM", "").strip()
    x11 = sys.platform.startswith("linux") and (not platform or platform.startswith("xcb"))
    if x11 and not env.get("WAYLAND_DISPLAY", "").strip():
        missing, reason = missing_libraries()
        if missing:
            names = ", ".join(m.soname for m in missing)
            raise SelftestError(f"the window cannot start: Qt's X11 platform needs {names}; {install_line(missing)}", 2)
        if reason is not None:
            raise SelftestError(f"the window cannot start: Qt's X11 platform does not load: {reason}", 2)
        if not env.get("DISPLAY", "").strip():
            return "gui: Qt's X11 platform and its libraries load; no display here, so no window was started"
    problem = desktop_problem(env)
    if problem is not None:
        raise SelftestError(problem, 2)
    command = [sys.executable]  # a frozen bundle's executable is the CLI itself
    if not getattr(sys, "frozen", False):
        # A checkout runs its own main.py; an installed wheel has none beside app/, and -m finds it on sys.path.
        main_py = Path(app.__file__).resolve().parents[1] / "main.py"
        command += [str(main_py)] if main_py.is_file() else ["-m", "app"]
    try:
        probe = subprocess.run(
            [*command, "--probe-gui"], capture_output=True, text=True, timeout=60, env=env, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise SelftestError("the GUI platform did not start within 60 s", 2) from exc
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["no message"])[-1]
        raise SelftestError(f"the GUI platform did not start (exit {probe.returncode}): {last}", 2)
    return probe.stdout.strip().splitlines()[-1].replace("gui platform: ", "gui: platform ") + " starts"


def _describe_token(pair: LoadedPair, token: int | None) -> str:
    if token is None:
        return "end of reply"
    piece = pair.target.token_bytes(token).decode("utf-8", errors="replace")
    return f"{piece!r} (id {token})"


def selftest(args: argparse.Namespace) -> str:
    """Run the check; return the summary, or raise SelftestError / TandemError."""
    # Imported here, not at the top, so that a bundle whose llama.cpp libraries
    # fail to load still answers with the one-line reason instead of a traceback.
    import llama_cpp

    from app.engine.llama.model import gpu_offload_supported
    from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig

    if args.selftest_tokens < STRICT_PREFIX:
        raise SelftestError(f"--selftest-tokens must be at least {STRICT_PREFIX}", 2)
    target_path, draft_path = _resolve_paths(args)
    modules = check_runtime_modules()
    gui = check_gui()
    started = time.perf_counter()
    with LoadedPair(PairConfig(target_path, draft_path, DrafterKind.MODEL, n_ctx=SELFTEST_CTX)) as pair:
        load_s = time.perf_counter() - started
        prompt = pair.template.render([Message("user", args.selftest_prompt)])
        baseline = _generate(pair, prompt, args.selftest_tokens, DrafterKind.NONE)
        speculative = _generate(pair, prompt, args.selftest_tokens, DrafterKind.MODEL)
        stats = speculative.stats
        n = len(speculative.tokens)
        where = first_divergence(baseline.tokens, speculative.tokens)
        agreement = "all identical" if where is None else f"the first {where} identical"
        backend = "GPU offload available" if gpu_offload_supported() else "CPU"
        lines = [
            f"model pair: {target_path.name} (target) + {draft_path.name} (draft), loaded in {load_s:.1f} s",
            f"llama-cpp-python {llama_cpp.__version__} ({backend}); prompt {len(prompt)} tokens",
            f"modules: {modules}",
            gui,
            f"speculative (draft length {DRAFT_LENGTH}): {n} tokens, {agreement} to target-only | "
            f"acceptance {stats.acceptance_rate:.0%} ({stats.accepted}/{stats.drafted}), "
            f"{stats.tokens_per_step:.2f} tokens per target pass",
            f"speed: speculative {stats.tokens_per_second:.1f} tok/s, "
            f"target-only {baseline.stats.tokens_per_second:.1f} tok/s",
            f"reply: {speculative.text!r}",
        ]
        if n == 0:
            raise SelftestError("the target produced no tokens at all")
        if stats.drafted == 0 and n > 1:
            raise SelftestError("the draft model proposed no tokens: the speculative path was not exercised")
        if where is not None:
            div = analyse_divergence(pair.target, prompt, baseline.tokens, speculative.tokens, where)
            detail = (
                f"token {where}: target-only {_describe_token(pair, div.baseline)}, "
                f"speculative {_describe_token(pair, div.speculative)}; target's top-two logit gap there "
                f"{div.gap:.3f}"
            )
            if where < STRICT_PREFIX:
                kind = "a near-tie, but" if div.near_tie else "not a near-tie, and"
                raise SelftestError(
                    f"speculative output differs from target-only at {detail} ({kind} within the first "
                    f"{STRICT_PREFIX} tokens, which must match exactly)\n" + "\n".join(lines)
                )
            if not div.near_tie:
                raise SelftestError(
                    f"speculative output differs from target-only at {detail}, not a near-tie "
                    f"(gap >= {NEAR_TIE_LOGIT_GAP} or other tokens): a decoding bug\n" + "\n".join(lines)
                )
            lines.append(
                f"note: diverged at {detail}, a near-tie (< {NEAR_TIE_LOGIT_GAP}): llama.cpp batch numerics, "
                "not the algorithm"
            )
    return "\n".join(lines)


def run_selftest(args: argparse.Namespace) -> int:
    """Entry point for ``--selftest``; prints the summary and returns the exit code."""
    print(f"{app.APP_NAME} {app.version()} self-test", flush=True)
    try:
        summary = selftest(args)
    except SelftestError as exc:
        # A mismatch carries the run's summary after its first line: print it
        # to stdout so the stderr reason stays a single line.
        reason, _, details = str(exc).partition("\n")
        if details:
            print(details, flush=True)
        print(f"selftest failed: {reason}", file=sys.stderr)
        return exc.code
    except TandemError as exc:
        print(f"selftest failed: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # the self-test must answer in one line whatever broke
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        print(f"selftest failed: unexpected {type(exc).__name__}: {first}", file=sys.stderr)
        return 2
    print(summary)
    print("selftest passed")
    return 0
