"""The prefix cache on the real SmolLM2 pair and real files: reused by a new pair, damaged entries dropped, LRU.

Each test has its own data folder (the ``data_dir`` fixture), so the cache's
folder starts empty or holds a copy of the one entry pair saved once for the
module. A "new pair" is another :class:`LoadedPair` on the same files, as after
a restart: nothing of the first one's KV cache is in memory.
"""

from __future__ import annotations

import logging
import os
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from app.core.conversation.chat import Message
from app.core.conversation.chat_settings import ChatSettings
from app.core.decoding.events import FinishedEvent, StepEvent
from app.core.prefix_cache.policy import DEFAULT_BUDGET_BYTES, MIN_PREFIX_TOKENS
from app.engine.llama.prefix_cache import SUFFIX, file_identity, open_prefix_cache
from app.engine.llama.session import DrafterKind, LoadedPair, PairConfig
from app.engine.paths import prefix_cache_dir
from app.engine.reply import ReplyRequest, plan_reply, run_reply

N_CTX = 2048
SETTINGS = ChatSettings(temperature=0.0, max_tokens=12, drafter=DrafterKind.MODEL, adaptive=False, draft_length=3)
ANIMALS = ("otter", "heron", "badger", "lynx", "crane", "marten", "ibis", "vole")
CITIES = ("Lyon", "Porto", "Graz", "Turku", "Cork", "Bergen", "Split", "Ghent")
# Only as long as the checks need: with the question, over MIN_PREFIX_TOKENS + 200 tokens (about 800), so that
# a second question about the same records shares a prefix the cache keeps. Both models read every prompt.
DOCUMENT = "\n".join(
    f"Record {i}: the {ANIMALS[i % 8]} seen near {CITIES[(3 * i) % 8]} weighed {7 * i + 3} grams." for i in range(40)
)
FIRST = "How much did record 12 weigh?"
OTHER = "Which animal is in record 30?"


def _messages(question: str, document: str = DOCUMENT) -> tuple[Message, ...]:
    return (Message("system", "Answer from the records."), Message("user", f"{document}\n\nQuestion: {question}"))


def _config(pair: tuple[Path, Path], target: Path | None = None) -> PairConfig:
    return PairConfig(target or pair[0], pair[1], DrafterKind.MODEL, n_ctx=N_CTX, n_threads=1)


def _reply(loaded: LoadedPair, messages: tuple[Message, ...]) -> tuple[list[int], FinishedEvent, int, int | None]:
    plan = plan_reply(loaded, ReplyRequest(SETTINGS, messages))
    events = list(run_reply(loaded, plan))
    finished = events[-1]
    assert isinstance(finished, FinishedEvent)
    ids = [t.id for e in events if isinstance(e, StepEvent) for t in e.tokens]
    return ids, finished, plan.prompt.reused, plan.prompt.draft_reused


def _entries() -> list[Path]:
    return sorted(prefix_cache_dir().glob(f"*{SUFFIX}"))


@contextmanager
def _data_folder(folder: Path) -> Iterator[Path]:
    """``folder`` as Tandem's data folder for a module-scoped fixture (``data_dir`` is the test's own)."""
    folder.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TANDEM_DATA_DIR", str(folder))
        yield folder


@pytest.fixture(scope="module")
def reference(small_pair: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[int]]:
    """Greedy replies without any cache: what every cached run must give."""
    with _data_folder(tmp_path_factory.mktemp("reference") / "data"), LoadedPair(_config(small_pair)) as loaded:
        first, finished, reused, _ = _reply(loaded, _messages(FIRST))
        assert finished.stats.prompt_tokens > MIN_PREFIX_TOKENS + 200 and reused == 0
        loaded.target.truncate(0)
        assert loaded.draft is not None
        loaded.draft.truncate(0)
        other, _, _, _ = _reply(loaded, _messages(OTHER))
        assert not _entries()  # no cache attached: nothing written
    return {"first": first, "other": other}


@dataclass(frozen=True)
class Saved:
    """What a first pair with the cache attached did with the first question: its reply and its saved folder."""

    ids: list[int]
    reused: int
    folder: Path

    def restore(self) -> None:
        """Put a copy of the saved entries into this test's data folder."""
        shutil.copytree(self.folder, prefix_cache_dir())


