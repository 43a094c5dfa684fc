"""dpcore.release: the planned noise has the law it claims (Kolmogorov–Smirnov and Monte-Carlo coverage with stated
tolerances), the accuracy it reports is the closed form, the statistics are computed as stated, bad plans are
refused, and the example table ships with the package."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dpcore import release

FRAME = pd.DataFrame({"county": ["A", "B", "A", "C", "A", None], "income": ["10", "250", "", "40", "-5", "7"]})


def test_laplace_and_gaussian_noise_follow_their_laws():
    g = np.random.default_rng(1)
    lap = release.plan("counts", "c", "laplace", 0.5, bound=5, confidence=0.9, sensitivity=2.0)
    x = release.noise(lap, 20_000, g)
    assert stats.kstest(x, stats.laplace(scale=4.0).cdf).pvalue > 1e-3  # b = Δ/ε = 4
    gau = release.plan("counts", "c", "gaussian", 1.0, delta=1e-5, bound=5, confidence=0.9, scale=5.0)
    y = release.noise(gau, 20_000, g)
    assert stats.kstest(y, stats.norm(scale=5.0).cdf).pvalue > 1e-3


def test_guarantee_is_the_closed_form():
    lap = release.plan("counts", "c", "laplace", 0.06, bound=50, confidence=0.95)
    assert release.guarantee(lap) == pytest.approx(1 - math.exp(-0.06 * 50), rel=1e-12)
    gau = release.plan("counts", "c", "gaussian", 1.0, delta=1e-5, bound=5, confidence=0.9, scale=5.0)
    assert release.guarantee(gau) == pytest.approx(stats.norm.cdf(1) - stats.norm.cdf(-1), rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("mech,delta", [("staircase", 0.0), ("r2dp", 0.0), ("brdp", 1e-3), ("gaussian", 1e-5)])
def test_every_noise_lands_within_its_bound_as_often_as_it_says(mech, delta):
    """Monte Carlo: the share of draws with |noise| ≤ θ is the reported guarantee within 5 standard errors."""
    p = release.plan("counts", "c", mech, 1.2, delta=delta, bound=1.5, confidence=0.5)
    n = 40_000
    share = float(np.mean(np.abs(release.noise(p, n, np.random.default_rng(7))) <= 1.5))
    q = release.guarantee(p)
    assert abs(share - q) <= 5 * math.sqrt(q * (1 - q) / n), (share, q)


def test_counts_sum_and_mean_are_computed_as_stated():
    counts = release.plan("counts", "county", "laplace", 1.0, bound=1, confidence=0.5, categories=["A", "B", "C", "D"])
    assert list(release.true_values(counts, FRAME)) == [3, 1, 1, 0]  # a listed category absent from the data: 0
    s = release.plan("sum", "income", "laplace", 1.0, bound=1, confidence=0.5, lower=0, upper=100)
    assert release.true_values(s, FRAME).iloc[0] == 10 + 100 + 40 + 0 + 7  # clipped to [0, 100], blank skipped
    m = release.plan("mean", "income", "laplace", 1.0, bound=1, confidence=0.5, lower=0, upper=100, rows=5)
    assert m.sensitivity == 20  # max(|0|, |100|) / 5
    assert release.true_values(m, FRAME).iloc[0] == pytest.approx(157 / 5)
    out = release.perform(counts, FRAME, release.secure_rng())
    assert list(out["name"]) == ["A", "B", "C", "D"] and (out["noisy"] == out["noisy"].round()).all()


def test_with_bounds_scales_noise_and_bound_together():
    p = release.plan("sum", "v", "laplace", 0.5, bound=10, confidence=0.9, lower=0, upper=2, scale=4.0)
    q = p.with_bounds(-8, 4)
    assert (q.sensitivity, q.bound, q.scale) == (8.0, 40.0, 16.0)
    assert release.guarantee(q) == pytest.approx(release.guarantee(p), rel=1e-12)


@pytest.mark.parametrize(
    "kw,name",
    [
        ({"statistic": "median"}, "statistic"),
        ({"mechanism": "svt_exp"}, "mechanism"),
        ({"epsilon": 0}, "epsilon"),
        ({"mechanism": "gaussian"}, "delta"),
        ({"statistic": "sum"}, "bounds"),
        ({"statistic": "mean", "lower": 0, "upper": 1}, "rows"),
        ({"statistic": "sum", "lower": 2, "upper": 1}, "lower"),
        ({"statistic": "sum", "lower": 0, "upper": 10, "sensitivity": 1}, "sensitivity"),
        ({"scale": 0.5}, "scale"),  # Laplace at ε = 1, Δ = 1 needs b ≥ 1: less noise is refused
        ({"column": ""}, "column"),
    ],
)
def test_bad_plans_name_the_parameter(kw, name):
    args = {
        "statistic": "counts",
        "column": "c",
        "mechanism": "laplace",
        "epsilon": 1.0,
        "bound": 1.0,
        "confidence": 0.9,
    } | kw
    with pytest.raises(ValueError, match=name):
        release.plan(args.pop("statistic"), args.pop("column"), args.pop("mechanism"), args.pop("epsilon"), **args)


def test_a_column_of_words_cannot_be_summed():
    s = release.plan("sum", "county", "laplace", 1.0, bound=1, confidence=0.5, lower=0, upper=1)
    with pytest.raises(ValueError, match="row 2"):
        release.true_values(s, FRAME)
    with pytest.raises(ValueError, match="column"):
        release.true_values(release.plan("counts", "nope", "laplace", 1.0, bound=1, confidence=0.5), FRAME)


def test_the_example_table_ships_with_dpcore():
    frame = pd.read_csv(release.example_csv())
    assert list(frame.columns) == ["county", "income"] and len(frame) == 600
    assert frame["county"].nunique() == 6 and pd.api.types.is_numeric_dtype(frame["income"])


def test_secure_generators_differ():
    a, b = release.secure_rng(), release.secure_rng()
    assert not np.array_equal(a.random(4), b.random(4))
