"""Grammar engines compared on one model's vocabulary: llguidance, outlines-core and xgrammar side by side.

Each engine's tokenizer is built from the GGUF's vocabulary as
:mod:`app.engine.llama.grammar` builds llguidance's (control tokens are
never text: llguidance reads them behind 0xff, xgrammar as empty pieces, its
"special" tokens, and outlines-core leaves them out of its vocabulary), and
each runs the cases of :mod:`app.core.bench.grammar_engines`: compile the
schema into a ready matcher, then, before every token of the same walk,
compute the next-token mask into the same 32-bit bitmask layout (so the masks
can be compared bit for bit with llguidance's), and every few tokens roll
back and consume again. Only the engine's own calls are timed, after one
untimed compile per engine (its one-off start-up). Compile is the time to a
matcher ready for its first mask: work an engine defers to its first masks
(llguidance builds its lexer lazily) shows in the mask p95 instead.

outlines-core and xgrammar are not dependencies of Tandem: they are imported
here only when asked for, and an engine that is missing or fails says why in
the report instead of stopping the comparison.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import json
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import llguidance
import numpy as np
import numpy.typing as npt

from app.core.bench.grammar_engines import (
    BASELINE_ENGINE,
    CASES,
    ROLLBACK_TOKENS,
    EngineRun,
    GrammarCase,
    ratios,
    rollback_points,
)
from app.core.conversation.output_format import OutputFormat, OutputKind
from app.engine.llama.grammar import compile_grammar, grammar_tokenizer, is_control_token
from app.engine.llama.model import LlamaModel

ENGINES = (BASELINE_ENGINE, "outlines-core", "xgrammar")
OUTLINES_MAX_ROLLBACK = 32  # outlines-core's Guide keeps this many states to roll back to (its default)

Words = npt.NDArray[np.int32]


class EngineError(Exception):
    """An engine refused a token or a call: the run on this schema stops with this line."""


class Matcher(Protocol):
    """One engine's state on one schema."""

    def fill(self, words: Words) -> None:
        """Write the next-token mask into ``words`` (bit t of word t // 32: token t allowed)."""

    def consume(self, token: int) -> None:
        """Advance past ``token``; :class:`EngineError` when the engine refuses it."""

    def rollback(self, n_tokens: int) -> None:
        """Undo the last ``n_tokens``."""


class Engine(Protocol):
    """A grammar engine with its tokenizer built for one vocabulary."""

    name: str
    rollback_limit: int | None  # the most tokens one rollback may undo (None: any number)

    def start(self, schema: dict[str, Any]) -> Matcher:
        """Compile ``schema`` into a matcher ready for its first mask."""


class Vocabulary:
    """A model's vocabulary as the engines need it: each token's bytes, which are control tokens, the ends."""

    def __init__(self, model: LlamaModel) -> None:
        self.model = model
        self.name = model.path.name
        self.n_vocab = model.n_vocab
        self.eog = tuple(t for t in range(model.n_vocab) if model.is_eog(t))
        self.control = frozenset(t for t in range(model.n_vocab) if is_control_token(model, t))
        self.pieces = [b"" if t in self.control else model.token_bytes(t) for t in range(model.n_vocab)]

    def tokens(self, text: str) -> list[int]:
        """The model's tokens of ``text``, special-token markers in it kept as text."""
        return self.model.tokenize(text, add_special=False, parse_special=False)


# -- llguidance ------------------------------------------------------------------------------------


class _LlgMatcher:
    def __init__(self, matcher: llguidance.LLMatcher) -> None:
        self._m = matcher

    def fill(self, words: Words) -> None:
        self._m.unsafe_compute_mask_ptr(words.ctypes.data, words.nbytes)
        self._check()

    def consume(self, token: int) -> None:
        if not self._m.consume_token(token):
            self._check()
            raise EngineError(f"refused token {token}")

    def rollback(self, n_tokens: int) -> None:
        if not self._m.rollback(n_tokens):
            self._check()
            raise EngineError(f"could not roll back {n_tokens}")

    def _check(self) -> None:
        if self._m.is_error():
            raise EngineError(self._m.get_error())


