"""The sampling transform: raw logits to a next-token distribution.

Speculative sampling is exact only if the target's p and the draft's q come
from the *same* transform, so both models go through :class:`LogitsWarper`.
The order follows llama.cpp's default chain: repetition penalty, logit
bias, top-k, top-p, min-p, then temperature. Truncation is decided on the temperature-1
distribution and temperature reshapes what survives.

The module also holds each setting's one specification (:class:`SamplingField`:
name, default, range, kind, help): :class:`SamplingParams` checks against it,
and the chat settings, the command-line options, the server's request parsing
and the settings panel take their defaults and ranges from it, so a value one
front end accepts is accepted by all of them.
"""

from __future__ import annotations

import enum
import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar, cast

import numpy as np
import numpy.typing as npt

from app.core.decoding.distribution import TokenDistribution
from app.core.display.wording import QT_TRANSLATE_NOOP, Phrase

# How many top logits to try before falling back to a full sort for top-p
# without top-k: enough for the nucleus of nearly every real distribution.
_NUCLEUS_PROBE = 2048
# Top-k estimates its threshold from about this many evenly spaced logits, then
# makes one comparison pass over the vocabulary: no argpartition allocating a
# vocabulary's worth of indices for every row.
_TOP_K_SAMPLE = 2048
# The draft's confidence sums exp(logit - top) over logits within this distance
# of the top only. On real Qwen rows a median of ~850 tokens fall inside and
# the result is within 0.2 % of the full softmax (each ignored token weighs
# under exp(-15) = 3e-7).
_CONFIDENCE_WINDOW = 15.0


_N = TypeVar("_N", int, float)


class FieldKind(enum.StrEnum):
    """What a setting's values are: whole numbers or any finite number."""

    INT = "int"
    FLOAT = "float"


@dataclass(frozen=True, slots=True)
class SamplingField(Generic[_N]):
    """One generation setting as every front end shows and checks it: a closed range and a default.

    The range is the one the sampling code handles (and what OpenAI's API and
    llama-server accept where they bound it); front ends derive their checks
    from :meth:`accepts` and their words from :meth:`range_text`, never their
    own numbers.
    """

    name: str
    kind: FieldKind
    default: _N
    minimum: _N
    maximum: _N
    help: Phrase  # what it does, one line: prints as English, the window shows it translated

    def accepts(self, value: object) -> bool:
        """True when ``value`` has this field's kind (an int is a fine float; a bool is neither) and range."""
        if isinstance(value, bool):
            return False
        if self.kind is FieldKind.INT:
            return isinstance(value, numbers.Integral) and self.minimum <= int(value) <= self.maximum
        if not isinstance(value, numbers.Real) or not math.isfinite(float(value)):  # refuses NaN and infinities
            return False
        return self.minimum <= float(value) <= self.maximum

    def coerce(self, value: object) -> _N | None:
        """``value`` as this field's type when acceptable, else None; never raises (for stored data)."""
        try:
            if not self.accepts(value):
                return None
            number = int(cast(Any, value)) if self.kind is FieldKind.INT else float(cast(Any, value))
        except (TypeError, ValueError, OverflowError):
            return None
        return cast(_N, number)

    def range_text(self) -> str:
        """The range in words: "a number from 0 to 2", "a whole number from 1 to 1000000"."""
        if self.kind is FieldKind.INT:
            return f"a whole number from {self.minimum} to {self.maximum}"
        return f"a number from {self.minimum:g} to {self.maximum:g}"

    def problem(self, value: object) -> str:
        """The sentence that refuses ``value``, naming the field."""
        return f"{self.name} must be {self.range_text()} ({self.help}), not {value!r}"

    def check(self, value: object) -> None:
        """Raise :class:`ValueError` naming the field unless :meth:`accepts` ``value``."""
        if not self.accepts(value):
            raise ValueError(self.problem(value))

    def parse(self, text: str) -> _N:
        """A value from text (a command-line option); :class:`ValueError` with :meth:`problem` otherwise."""
        try:
            value: object = int(text) if self.kind is FieldKind.INT else float(text)
        except ValueError:
            value = text
        self.check(value)
        return cast(_N, value)


