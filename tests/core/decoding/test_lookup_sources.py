"""Prompt lookup's extra sources (attachments): found by their n-gram index, cited per token, and lossless."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from app.core.decoding.decoder import GenerationRequest, SpeculativeDecoder
from app.core.decoding.draft_policy import FixedDraftLength
from app.core.decoding.drafters import Drafter, NoDrafter
from app.core.decoding.events import FinishedEvent, StepEvent, TokenOrigin
from app.core.decoding.lookup import CONTEXT_CITATION, LookupSource, find_in_source
from app.core.decoding.lookup_drafters import NgramDrafter
from app.core.decoding.sampling import SamplingParams
from tests.core.fakes import BigramLM, random_table

GREEDY = SamplingParams(temperature=0)


def _source(tokens: list[int], name: str = "doc.txt", min_n: int = 3) -> LookupSource:
    # One "character" per token; a page every 10 tokens, so citations say where a copy came from.
    return LookupSource(name, tokens, list(range(len(tokens))), lambda at: f"{name}, p. {at // 10 + 1}", min_n)


def test_the_index_finds_every_window_and_the_longest_agreement_wins() -> None:
    tokens = [5, 6, 7, 1, 2, 3, 9, 9, 8, 6, 7, 1, 2, 3, 4, 4]
    source = _source(tokens)
    assert list(source.windows(np.array([1, 2, 3]))) == [3, 11]
    assert list(source.windows(np.array([3, 2, 1]))) == []
    context = np.array([0, 8, 6, 7, 1, 2, 3])  # agrees with the second occurrence over six tokens
    match = find_in_source(source, context, max_extent=32)
    assert match is not None
    assert (match.start, match.length) == (14, 6)
    assert source.cite(match.start) == "doc.txt, p. 2"
    assert find_in_source(source, np.array([0, 0, 0]), 32) is None
    # A window at the very end has no continuation in the source.
    assert find_in_source(source, np.array([3, 4, 4]), 32) is None


def test_hash_collisions_never_give_a_false_window() -> None:
    rng = np.random.default_rng(3)
    tokens = rng.integers(0, 50, size=5000).tolist()
    source = _source(tokens)
    for start in range(0, 4990, 97):
        gram = np.array(tokens[start : start + 3])
        found = source.windows(gram)
        brute = [i for i in range(len(tokens) - 2) if tokens[i : i + 3] == gram.tolist()]
        assert list(found) == brute


def test_a_drafter_proposes_from_a_source_and_says_where_each_token_came_from() -> None:
    document = [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33]
    drafter = NgramDrafter(32, 3, sources=[_source(document, "report.pdf")])
    prompt = [1, 2, 3, 24, 25, 26]  # the prompt quotes the document's middle
    drafter.begin(prompt)
    draft = drafter.propose(prompt, 5)
    assert draft.tokens == [27, 28, 29, 30, 31]
    assert draft.copied_from == ["report.pdf, p. 1"] * 3 + ["report.pdf, p. 2"] * 2
    # Without the source nothing in the context repeats: no proposal.
    plain = NgramDrafter(32, 3)
    plain.begin(prompt)
    assert plain.propose(prompt, 5).tokens == []


def test_a_context_repeat_is_cited_as_earlier_in_this_chat_and_a_tie_goes_to_the_source() -> None:
    drafter = NgramDrafter(32, 3, sources=[_source([9, 9, 9])])  # never matches
    context = [1, 2, 3, 4, 5, 1, 2, 3]
    drafter.begin(context)
    draft = drafter.propose(context, 2)
    assert draft.tokens == [4, 5]
    assert draft.copied_from == [CONTEXT_CITATION] * 2
    # The same passage in the prompt (rendered attachment) and the source: the source is cited.
    tied = NgramDrafter(32, 3, sources=[_source([1, 2, 3, 4, 5])])
    tied.begin(context)
    assert tied.propose(context, 2).copied_from == ["doc.txt, p. 1"] * 2


def test_decoded_tokens_carry_their_citation_and_the_stats_count_them() -> None:
    n = 40
    table = np.full((n, n), -10.0, dtype=np.float32)
    for t in range(n - 1):
        table[t, t + 1] = 10.0  # the target counts upwards
    document = list(range(10, 39))
    decoder = SpeculativeDecoder(
        BigramLM(table), NgramDrafter(32, 3, sources=[_source(document)]), GREEDY, FixedDraftLength(4)
    )
    events = list(decoder.generate(GenerationRequest([0, 11, 12, 13], max_tokens=12)))
    tokens = [t for e in events if isinstance(e, StepEvent) for t in e.tokens]
    drafted = [t for t in tokens if t.origin is TokenOrigin.DRAFT]
    assert drafted and all(t.copied_from is not None and t.copied_from.startswith("doc.txt, p. ") for t in drafted)
    assert all(t.copied_from is None for t in tokens if t.origin is not TokenOrigin.DRAFT)
    finished = events[-1]
    assert isinstance(finished, FinishedEvent)
    assert sum(finished.stats.copied.values()) == len(drafted)
    assert finished.stats.to_dict()["copied"] == finished.stats.copied


def _two_token_counts(
    make_drafter: Callable[[], Drafter], table: npt.NDArray[np.float32], params: SamplingParams, runs: int
) -> tuple[npt.NDArray[np.float64], int]:
    """The empirical distribution of the first two reply tokens over ``runs`` seeds, and the tokens drafted."""
    n = table.shape[0]
    counts = np.zeros((n, n))
    drafted = 0
    for seed in range(runs):
        decoder = SpeculativeDecoder(
            BigramLM(table), make_drafter(), params, FixedDraftLength(3), rng=np.random.default_rng(seed)
        )
        steps = [e for e in decoder.generate(GenerationRequest([4, 0, 1, 2], max_tokens=2)) if isinstance(e, StepEvent)]
        out = [t.id for e in steps for t in e.tokens]
        drafted += sum(e.drafted for e in steps)
        counts[out[0], out[1]] += 1
    return counts / runs, drafted


def test_extra_sources_leave_the_output_distribution_unchanged_at_t_above_zero() -> None:
    n = 5
    table = random_table(n, seed=11, scale=1.0)
    params = SamplingParams(temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, repeat_penalty=1.0)
    # The exact distribution of the first two reply tokens after [..., 2]: softmax rows of the table.
    rows = np.exp(table - table.max(axis=1, keepdims=True))
    rows /= rows.sum(axis=1, keepdims=True)
    exact = rows[2][:, None] * rows
    # A source that always proposes the least likely continuation (after 0 1 2): a drafter the target
    # did not verify would pile the mass there.
    worst = int(np.argmin(rows[2]))
    worst_next = int(np.argmin(rows[worst]))
    source = [0, 1, 2, worst, worst_next, 0, 1, 2, worst, worst_next]
    runs = 3000
    with_source, drafted = _two_token_counts(
        lambda: NgramDrafter(32, 3, sources=[_source(source)]), table, params, runs
    )
    plain, none_drafted = _two_token_counts(NoDrafter, table, params, runs)
    assert drafted >= runs and none_drafted == 0  # the source proposed on every run
    assert 0.5 * np.abs(with_source - exact).sum() < 0.06
    assert 0.5 * np.abs(plain - exact).sum() < 0.06
    assert exact[worst, worst_next] < 0.05  # the proposals were unlikely, so acceptance had to be earned