class Llguidance:
    """llguidance as Tandem runs it: :func:`compile_grammar` (strict) and an ``LLMatcher``."""

    name = BASELINE_ENGINE
    rollback_limit: int | None = None

    def __init__(self, vocab: Vocabulary) -> None:
        self._tokenizer = grammar_tokenizer(vocab.model)[0]

    def start(self, schema: dict[str, Any]) -> Matcher:
        grammar = compile_grammar(OutputFormat(OutputKind.JSON_SCHEMA, schema, strict=True), self._tokenizer)
        return _LlgMatcher(llguidance.LLMatcher(self._tokenizer, grammar, log_level=0))


# -- outlines-core ---------------------------------------------------------------------------------


class _OutlinesMatcher:
    def __init__(self, guide: Any) -> None:
        self._g = guide

    def fill(self, words: Words) -> None:
        self._g.write_mask_into(words.ctypes.data, words.size, 4)

    def consume(self, token: int) -> None:
        try:
            self._g.advance(token, return_tokens=False)
        except ValueError as exc:
            raise EngineError(str(exc)) from None

    def rollback(self, n_tokens: int) -> None:
        try:
            self._g.rollback_state(n_tokens)
        except ValueError as exc:
            raise EngineError(str(exc)) from None


class OutlinesCore:
    """outlines-core: the schema as a regex, an ``Index`` over the vocabulary, a ``Guide`` walking it.

    Its vocabulary has one end token (the model's first end-of-generation
    id) and no control tokens; pieces several ids share map to all of them.
    """

    name = "outlines-core"
    rollback_limit: int | None = OUTLINES_MAX_ROLLBACK

    def __init__(self, vocab: Vocabulary) -> None:
        self._oc = importlib.import_module("outlines_core")
        self._json = importlib.import_module("outlines_core.json_schema")
        eos = vocab.eog[0]
        table: dict[bytes, list[int]] = {}
        for token, piece in enumerate(vocab.pieces):
            if piece and token != eos and token not in vocab.control:
                table.setdefault(piece, []).append(token)
        self._vocabulary = self._oc.Vocabulary(eos, table)

    def start(self, schema: dict[str, Any]) -> Matcher:
        regex = self._json.build_regex_from_schema(json.dumps(schema))
        index = self._oc.Index(regex, self._vocabulary)
        return _OutlinesMatcher(self._oc.Guide(index, max_rollback=OUTLINES_MAX_ROLLBACK))


# -- xgrammar --------------------------------------------------------------------------------------


class _XgrMatcher:
    def __init__(self, matcher: Any) -> None:
        self._m = matcher
        self._torch = importlib.import_module("torch")  # xgrammar's own dependency
        self._words: Words | None = None
        self._view: Any = None

    def fill(self, words: Words) -> None:
        if self._words is not words:  # a (batch, words) int32 tensor sharing the buffer's memory, made once
            self._words, self._view = words, self._torch.from_numpy(words).view(1, -1)
        self._m.fill_next_token_bitmask(self._view)

    def consume(self, token: int) -> None:
        if not self._m.accept_token(token):
            raise EngineError(f"refused token {token}")

    def rollback(self, n_tokens: int) -> None:
        self._m.rollback(n_tokens)


class Xgrammar:
    """xgrammar: a raw byte vocabulary (control tokens as its empty "special" pieces), compiled per schema."""

    name = "xgrammar"
    rollback_limit: int | None = None

    def __init__(self, vocab: Vocabulary, threads: int = 1) -> None:
        self._xgr = importlib.import_module("xgrammar")
        info = self._xgr.TokenizerInfo(
            vocab.pieces, self._xgr.VocabType.RAW, vocab_size=vocab.n_vocab, stop_token_ids=list(vocab.eog)
        )
        # No cache: every schema is compiled for real, as each new request's would be.
        self._compiler = self._xgr.GrammarCompiler(info, max_threads=threads, cache_enabled=False)

    def start(self, schema: dict[str, Any]) -> Matcher:
        compiled = self._compiler.compile_json_schema(json.dumps(schema), any_whitespace=True, strict_mode=True)
        return _XgrMatcher(self._xgr.GrammarMatcher(compiled))


_MODULES = {BASELINE_ENGINE: "llguidance", "outlines-core": "outlines_core", "xgrammar": "xgrammar"}


def _version(engine: str) -> str | None:
    try:
        return importlib.metadata.version(_MODULES[engine])
    except importlib.metadata.PackageNotFoundError:
        return None


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:200]


