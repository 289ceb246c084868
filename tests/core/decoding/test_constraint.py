"""Structured output through the whole decoder on hand-built models and a hand-built grammar."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest
from scipy import stats

from app.core.decoding.constraint import ConstraintError, advance_through, allowed_prefix, masked_row
from app.core.decoding.decoder import GenerationRequest, SpeculativeDecoder
from app.core.decoding.draft_policy import FixedDraftLength
from app.core.decoding.drafters import ModelDrafter
from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.decoding.lookup_drafters import HybridDrafter, NgramDrafter
from app.core.decoding.sampling import LogitsWarper, SamplingParams
from tests.core.fakes import BigramLM, random_table


def toy_rule(history: Sequence[int], token: int, n_vocab: int) -> bool:
    """A stateful toy grammar: never repeat the last token, and never the position's own number."""
    if history and token == history[-1]:
        return False
    return token != len(history) % n_vocab


class ToyMask:
    """A :class:`TokenMask` for :func:`toy_rule` that refuses to consume a token the rule forbids."""

    def __init__(self, n_vocab: int) -> None:
        self.n_vocab = n_vocab
        self.history: list[int] = []
        self.rollbacks = 0

    def allowed(self) -> npt.NDArray[np.bool_]:
        return np.array([toy_rule(self.history, t, self.n_vocab) for t in range(self.n_vocab)])

    def consume(self, token: int) -> None:
        assert toy_rule(self.history, token, self.n_vocab), (self.history, token)
        self.history.append(token)

    def rollback(self, n_tokens: int) -> None:
        assert 0 <= n_tokens <= len(self.history)
        self.rollbacks += n_tokens
        del self.history[len(self.history) - n_tokens :]


def masked_probs(table: npt.NDArray[np.float32], prev: int, history: list[int]) -> npt.NDArray[np.float64]:
    """The masked, renormalised target row at temperature 1 (what the output must follow)."""
    v = table.shape[1]
    logits = table[prev].astype(np.float64)
    p = np.exp(logits - logits.max())
    p *= np.array([toy_rule(history, t, v) for t in range(v)])
    return p / p.sum()


def generate(
    decoder: SpeculativeDecoder, prompt: list[int], n: int, mask: ToyMask
) -> tuple[list[int], list[StepEvent]]:
    events = list(decoder.generate(GenerationRequest(prompt, max_tokens=n, constraint=mask)))
    assert isinstance(events[-1], FinishedEvent)
    steps = [e for e in events if isinstance(e, StepEvent)]
    return [t.id for s in steps for t in s.tokens], steps


T1 = SamplingParams(temperature=1.0, top_k=0, top_p=1.0, min_p=0.0)


@pytest.mark.parametrize("kind", ["model", "lookup"])
def test_constrained_speculative_output_follows_the_masked_target_end_to_end(kind: str) -> None:
    """Chi-square on three sampled tokens (V=4 -> 64 cells, the forbidden ones expected 0), drafting on.

    The draft model is far from the target, so rejections and rollbacks are frequent; the lookup copies
    from a prompt that repeats, its one-hot proposals cut where the grammar refuses them.
    """
    v = 4
    target_table = random_table(v, seed=11, scale=1.0)
    rng = np.random.default_rng(99)
    drafter: ModelDrafter | NgramDrafter
    if kind == "model":
        drafter = ModelDrafter(BigramLM(-target_table), LogitsWarper(T1, v), rng)
        prompt = [0]
    else:
        drafter = NgramDrafter(2, 1)
        prompt = [3, 0, 1, 2, 3, 0, 2, 1, 3, 0]
    decoder = SpeculativeDecoder(BigramLM(target_table), drafter, T1, FixedDraftLength(3), rng)
    counts: Counter[tuple[int, ...]] = Counter()
    trials = 6000
    drafted = rejected = 0
    for _ in range(trials):
        mask = ToyMask(v)
        ids, steps = generate(decoder, prompt, 3, mask)
        assert mask.history == ids  # the grammar state is exactly the emitted tokens: every rollback was right
        counts[tuple(ids)] += 1
        drafted += sum(s.drafted for s in steps)
        rejected += sum(s.accepted < s.drafted for s in steps)
    assert drafted > trials // 2 and rejected > trials // 10  # drafting really happened, and was often rejected
    cells = [(a, b, c) for a in range(v) for b in range(v) for c in range(v)]
    p, last = target_table, prompt[-1]
    expected = np.array(
        [masked_probs(p, last, [])[a] * masked_probs(p, a, [a])[b] * masked_probs(p, b, [a, b])[c] for a, b, c in cells]
    )
    observed = np.array([counts[cell] for cell in cells])
    assert observed[expected == 0].sum() == 0  # valid by construction
    live = expected > 0
    result = stats.chisquare(observed[live], expected[live] * trials)
    assert result.pvalue > 1e-3, result


