"""Unit tests of dpcore.audit: Clopper–Pearson against scipy, the bound arithmetic, validity, bad inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpcore import audit as A
from dpcore import svt
from dpcore.audit.claims import _svt_setup as svt_setup


# ------------------------------------------------------------------------------------------- Clopper–Pearson
@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (10, 10), (1, 1000), (517, 1000), (999, 1000), (12, 123456)])
@pytest.mark.parametrize("alpha", [0.05, 0.001])
def test_clopper_pearson_matches_scipy_binomtest(k, n, alpha):
    ref = stats.binomtest(k, n).proportion_ci(confidence_level=1 - alpha, method="exact")
    lo, hi = A.clopper_pearson(k, n, alpha=alpha)
    # scipy solves for the exact interval with a root finder (relative accuracy ~1e-9); ours is beta.ppf
    assert lo == pytest.approx(ref.low, rel=1e-7, abs=1e-15)
    assert hi == pytest.approx(ref.high, rel=1e-7, abs=1e-15)
    # one-sided bounds are scipy's one-sided exact intervals
    lo1, hi1 = A.clopper_pearson(k, n, alpha=alpha, side="lower")
    ref_lo = stats.binomtest(k, n, alternative="greater").proportion_ci(confidence_level=1 - alpha)
    assert (lo1, hi1) == (pytest.approx(ref_lo.low, rel=1e-7, abs=1e-15), 1.0)
    lo2, hi2 = A.clopper_pearson(k, n, alpha=alpha, side="upper")
    ref_hi = stats.binomtest(k, n, alternative="less").proportion_ci(confidence_level=1 - alpha)
    assert (lo2, hi2) == (0.0, pytest.approx(ref_hi.high, rel=1e-7, abs=1e-15))


def test_clopper_pearson_is_vectorised():
    k = np.array([0, 5, 20])
    lo, hi = A.clopper_pearson(k, 20, alpha=0.1)
    assert lo.shape == hi.shape == (3,)
    for i, kk in enumerate(k):
        assert (lo[i], hi[i]) == pytest.approx(A.clopper_pearson(int(kk), 20, alpha=0.1))


@pytest.mark.parametrize("p", [0.02, 0.3, 0.5])
def test_clopper_pearson_coverage_by_simulation(p):
    """Exact intervals cover p with probability ≥ 1 − α; 20 000 simulated data sets, tolerance 3 standard errors."""
    n, alpha, reps = 60, 0.1, 20_000
    k = np.random.default_rng(11).binomial(n, p, reps)
    lo, hi = A.clopper_pearson(k, n, alpha=alpha)
    cover = np.mean((lo <= p) & (p <= hi))
    assert cover >= 1 - alpha - 3 * math.sqrt(alpha * (1 - alpha) / reps)
    lo1, _ = A.clopper_pearson(k, n, alpha=alpha, side="lower")
    assert np.mean(lo1 <= p) >= 1 - alpha - 3 * math.sqrt(alpha * (1 - alpha) / reps)


@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"k": 3, "n": 10, "alpha": 0.0}, "alpha"),
        ({"k": 3, "n": 10, "alpha": 1.0}, "alpha"),
        ({"k": -1, "n": 10}, "k"),
        ({"k": 11, "n": 10}, "k"),
        ({"k": 1.5, "n": 10}, "k"),
        ({"k": 1, "n": 0}, "n"),
        ({"k": 1, "n": 10, "side": "both"}, "side"),
    ],
)
def test_clopper_pearson_bad_inputs(kwargs, name):
    k, n = kwargs.pop("k"), kwargs.pop("n")
    with pytest.raises(ValueError, match=name):
        A.clopper_pearson(k, n, **kwargs)


# ------------------------------------------------------------------------------------------- bound arithmetic
def test_disjoint_supports_give_the_closed_form_bound():
    """All m held-out D outputs fall in S and none of D′'s: CP gives P_lo = a^{1/m}, P′_hi = 1 − a^{1/m}, a = α/2."""
    n, alpha = 2000, 0.05
    g = np.random.default_rng(0)
    x, y = g.uniform(0, 1, n), g.uniform(2, 3, n)
    b = A.epsilon_lower_bound(x, y, alpha=alpha)
    m, a = n - n // 2, alpha / 2
    assert (b.k, b.k_prime, b.n, b.n_prime) == (m, 0, m, m)
    assert b.epsilon_lb == pytest.approx(math.log(a ** (1 / m) / (1 - a ** (1 / m))), rel=1e-9)
    d = A.delta_lower_bound(x, y, epsilon=1.0, alpha=alpha)
    assert d.delta_lb == pytest.approx(a ** (1 / m) - math.e * (1 - a ** (1 / m)), rel=1e-9)