# Sampled by default, at llama.cpp server's temperature (with the top-k, top-p and min-p defaults below):
# what chat apps and servers default to; 0 (greedy) is one setting away in every front end.
TEMPERATURE: Final[SamplingField[float]] = SamplingField(
    "temperature",
    FieldKind.FLOAT,
    0.8,
    0.0,
    2.0,
    QT_TRANSLATE_NOOP("SamplingField", "0 is greedy: exactly the target's own greedy reply"),
)
TOP_K: Final[SamplingField[int]] = SamplingField(
    "top_k",
    FieldKind.INT,
    40,
    0,
    1_000_000,
    QT_TRANSLATE_NOOP("SamplingField", "keep the k most likely tokens; 0 = off"),
)
TOP_P: Final[SamplingField[float]] = SamplingField(
    "top_p",
    FieldKind.FLOAT,
    0.95,
    0.0,
    1.0,
    QT_TRANSLATE_NOOP("SamplingField", "keep the most likely tokens that hold this much probability; 1 = off"),
)
MIN_P: Final[SamplingField[float]] = SamplingField(
    "min_p",
    FieldKind.FLOAT,
    0.05,
    0.0,
    1.0,
    QT_TRANSLATE_NOOP("SamplingField", "drop tokens less likely than this share of the most likely; 0 = off"),
)
REPEAT_PENALTY: Final[SamplingField[float]] = SamplingField(
    "repeat_penalty",
    FieldKind.FLOAT,
    1.0,
    0.01,
    10.0,
    QT_TRANSLATE_NOOP("SamplingField", "above 1 makes recent tokens less likely; 1 = off"),
)
REPEAT_LAST_N: Final[SamplingField[int]] = SamplingField(
    "repeat_last_n",
    FieldKind.INT,
    64,
    0,
    1_000_000,
    QT_TRANSLATE_NOOP("SamplingField", "how many recent tokens the repeat penalty looks at"),
)
# -1 is how a setting says "a fresh random seed"; SamplingParams says it with None.
SEED: Final[SamplingField[int]] = SamplingField(
    "seed",
    FieldKind.INT,
    -1,
    -1,
    2**63 - 1,
    QT_TRANSLATE_NOOP("SamplingField", "-1 = a fresh random seed for every reply"),
)
MAX_TOKENS: Final[SamplingField[int]] = SamplingField(
    "max_tokens",
    FieldKind.INT,
    512,
    1,
    1_000_000,
    QT_TRANSLATE_NOOP("SamplingField", "the most tokens a reply may have"),
)

# OpenAI's bound on each logit_bias value: -100 all but bans a token, +100 all but forces it.
LOGIT_BIAS_LIMIT: Final = 100.0

# The fields SamplingParams holds with the same meaning (seed differs: None there, -1 in a setting).
_PARAM_FIELDS: Final = (TEMPERATURE, TOP_K, TOP_P, MIN_P, REPEAT_PENALTY, REPEAT_LAST_N)


def seed_from_setting(seed: int) -> int | None:
    """A setting's seed as :class:`SamplingParams` takes it: -1 (random) becomes None."""
    return None if seed == -1 else seed


@dataclass(frozen=True, slots=True)
class SamplingParams:
    """User-facing sampling settings; ``temperature == 0`` means greedy, ``seed=None`` a fresh random seed.

    Every value is checked against its :class:`SamplingField`; a value out of
    range raises :class:`ValueError` naming the field.
    """

    temperature: float = TEMPERATURE.default
    top_k: int = TOP_K.default
    top_p: float = TOP_P.default
    min_p: float = MIN_P.default
    repeat_penalty: float = REPEAT_PENALTY.default
    repeat_last_n: int = REPEAT_LAST_N.default
    seed: int | None = None
    # (token id, value) pairs added to the logits of the target and the draft alike, so speculation stays
    # exact; sorted by id, each id once (OpenAI's logit_bias).
    logit_bias: tuple[tuple[int, float], ...] = ()

    def __post_init__(self) -> None:
        for spec in _PARAM_FIELDS:
            spec.check(getattr(self, spec.name))
        ids = [token for token, _ in self.logit_bias]
        if ids != sorted(set(ids)) or any(
            token < 0 or not (math.isfinite(value) and abs(value) <= LOGIT_BIAS_LIMIT)
            for token, value in self.logit_bias
        ):
            raise ValueError(
                f"logit_bias must be distinct token ids in order, each with a value from {-LOGIT_BIAS_LIMIT:g} "
                f"to {LOGIT_BIAS_LIMIT:g}"
            )
        # numpy's generators take any non-negative seed; -1 (a setting's "random") must become None first.
        if self.seed is not None and not (SEED.accepts(self.seed) and self.seed >= 0):
            raise ValueError(
                f"seed must be None (random) or a whole number from 0 to {SEED.maximum}, not {self.seed!r}"
            )

    @property
    def greedy(self) -> bool:
        """True when every distribution collapses to its argmax."""
        return self.temperature <= 0


