"""The sampling transform shared by p_target and q_draft."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.decoding.sampling import (
    MAX_TOKENS,
    MIN_P,
    REPEAT_PENALTY,
    SEED,
    TEMPERATURE,
    TOP_K,
    TOP_P,
    LogitsWarper,
    SamplingParams,
    seed_from_setting,
)


def warp(logits: list[float] | np.ndarray, history: list[int] | tuple[int, ...] = (), **params: float) -> np.ndarray:
    row = np.asarray(logits, dtype=np.float32)
    return LogitsWarper(SamplingParams(**params), row.size).warp(row, history).to_dense(row.size)


def test_temperature_zero_is_one_hot_on_the_argmax() -> None:
    np.testing.assert_array_equal(warp([0.1, 2.0, 1.9], temperature=0), [0, 1, 0])


def test_plain_softmax_without_truncation() -> None:
    logits = np.array([1.0, 2.0, 3.0])
    expected = np.exp(logits) / np.exp(logits).sum()
    np.testing.assert_allclose(warp(logits, temperature=1, top_k=0, top_p=1, min_p=0), expected, rtol=1e-6)


def test_temperature_sharpens() -> None:
    logits = np.array([1.0, 2.0, 3.0])
    expected = np.exp(logits / 0.5) / np.exp(logits / 0.5).sum()
    np.testing.assert_allclose(warp(logits, temperature=0.5, top_k=0, top_p=1, min_p=0), expected, rtol=1e-6)


def test_top_k_keeps_the_k_best() -> None:
    probs = warp([0.0, 5.0, 1.0, 4.0, 3.0], temperature=1, top_k=2, top_p=1, min_p=0)
    assert set(np.flatnonzero(probs)) == {1, 3}


def test_top_p_keeps_the_token_that_crosses_the_threshold() -> None:
    logits = np.log([0.5, 0.3, 0.15, 0.05])
    probs = warp(logits, temperature=1, top_k=0, top_p=0.7, min_p=0)
    np.testing.assert_allclose(probs, [0.5 / 0.8, 0.3 / 0.8, 0, 0], rtol=1e-6)


def test_min_p_is_relative_to_the_top_token() -> None:
    logits = np.log([0.5, 0.3, 0.15, 0.05])
    probs = warp(logits, temperature=1, top_k=0, top_p=1, min_p=0.2)
    assert set(np.flatnonzero(probs)) == {0, 1, 2}


def test_repetition_penalty_lowers_seen_tokens() -> None:
    logits = [2.0, 2.0, -1.0]
    probs = warp(logits, history=[0, 2], temperature=1, top_k=0, top_p=1, min_p=0, repeat_penalty=2.0)
    assert probs[1] > probs[0]
    expected = np.exp([1.0, 2.0, -2.0])
    np.testing.assert_allclose(probs, expected / expected.sum(), rtol=1e-6)


def test_penalty_does_not_modify_the_callers_logits() -> None:
    row = np.array([2.0, 1.0], dtype=np.float32)
    LogitsWarper(SamplingParams(temperature=1, repeat_penalty=3.0), 2).warp(row, [0])
    np.testing.assert_array_equal(row, [2.0, 1.0])


def test_nucleus_probe_matches_a_full_sort_on_a_large_vocabulary() -> None:
    rng = np.random.default_rng(5)
    logits = (rng.normal(size=50_000) * 4).astype(np.float32)
    fast = warp(logits, temperature=0.8, top_k=0, top_p=0.9, min_p=0)
    # Reference: the nucleus computed by hand with a full sort.
    order = np.argsort(-logits.astype(np.float64))
    p1 = np.exp(logits[order] - logits[order][0]).astype(np.float64)
    p1 /= p1.sum()
    n_keep = int(np.searchsorted(np.cumsum(p1), 0.9)) + 1
    kept = order[:n_keep]
    expected = np.zeros_like(fast)
    weights = np.exp((logits[kept].astype(np.float64) - logits[kept].max()) / 0.8)
    expected[kept] = weights / weights.sum()
    np.testing.assert_allclose(fast, expected, rtol=1e-6, atol=1e-12)


def test_top_probability_is_the_temperature_one_maximum() -> None:
    warper = LogitsWarper(SamplingParams(), 3)
    row = np.log(np.array([0.2, 0.7, 0.1], dtype=np.float32))
    assert warper.top_probability(row) == pytest.approx(0.7, rel=1e-5)


@pytest.mark.parametrize(
    "bad",
    [
        {"top_p": -0.01},
        {"top_p": 1.01},
        {"min_p": 1.5},
        {"top_k": -1},
        {"top_k": 2.0},
        {"repeat_penalty": 0.0},
        {"repeat_penalty": 10.5},
        {"temperature": -0.1},
        {"temperature": 2.01},
        {"temperature": float("nan")},
        {"temperature": float("inf")},
        {"repeat_last_n": -1},
        {"seed": -1},  # a setting's "random" must arrive as None
        {"seed": 2**63},
    ],
)
def test_invalid_parameters_are_refused_naming_the_field(bad: dict[str, float]) -> None:
    (name,) = bad
    with pytest.raises(ValueError, match=f"^{name} must be"):
        SamplingParams(**bad)


def test_defaults_are_the_fields_defaults() -> None:
    params = SamplingParams()
    assert (params.temperature, params.top_k, params.top_p, params.min_p, params.repeat_penalty) == (
        TEMPERATURE.default,
        TOP_K.default,
        TOP_P.default,
        MIN_P.default,
        REPEAT_PENALTY.default,
    )
    assert params.seed is None and MAX_TOKENS.default == 512


def test_the_defaults_sample_as_llama_servers_do() -> None:
    # Chat apps and llama-server sample by default; greedy (temperature 0) is a setting away.
    params = SamplingParams()
    assert (params.temperature, params.top_k, params.top_p, params.min_p) == (0.8, 40, 0.95, 0.05)
    assert not params.greedy and SamplingParams(temperature=0.0).greedy
    row = np.log(np.array([0.5, 0.3, 0.2], dtype=np.float32))
    assert LogitsWarper(params, 3).warp(row).probs.size == 3  # a distribution, not one token


@pytest.mark.parametrize("spec", [TEMPERATURE, TOP_K, TOP_P, MIN_P, REPEAT_PENALTY])
def test_both_ends_of_every_range_are_accepted_and_just_past_them_refused(spec) -> None:
    for edge in (spec.minimum, spec.maximum):
        SamplingParams(**{spec.name: edge})
    past = 1 if spec.kind == "int" else 1e-6
    for outside in (spec.minimum - past, spec.maximum + past):
        with pytest.raises(ValueError, match=spec.name):
            SamplingParams(**{spec.name: outside})


def test_top_p_zero_and_min_p_one_keep_only_the_best_token() -> None:
    # The closed ends of both ranges are what OpenAI and llama-server accept: one token survives.
    np.testing.assert_array_equal(warp([0.5, 2.0, 1.9], temperature=1, top_k=0, top_p=0.0, min_p=0), [0, 1, 0])
    np.testing.assert_array_equal(warp([0.5, 2.0, 1.9], temperature=1, top_k=0, top_p=1, min_p=1.0), [0, 1, 0])


def test_a_field_accepts_its_kind_only() -> None:
    assert TEMPERATURE.accepts(1) and TEMPERATURE.accepts(np.float32(0.5)) and TOP_K.accepts(np.int64(3))
    assert not TEMPERATURE.accepts(True) and not TOP_K.accepts(True)  # a bool is neither a number nor a count
    assert not TOP_K.accepts(2.0) and not TEMPERATURE.accepts("1") and not TEMPERATURE.accepts(None)
    assert SEED.accepts(2**63 - 1) and not SEED.accepts(2**63) and SEED.accepts(-1) and not SEED.accepts(-2)


def test_coerce_gives_the_fields_type_or_none_and_never_raises() -> None:
    assert TEMPERATURE.coerce(1) == 1.0 and isinstance(TEMPERATURE.coerce(1), float)
    assert TOP_K.coerce(np.int64(7)) == 7 and type(TOP_K.coerce(np.int64(7))) is int
    for bad in (None, "x", [], {}, object(), float("nan"), 3.0, 10**30):
        assert TOP_K.coerce(bad) is None


def test_parse_reads_text_and_refuses_in_the_fields_words() -> None:
    assert TEMPERATURE.parse("0.7") == 0.7 and TOP_K.parse("12") == 12 and SEED.parse("-1") == -1
    with pytest.raises(ValueError, match=r"^temperature must be a number from 0 to 2 \(0 is greedy.*not 3.0$"):
        TEMPERATURE.parse("3")
    with pytest.raises(ValueError, match=r"^top_k must be a whole number from 0 to 1000000 .*not '1.5'$"):
        TOP_K.parse("1.5")
    with pytest.raises(ValueError, match="not 'hot'"):
        TEMPERATURE.parse("hot")


def test_seed_from_setting() -> None:
    assert seed_from_setting(-1) is None and seed_from_setting(0) == 0 and seed_from_setting(9) == 9
