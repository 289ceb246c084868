"""Continuing a reply cut at the token limit, on the real SmolLM2 pair and on Qwen2.5-Coder 0.5B.

The prompt for "continue" ends inside the unfinished assistant turn (its text
appended, nothing closing it), so the model goes on with the same reply; and
the KV cache keeps the shared prefix, so the prompt is not read again. On
Qwen, whose ``<tool_call>`` is a user-defined token, a cut reply's cached
tail is kept only as text: the continued prompt never holds the call ids
from it (the Qwen tests are skipped when its file is not installed).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.conversation.chat import Message
from app.core.decoding.decoder import GenerationRequest
from app.core.decoding.divergence import NEAR_TIE_LOGIT_GAP, first_divergence, top_two_gap
from app.core.decoding.draft_policy import FixedDraftLength
from app.core.decoding.events import FinishedEvent, FinishReason, StepEvent
from app.core.decoding.sampling import SamplingParams
from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig

GREEDY = SamplingParams(temperature=0)
QUESTION = [Message("system", "You are brief."), Message("user", "List five fruits and their colours.")]


@pytest.fixture(scope="module")
def pair(small_pair: tuple[Path, Path]) -> Iterator[LoadedPair]:
    target, draft = small_pair
    with LoadedPair(PairConfig(target, draft, n_ctx=1024, n_threads=1)) as loaded:
        yield loaded


def _reply(pair: LoadedPair, prompt: list[int], max_tokens: int) -> tuple[list[int], FinishedEvent]:
    decoder = pair.decoder(GREEDY, FixedDraftLength(3), drafter=DrafterKind.MODEL)
    ids: list[int] = []
    finished = None
    for event in decoder.generate(GenerationRequest(prompt, max_tokens=max_tokens)):
        if isinstance(event, StepEvent):
            ids.extend(t.id for t in event.tokens)
        else:
            finished = event
    assert isinstance(finished, FinishedEvent)
    return ids, finished


def test_the_continue_prompt_ends_inside_the_assistant_turn(pair: LoadedPair) -> None:
    partial = "1. Apple: red\n2. Ban"
    closed = pair.template.render([*QUESTION, Message("assistant", partial), Message("user", "more")])
    opened = pair.template.render([*QUESTION, Message("assistant", partial)], continue_reply=True)
    # The same tokens as the finished turn, up to where the template would close it.
    assert closed[: len(opened)] == opened
    end_of_turn = pair.target.llama.tokenize(b"<|im_end|>", add_bos=False, special=True)
    assert closed[len(opened) : len(opened) + len(end_of_turn)] == end_of_turn
    assert opened[-len(end_of_turn) :] != end_of_turn
    text = pair.target.llama.detokenize(opened, special=True).decode()
    assert text.endswith("<|im_start|>assistant\n" + partial)
    with pytest.raises(ValueError, match="assistant"):
        pair.template.render(QUESTION, continue_reply=True)


def _whole_characters(pair: LoadedPair, tokens: list[int]) -> list[int]:
    """The longest prefix of ``tokens`` whose bytes end on a whole UTF-8 character."""
    for end in range(len(tokens), -1, -1):
        try:
            b"".join(pair.target.token_bytes(t) for t in tokens[:end]).decode("utf-8")
        except UnicodeDecodeError:
            continue
        return tokens[:end]
    return []


def test_a_reply_cut_at_the_limit_goes_on_where_it_stopped(pair: LoadedPair) -> None:
    prompt = pair.prompt_tokens(QUESTION, reserve=64).tokens
    first, finished = _reply(pair, prompt, max_tokens=12)
    assert finished.reason is FinishReason.MAX_TOKENS
    fitted = pair.prompt_tokens([*QUESTION, Message("assistant", finished.text)], reserve=64, continue_reply=True)
    # The reply's text keeps whole characters: a cut inside one (an emoji's first byte tokens) leaves it out.
    first = _whole_characters(pair, first)
    assert fitted.tokens == prompt + first  # the prompt, then the reply so far, and nothing closing the turn
    reused, draft_reused = pair.cached_prefix(fitted.tokens)
    # The caches still hold the prompt and the reply so far (the newest token or two were never evaluated).
    assert reused >= len(fitted.tokens) - 2 and draft_reused is not None and draft_reused >= len(fitted.tokens) - 3
    more, _ = _reply(pair, fitted.tokens, max_tokens=12)
    whole, _ = _reply(pair, prompt, max_tokens=24)
    # Greedy: cut and continued is the reply written in one go, up to a near-tie of the target
    # (llama.cpp's batched and single-token kernels differ in the last bits).
    at = first_divergence(whole[: len(first) + len(more)], first + more)  # the same number of tokens
    if at is not None:
        assert at > len(first)
        pair.target.truncate(0)
        context = prompt + whole[:at]
        pair.target.decode(context[:-1], "none")
        assert top_two_gap(pair.target.decode([context[-1]], "last")[0]) < NEAR_TIE_LOGIT_GAP


def test_the_cached_spelling_of_the_reply_is_kept(pair: LoadedPair) -> None:
    """Text tokenised again can split differently from what the model wrote; the cache's tokens win."""
    opener = pair.template.render(QUESTION)
    partial = "Apples"
    letters = [t for ch in partial for t in pair.target.tokenize(ch, parse_special=False)]
    assert letters != pair.target.tokenize(partial, parse_special=False)  # a spelling the tokenizer would not choose
    pair.target.truncate(0)
    pair.target.decode(opener + letters, "none")
    fitted = pair.prompt_tokens(
        [*QUESTION, Message("assistant", partial + " are red")], reserve=64, continue_reply=True
    )
    assert fitted.tokens[: len(opener) + len(letters)] == opener + letters
    tail = fitted.tokens[len(opener) + len(letters) :]
    assert pair.target.llama.detokenize(tail).decode() == " are red"


