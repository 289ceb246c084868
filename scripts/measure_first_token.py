"""Time to first token on a long prompt: the default drafter against the target alone, both regimes (issue 31, item 2).

For each regime (the Q4_K_M demo target as shipped, compute-bound here, and
its F16 copy, memory-bound: ``bench``'s cached copy) two pairs are loaded:
the target alone and the default (hybrid: lookup where trusted, the 0.5B
draft model elsewhere). Each reads the same ~4,000-token document question
(the records document of ``measure_prefix_cache.py``; ``--held-out`` uses a
second document of other records and another question, never looked at while
tuning) from empty caches through the reply's own road (``plan_reply`` and
``run_reply``, greedy, 24 tokens), alternating which goes first, for
``--repeats`` rounds. Time to first token is from before the plan to the
first step's event; each line also gives the whole reply's time and how
many tokens the draft model read. The replies' texts are compared too: the lazy draft
prefill must leave greedy output unchanged. One JSON line per run, then the
medians and their ratio per regime. Nothing here claims a figure: run it on a
quiet machine and give the load average beside it::

    .venv/bin/python scripts/measure_first_token.py --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

_QUESTIONS = (
    "Summarise what the records say about the otters, in two sentences.",
    "Which observer notes mention snow, and near which towns were those animals seen?",
)
_KINDS = (
    (("otter", "heron", "badger", "lynx", "crane"), ("Lyon", "Porto", "Graz", "Turku", "Cork", "Bergen", "Split")),
    (("wren", "hare", "newt", "kestrel", "weasel"), ("Tartu", "Kaunas", "Pula", "Evora", "Lund", "Mostar", "Sibiu")),
)


def document(held_out: bool, tokenize: object, budget: int) -> str:
    """As many records as make about ``budget`` tokens by the target's tokenizer."""
    animals, towns = _KINDS[held_out]
    weather = ("snow", "rain", "sun") if held_out else ("rain", "sun", "sun")
    kept: list[str] = []
    total = 0
    for i in range(20_000):
        line = (
            f"Record {i + 1}: a {animals[i % len(animals)]} was seen near {towns[(7 * i) % len(towns)]} on day "
            f"{(13 * i) % 365 + 1}; it weighed {(37 * i) % 900 + 100} grams and the observer noted {weather[i % 3]}."
        )
        total += len(tokenize(line + "\n", parse_special=False))  # type: ignore[operator]
        if total > budget:
            break
        kept.append(line)
    return "\n".join(kept)


def main() -> int:
    """Load the pairs of each regime, time the first token of each configuration, print lines and medians."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=4000, help="document size in tokens (default 4000)")
    parser.add_argument("--ctx", type=int, default=5120, help="context size (default 5120)")
    parser.add_argument("--repeats", type=int, default=3, help="rounds per regime (default 3)")
    parser.add_argument("--threads", type=int, default=2, help="threads (default 2; 0: automatic)")
    parser.add_argument("--regimes", default="q4,f16", help="q4, f16 or both (default q4,f16)")
    parser.add_argument("--held-out", action="store_true", help="the held-out document and question")
    parser.add_argument("--max-tokens", type=int, default=24, help="reply length (default 24)")
    args = parser.parse_args()

    from app.core.conversation.chat import Message
    from app.core.conversation.chat_settings import ChatSettings
    from app.core.decoding.drafters import DrafterKind
    from app.core.decoding.events import FinishedEvent, StepEvent
    from app.engine.bench.probes import CpuWatch
    from app.engine.bench.runner import f16_copy
    from app.engine.llama.session import LoadedPair, PairConfig
    from app.engine.models.packaged import install_demo_pair
    from app.engine.paths import models_dir
    from app.engine.reply import ReplyRequest, chat_messages, plan_reply, run_reply

    target_q4, draft = install_demo_pair(models_dir())
    threads = args.threads or None
    summary = {}
    for regime in args.regimes.split(","):
        target = target_q4 if regime == "q4" else f16_copy(target_q4)
        configs = {
            "target alone": PairConfig(target, None, DrafterKind.NONE, n_ctx=args.ctx, n_threads=threads),
            "default (hybrid)": PairConfig(target, draft, DrafterKind.HYBRID, n_ctx=args.ctx, n_threads=threads),
        }
        pairs = {name: LoadedPair(config) for name, config in configs.items()}
        first = next(iter(pairs.values()))
        text = document(args.held_out, first.target.tokenize, args.tokens)
        question = _QUESTIONS[args.held_out]
        times: dict[str, list[float]] = {name: [] for name in pairs}
        replies: dict[str, set[str]] = {name: set() for name in pairs}
        watch = CpuWatch()
        for round_ in range(args.repeats):
            order = list(pairs) if round_ % 2 == 0 else list(reversed(pairs))
            for name in order:
                pair = pairs[name]
                pair.target.truncate(0)
                if pair.draft is not None:
                    pair.draft.truncate(0)
                settings = ChatSettings(
                    temperature=0.0, max_tokens=args.max_tokens, drafter=configs[name].drafter.value
                )
                turns = [Message("user", f"{text}\n\nQuestion: {question}")]
                started = time.perf_counter()
                plan = plan_reply(pair, ReplyRequest(settings, chat_messages(settings, turns)))
                first_token = None
                finished = None
                for event in run_reply(pair, plan):
                    if isinstance(event, StepEvent) and first_token is None:
                        first_token = time.perf_counter()
                    elif isinstance(event, FinishedEvent):
                        finished = event
                assert first_token is not None and finished is not None
                ended = time.perf_counter()
                ttft = 1000 * (first_token - started)
                times[name].append(ttft)
                replies[name].add(finished.text)
                print(
                    json.dumps(
                        {
                            "regime": regime,
                            "config": name,
                            "round": round_,
                            "prompt_tokens": finished.stats.prompt_tokens,
                            "ttft_ms": round(ttft, 1),
                            # The whole reply, and what the draft model read: a fresh pair's first draft
                            # must not read the document mid-reply only to time the draft model.
                            "reply_ms": round(1000 * (ended - started), 1),
                            "draft_read": finished.stats.draft_caught_up,
                            "load": round(os.getloadavg()[0], 2),
                        }
                    ),
                    flush=True,
                )
        for pair in pairs.values():
            pair.close()
        medians = {name: statistics.median(values) for name, values in times.items()}
        ratio = medians["default (hybrid)"] / medians["target alone"]
        same = replies["default (hybrid)"] == replies["target alone"] and len(replies["target alone"]) == 1
        summary[regime] = {
            "median_ttft_ms": {k: round(v, 1) for k, v in medians.items()},
            "ratio": round(ratio, 3),
            "greedy_text_identical": same,
            "other_cpu_share": round(watch.other_share(), 3),
        }
        print(f"{regime}: default/target-alone TTFT = {ratio:.3f} (target <= 1.10); greedy identical: {same}")
    print(json.dumps({"held_out": args.held_out, "threads": args.threads, "summary": summary}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
