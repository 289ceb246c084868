"""Tool-call markers that the vocabulary holds as control tokens reach the call reader as their text.

The models are SYNTHETIC (:mod:`tests.fixtures.control_markers`): the small
pair's real tokenizer with the Llama 3.x, Mistral and gpt-oss markers appended
as control tokens, as those families' real (multi-gigabyte) vocabularies hold
them, random weights and the test templates. llama.cpp loads and detokenises
them as it does the real files; the markers are forced with a logit bias or
fed as token ids, since random weights write no call of their own.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.conversation.chat import Message
from app.core.conversation.chat_settings import ChatSettings
from app.core.decoding.drafters import DrafterKind
from app.core.decoding.events import FinishedEvent, FinishReason, StepEvent
from app.core.decoding.text import IncrementalDetokenizer
from app.core.reply.plan import PromptPolicy
from app.core.reply.token_record import TokenRecord
from app.core.tools.call_stream import CallPiece, StreamPiece, TextPiece
from app.core.tools.reader import CallReader, ShownTokens, read_reply
from app.core.tools.records import ToolSpec
from app.engine.llama.call_markers import call_markers, reply_pieces
from app.engine.llama.session import LoadedPair, PairConfig
from app.engine.llama.tool_grammar import call_mask
from app.engine.reply import ReplyPlan, ReplyRequest, plan_reply, run_reply
from tests.fixtures import tool_templates
from tests.fixtures.control_markers import MARKERS, write_marker_model
from tests.fixtures.synthetic_drafters import SMOLLM2_FILE, Tokenizer

pytestmark = pytest.mark.model

WEATHER = {
    "type": "object",
    "properties": {"city": {"enum": ["Oslo"]}},
    "required": ["city"],
    "additionalProperties": False,
}
TOOLS = (ToolSpec(name="get_weather", description="The weather in a city", parameters=WEATHER),)
NAMES = frozenset(t.name for t in TOOLS)
MESSAGES = (Message("user", "What is the weather in Oslo?"),)

# A reply per family as the model writes it, control tokens spelt out (the end-of-generation token left out).
REPLIES = {
    "llama3": '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Oslo"}}; '
    '{"name": "get_weather", "parameters": {"city": "Oslo"}}',
    "mistral": '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Oslo"}}]',
    "mistral-named": '[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}',
    "xml": "<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>",
    "harmony": "<|channel|>analysis<|message|>Oslo, then.<|end|><|start|>assistant<|channel|>commentary "
    'to=functions.get_weather <|constrain|>json<|message|>{"city": "Oslo"}',
}
CALLS = {"llama3": 2, "mistral": 1, "mistral-named": 2, "xml": 1, "harmony": 1}
FAMILIES = {f.name: f for f in tool_templates.FAMILIES if f.name in REPLIES}


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory, models_folder: Path) -> Iterator[dict[str, LoadedPair]]:
    folder = tmp_path_factory.mktemp("control-markers")
    tokenizer = Tokenizer.from_file(models_folder / SMOLLM2_FILE)
    loaded: dict[str, LoadedPair] = {}
    try:
        for name, family in FAMILIES.items():
            path = write_marker_model(folder, tokenizer, family)
            loaded[name] = LoadedPair(PairConfig(path, None, drafter=DrafterKind.NGRAM, n_ctx=1024, n_threads=1))
        yield loaded
    finally:
        for pair in loaded.values():
            pair.close()


def _plan(pair: LoadedPair, logit_bias: tuple[tuple[int, float], ...] = ()) -> ReplyPlan:
    settings = ChatSettings(temperature=0.0, max_tokens=160, drafter=DrafterKind.NGRAM)
    return plan_reply(pair, ReplyRequest(settings, MESSAGES, tools=TOOLS, logit_bias=logit_bias))


def _id(pair: LoadedPair, text: str) -> int:
    (token,) = pair.target.tokenize(text, parse_special=True)
    return token


OPENERS = {"llama3": "<|python_tag|>", "mistral": "[TOOL_CALLS]", "mistral-named": "[TOOL_CALLS]"}


@pytest.mark.parametrize("family", list(OPENERS))
def test_the_openers_are_control_tokens_that_plain_detokenising_leaves_empty(
    pairs: dict[str, LoadedPair], family: str
) -> None:
    pair = pairs[family]
    assert pair.template.tool_format is FAMILIES[family].format
    token = _id(pair, OPENERS[family])
    assert pair.target.is_control(token) and pair.target.token_bytes(token) == b""


def test_llama_cpp_shows_the_harmony_markers_itself_but_the_call_token_ends_generation(
    pairs: dict[str, LoadedPair],
) -> None:
    # llama.cpp makes gpt-oss's header markers and <|end|> user-defined when it loads the vocabulary.
    pair = pairs["harmony"]
    for text in ("<|start|>", "<|channel|>", "<|message|>", "<|constrain|>", "<|end|>"):
        assert pair.target.token_bytes(_id(pair, text)) == text.encode()
    assert pair.target.is_eog(_id(pair, "<|call|>"))


@pytest.mark.parametrize("family", list(REPLIES))
def test_a_reply_of_marker_tokens_is_read_as_its_calls(pairs: dict[str, LoadedPair], family: str) -> None:
    # The reply's token ids spelt as the decoder spells them under the reply's plan, read as the window,
    # `chat --mcp` and serve read a streamed reply.
    pair = pairs[family]
    plan = _plan(pair)
    detokenizer = IncrementalDetokenizer(reply_pieces(pair.target, plan.constraints.call_markers))
    reader = CallReader(NAMES, dialect=pair.template.tool_dialect(TOOLS))
    pieces: list[StreamPiece] = []
    for token in pair.target.tokenize(REPLIES[family], parse_special=True):
        pieces += reader.feed(detokenizer.piece(token))
    pieces += reader.finish()
    calls = [p.call for p in pieces if isinstance(p, CallPiece)]
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", '{"city": "Oslo"}')] * CALLS[family]
    if family != "harmony":  # harmony's analysis message stays text (the reader keeps its markup)
        assert not [p for p in pieces if isinstance(p, TextPiece)]


@pytest.mark.parametrize("family", ["llama3", "mistral"])
def test_a_reply_forced_into_a_call_runs_and_reads_as_its_calls_with_nothing_shown(
    pairs: dict[str, LoadedPair], family: str
) -> None:
    pair = pairs[family]
    opener = _id(pair, "<|python_tag|>" if family == "llama3" else "[TOOL_CALLS]")
    # The opener first, then the call's grammar holds the rest; "]" closes Mistral's list, and the turn then ends.
    ends = [t for t in range(pair.target.n_vocab) if pair.target.is_eog(t)]
    (close,) = pair.target.tokenize("]", parse_special=False)
    bias = sorted([(opener, 100.0), (close, 60.0), *[(t, 50.0) for t in ends]])
    plan = _plan(pair, logit_bias=tuple(bias))
    assert plan.constraints.tool_calls is not None and opener in plan.constraints.call_markers
    events = list(run_reply(pair, plan))
    finished = events[-1]
    assert isinstance(finished, FinishedEvent) and finished.reason is FinishReason.EOG, finished.text
    dialect = pair.template.tool_dialect(TOOLS)
    reply = read_reply(finished.text, NAMES, dialect=dialect)
    assert reply.content == "" and reply.calls, finished.text
    assert {(c.name, c.arguments) for c in reply.calls} == {("get_weather", '{"city": "Oslo"}')}
    shown = ShownTokens(CallReader(NAMES, dialect=dialect))
    tokens: list[TokenRecord] = [t for e in events if isinstance(e, StepEvent) for t in e.tokens]
    assert shown.add(tokens) + shown.finish() == []  # the window shows none of a call's tokens


@pytest.mark.parametrize("family", list(REPLIES))
def test_only_the_dialects_markers_are_spelt_and_no_other_control_token(
    pairs: dict[str, LoadedPair], family: str
) -> None:
    pair = pairs[family]
    dialect = pair.template.tool_dialect(TOOLS)
    assert dialect is not None
    markers = call_markers(pair.target, dialect)
    pieces = reply_pieces(pair.target, markers)
    for text in MARKERS:
        token = _id(pair, text)
        shown = pieces(token)
        if token in markers:
            assert shown == text.encode() and text in dialect.markers
        elif pair.target.is_control(token):
            assert shown == b"", text  # a turn's end, a header, another family's marker: nothing
    assert not any(pair.target.is_eog(t) for t in markers)
    if family in OPENERS:
        assert _id(pair, OPENERS[family]) in markers
    else:  # Qwen's tags are user-defined; no harmony marker stays control but <|call|>, which ends generation
        assert markers == ()


def test_a_reply_without_tools_spells_no_marker(pairs: dict[str, LoadedPair]) -> None:
    pair = pairs["mistral"]
    settings = ChatSettings(temperature=0.0, max_tokens=8, drafter=DrafterKind.NGRAM)
    plan = plan_reply(pair, ReplyRequest(settings, MESSAGES))
    assert plan.constraints.call_markers == ()
    assert reply_pieces(pair.target, ())(_id(pair, "[TOOL_CALLS]")) == b""


@pytest.mark.parametrize("family", list(REPLIES))
def test_every_dialects_call_grammar_holds_the_reply_from_its_one_token_opener(
    pairs: dict[str, LoadedPair], family: str
) -> None:
    pair = pairs[family]
    plan = _plan(pair).constraints.tool_calls
    assert plan is not None
    mask = call_mask(pair.target, plan)
    assert mask is not None
    tokens = pair.target.tokenize(REPLIES[family], parse_special=True)
    for n, token in enumerate(tokens):
        assert mask.allowed()[token], (family, n)
        mask.consume(token)
    # A dialect whose calls run to the reply's end holds them all in one grammar (Mistral's second [TOOL_CALLS]).
    if family == "harmony":  # the reply started inside its first header; <|start|> opened the call's
        assert mask.calls_opened == 1 and not mask.inside
    else:
        assert mask.calls_opened == (sum(t in plan.openers for t in tokens) if plan.closes else 1)


@pytest.mark.parametrize(
    "before",
    ["<|channel|>analysis<|message|>Oslo, then.<|end|><|start|>assistant", ""],
    ids=["after-analysis", "first-message"],
)
def test_a_harmony_call_naming_its_recipient_before_the_channel_is_held(
    pairs: dict[str, LoadedPair], before: str
) -> None:
    # The form gpt-oss's template writes for earlier calls: the recipient right after the role.
    pair = pairs["harmony"]
    plan = _plan(pair).constraints.tool_calls
    assert plan is not None
    call = " to=functions.get_weather<|channel|>commentary json<|message|>"

    def refused(text: str) -> int | None:
        """The index of the first token of ``text`` the mask refuses (None: it allows them all)."""
        mask = call_mask(pair.target, plan)
        assert mask is not None
        for n, token in enumerate(pair.target.tokenize(text, parse_special=True)):
            if not mask.allowed()[token]:
                return n
            mask.consume(token)
        assert not mask.inside  # the call's arguments are complete
        return None

    assert refused(before + call + '{"city": "Oslo"}') is None
    assert refused(before + call + '{"city": "Rome"}') is not None  # the schema allows only Oslo


@pytest.mark.parametrize("family", ["xml", "harmony"])
def test_a_steered_call_starts_inside_its_grammar(pairs: dict[str, LoadedPair], family: str) -> None:
    # serve's named call: the reply starts after the dialect's steering text, markers as the prompt holds them.
    pair = pairs[family]
    dialect = pair.template.tool_dialect(TOOLS)
    assert dialect is not None
    settings = ChatSettings(temperature=0.0, max_tokens=160, drafter=DrafterKind.NGRAM)
    prefix = dialect.steer("get_weather")
    request = ReplyRequest(settings, MESSAGES, PromptPolicy.REFUSE, tools=TOOLS, reply_prefix=prefix)
    plan = plan_reply(pair, request).constraints.tool_calls
    assert plan is not None and plan.inside
    mask = call_mask(pair.target, plan)
    assert mask is not None and mask.inside
    rest = '{"city": "Oslo"}' if family == "harmony" else "<parameter=city>\nOslo\n</parameter>\n</function>"
    for token in pair.target.tokenize(rest, parse_special=True):
        assert mask.allowed()[token]
        mask.consume(token)
    assert not mask.inside or family == "xml"  # harmony's call is whole; Qwen's waits for </tool_call>
