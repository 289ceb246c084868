"""Measure the prefill a regenerate saves: the same prompt read from an empty KV cache and from the cache it left.

Loads a pair (SmolLM2 by default), builds a conversation of several turns,
and generates the last reply three times the way the window does: once from
an empty cache (what a first reply to that conversation costs), then twice as
"Regenerate" would (the caches still hold the conversation). For each run it
prints how many prompt tokens the target's and the draft's caches already
held (``LoadedPair.cached_prefix``, what the reply records as
``prompt_reused``) and the prefill time the decoder measured. The runs are
interleaved in one process, so compare them with each other (with the load
average printed beside them), not with other machines.

    .venv/bin/python scripts/measure_regenerate_prefill.py [--pair small|demo] [--turns N] [--threads N]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TOPICS = ("the sea", "mountains", "a library", "trains", "gardens", "rain", "bread", "clocks")


def main() -> int:
    """Run the measurement; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pair", choices=("demo", "small"), default="small")
    parser.add_argument("--turns", type=int, default=6, help="earlier question/answer pairs in the conversation")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--max-tokens", type=int, default=16)
    args = parser.parse_args()

    from app.core.conversation.chat import Message
    from app.core.decoding.decoder import GenerationRequest
    from app.core.decoding.events import FinishedEvent
    from app.core.decoding.sampling import SamplingParams
    from app.engine.llama.session import LoadedPair, PairConfig
    from app.engine.models.packaged import demo_pair_paths, small_pair_paths

    target, draft = demo_pair_paths() if args.pair == "demo" else small_pair_paths()
    messages = [Message("system", "You are a helpful assistant.")]
    for topic in TOPICS[: args.turns]:
        messages.append(Message("user", f"Write two sentences about {topic}."))
        messages.append(Message("assistant", f"Here are two sentences about {topic}. " * 4))
    messages.append(Message("user", "Now one sentence about the moon."))

    with LoadedPair(PairConfig(target, draft, n_ctx=2048, n_threads=args.threads)) as pair:
        prompt = pair.prompt_tokens(messages, reserve=args.max_tokens).tokens
        params = SamplingParams(temperature=0.8, seed=1)
        print(f"load average {os.getloadavg()[0]:.2f}; prompt {len(prompt)} tokens; {args.threads} thread(s)")
        for label in ("first reply, empty cache", "regenerate", "regenerate again"):
            if label.startswith("first"):
                pair.target.truncate(0)
                if pair.draft is not None:
                    pair.draft.truncate(0)
            reused, draft_reused = pair.cached_prefix(prompt)
            decoder = pair.decoder(params, draft_length=4, adaptive=False)
            finished = None
            for event in decoder.generate(GenerationRequest(prompt, max_tokens=args.max_tokens)):
                if isinstance(event, FinishedEvent):
                    finished = event
            assert finished is not None
            print(
                f"{label:26s} target reused {reused:4d}, read {len(prompt) - reused:4d}; "
                f"draft reused {draft_reused}; prefill {finished.stats.prefill_s * 1000:8.1f} ms"
            )
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
