"""Monte Carlo checks of the randomized-response survey (fixed seeds; tolerances in standard errors): the coin keeps
the truth with probability e^ε/(1 + e^ε), Warner's estimate is unbiased with its stated spread, and the mapped Wilson
interval covers the true share as often as its exact coverage says."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpcore.ldp import rr_survey as rr


@pytest.mark.parametrize("eps", (0.3, 1.0, 3.0))
def test_the_coin_keeps_the_truth_with_probability_p(eps):
    rng = np.random.default_rng(41)
    n = 40_000
    p = math.exp(eps) / (1 + math.exp(eps))
    for truth in (True, False):
        kept = sum(rr.randomize(truth, eps, rng) == truth for _ in range(n))
        assert abs(kept / n - p) < 4 * math.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("eps,share", [(0.5, 0.2), (1.0, 0.6), (2.0, 0.95)])
def test_a_class_answering_through_the_coin_is_estimated_without_bias(eps, share):
    """3000 simulated classes of 60, each person drawn Yes with probability π and reporting through the coin: the
    mean of π̂ is within 4 SE of π, its spread matches √Var(π̂), and the mapped 95 % Wilson interval covers π as
    often as its exact coverage (summed over the binomial law of the count) says, within 4 SE."""
    rng = np.random.default_rng(42)
    n, classes = 60, 3000
    truths = rng.random((classes, n)) < share
    keep = rng.random((classes, n)) < rr.truth_probability(eps)
    reports = np.where(keep, truths, ~truths)  # the coin, applied independently of the code under test
    yes = reports.sum(axis=1)
    est = rr.unbiased_share(yes / n, eps)
    sd = math.sqrt(rr.share_variance(share, n, eps))
    assert abs(est.mean() - share) < 4 * sd / math.sqrt(classes)
    assert est.std() == pytest.approx(sd, rel=0.06)
    covered = np.mean([rr.estimate(int(k), n, eps).low <= share <= rr.estimate(int(k), n, eps).high for k in yes])
    p = rr.truth_probability(eps)
    lam = (1 - p) + (2 * p - 1) * share
    lo, hi = rr.wilson_interval(np.arange(n + 1), n)
    exact = float(np.sum(stats.binom.pmf(np.arange(n + 1), n, lam)[(lo <= lam) & (lam <= hi)]))
    assert abs(covered - exact) < 4 * math.sqrt(exact * (1 - exact) / classes)
