"""The model's own MTP layers as the drafter a user picks (``DrafterKind.MTP``), through the reply path, exact.

On the SYNTHETIC glm4moe and qwen35 files of ``tests/fixtures/synthetic_drafters.py``
(random weights, SmolLM2's tokenizer and chat template, an MTP block built to
agree with the trunk often): no small real model with MTP layers exists. The
qwen35 trunk keeps a recurrent (gated delta-net) state, cut back after a
rejected draft through saved states (``app/engine/llama/rollback.py``).
What is proved is that a pair loaded with the MTP drafter plans,
drafts and verifies replies like any other (greedy output equals the target
alone; sampled output follows the target's distribution, chi-square through
the whole decoder), that a chat set to it is stored and reopens with it, and
that a file without MTP layers is refused in one line. Not how often real MTP
layers are accepted, nor any speed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from app.core.conversation.chat import Message
from app.core.conversation.chat_settings import ChatSettings
from app.core.decoding.decoder import GenerationRequest, SpeculativeDecoder
from app.core.decoding.draft_policy import FixedDraftLength
from app.core.decoding.drafters import DrafterKind, ModelDrafter
from app.core.decoding.events import FinishedEvent, StepEvent, TokenOrigin
from app.core.decoding.sampling import LogitsWarper, SamplingParams
from app.core.errors import TandemError
from app.core.reply.plan import PromptPolicy
from app.core.reply.record import ReplyRecord
from app.engine.llama.mtp import MtpHead
from app.engine.llama.session import LoadedPair, PairConfig
from app.engine.reply import ReplyRequest, pair_label, plan_reply, record_start, run_reply
from app.engine.store.conversations import ChatStore
from tests.cli.helpers import one_line_error, run_cli
from tests.fixtures.synthetic_drafters import SMOLLM2_FILE, Tokenizer, write_glm4moe_mtp, write_qwen35_mtp

QUESTION = "Once upon a time there was a lighthouse keeper who"


_WRITERS = {"glm4moe": write_glm4moe_mtp, "qwen35": write_qwen35_mtp}


@pytest.fixture(scope="module", params=sorted(_WRITERS))
def mtp_pair(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, models_folder: Path
) -> Iterator[LoadedPair]:
    folder = tmp_path_factory.mktemp("synthetic")
    tokenizer = Tokenizer.from_file(models_folder / SMOLLM2_FILE)
    path = _WRITERS[request.param](folder / f"synthetic-{request.param}-mtp.gguf", tokenizer)
    with LoadedPair(PairConfig(path, None, DrafterKind.MTP, n_ctx=512, n_threads=1)) as pair:
        yield pair


def _reply(pair: LoadedPair, drafter: DrafterKind) -> tuple[list[StepEvent], FinishedEvent, ReplyRequest]:
    settings = ChatSettings(temperature=0, drafter=drafter, adaptive=False, draft_length=3, max_tokens=40)
    request = ReplyRequest(settings, (Message("user", QUESTION),), PromptPolicy.REFUSE)
    plan = plan_reply(pair, request)
    assert plan.draft.drafter is drafter
    events = list(run_reply(pair, plan))
    finished = events[-1]
    assert isinstance(finished, FinishedEvent)
    return [e for e in events if isinstance(e, StepEvent)], finished, request


def test_a_pair_loaded_with_the_mtp_drafter_drafts_with_the_models_own_layers(mtp_pair: LoadedPair) -> None:
    assert isinstance(mtp_pair.mtp, MtpHead) and mtp_pair.draft is None  # no second file
    decoder = mtp_pair.decoder(SamplingParams(temperature=0), FixedDraftLength(3))
    assert isinstance(decoder.drafter, ModelDrafter) and decoder.drafter.model is mtp_pair.mtp
    assert pair_label(mtp_pair.config) == f"{mtp_pair.config.target.stem} + its MTP layers"


def test_greedy_replies_with_the_mtp_layers_equal_the_target_alone(mtp_pair: LoadedPair) -> None:
    alone_steps, alone, _ = _reply(mtp_pair, DrafterKind.NONE)
    steps, finished, _ = _reply(mtp_pair, DrafterKind.MTP)
    assert [t.id for s in steps for t in s.tokens] == [t.id for s in alone_steps for t in s.tokens]
    assert finished.text == alone.text
    origins = Counter(t.origin for s in steps for t in s.tokens)
    assert finished.stats.drafted > 0 and origins[TokenOrigin.DRAFT] > 0  # the MTP layers' drafts were kept


def test_sampled_output_with_the_mtp_layers_follows_the_target_distribution(mtp_pair: LoadedPair) -> None:
    """Chi-square on the joint distribution of two sampled tokens (top-3 each: 9 cells), through the whole decoder."""
    target = mtp_pair.target
    params = SamplingParams(temperature=2.0, top_k=3, top_p=1.0, min_p=0.0)
    warper = LogitsWarper(params, target.n_vocab)
    prompt = target.tokenize("The sea was calm and the")
    # The target's own distribution, token by token.
    target.truncate(0)
    first = warper.warp(target.decode(prompt, "last")[-1].copy(), [])
    expected: dict[tuple[int, int], float] = {}
    for a, pa in zip(first.ids.tolist(), first.probs.tolist(), strict=True):
        target.truncate(len(prompt))
        second = warper.warp(target.decode([a], "last")[-1].copy(), [])
        for b, pb in zip(second.ids.tolist(), second.probs.tolist(), strict=True):
            expected[(a, b)] = pa * pb
    decoder: SpeculativeDecoder = mtp_pair.decoder(
        SamplingParams(temperature=2.0, top_k=3, top_p=1.0, min_p=0.0, seed=7), FixedDraftLength(2)
    )
    trials = 1500
    counts: Counter[tuple[int, int]] = Counter()
    drafted = accepted = 0
    for _ in range(trials):
        events = list(decoder.generate(GenerationRequest(prompt, max_tokens=2)))
        finished = events[-1]
        assert isinstance(finished, FinishedEvent)
        ids = [t.id for e in events if isinstance(e, StepEvent) for t in e.tokens]
        counts[(ids[0], ids[1])] += 1
        drafted += finished.stats.drafted
        accepted += finished.stats.accepted
    cells = sorted(expected)
    assert set(counts) <= set(cells)
    observed = np.array([counts[c] for c in cells])
    result = stats.chisquare(observed, np.array([expected[c] for c in cells]) * trials)
    assert result.pvalue > 1e-3, result
    assert 0 < accepted < drafted  # the MTP drafts were verified both ways


def test_a_chat_drafted_by_the_mtp_layers_is_stored_and_reopens_with_them(mtp_pair: LoadedPair, tmp_path: Path) -> None:
    _, finished, request = _reply(mtp_pair, DrafterKind.MTP)
    plan = plan_reply(mtp_pair, request)
    meta = record_start(plan, pair_label(mtp_pair.config)).to_meta()
    store = ChatStore(tmp_path / "conversations.sqlite3")
    cid = store.create_conversation("MTP", request.settings.to_dict())
    store.add_message(cid, "user", QUESTION)
    reply = store.begin_reply(cid, meta)
    store.finish_reply(reply, finished.text)
    store.close()
    reopened = ChatStore(tmp_path / "conversations.sqlite3")
    try:
        assert ChatSettings.from_dict(reopened.conversation_settings(cid)).drafter is DrafterKind.MTP
        record = ReplyRecord.from_meta(reopened.messages(cid)[-1].meta)
    finally:
        reopened.close()
    assert record.produced_by is not None and record.produced_by.drafter == "mtp"
    assert record.produced_by.draft is None
    assert record.pair == f"{mtp_pair.config.target.stem} + its MTP layers"


def test_the_mtp_drafter_on_a_file_without_mtp_layers_is_refused_in_one_line(small_pair: tuple[Path, Path]) -> None:
    target = small_pair[0]
    with pytest.raises(TandemError, match="has no MTP layers"):
        LoadedPair(PairConfig(target, None, DrafterKind.MTP, n_ctx=256, n_threads=1))
    result = run_cli("chat", "--target", str(target), "--drafter", "mtp", "--ctx", "256", "hello")
    one_line_error(result, f"{target.name} has no MTP layers to draft with")