# -- on Qwen2.5-Coder 0.5B, whose <tool_call> and </tool_call> are user-defined tokens ------------------------------

QWEN = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
TOOL_MARKERS = (151657, 151658)  # <tool_call>, </tool_call> in Qwen2.5's vocabulary
ASKED = [Message("user", "What is the weather in Oslo?")]


@pytest.fixture(scope="module")
def qwen(models_folder: Path) -> Iterator[LoadedPair]:
    path = models_folder / QWEN
    if not path.is_file():
        pytest.skip(f"{QWEN} is not installed")
    with LoadedPair(PairConfig(path, None, DrafterKind.NGRAM, n_ctx=1024, n_threads=1)) as loaded:
        yield loaded


def _cached_then_continued(qwen: LoadedPair, written: list[int]) -> tuple[list[int], list[int]]:
    """The target's cache holding the question and ``written`` (a reply cut at the limit); the continued prompt.

    Returns the question's prompt and the continued prompt's tail after it.
    """
    opener = qwen.template.render(ASKED)
    qwen.target.truncate(0)
    qwen.target.decode(opener + written, "none")
    partial = qwen.target.llama.detokenize(written, special=True).decode()
    fitted = qwen.prompt_tokens([*ASKED, Message("assistant", partial)], reserve=64, continue_reply=True)
    assert fitted.tokens[: len(opener)] == opener
    tail = fitted.tokens[len(opener) :]
    # The tail spells the reply so far, as text.
    assert qwen.target.llama.detokenize(tail, special=True).decode() == partial
    return opener, tail


def test_a_continued_reply_whose_cached_tail_holds_the_call_ids_reads_them_as_text(qwen: LoadedPair) -> None:
    def plain(text: str) -> list[int]:
        return qwen.target.tokenize(text, parse_special=False)

    # The model began a call and was cut: its own ids are in the cache, the stored reply is their text.
    before = plain("Let me check.\n")
    written = [*before, TOOL_MARKERS[0], *plain('\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n'), 151658]
    assert [t for t in written if t in TOOL_MARKERS] == list(TOOL_MARKERS)
    _, tail = _cached_then_continued(qwen, [*written, *plain(" and")])
    assert not [t for t in tail if t in TOOL_MARKERS]
    assert tail[: len(before)] == before  # what came before the call is still the cache's own spelling


def test_a_continued_reply_whose_cached_tail_spells_the_marker_keeps_that_spelling(qwen: LoadedPair) -> None:
    # The model wrote the marker's text one character at a time (never the id): that spelling is kept as cached.
    letters = [t for ch in "See <tool_call> here" for t in qwen.target.tokenize(ch, parse_special=False)]
    assert not [t for t in letters if t in TOOL_MARKERS]
    _, tail = _cached_then_continued(qwen, letters)
    assert tail == letters
