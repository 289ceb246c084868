"""The CPU build's greedy reply, for the Vulkan tests to compare with: run by the CPU environment's interpreter.

Not a test module. ``python -m tests.vulkan.cpu_reference TARGET MAX_TOKENS TEXT``
loads TARGET alone with no GPU layers, renders TEXT as one user message with
its chat template and prints one JSON object: the prompt's tokens and the
greedy reply's tokens (target alone, no drafter).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from app.core.conversation.chat import Message
from app.core.decoding.decoder import GenerationRequest
from app.core.decoding.draft_policy import FixedDraftLength
from app.core.decoding.events import StepEvent
from app.core.decoding.sampling import SamplingParams
from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig


def greedy_reply(target: Path, text: str, max_tokens: int, n_gpu_layers: int = 0) -> tuple[list[int], list[int]]:
    """(prompt tokens, reply tokens) of the target alone at temperature 0."""
    config = PairConfig(target, None, drafter=DrafterKind.NONE, n_ctx=512, n_threads=2, n_gpu_layers=n_gpu_layers)
    with LoadedPair(config) as pair:
        return pair_greedy(pair, text, max_tokens)


def pair_greedy(pair: LoadedPair, text: str, max_tokens: int) -> tuple[list[int], list[int]]:
    """(prompt tokens, reply tokens) of ``pair``'s target alone at temperature 0."""
    prompt = pair.template.render([Message("user", text)])
    decoder = pair.decoder(SamplingParams(temperature=0), FixedDraftLength(4), drafter=DrafterKind.NONE)
    reply: list[int] = []
    for event in decoder.generate(GenerationRequest(prompt, max_tokens=max_tokens)):
        if isinstance(event, StepEvent):
            reply += [t.id for t in event.tokens]
    return list(prompt), reply


def main() -> int:
    """Print the reference as JSON."""
    target, max_tokens, text = sys.argv[1:4]
    prompt, reply = greedy_reply(Path(target), text, int(max_tokens))
    print(json.dumps({"prompt": prompt, "reply": reply}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
