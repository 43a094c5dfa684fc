"""dpcore.ldp.rr_survey against independent computations: mpmath closed forms, exact sums over the binomial law
(scipy.stats.binom), scipy.stats.binomtest's Wilson interval, and randomized response's likelihood ratio."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from dpcore.ldp import rr_survey as rr

EPSILONS = (1e-3, 0.1, 0.5, 1.0, math.log(3), 2.0, 5.0, 20.0, 50.0)


def _p(eps: float) -> mpmath.mpf:
    """e^ε/(1 + e^ε) in 50 digits."""
    with mpmath.workdps(50):
        return mpmath.e**eps / (1 + mpmath.e**eps)


@pytest.mark.parametrize("eps", EPSILONS + (700.0, 1e4))
def test_truth_probability_is_e_eps_over_one_plus_e_eps(eps):
    assert rr.truth_probability(eps) == pytest.approx(float(_p(eps)), rel=1e-15)


@pytest.mark.parametrize("eps", EPSILONS)
def test_each_answer_reveals_exactly_epsilon(eps):
    """One report's realized loss is ln of the ratio of its probabilities under the two truths: ln(p/(1 − p)) for a
    Yes and ln(p/(1 − p)) for a No, which is ε (mpmath)."""
    p = _p(eps)
    exact = float(mpmath.log(p / (1 - p)))
    yes, no = rr.answer_losses(eps)
    assert yes == pytest.approx(exact, rel=1e-12, abs=1e-15) and no == pytest.approx(exact, rel=1e-12, abs=1e-15)
    assert exact == pytest.approx(eps, rel=1e-12)


def test_warner_estimate_by_hand():
    """ε = ln 3 makes p = 3/4: a 60 % share of Yes reports means (0.6 − 0.25)/(0.75 − 0.25) = 70 % truly Yes."""
    assert rr.truth_probability(math.log(3)) == pytest.approx(0.75, rel=1e-15)
    assert rr.unbiased_share(0.6, math.log(3)) == pytest.approx(0.7, rel=1e-14)
    assert rr.unbiased_share(0.25, math.log(3)) == pytest.approx(0.0, abs=1e-15)
    assert rr.unbiased_share(0.1, math.log(3)) == pytest.approx(-0.3, rel=1e-13)  # not clipped: stays unbiased
    assert rr.expected_share(0.7, math.log(3)) == pytest.approx(0.6, rel=1e-14)


@pytest.mark.parametrize("eps", (0.2, 1.0, 3.0))
@pytest.mark.parametrize("n", (1, 12, 200))
@pytest.mark.parametrize("share", (0.0, 0.3, 0.85, 1.0))
def test_unbiased_with_the_stated_variance_by_exact_sums(eps, n, share):
    """E[π̂] = π and Var(π̂) = λ(1 − λ)/(n(2p − 1)²): sums over every possible count k of Binomial(n, λ)."""
    p = float(_p(eps))
    lam = (1 - p) + (2 * p - 1) * share
    k = np.arange(n + 1)
    pmf = stats.binom.pmf(k, n, lam)
    est = rr.unbiased_share(k / n, eps)
    mean = float(np.sum(pmf * est))
    var = float(np.sum(pmf * (est - mean) ** 2))
    assert mean == pytest.approx(share, abs=1e-12)
    assert rr.share_variance(share, n, eps) == pytest.approx(var, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("eps", (0.3, 1.0, 4.0))
@pytest.mark.parametrize("n,true_yes", [(1, 0), (12, 5), (40, 40), (75, 30)])
def test_a_fixed_class_varies_only_by_its_coins(eps, n, true_yes):
    """One class answering again: Yes reports = Binomial(k, p) + Binomial(n − k, 1 − p). The law of π̂, summed
    exactly over both counts, is unbiased with variance e^ε/(n(e^ε − 1)²), whatever k."""
    p = float(_p(eps))
    a = stats.binom.pmf(np.arange(true_yes + 1), true_yes, p)
    b = stats.binom.pmf(np.arange(n - true_yes + 1), n - true_yes, 1 - p)
    pmf = np.convolve(a, b)  # the law of the Yes reports
    est = rr.unbiased_share(np.arange(n + 1) / n, eps)
    mean = float(np.sum(pmf * est))
    assert mean == pytest.approx(true_yes / n, abs=1e-11)
    var = float(np.sum(pmf * (est - mean) ** 2))
    closed = math.exp(eps) / (n * math.expm1(eps) ** 2)
    assert rr.coin_variance(n, eps) == pytest.approx(var, rel=1e-9) == pytest.approx(closed, rel=1e-12)
    assert rr.coin_variance(n, eps) <= rr.share_variance(true_yes / n, n, eps) * (1 + 1e-12)


@pytest.mark.parametrize("n", (1, 2, 7, 30, 200))
@pytest.mark.parametrize("confidence", (0.8, 0.95, 0.99))
def test_wilson_interval_matches_scipy_binomtest(n, confidence):
    lows, highs = rr.wilson_interval(np.arange(n + 1), n, confidence)
    for k in range(n + 1):
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
        assert lows[k] == pytest.approx(ci.low, abs=1e-12) and highs[k] == pytest.approx(ci.high, abs=1e-12)
    lo, hi = rr.wilson_interval(3, n if n >= 3 else 3, confidence)
    assert isinstance(lo, float) and isinstance(hi, float)


@pytest.mark.parametrize("eps", (0.5, 1.0, 4.0))
@pytest.mark.parametrize("yes,n", [(0, 1), (1, 1), (7, 12), (0, 12), (12, 12), (130, 200)])
def test_estimate_maps_the_wilson_interval_through_the_line_and_clips(eps, yes, n):
    p = _p(eps)
    ci = stats.binomtest(yes, n).proportion_ci(confidence_level=0.95, method="wilson")

    def back(lam: float) -> float:  # the observed share's line, inverted in 50 digits, then clipped
        return min(1.0, max(0.0, float((lam - (1 - p)) / (2 * p - 1))))

    e = rr.estimate(yes, n, eps)
    assert (e.answers, e.yes, e.observed) == (n, yes, yes / n)
    assert e.unbiased == pytest.approx(float((mpmath.mpf(yes) / n - (1 - p)) / (2 * p - 1)), rel=1e-12, abs=1e-14)
    assert e.share == pytest.approx(min(1.0, max(0.0, e.unbiased)), abs=1e-15)
    assert e.low == pytest.approx(back(ci.low), abs=1e-12) and e.high == pytest.approx(back(ci.high), abs=1e-12)
    assert 0.0 <= e.low <= e.share <= e.high <= 1.0
    se = math.sqrt(yes / n * (1 - yes / n) / n) / float(2 * p - 1)
    assert e.std_error == pytest.approx(se, rel=1e-12, abs=1e-15)
    assert e.truth_probability == pytest.approx(float(p), rel=1e-15)


@pytest.mark.parametrize("eps", (0.5, 1.0, 2.0))
@pytest.mark.parametrize("share", (0.1, 0.5, 0.9))
def test_mapped_interval_covers_the_share_exactly_when_wilson_covers_the_observed_one(eps, share):
    """The line is increasing, so the mapped interval's coverage of π equals the Wilson interval's coverage of
    λ(π): both summed exactly over the binomial law of the count."""
    n = 40
    p = float(_p(eps))
    lam = (1 - p) + (2 * p - 1) * share
    pmf = stats.binom.pmf(np.arange(n + 1), n, lam)
    covers_share = [rr.estimate(k, n, eps).low <= share <= rr.estimate(k, n, eps).high for k in range(n + 1)]
    lo, hi = rr.wilson_interval(np.arange(n + 1), n)
    covers_lam = (lo <= lam) & (lam <= hi)
    assert list(covers_lam) == covers_share
    lows, highs = rr.share_interval(np.arange(n + 1), n, eps)  # vectorised: the same as one count at a time
    assert list(lows) == [rr.estimate(k, n, eps).low for k in range(n + 1)]
    assert list(highs) == [rr.estimate(k, n, eps).high for k in range(n + 1)]
    assert 0.85 < float(np.sum(pmf[covers_lam])) <= 1.0  # Wilson's coverage near its 95 % level at n = 40


def test_large_epsilon_is_the_raw_share_and_small_epsilon_a_wide_interval():
    e = rr.estimate(7, 12, 50.0)  # p = 1 − 2·10⁻²²: reports are the truth
    assert e.unbiased == pytest.approx(7 / 12, rel=1e-15)
    tiny = rr.estimate(7, 12, 1e-3)
    assert (tiny.low, tiny.high) == (0.0, 1.0) and tiny.std_error > 100


def test_replays_draw_each_report_afresh():
    """The mean and variance of a replay's Yes count: k p + (n − k)(1 − p) and n p (1 − p) (Monte Carlo, 5 SE)."""
    n, k, eps, runs = 30, 18, 0.7, 40_000
    p = float(_p(eps))
    draws = rr.simulate_reports(k, n, eps, runs, np.random.default_rng(5))
    var = n * p * (1 - p)
    assert abs(draws.mean() - (k * p + (n - k) * (1 - p))) < 5 * math.sqrt(var / runs)
    assert draws.var() == pytest.approx(var, rel=0.05)
    assert draws.min() >= 0 and draws.max() <= n
    same = rr.simulate_reports(k, n, eps, 50, 9)
    assert np.array_equal(same, rr.simulate_reports(k, n, eps, 50, 9))  # seeded


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: rr.truth_probability(0.0), "epsilon"),
        (lambda: rr.truth_probability(-1), "epsilon"),
        (lambda: rr.truth_probability(float("nan")), "epsilon"),
        (lambda: rr.estimate(5, 4, 1.0), "yes"),
        (lambda: rr.estimate(1.5, 4, 1.0), "yes"),
        (lambda: rr.estimate(-1, 4, 1.0), "yes"),
        (lambda: rr.estimate(0, 0, 1.0), "n"),
        (lambda: rr.estimate(1, 4, 1.0, confidence=1.0), "confidence"),
        (lambda: rr.estimate(1, 4, 1.0, confidence=0.0), "confidence"),
        (lambda: rr.estimate([1, 2], 4, 1.0), "yes"),
        (lambda: rr.unbiased_share(1.2, 1.0), "observed"),
        (lambda: rr.expected_share(-0.1, 1.0), "share"),
        (lambda: rr.share_variance(0.5, 0, 1.0), "n"),
        (lambda: rr.coin_variance(0, 1.0), "n"),
        (lambda: rr.coin_variance(3, -1.0), "epsilon"),
        (lambda: rr.randomize(1, 1.0, np.random.default_rng(0)), "truth"),
        (lambda: rr.randomize(True, 1.0, 7), "rng"),
        (lambda: rr.randomize(True, 0.0, np.random.default_rng(0)), "epsilon"),
        (lambda: rr.simulate_reports(31, 30, 1.0, 10, 0), "true_yes"),
        (lambda: rr.simulate_reports(3, 30, 1.0, 0, 0), "runs"),
        (lambda: rr.answer_losses(float("inf")), "epsilon"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()
