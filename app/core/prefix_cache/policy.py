"""Which cached prefix a prompt loads, which state is worth saving, and which entries go over the budget.

* **Load** the entry of this model that shares the longest prefix with the
  prompt, when that prefix is at least :data:`MIN_PREFIX_TOKENS` long and
  beats what the live KV cache already holds by :data:`MIN_GAIN_TOKENS`
  (reading a file to save a few dozen tokens of prefill is not worth it).
  The entry need not be a prefix of the prompt: its state is loaded whole and
  cut back to the shared part, so the state saved after a reply (prompt plus
  reply) serves the follow-up question and a new chat about the same document.
* **Save** the tokens a model holds after a reply when there are at least
  :data:`MIN_PREFIX_TOKENS` and no entry of the model already covers all but
  :data:`MIN_GAIN_TOKENS` of them; entries whose tokens are a prefix of the
  new one are superseded (the new entry serves every prompt they served).
* **Evict** least recently used entries first until the total is within the
  byte budget; an entry larger than the whole budget is never saved.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from app.core.decoding.model_port import common_prefix_length
from app.core.display.units import GIB

# A prefix shorter than this is prefilled in well under a second on a CPU: not worth a file.
MIN_PREFIX_TOKENS = 512
# The least a load or a new entry must add over what is already there.
MIN_GAIN_TOKENS = 128
DEFAULT_BUDGET_BYTES = 4 * GIB


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """One entry as the index knows it: whose, which tokens, how big, when last used."""

    key: str
    model: str
    tokens: tuple[int, ...]
    size: int  # bytes on disk
    last_used: float  # seconds since the epoch (the file's modification time)


@dataclass(frozen=True, slots=True)
class LoadChoice:
    """The entry to load and how many of its tokens the prompt shares."""

    entry: IndexEntry
    n_shared: int


def choose_entry(entries: Iterable[IndexEntry], model: str, prompt: Sequence[int], live: int) -> LoadChoice | None:
    """The entry of ``model`` that shares the longest prefix with ``prompt``, if it beats ``live`` cached tokens."""
    best: LoadChoice | None = None
    for entry in entries:
        if entry.model != model:
            continue
        shared = common_prefix_length(entry.tokens, prompt)
        if best is None or shared > best.n_shared or (shared == best.n_shared and entry.size < best.entry.size):
            best = LoadChoice(entry, shared)
    if best is None or best.n_shared < MIN_PREFIX_TOKENS or best.n_shared - live < MIN_GAIN_TOKENS:
        return None
    return best


def worth_saving(entries: Iterable[IndexEntry], model: str, tokens: Sequence[int]) -> bool:
    """Whether ``tokens`` are long enough and not (nearly) covered by an entry already there."""
    if len(tokens) < MIN_PREFIX_TOKENS:
        return False
    for entry in entries:
        if entry.model == model and common_prefix_length(entry.tokens, tokens) >= len(tokens) - MIN_GAIN_TOKENS:
            return False
    return True


def superseded(entries: Iterable[IndexEntry], model: str, tokens: Sequence[int]) -> list[IndexEntry]:
    """The entries of ``model`` whose tokens all begin ``tokens``: a new entry for ``tokens`` replaces them."""
    n = len(tokens)
    return [
        e
        for e in entries
        if e.model == model and len(e.tokens) <= n and common_prefix_length(e.tokens, tokens) == len(e.tokens)
    ]


def to_evict(entries: Iterable[IndexEntry], budget: int) -> list[IndexEntry]:
    """The least recently used entries to remove so the rest fit in ``budget`` bytes."""
    ordered = sorted(entries, key=lambda e: (e.last_used, e.key))
    total = sum(e.size for e in ordered)
    gone: list[IndexEntry] = []
    for entry in ordered:
        if total <= budget:
            break
        gone.append(entry)
        total -= entry.size
    return gone
