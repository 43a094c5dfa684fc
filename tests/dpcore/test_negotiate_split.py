"""The budget split of several statistics against closed forms: each statistic's largest noise from scipy's
quantiles, the Laplace total as the plain sum of Δ ln(1/(1 − p))/θ, the Gaussian total as one analytic Gaussian
(Balle & Wang 2018, Thm 8, solved here with brentq) at μ = √(Σ (Δ z/θ)²), zCDP's ρ as Σ Δ²z²/(2θ²)."""

from __future__ import annotations

import itertools
import math

import pytest
from scipy import optimize, stats

from dpcore import negotiate_split as ns

#: the issue's example: counts per county ±50 at 95 % (Δ = 1), mean income ±500 at 90 % with values in
#: [0, 200000] over 10 000 rows (Δ = 20)
EXAMPLE = [ns.statistic("counts per county", 50, 0.95, 1.0), ns.statistic("mean income", 500, 0.90, 20.0)]


def _bw_delta(eps: float, mu: float) -> float:
    """δ(ε) of a Gaussian mechanism with Δ/σ = μ (Balle & Wang 2018, Thm 8)."""
    return stats.norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2)


def _bw_epsilon(delta: float, mu: float) -> float:
    if _bw_delta(0.0, mu) <= delta:
        return 0.0
    return optimize.brentq(lambda e: _bw_delta(e, mu) - delta, 0.0, 500.0, xtol=1e-14, rtol=1e-13)


def _z(p: float) -> float:
    return stats.norm.ppf((1 + p) / 2)


@pytest.mark.parametrize("s", EXAMPLE + [ns.statistic("x", 1.5, 0.99, 2.0)])
def test_each_statistic_gets_the_most_noise_its_accuracy_allows(s):
    b, sigma = ns.laplace_scale(s), ns.gaussian_sigma(s)
    assert stats.laplace.cdf(s.bound, scale=b) - stats.laplace.cdf(-s.bound, scale=b) == pytest.approx(
        s.confidence, rel=1e-12
    )
    assert stats.norm.cdf(s.bound, scale=sigma) - stats.norm.cdf(-s.bound, scale=sigma) == pytest.approx(
        s.confidence, rel=1e-12
    )


def test_laplace_only_is_the_plain_sum_of_each_minimum():
    res = ns.split(EXAMPLE, delta=1e-5, search=False)
    lap = res.options[0]
    assert lap.mechanisms == ("laplace", "laplace")
    closed = sum(s.sensitivity * math.log(1 / (1 - s.confidence)) / s.bound for s in EXAMPLE)
    assert lap.added_up == pytest.approx(closed, rel=1e-12)
    assert lap.epsilon <= closed * (1 + 1e-12)
    # here Laplace noise on both is the cheapest: a pure total of ln 20/50 + 20 ln 10/500
    assert res.best.mechanisms == ("laplace", "laplace")
    assert res.best.epsilon == pytest.approx(math.log(20) / 50 + 20 * math.log(10) / 500, rel=1e-12)
    assert res.best.delta == 0.0


@pytest.mark.parametrize("delta", [1e-5, 1e-8])
def test_gaussian_only_composes_in_rho_as_one_gaussian(delta):
    sts = [ns.statistic(f"s{i}", 50, 0.95, 1.0) for i in range(3)] + [ns.statistic("m", 500, 0.9, 20.0)]
    res = ns.split(sts, delta=delta, search=False)
    gauss = res.options[-1]
    assert gauss.mechanisms == ("gaussian",) * 4
    mu = math.sqrt(sum((s.sensitivity * _z(s.confidence) / s.bound) ** 2 for s in sts))
    assert gauss.epsilon == pytest.approx(_bw_epsilon(delta, mu), rel=1e-6)
    # not additive in ε: the exact total is far below the sum of each one's own ε
    assert gauss.epsilon < 0.7 * gauss.added_up
    rho = sum((s.sensitivity * _z(s.confidence) / s.bound) ** 2 / 2 for s in sts)
    if res.best.mechanisms == gauss.mechanisms:
        assert res.rho == pytest.approx(rho, rel=1e-12)
        assert sum(sh.share for sh in res.shares) == pytest.approx(1.0)
        # the zCDP conversion is a valid but looser bound than the exact total
        assert gauss.epsilon <= rho + 2 * math.sqrt(rho * math.log(1 / delta))


def test_many_equal_statistics_prefer_gaussian_noise():
    """Six counts at ±50/95 %: six Laplace releases add up to 6·ln 20/50 = 0.359; six Gaussians compose to one with
    μ = √6·z/50, whose exact ε at δ = 10⁻⁵ is smaller."""
    sts = [ns.statistic(f"c{i}", 50, 0.95, 1.0) for i in range(6)]
    res = ns.split(sts, delta=1e-5, search=False)
    mu = math.sqrt(6) * _z(0.95) / 50
    assert res.best.mechanisms == ("gaussian",) * 6
    assert res.best.epsilon == pytest.approx(_bw_epsilon(1e-5, mu), rel=1e-6)
    assert res.best.epsilon < 6 * math.log(20) / 50
    assert [sh.share for sh in res.shares] == pytest.approx([1 / 6] * 6)


def test_the_best_option_is_the_smallest_of_every_assignment():
    sts = [ns.statistic("a", 50, 0.95, 1.0), ns.statistic("b", 30, 0.9, 1.0), ns.statistic("c", 500, 0.9, 20.0)]
    res = ns.split(sts, delta=1e-5, search=False)
    assert {o.mechanisms for o in res.options} == set(itertools.product(("laplace", "gaussian"), repeat=3))
    assert res.best.epsilon == min(o.epsilon for o in res.options)
    for o in res.options:  # composing exactly never says more than adding up (each Gaussian at δ/k)
        assert o.epsilon <= o.added_up * (1 + 1e-9)


def test_search_serves_the_other_pure_noises():
    """θ not a whole multiple of Δ: the staircase (Geng & Viswanath 2016) beats Laplace; its ε for ±1.5 at 95 %
    solved here with brentq on its closed-form usefulness, added up over the statistics."""
    from dpcore.r2dp import staircase_usefulness

    sts = [ns.statistic("a", 1.5, 0.95, 1.0), ns.statistic("b", 2.5, 0.9, 1.0)]
    res = ns.split(sts, delta=1e-5)
    own = [
        optimize.brentq(
            lambda e, s=s: float(staircase_usefulness(e, gamma=s.bound)) - s.confidence, 0.01, 20, xtol=1e-12
        )
        for s in sts
    ]
    assert res.best.mechanisms == ("staircase", "staircase")
    assert res.best.delta == 0.0
    assert res.best.epsilon == pytest.approx(sum(own), rel=1e-4)
    assert any("search" in line for line in res.reasoning)


@pytest.mark.parametrize("bad", [[], [ns.statistic("a", 1, 0.9)] * 7, ["counts"]])
def test_bad_lists_are_refused(bad):
    with pytest.raises(ValueError, match="statistics"):
        ns.split(bad)


@pytest.mark.parametrize(
    "kw,name",
    [
        ({"bound": 0}, "bound"),
        ({"confidence": 1.0}, "confidence"),
        ({"sensitivity": -1}, "sensitivity"),
        ({"name": " "}, "name"),
    ],
)
def test_bad_statistics_name_the_parameter(kw, name):
    args = {"name": "a", "bound": 1.0, "confidence": 0.9, "sensitivity": 1.0} | kw
    with pytest.raises(ValueError, match=name):
        ns.statistic(**args)
