"""Monte Carlo checks of dpcore.ldp (fixed seeds; tolerances in standard errors): mean estimate,
binary RR stream, Example-3 interaction, and the Sec. 6 medians."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore import ldp


def test_two_point_sample_rate():
    """Eq. 5: the empirical frequency of `high` matches the probability (4 SE)."""
    rng = np.random.default_rng(31)
    eps, n = 0.8, 200_000
    for v in (-1.0, 0.0, 0.6, 1.0):
        y = ldp.two_point_sample(np.full(n, v), epsilon=eps, low=-1.0, high=1.0, rng=rng)
        p = float(ldp.two_point(eps, [v], low=-1.0, high=1.0).probabilities[0, 1])
        se = math.sqrt(p * (1 - p) / n)
        assert abs(np.mean(y == 1.0) - p) < 4 * se


def test_table_sample_frequencies():
    """LikelihoodTable.sample draws outputs with the row probabilities (chi-square, 4-SE per cell)."""
    t = ldp.randomized_response(1.2, domain_size=4)
    rng = np.random.default_rng(32)
    n = 20_000
    draws = np.array([t.sample(2, rng) for _ in range(n)])
    p = t.probabilities[2]
    for j in range(4):
        se = math.sqrt(p[j] * (1 - p[j]) / n)
        assert abs(np.mean(draws == j) - p[j]) < 4 * se


def test_mean_estimator_many_seeds():
    """Sec. 2.5: the mean estimator is unbiased: average error over 200 repetitions within 4 SE of 0."""
    rng = np.random.default_rng(33)
    errs = []
    for _ in range(200):
        v = rng.uniform(-1, 1, 2000)
        y = ldp.two_point_sample(v, epsilon=1.0, low=-1.0, high=1.0, rng=rng)
        errs.append(ldp.mean_estimate(y, epsilon=1.0, low=-1.0, high=1.0) - v.mean())
    errs = np.array(errs)
    assert abs(errs.mean()) < 4 * errs.std(ddof=1) / math.sqrt(errs.size)


@pytest.mark.parametrize(
    "eps, budget, expected, runs",
    [(1.0, 4.0, 8.344, 3000), (1.0, 10.0, 21.638, 1500), (0.5, 4.0, 31.489, 800), (0.1, 1.0, 92.500, 300)],
)
def test_rr_stream_monte_carlo(eps, budget, expected, runs):
    """Simulated BPF accepted counts on an RR stream agree with the closed form within 4 SE."""
    df = ldp.simulate_accepted_counts(
        ldp.randomized_response(eps), budget, true_value=1, n_runs=runs, rng=int(eps * 1000 + budget)
    )
    k = df["accepted"].to_numpy()
    se = k.std(ddof=1) / math.sqrt(k.size)
    assert abs(k.mean() - expected) < 4 * se
    assert abs(k.mean() - ldp.rr_expected_accepted(eps, budget)) < 4 * se


def test_rr_pmf_monte_carlo():
    """The absorbing-chain pmf of accepted counts matches the simulated histogram (each cell within 4 SE)."""
    eps, budget, runs = 1.0, 3.0, 4000
    df = ldp.simulate_accepted_counts(ldp.randomized_response(eps), budget, true_value=0, n_runs=runs, rng=34)
    pmf = ldp.rr_accepted_pmf(eps, budget).set_index("accepted")["probability"]
    counts = df["accepted"].value_counts()
    for k in (3, 5, 7, 9):
        p = float(pmf[k])
        se = math.sqrt(p * (1 - p) / runs)
        assert abs(counts.get(k, 0) / runs - p) < 4 * se + 1e-12
    assert float(pmf[[4, 6, 8]].sum()) == 0.0  # with m = 3 the walk can only stop at odd counts


def test_example3_expected_length_by_simulation():
    """Simulating the Example-3 interaction (x* = 5) reproduces E[#accepted] = 2.985 (4 SE)."""
    rng = np.random.default_rng(35)
    tabs = [ldp.running_example_query(i) for i in range(1, 25)]
    counts = []
    for _ in range(4000):
        f = ldp.BayesianPrivacyFilter(math.log(2.25), domain_size=11)
        k = 0
        while f.would_accept(tabs[k]):
            f.submit(tabs[k], tabs[k].sample(5, rng))
            k += 1
        counts.append(k)
    c = np.array(counts)
    assert abs(c.mean() - 2.985) < 4 * c.std(ddof=1) / math.sqrt(c.size)


def test_posterior_calibration_monte_carlo():
    """Bayes update (Eq. 2): draw x from the prior and an output from the table; P(x | y) matches."""
    rng = np.random.default_rng(36)
    prior = np.array([0.5, 0.3, 0.2])
    t = ldp.likelihood_table([[0.7, 0.3], [0.4, 0.6], [0.2, 0.8]])
    n = 60_000
    xs = rng.choice(3, size=n, p=prior)
    ys = (rng.random(n) < t.probabilities[xs, 1]).astype(int)
    post = ldp.posterior(prior, t.column(1))
    sel = xs[ys == 1]
    for x in range(3):
        se = math.sqrt(post[x] * (1 - post[x]) / sel.size)
        assert abs(np.mean(sel == x) - post[x]) < 4 * se


@pytest.mark.slow
def test_logistic_median_21():
    """Sec. 6.2 logistic setup (9-D, groups of 10, 50 runs): median accepted at ε_G = 10 is 21 ± 2 (over seeds 0–29
    of ldp.logistic_median_reproduction it was 20 to 21, 20.6 on average: the paper's 21 within the seed-to-seed
    spread), and every run accepts at least the basic-composition count at every ε_G."""
    df = ldp.regression_experiment("logistic", budgets=range(1, 11), n_runs=50, rng=19)
    med = df[df["budget"] == 10]["accepted"].median()
    assert abs(med - 21) <= 2
    assert (df["accepted"] >= df["basic"]).all()


@pytest.mark.slow
def test_linear_median_not_47():
    """Sec. 6.1 linear setup with groups of 10: the median of 50 runs at ε_G = 10 depends on the seed. Over 40 seeds
    it was 36.6 on average, between 35.0 and 40.0 (sd 1.3); five seeds here stay in that band and far below the
    paper's 47 (an erratum); the comparison object returns both numbers; linear > logistic; ≥ basic composition."""
    medians = [ldp.linear_median_mismatch(n_runs=50, rng=seed).reproduced for seed in range(5)]
    assert all(34.5 <= m <= 40.5 for m in medians), medians
    assert abs(np.mean(medians) - 36.6) <= 3 * 1.3 / math.sqrt(5), medians  # three standard errors
    assert max(medians) < 47 - 5
    res = ldp.linear_median_mismatch(n_runs=50, rng=0)
    assert res.paper == 47.0 and not res.matches and "groups of 20" in res.reason.lower()
    df = ldp.regression_experiment("linear", budgets=range(1, 11), n_runs=20, rng=21)
    assert (df["accepted"] >= df["basic"]).all()
    assert df[df["budget"] == 10]["accepted"].median() > 21