def test_bound_recomputed_from_its_counts_with_scipy():
    g = np.random.default_rng(3)
    p0, p1 = 0.7, 0.3
    x, y = (g.random(5000) < p0).astype(int), (g.random(5000) < p1).astype(int)
    for delta in (0.0, 0.01):
        b = A.epsilon_lower_bound(x, y, delta=delta, alpha=0.1, discrete=True)
        lo = stats.binomtest(b.k, b.n, alternative="greater").proportion_ci(confidence_level=1 - 0.05).low
        hi = stats.binomtest(b.k_prime, b.n_prime, alternative="less").proportion_ci(confidence_level=1 - 0.05).high
        assert b.epsilon_lb == pytest.approx(math.log((lo - delta) / hi), rel=1e-9)
    # the event is a single report: the truth is ln(0.7/0.3) for both outcomes
    assert b.epsilon_lb < math.log(p0 / p1)
    assert b.outcomes in ((0,), (1,))


@pytest.mark.slow
def test_identical_laws_rarely_give_a_positive_bound():
    """Validity of the selection split: for the same law on both sides the audit's false-alarm rate is ≤ α.

    400 audits at α = 0.1 of N(0, 1) vs N(0, 1); a false alarm is ε_lb > 0 (any ε claim of 0 would be beaten)
    or δ_lb > 0 at ε = 0. Tolerance: 3 binomial standard errors above α.
    """
    g = np.random.default_rng(5)
    alpha, reps = 0.1, 400
    fa_eps = fa_delta = 0
    for _ in range(reps):
        x, y = g.normal(size=600), g.normal(size=600)
        fa_eps += A.epsilon_lower_bound(x, y, alpha=alpha, bins=20).epsilon_lb > 0
        fa_delta += A.delta_lower_bound(x, y, epsilon=0.0, alpha=alpha, bins=20).delta_lb > 0
    tol = alpha + 3 * math.sqrt(alpha * (1 - alpha) / reps)
    assert fa_eps / reps <= tol
    assert fa_delta / reps <= tol


def test_threshold_event_is_described_and_found():
    g = np.random.default_rng(1)
    x, y = g.laplace(0, 1, 100_000), g.laplace(1, 1, 100_000)
    b = A.epsilon_lower_bound(x, y, alpha=0.05)
    assert 0.8 < b.epsilon_lb <= 1.0
    assert b.edges is not None and len(b.edges) == 101
    assert b.event


def test_likelihood_ratios_of_randomized_response():
    """Per-outcome CIs contain the true log ratios ±ε of binary RR (ε = 1), frequencies sum to 1."""
    pair = A.sample_pair("rr", epsilon=1.0, delta=0.0, n=20_000, rng=4)
    df = A.likelihood_ratios(pair.out_d, pair.out_dprime, alpha=0.01, discrete=True, labels=pair.labels)
    assert list(df["label"]) == ["report 0", "report 1"]
    assert df["p_d"].sum() == pytest.approx(1.0)
    truth = np.array([1.0, -1.0])
    assert np.all(df["llr_lo"] <= truth) and np.all(truth <= df["llr_hi"])


def test_likelihood_ratios_continuous_bins_cover_the_samples():
    g = np.random.default_rng(2)
    x, y = g.normal(size=5000), g.normal(1, 1, size=5000)
    df = A.likelihood_ratios(x, y, bins=30)
    assert len(df) == 30 and df["count_d"].sum() == 5000 and df["count_dprime"].sum() == 5000
    assert df["bin_left"].iloc[0] <= min(x.min(), y.min()) and df["bin_right"].iloc[-1] >= max(x.max(), y.max())
    # Gaussian shift: true ln ratio at x is (1 − 2x)/2; inside most bins' CIs (bins are narrow in the middle)
    mid = (df["bin_left"] + df["bin_right"]) / 2
    inner = df.iloc[3:-3]
    truth = (1 - 2 * mid.iloc[3:-3]) / 2
    assert np.mean((inner["llr_lo"] <= truth + 0.1) & (truth - 0.1 <= inner["llr_hi"])) >= 0.9


def test_bound_vs_n_shape_and_monotone_in_expectation():
    g = np.random.default_rng(8)
    x, y = g.laplace(0, 1, 200_000), g.laplace(1, 1, 200_000)
    df = A.bound_vs_n(x, y, sizes=[1000, 10_000, 200_000], alpha=0.05)
    assert list(df["n"]) == [1000, 10_000, 200_000]
    assert df["epsilon_lb"].iloc[-1] > df["epsilon_lb"].iloc[0]
    assert (df["epsilon_lb"] <= 1.0).all()


# ------------------------------------------------------------------------------------------- mechanisms
def test_svt_sampler_matches_the_exact_pattern_probabilities():
    """The vectorised SVT (c = 1) against svt.pattern_probability (quadrature), 4 standard errors."""
    eps, n = 1.0, 200_000
    sp, r, a, a2 = svt_setup(eps, 1.0)
    kw = dict(threshold=0.0, threshold_scale=sp.threshold_scale, query_scale=sp.query_scale, correction=r)
    for ans in (a, a2):
        out = A.svt_outputs(ans, split=sp, correction=r, n=n, rng=9)
        exact = [
            svt.pattern_probability(ans[:1], [True], **kw),
            svt.pattern_probability(ans, [False, True], **kw),
            svt.pattern_probability(ans, [False, False], **kw),
        ]
        freq = np.bincount(out, minlength=3) / n
        assert sum(exact) == pytest.approx(1.0, abs=1e-8)
        for f, p in zip(freq, exact, strict=True):
            assert abs(f - p) <= 4 * math.sqrt(p * (1 - p) / n)