def build_engine(name: str, vocab: Vocabulary, threads: int = 1) -> Engine:
    """The engine called ``name`` with its tokenizer built for ``vocab``."""
    if name == BASELINE_ENGINE:
        return Llguidance(vocab)
    if name == "outlines-core":
        return OutlinesCore(vocab)
    if name == "xgrammar":
        return Xgrammar(vocab, threads)
    raise ValueError(f"unknown engine {name!r}: one of {', '.join(ENGINES)}")


def run_case(engine: Engine, case: GrammarCase, walk: Sequence[int], n_vocab: int) -> tuple[EngineRun, list[bytes]]:
    """One engine on one schema: compile, a mask before each token and after the last, rollbacks; the masks' digests."""
    run = EngineRun()
    digests: list[bytes] = []
    clock = time.perf_counter_ns
    words: Words = np.zeros((n_vocab + 31) // 32, dtype=np.int32)
    points = set(rollback_points(len(walk)))
    try:
        started = clock()
        matcher = engine.start(case.schema)
        run.compile_ns = clock() - started
        for i in range(len(walk) + 1):
            started = clock()
            matcher.fill(words)
            run.mask_ns.append(clock() - started)
            bits = np.unpackbits(words.view(np.uint8), bitorder="little")[:n_vocab]
            run.allowed_counts.append(int(bits.sum()))
            digests.append(hashlib.blake2b(words.tobytes(), digest_size=16).digest())
            if i in points:
                before = words.copy()
                started = clock()
                matcher.rollback(ROLLBACK_TOKENS)
                run.rollback_ns.append(clock() - started)
                for token in walk[i - ROLLBACK_TOKENS : i]:
                    matcher.consume(token)
                matcher.fill(words)
                run.rollback_exact &= bool(np.array_equal(words, before))
            if i < len(walk):
                run.walk_allowed &= bool(bits[walk[i]])
                matcher.consume(walk[i])
    except Exception as exc:  # any engine failure is this run's one line; the others go on
        run.error = _one_line(exc)
    return run, digests


def compare(
    model: LlamaModel,
    engines: Sequence[str] = ENGINES,
    cases: Sequence[GrammarCase] = CASES,
    threads: int = 1,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """The whole comparison as the JSON report (``app.core.bench.grammar_engines.render_markdown`` reads it)."""
    say = progress or (lambda _line: None)
    vocab = Vocabulary(model)
    built: dict[str, Engine] = {}
    report_engines: dict[str, Any] = {}
    for name in engines:
        entry: dict[str, Any] = {"version": _version(name), "error": None, "tokenizer_s": None, "rollback": None}
        say(f"{name}: building its tokenizer")
        started = time.perf_counter()
        try:
            engine = build_engine(name, vocab, threads)
        except ImportError:
            entry["error"] = f"not installed (pip install {name})"
        except Exception as exc:  # an engine that cannot read this vocabulary is reported, not fatal
            entry["error"] = _one_line(exc)
        else:
            entry["tokenizer_s"] = time.perf_counter() - started
            try:  # one untimed compile first, so no engine's first case pays its one-off start-up
                engine.start(cases[0].schema)
            except Exception as exc:  # reported; its runs would fail the same way
                entry["error"] = f"warm-up failed: {_one_line(exc)}"
            else:
                built[name] = engine
            entry["rollback"] = {"supported": True, "limit": engine.rollback_limit}
        report_engines[name] = entry
    schemas = []
    for case in cases:
        walk = vocab.tokens(case.walk_text())
        runs: dict[str, Any] = {}
        baseline: list[bytes] | None = None
        for name, engine in built.items():
            say(f"{case.name}: {name} ({len(walk)} tokens)")
            run, digests = run_case(engine, case, walk, vocab.n_vocab)
            if name == BASELINE_ENGINE and run.error is None:
                baseline = digests  # the engines come in order, llguidance first
            if baseline is not None and run.error is None:
                run.masks_equal = sum(a == b for a, b in zip(digests, baseline, strict=False))
            runs[name] = run.to_dict()
        schemas.append({"name": case.name, "walk_tokens": len(walk), "engines": runs, "ratios": ratios(runs)})
    return {
        "model": vocab.name,
        "n_vocab": vocab.n_vocab,
        "threads": threads,
        "rollback_tokens": ROLLBACK_TOKENS,
        "engines": report_engines,
        "schemas": schemas,
    }