@pytest.fixture(scope="module")
def saved(small_pair: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Saved:
    """The first question asked once with the cache on; each test that damages an entry damages its own copy."""
    with _data_folder(tmp_path_factory.mktemp("saved") / "data"), LoadedPair(_config(small_pair)) as loaded:
        loaded.prefix_cache = open_prefix_cache()
        ids, _, reused, _ = _reply(loaded, _messages(FIRST))
        return Saved(ids=ids, reused=reused, folder=prefix_cache_dir())


def test_a_new_pair_reuses_the_saved_prefix_for_both_models(
    small_pair: tuple[Path, Path], reference: dict[str, list[int]], saved: Saved, data_dir: Path
) -> None:
    # The first pair with the cache on read nothing from it, replied as without it, and saved both models' states.
    assert saved.reused == 0 and saved.ids == reference["first"]
    saved.restore()
    assert len(_entries()) == 2  # the target's state and the draft's
    with LoadedPair(_config(small_pair)) as second:
        second.prefix_cache = open_prefix_cache()
        # The same question again: all but the prompt's last token from disk, the same reply.
        ids, finished, reused, draft_reused = _reply(second, _messages(FIRST))
        prompt_tokens = finished.stats.prompt_tokens
        assert reused == prompt_tokens - 1 and finished.stats.prompt_reused == reused
        assert draft_reused is not None and draft_reused >= MIN_PREFIX_TOKENS
        assert ids == reference["first"]
    with LoadedPair(_config(small_pair)) as third:
        third.prefix_cache = open_prefix_cache()
        # A new chat about the same records: the shared part (system prompt and the records) from disk.
        ids, finished, reused, _ = _reply(third, _messages(OTHER))
        assert MIN_PREFIX_TOKENS <= reused < finished.stats.prompt_tokens - 1
        assert ids == reference["other"]


def _target_entry(small_pair: tuple[Path, Path]) -> Path:
    """The target's entry (SmolLM2's Q4_1 target and Q4_0 draft have states of one size: told by identity)."""
    mine = file_identity(small_pair[0])
    (entry,) = [e for e in open_prefix_cache().entries if e.model == mine]
    return prefix_cache_dir() / f"{entry.key}{SUFFIX}"


@pytest.mark.parametrize("damage", ["flip", "truncate", "foreign"])
def test_a_damaged_or_foreign_entry_is_dropped_and_the_reply_stays_right(
    small_pair: tuple[Path, Path],
    reference: dict[str, list[int]],
    saved: Saved,
    data_dir: Path,
    damage: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    saved.restore()
    path = _target_entry(small_pair)
    data = bytearray(path.read_bytes())
    if damage == "flip":
        data[len(data) - 1000] ^= 0x40
    elif damage == "truncate":
        del data[len(data) // 2 :]
    path.write_bytes(bytes(data))
    target = small_pair[0]
    if damage == "foreign":
        # The same weights under another name are another model to the cache: its entries are not theirs.
        target = prefix_cache_dir().parent / "copy-of-target.gguf"
        shutil.copyfile(small_pair[0], target)
    with (
        caplog.at_level(logging.WARNING, logger="app.engine.llama.prefix_cache"),
        LoadedPair(_config(small_pair, target)) as loaded,
    ):
        loaded.prefix_cache = open_prefix_cache()
        ids, _, reused, _ = _reply(loaded, _messages(FIRST))
    assert reused == 0 and ids == reference["first"]
    if damage != "foreign":
        dropped = [r for r in caplog.records if "dropped" in r.getMessage()]
        assert len(dropped) == 1, caplog.text
        assert path.read_bytes() != bytes(data)  # removed; the reply's own state took its name again


def test_a_state_llama_cpp_refuses_is_dropped(
    small_pair: tuple[Path, Path],
    reference: dict[str, list[int]],
    saved: Saved,
    data_dir: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An entry with a valid header whose payload is not this model's state: llama.cpp's check stops it."""
    from app.core.prefix_cache.entry import PREAMBLE_SIZE, EntryHeader, build_header, encode_tokens

    saved.restore()
    path = _target_entry(small_pair)
    raw = path.read_bytes()
    length = EntryHeader.header_length(raw[:PREAMBLE_SIZE])
    header = EntryHeader.parse(raw[PREAMBLE_SIZE : PREAMBLE_SIZE + length])
    start = PREAMBLE_SIZE + length
    tokens = [int.from_bytes(raw[i : i + 4], "little") for i in range(start, start + header.tokens_size, 4)]
    payload = b"\x01\x00\x00\x00" + bytes(4096)  # "one cell", then nothing llama.cpp can read
    forged = build_header(header.model, tokens, payload)
    path.write_bytes(forged.to_bytes() + encode_tokens(tokens) + payload)
    with (
        caplog.at_level(logging.WARNING, logger="app.engine.llama.prefix_cache"),
        LoadedPair(_config(small_pair)) as loaded,
    ):
        loaded.prefix_cache = open_prefix_cache()
        ids, _, reused, _ = _reply(loaded, _messages(FIRST))
    assert reused == 0 and ids == reference["first"]
    assert "llama.cpp refused" in caplog.text


@pytest.mark.parametrize("claim", [3 * 1024**3, 1 << 40])
def test_a_header_claiming_a_huge_state_costs_the_entry_not_the_memory(
    small_pair: tuple[Path, Path],
    reference: dict[str, list[int]],
    saved: Saved,
    data_dir: Path,
    caplog: pytest.LogCaptureFixture,
    claim: int,
) -> None:
    """Case 7: a claimed 1 TiB payload was allocated before any check (a MemoryError at every chat), 3 GiB read whole.

    The file is as long as its header says (sparse: it takes no disk), so only
    the claim against the model's own state size can stop it.
    """
    from app.core.prefix_cache.entry import PREAMBLE_SIZE, EntryHeader

    saved.restore()
    path = _target_entry(small_pair)
    raw = path.read_bytes()
    length = EntryHeader.header_length(raw[:PREAMBLE_SIZE])
    header = EntryHeader.parse(raw[PREAMBLE_SIZE : PREAMBLE_SIZE + length])
    tokens = raw[PREAMBLE_SIZE + length : PREAMBLE_SIZE + length + header.tokens_size]
    forged = EntryHeader(header.model, header.n_tokens, header.tokens_sha256, claim, header.payload_sha256)
    with path.open("wb") as out:
        out.write(forged.to_bytes() + tokens)
        out.truncate(forged.file_size())
    with (
        caplog.at_level(logging.WARNING, logger="app.engine.llama.prefix_cache"),
        LoadedPair(_config(small_pair)) as loaded,
    ):
        loaded.prefix_cache = open_prefix_cache()
        ids, _, reused, _ = _reply(loaded, _messages(FIRST))
    assert reused == 0 and ids == reference["first"]
    (line,) = [r.getMessage() for r in caplog.records if "dropped" in r.getMessage()]
    assert f"claims a state of {claim} bytes" in line
    assert path.stat().st_size < 1024**3  # the claim removed; the reply's own state took its name again


def test_the_least_recently_used_entry_goes_over_the_budget(small_pair: tuple[Path, Path], data_dir: Path) -> None:
    os.chmod(data_dir, 0o755)  # a data folder an older Tandem (or the user) made readable by others
    config = PairConfig(small_pair[0], None, DrafterKind.NONE, n_ctx=N_CTX, n_threads=1)
    settings = ChatSettings(temperature=0.0, max_tokens=4, drafter=DrafterKind.NONE)
    with LoadedPair(config) as loaded:
        loaded.prefix_cache = cache = open_prefix_cache()

        def ask(document: str) -> None:
            loaded.target.truncate(0)
            list(run_reply(loaded, plan_reply(loaded, ReplyRequest(settings, _messages("Record 3?", document)))))

        # 30 records (about 600 tokens with the question): each prompt is still long enough to be saved.
        records = "\n".join(DOCUMENT.splitlines()[:30])
        ask(records)
        (first,) = cache.entries
        # The saved state holds the prompt's tokens in the clear: this user's only.
        assert stat.S_IMODE(prefix_cache_dir().stat().st_mode) == 0o700
        assert [stat.S_IMODE(p.stat().st_mode) for p in _entries()] == [0o600]
        cache.set_budget(int(first.size * 2.5))  # room for two entries of about this size
        ask(records.replace("grams", "ounces"))
        ask(records.replace("grams", "pounds"))
        assert len(cache.entries) == 2 and first.key not in {e.key for e in cache.entries}
        assert cache.size_bytes() <= cache.budget_bytes
        assert len(_entries()) == 2
        cache.clear()
        assert cache.size_bytes() == 0 and not _entries()


def test_an_unwritable_folder_is_one_log_line_and_the_reply_goes_on(
    small_pair: tuple[Path, Path], reference: dict[str, list[int]], data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = prefix_cache_dir()
    blocked.write_text("a file where the folder should be")
    with (
        caplog.at_level(logging.WARNING, logger="app.engine.llama.prefix_cache"),
        LoadedPair(_config(small_pair)) as loaded,
    ):
        loaded.prefix_cache = open_prefix_cache()
        ids, finished, _, _ = _reply(loaded, _messages(FIRST))
    assert ids == reference["first"] and finished.text
    lines = [r for r in caplog.records if "could not save" in r.getMessage()]
    assert len(lines) == 2, caplog.text  # one per model, each one line
    assert all("\n" not in r.getMessage() for r in lines)


def test_the_limit_is_the_folders_so_every_front_end_keeps_the_one_set_in_settings(
    small_pair: tuple[Path, Path], reference: dict[str, list[int]], data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The window sets the limit (here: Off); `chat` and `serve` open the folder without one and keep to it."""
    window = open_prefix_cache(0)
    assert open_prefix_cache().budget_bytes == 0
    with LoadedPair(_config(small_pair)) as loaded:
        loaded.prefix_cache = open_prefix_cache()  # as `chat` opens it
        ids, _, _, _ = _reply(loaded, _messages(FIRST))
    assert ids == reference["first"] and not _entries()  # off: nothing saved
    window.set_budget(3 * 1024**3)
    assert open_prefix_cache().budget_bytes == 3 * 1024**3
    # A limit file this code did not write is ignored with one log line: the default, the entries untouched.
    (prefix_cache_dir() / "limit.json").write_text('{"budget_bytes": "lots"}', encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="app.engine.llama.prefix_cache"):
        assert open_prefix_cache().budget_bytes == DEFAULT_BUDGET_BYTES
    assert any("no byte limit" in r.getMessage() for r in caplog.records)