class LogitsWarper:
    """Turns one model's logits rows into :class:`TokenDistribution` objects.

    One warper per model: it owns scratch rows of that model's vocabulary
    size, so no per-token step allocates a vocabulary-sized array: the
    repetition penalty writes into one, top-k and the confidence test into a
    boolean mask, the nucleus probe's exponentials into the other.
    """

    def __init__(self, params: SamplingParams, n_vocab: int) -> None:
        self.params = params
        self.n_vocab = n_vocab
        self._scratch = np.empty(n_vocab, dtype=np.float32)
        self._work = np.empty(n_vocab, dtype=np.float32)
        self._mask = np.empty(n_vocab, dtype=np.bool_)
        # The bias's ids inside this model's vocabulary (a draft's may be a little shorter than the target's).
        inside = [(token, value) for token, value in params.logit_bias if token < n_vocab]
        self._bias_ids = np.array([token for token, _ in inside], dtype=np.int64)
        self._bias_values = np.array([value for _, value in inside], dtype=np.float32)

    def warp(self, logits: npt.NDArray[np.float32], history: Sequence[int] = ()) -> TokenDistribution:
        """Distribution for the row ``logits`` given the tokens before it."""
        params = self.params
        row = self._biased(self._penalised(logits, history))
        if params.greedy:
            return TokenDistribution.one_hot(int(np.argmax(row)))
        ids = self._top_k_ids(row)
        ids, kept_logits = self._top_p(row, ids)
        if params.min_p > 0.0:
            keep = kept_logits >= kept_logits[0] + np.log(params.min_p)
            ids, kept_logits = ids[keep], kept_logits[keep]
        scaled = (kept_logits - kept_logits[0]) / params.temperature
        probs = np.exp(scaled)
        probs /= probs.sum()
        return TokenDistribution(ids.astype(np.int64, copy=False), probs)

    def top_probability(self, logits: npt.NDArray[np.float32]) -> float:
        """The temperature-1 probability of the most likely token: the draft's confidence."""
        top = float(logits.max())
        mask = self._buffer_for(self._mask, logits.size)
        np.greater(logits, top - _CONFIDENCE_WINDOW, out=mask)
        near = logits[mask]  # the tokens that matter; float32 is ample for a stop decision
        np.subtract(near, top, out=near)
        np.exp(near, out=near)
        return float(1.0 / near.sum(dtype=np.float64))

    def log_probabilities(self, logits: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
        """The model's own log-probabilities at temperature 1, after the logit bias and before any truncation.

        What OpenAI's ``logprobs`` report: neither the repetition penalty, the
        sampling temperature nor top-k/top-p/min-p shape them.
        """
        row = self._biased(logits).astype(np.float64)
        top = float(row.max())
        return row - (top + math.log(float(np.exp(row - top).sum())))

    def _biased(self, row: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """``row`` with the logit bias added (written into the scratch row; the model's own row is never written)."""
        if not self._bias_ids.size:
            return row
        if row is not self._scratch:
            scratch = self._buffer_for(self._scratch, row.size)
            np.copyto(scratch, row)
            row = scratch
        inside = self._bias_ids < row.size
        row[self._bias_ids[inside]] += self._bias_values[inside]
        return row

    def _penalised(self, logits: npt.NDArray[np.float32], history: Sequence[int]) -> npt.NDArray[np.float32]:
        params = self.params
        if params.repeat_penalty == 1.0 or not history or params.repeat_last_n == 0:
            return logits
        recent = np.unique(np.asarray(history[-params.repeat_last_n :], dtype=np.int64))
        recent = recent[(recent >= 0) & (recent < self.n_vocab)]
        row = self._scratch
        np.copyto(row, logits)
        values = row[recent]
        row[recent] = np.where(values > 0, values / params.repeat_penalty, values * params.repeat_penalty)
        return row

    def _top_k_ids(self, row: npt.NDArray[np.float32]) -> npt.NDArray[np.int64] | None:
        k = self.params.top_k
        if k <= 0 or k >= row.size:
            return None
        size = row.size
        mask = self._buffer_for(self._mask, size)
        # Estimate the k-th largest logit from an evenly strided sample (a view, no copy):
        # sample rank m stands for about m * stride in the whole row, so taking m a little
        # above k / stride gives a threshold just under the k-th value. One comparison pass
        # then keeps a few hundred candidates, ranked exactly below.
        stride = max(1, size // _TOP_K_SAMPLE)
        sample = row[::stride]
        m = min(sample.size, -(-k // stride) + 2)
        threshold = np.partition(sample, sample.size - m)[sample.size - m]
        np.greater_equal(row, threshold, out=mask)
        count = int(np.count_nonzero(mask))
        if count < k:  # an unlucky sample: find the exact k-th value in place
            work = self._buffer_for(self._work, size)
            np.copyto(work, row)
            work.partition(size - k)
            np.greater_equal(row, work[size - k], out=mask)
            count = int(np.count_nonzero(mask))
        candidates = np.flatnonzero(mask)
        if count > k:
            candidates = candidates[np.argpartition(row[candidates], count - k)[count - k :]]
        return candidates.astype(np.int64, copy=False)

    def _top_p(
        self, row: npt.NDArray[np.float32], ids: npt.NDArray[np.int64] | None
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """Sorted candidates (best first) cut to the nucleus; returns ids and logits."""
        top_p = self.params.top_p
        if ids is None:
            ids, full_mass = self._nucleus_candidates(row, top_p)
        else:
            full_mass = None
        logits = row[ids].astype(np.float64)
        order = np.argsort(-logits, kind="stable")
        ids, logits = ids[order], logits[order]
        if top_p < 1.0:
            weights = np.exp(logits - logits[0])
            # Normalise over every candidate, including those the probe left out.
            mass = weights.sum() if full_mass is None else full_mass
            cumulative = np.cumsum(weights) / mass
            n_keep = min(int(np.searchsorted(cumulative, top_p, side="left")) + 1, ids.size)
            ids, logits = ids[:n_keep], logits[:n_keep]
        return ids, logits

    @staticmethod
    def _buffer_for(buffer: npt.NDArray[Any], size: int) -> npt.NDArray[Any]:
        """The scratch buffer, or a fresh one for a row of another size (tests with small rows)."""
        return buffer if buffer.size == size else np.empty(size, dtype=buffer.dtype)

    def _nucleus_candidates(
        self, row: npt.NDArray[np.float32], top_p: float
    ) -> tuple[npt.NDArray[np.int64], float | None]:
        """Candidate ids for top-p without top-k, and their total weight relative to the top logit.

        When the highest logits alone already hold ``top_p`` of the mass, the nucleus
        lies inside them and the rest of the vocabulary need not be sorted; the
        returned weight keeps the normalisation over the whole vocabulary.
        """
        size = row.size
        if top_p >= 1.0 or size <= _NUCLEUS_PROBE:
            return np.arange(size, dtype=np.int64), None
        probe = np.argpartition(row, size - _NUCLEUS_PROBE)[size - _NUCLEUS_PROBE :]
        top = float(row[probe].max())
        work = self._buffer_for(self._work, size)
        np.subtract(row, top, out=work)
        np.exp(work, out=work)
        total = float(work.sum(dtype=np.float64))
        probe_mass = float(np.exp(row[probe].astype(np.float64) - top).sum())
        if probe_mass >= top_p * total:
            return probe.astype(np.int64), total
        return np.arange(size, dtype=np.int64), None
