"""The stand-in experiments of dpcore.r2dp.applications (the pipeline of Section VI, Figs. 6–9) against independent
computations: closed-form usefulness, a naive Bayes written out with dictionaries, Jaccard similarity from Python sets.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from dpcore import r2dp
from dpcore.r2dp import applications as ap


@pytest.mark.parametrize("sensitivity", [1.0, 0.2])
def test_query_accuracy_estimates_the_exact_usefulness(sensitivity):
    df = ap.query_accuracy([1.0, 5.0, 10.0], gamma=0.1, sensitivity=sensitivity, trials=40_000, rng=7)
    assert set(df["mechanism"]) == set(ap.MECHANISMS)
    # Monte Carlo within 4.5 binomial standard errors of the analytic P(|W| <= γ)
    se = np.sqrt(df["exact"] * (1 - df["exact"]) / 40_000)
    assert np.all(np.abs(df["accuracy"] - df["exact"]) <= 4.5 * se + 1e-12)
    lap = df[df["mechanism"] == "laplace"]
    assert lap["exact"].to_numpy() == pytest.approx(1 - np.exp(-lap["epsilon"] * 0.1 / sensitivity), rel=1e-12)
    # R²DP (the two-point optimum) is never below Laplace and never above the staircase
    wide = df.pivot(index="epsilon", columns="mechanism", values="exact")
    assert np.all(wide["r2dp"] >= wide["laplace"] - 1e-12) and np.all(wide["r2dp"] <= wide["staircase"] + 1e-12)


def test_laplace_and_r2dp_samplers_follow_their_laws():
    rng = np.random.default_rng(3)
    w = ap.noise_sampler("laplace", epsilon=2.0, gamma=0.1, sensitivity=0.5)(50_000, rng)
    assert stats.kstest(w, stats.laplace(scale=0.25).cdf).pvalue > 1e-3
    law = r2dp.optimize(epsilon=5.0, gamma=0.1, family="gamma").law
    w = ap.noise_sampler("r2dp", epsilon=5.0, gamma=0.1, family="gamma")(50_000, rng)
    assert stats.kstest(w, lambda x: r2dp.noise_cdf(x, law)).pvalue > 1e-3


def _split(rec: ap.Records, n: int) -> tuple[ap.Records, ap.Records]:
    return (
        ap.Records(rec.features[:n], rec.labels[:n], rec.values),
        ap.Records(rec.features[n:], rec.labels[n:], rec.values),
    )


def _naive_bayes_by_hand(train: ap.Records, test: ap.Records) -> tuple[float, float]:
    """Categorical naive Bayes with add-one smoothing, written with Counters (independent of the numpy code)."""
    n_attr = train.features.shape[1]
    cls = Counter(train.labels.tolist())
    joint = Counter(
        (j, int(v), int(c)) for row, c in zip(train.features, train.labels, strict=True) for j, v in enumerate(row)
    )
    pred = []
    for row in test.features:
        score = {}
        for c in (0, 1):
            s = math.log((cls[c] + 1) / (len(train.labels) + 2))
            for j, v in enumerate(row):
                s += math.log((joint[(j, int(v), c)] + 1) / (cls[c] + train.values))
            score[c] = s
        pred.append(int(score[1] > score[0]))
    pred = np.array(pred)
    tp = np.sum((pred == 1) & (test.labels == 1))
    assert n_attr == test.features.shape[1]
    return tp / max(np.sum(pred == 1), 1), tp / max(np.sum(test.labels == 1), 1)


def test_naive_bayes_baseline_matches_a_hand_written_classifier_and_huge_epsilon_matches_it():
    train, test = _split(ap.categorical_records(1500, rng=11), 1000)
    df = ap.naive_bayes(train, test, [0.5, 1e9], gamma=0.1, repeats=2, rng=12)
    base = df[df["mechanism"] == "none"].iloc[0]
    assert (base["precision"], base["recall"]) == pytest.approx(_naive_bayes_by_hand(train, test), abs=1e-12)
    # Laplace and R²DP noise vanish as ε grows (the staircase keeps a flat step of width γ, so it is left out)
    huge = df[(df["epsilon"] == 1e9) & df["mechanism"].isin(["laplace", "r2dp"])]
    assert len(huge) == 2
    assert np.allclose(huge["precision"], base["precision"]) and np.allclose(huge["recall"], base["recall"])
    assert 0.5 < base["precision"] < 1 and 0.5 < base["recall"] < 1  # a useful, imperfect classifier


def test_categorical_records_have_the_requested_shape():
    rec = ap.categorical_records(20_000, attributes=5, values=3, positive_share=0.3, rng=1)
    assert rec.features.shape == (20_000, 5) and rec.features.min() >= 0 and rec.features.max() <= 2
    assert abs(rec.labels.mean() - 0.3) < 4 * math.sqrt(0.3 * 0.7 / 20_000)


def test_recommendation_truth_is_jaccard_from_sets_and_huge_epsilon_is_exact():
    a = ap.coauthor_graph(20, group_size=6, rng=5)
    assert np.array_equal(a, a.T) and not a.diagonal().any()
    nbr = [set(np.nonzero(row)[0]) for row in a]
    tau = 0.4999  # no Jaccard ratio of these small sets lies within 1e-4 of it, so vanishing noise cannot cross it
    truth = {
        (x, y)
        for x in range(len(nbr))
        for y in range(x + 1, len(nbr))
        if not a[x, y] and nbr[x] & nbr[y] and len(nbr[x] & nbr[y]) / len(nbr[x] | nbr[y]) > tau
    }
    df = ap.recommendation(a, [1.0, 1e9], gamma=0.1, threshold=tau, repeats=2, rng=6)
    assert set(df["pairs"]) == {len(truth)} and len(truth) > 5
    huge = df[(df["epsilon"] == 1e9) & df["mechanism"].isin(["laplace", "r2dp"])]
    assert len(huge) == 2 and np.allclose(huge["precision"], 1.0) and np.allclose(huge["recall"], 1.0)
    small = df[df["epsilon"] == 1.0]
    assert np.all(small["recall"] < 1.0)  # noise costs something at ε = 1


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: ap.noise_sampler("gauss", epsilon=1.0, gamma=0.1), "mechanism"),
        (lambda: ap.query_accuracy([0.0], gamma=0.1), "epsilons"),
        (lambda: ap.query_accuracy([1.0], gamma=-1.0), "gamma"),
        (lambda: ap.categorical_records(10, separation=1.5), "separation"),
        (lambda: ap.coauthor_graph(5000, group_size=10), "n_groups"),
        (lambda: ap.recommendation(np.zeros((3, 2), bool), [1.0], gamma=0.1), "adjacency"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()