def test_svt_sampler_matches_run_svt():
    """Same law as dpcore.svt.run_svt (Alg. 2, c = 1): 1500 real runs vs the vectorised sampler, 4 s.e. per pattern."""
    sp, r, a, _ = svt_setup(1.0, 1.0)
    runs = 1500
    g = np.random.default_rng(12)
    pats = []
    for _ in range(runs):
        res = svt.run_svt(a, threshold=0.0, epsilon=1.0, c=1, noise="exponential", rng=g)
        assert res.correction == pytest.approx(r)
        pats.append(int(res.selected[0]) if res.selected.size else 2)
    f_run = np.bincount(pats, minlength=3) / runs
    f_vec = np.bincount(A.svt_outputs(a, split=sp, correction=r, n=200_000, rng=1), minlength=3) / 200_000
    assert np.all(np.abs(f_run - f_vec) <= 4 * np.sqrt(f_vec * (1 - f_vec) / runs) + 1e-3)


def test_sample_pair_claims_come_from_dpcore():
    from dpcore import brdp, ldp

    p = A.sample_pair("r2dp", epsilon=2.0, delta=0.0, n=10, rng=0)
    assert p.claimed_epsilon == pytest.approx(2.0, rel=1e-9)  # Gamma law locked at exact ε
    assert A.sample_pair("rr", epsilon=0.7, delta=0.0, n=10, rng=0).claimed_epsilon == pytest.approx(
        ldp.randomized_response(0.7).epsilon
    )
    assert A.sample_pair("svt_exp", epsilon=0.5, delta=0.0, n=10, rng=0).claimed_epsilon == pytest.approx(0.5)
    pp = A.sample_pair(
        "brdp_paper", epsilon=0.1, delta=1e-3, sensitivity=5.0, theta=0.1, epsilon_y_ratio=0.6, n=10, rng=0
    )
    plan = brdp.make_plan(epsilon=0.1, delta=1e-3, sensitivity=5.0, theta=0.1, kernel="gaussian", epsilon_y=0.06)
    assert (pp.paper_delta, pp.exact_delta) == (pytest.approx(plan.paper_delta), pytest.approx(plan.exact_delta))


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: A.audit("foo", epsilon=1.0, delta=1e-5, n=100), "mechanism"),
        (lambda: A.audit("laplace", epsilon=-1.0, delta=1e-5, n=100), "epsilon"),
        (lambda: A.audit("laplace", epsilon=1.0, delta=1.5, n=100), "delta"),
        (lambda: A.audit("laplace", epsilon=1.0, delta=1e-5, n=2), "n"),
        (lambda: A.audit("laplace", epsilon=1.0, delta=1e-5, n=100, alpha=0.0), "alpha"),
        (lambda: A.audit("laplace", epsilon=1.0, delta=1e-5, n=100, sensitivity=0.0), "sensitivity"),
        (lambda: A.audit("gaussian", epsilon=1.0, delta=0.0, n=100), "delta"),
        (lambda: A.audit("brdp", epsilon=1.0, delta=1e-5, n=100, theta=-1.0), "theta"),
        (lambda: A.audit("laplace", epsilon=1.0, delta=1e-5, n=100, bins=1), "bins"),
        (lambda: A.epsilon_lower_bound([1.0, 2.0], [1.0, 2.0, 3.0, 4.0]), "out_d"),
        (lambda: A.epsilon_lower_bound([1, 2, 3, np.nan], [1, 2, 3, 4]), "out_d"),
        (lambda: A.epsilon_lower_bound([1, 2, 3, 4], [1, 2, 3, 4], delta=-0.1), "delta"),
        (lambda: A.delta_lower_bound([1, 2, 3, 4], [1, 2, 3, 4], epsilon=-1.0), "epsilon"),
        (lambda: A.epsilon_lower_bound([0.5, 1, 0, 1], [0, 1, 0, 1], discrete=True), "discrete"),
        (lambda: A.bound_vs_n([1, 2, 3, 4, 5], [1, 2, 3, 4, 5], sizes=[10]), "sizes"),
    ],
)
def test_bad_inputs_raise_value_errors_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_result_is_frozen_and_verdict_strings():
    r = A.audit("rr", epsilon=1.0, delta=0.0, n=1000, rng=0)
    with pytest.raises(AttributeError):
        r.alpha = 0.5  # type: ignore[misc]
    assert r.verdict in ("consistent", "VIOLATION: the claim is beaten")
    assert r.epsilon_bound.target == "epsilon" and r.delta_bound.target == "delta"
    assert r.epsilon_bound.alpha == r.delta_bound.alpha == pytest.approx(r.alpha / 2)