def test_lookup_proposals_are_cut_at_the_first_token_the_grammar_refuses() -> None:
    v = 12
    drafter = NgramDrafter(3, 1)
    mask = ToyMask(v)
    mask.history = [5]  # position 1: token 1 is refused, and so is a repeat of 5
    context = [1, 2, 3, 4, 9, 1, 2, 7, 7, 1, 2]
    assert drafter.propose(context, 3).tokens == [7, 7, 1]
    draft = drafter.propose(context, 3, mask=mask)
    assert draft.tokens == [7]  # the second 7 repeats the first
    assert len(draft.q_draft) == len(draft.confidence) == len(draft.copied_from) == 1
    assert mask.history == [5]  # left as it was found


def test_model_drafter_drafts_only_allowed_tokens_and_leaves_the_mask_as_found() -> None:
    v = 6
    table = random_table(v, seed=3)
    mask = ToyMask(v)
    drafter = ModelDrafter(BigramLM(table), LogitsWarper(T1, v), np.random.default_rng(0))
    drafter.begin([2])
    for _ in range(50):
        draft = drafter.propose([2], 4, mask=mask)
        assert mask.history == []
        assert allowed_prefix(mask, draft.tokens) == 4
        for i, q in enumerate(draft.q_draft):
            history = draft.tokens[:i]
            assert all(toy_rule(history, int(t), v) for t in q.ids)  # q_draft itself is masked
        drafter.accept(0)


@pytest.mark.parametrize("temperature", [0.0, 0.8])
def test_hybrid_drafting_under_a_grammar_emits_only_valid_tokens(temperature: float) -> None:
    v = 8
    params = SamplingParams(temperature=temperature)
    rng = np.random.default_rng(5)
    table = random_table(v, seed=4)
    model = ModelDrafter(BigramLM(random_table(v, seed=6)), LogitsWarper(params, v), rng)
    drafter = HybridDrafter(model, NgramDrafter(3, 1, lookup_length=4))
    decoder = SpeculativeDecoder(BigramLM(table), drafter, params, FixedDraftLength(4), rng)
    prompt = [1, 2, 3, 4, 5, 6, 7, 1, 2, 3]
    for _ in range(20):
        mask = ToyMask(v)
        ids, steps = generate(decoder, prompt, 30, mask)
        assert len(ids) == 30 and mask.history == ids
        assert all(toy_rule(ids[:i], t, v) for i, t in enumerate(ids))
    assert any(s.draft_source == "lookup" for s in steps) or any(s.drafted for s in steps)


def test_a_grammar_that_allows_nothing_is_a_clear_error() -> None:
    with pytest.raises(ConstraintError, match="allows no next token"):
        masked_row(np.zeros(4, dtype=np.float32), np.zeros(4, dtype=np.bool_))


def test_advance_through_returns_one_mask_per_position_plus_the_next() -> None:
    mask = ToyMask(5)
    n, masks = advance_through(mask, [3, 2, 2, 4])  # the second 2 repeats
    assert n == 2 and len(masks) == 3 and mask.history == [3, 2]
    assert not masks[2][2]
