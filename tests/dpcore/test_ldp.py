"""Unit tests of dpcore.ldp (paper 003): every public function, bad inputs, edge values."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pandas as pd
import pytest

from dpcore import ldp

LN15 = math.log(1.5)


# --- likelihood tables and realized loss ------------------------------------------------------


def test_likelihood_table_valid_and_properties():
    p = np.array([[0.7, 0.3], [0.4, 0.6], [0.5, 0.5]])
    t = ldp.likelihood_table(p, outputs=("a", "b"))
    np.testing.assert_allclose(t.probabilities, p)
    assert t.domain_size == 3 and t.n_outputs == 2
    # independent: ℓ(y) = ln(max/min) per column
    np.testing.assert_allclose(t.output_losses, [math.log(0.7 / 0.4), math.log(0.6 / 0.3)])
    assert t.epsilon == pytest.approx(math.log(2.0))
    np.testing.assert_allclose(t.column("b"), np.log(p[:, 1]))
    assert t.output_index("a") == 0
    with pytest.raises(ValueError, match="output"):
        t.output_index("zzz")
    with pytest.raises(ValueError):
        t.log_prob[0, 0] = 0.0  # read-only


@pytest.mark.parametrize(
    "bad",
    [np.zeros((0, 2)), [[0.5, 0.6]], [[1.2, -0.2]], [0.5, 0.5], [[0.5, np.nan]], [[0.3, 0.3]]],
)
def test_likelihood_table_bad(bad):
    with pytest.raises(ValueError, match="probabilities"):
        ldp.likelihood_table(bad)


def test_likelihood_table_outputs_length():
    with pytest.raises(ValueError, match="outputs"):
        ldp.likelihood_table([[0.5, 0.5]], outputs=(1,))


def test_realized_loss_basic_and_edges():
    assert ldp.realized_loss([math.log(0.2), math.log(0.5), math.log(0.1)]) == pytest.approx(math.log(5))
    assert ldp.realized_loss([-3.0]) == 0.0
    assert ldp.realized_loss([0.0, -np.inf]) == math.inf
    vec = ldp.realized_loss(np.array([[0.0, -1.0], [2.0, -2.0]]) - 5)
    np.testing.assert_allclose(vec, [1.0, 4.0])


@pytest.mark.parametrize("bad", [[], [-np.inf, -np.inf], [0.0, np.nan], [0.0, np.inf], 3.0, "x"])
def test_realized_loss_bad(bad):
    with pytest.raises(ValueError, match="log_likelihood"):
        ldp.realized_loss(bad)


def test_transcript_log_likelihood():
    rr = ldp.randomized_response(1.0)
    ll = ldp.transcript_log_likelihood([rr, rr, rr], [1, 1, 0])
    p = math.e / (1 + math.e)
    np.testing.assert_allclose(np.exp(ll), [p * (1 - p) ** 2, p**2 * (1 - p)])
    with pytest.raises(ValueError, match="outputs"):
        ldp.transcript_log_likelihood([rr], [0, 1])
    with pytest.raises(ValueError, match="tables"):
        ldp.transcript_log_likelihood([], [])
    with pytest.raises(ValueError, match="domain size"):
        ldp.transcript_log_likelihood([rr, ldp.randomized_response(1.0, domain_size=3)], [0, 0])


# --- mechanisms -------------------------------------------------------------------------------


@pytest.mark.parametrize("k", [2, 3, 7])
def test_randomized_response_closed_form(k):
    eps = 0.8
    t = ldp.randomized_response(eps, domain_size=k)
    p = t.probabilities
    np.testing.assert_allclose(np.diag(p), math.exp(eps) / (math.exp(eps) + k - 1))
    off = p[~np.eye(k, dtype=bool)]
    np.testing.assert_allclose(off, 1 / (math.exp(eps) + k - 1))
    np.testing.assert_allclose(p.sum(axis=1), 1.0)


def test_randomized_response_large_epsilon_stable():
    t = ldp.randomized_response(800.0, domain_size=4)
    assert np.all(np.isfinite(t.log_prob))
    np.testing.assert_allclose(t.output_losses, 800.0)


@pytest.mark.parametrize("eps", [0.0, -1.0, math.inf, math.nan])
def test_randomized_response_bad_epsilon(eps):
    with pytest.raises(ValueError, match="epsilon"):
        ldp.randomized_response(eps)


def test_randomized_response_bad_domain():
    with pytest.raises(ValueError, match="domain_size"):
        ldp.randomized_response(1.0, domain_size=1)


def test_generalized_rr_categories():
    cats = np.array([0, 0, 1, 1, 2])
    t = ldp.generalized_randomized_response(1.0, categories=cats)
    assert t.log_prob.shape == (5, 3)
    e = math.e
    np.testing.assert_allclose(t.probabilities[0], [e / (e + 2), 1 / (e + 2), 1 / (e + 2)])
    np.testing.assert_allclose(t.output_losses, 1.0)
    with pytest.raises(ValueError, match="categories"):
        ldp.generalized_randomized_response(1.0, categories=[0.5, 1])
    with pytest.raises(ValueError, match="n_categories"):
        ldp.generalized_randomized_response(1.0, categories=[0, 3], n_categories=2)


def test_two_point_eq5():
    eps = 1.0
    v = np.array([-1.0, 0.0, 0.5, 1.0])
    t = ldp.two_point(eps, v, low=-1.0, high=1.0)
    e = math.e
    p_hi = 1 / (e + 1) + (v + 1) / 2 * (e - 1) / (e + 1)
    np.testing.assert_allclose(t.probabilities[:, 1], p_hi)
    assert t.outputs == (-1.0, 1.0)
    assert t.epsilon == pytest.approx(1.0)
    with pytest.raises(ValueError, match="values"):
        ldp.two_point(1.0, [2.0], low=0, high=1)
    with pytest.raises(ValueError, match="high"):
        ldp.two_point(1.0, [0.0], low=1, high=1)
    with pytest.raises(ValueError, match="epsilon"):
        ldp.two_point(0.0, [0.0])


def test_two_point_sample_and_mean_estimate_bad():
    y = ldp.two_point_sample([0.0, 1.0], epsilon=1.0, rng=1)
    assert set(np.unique(y)) <= {0.0, 1.0}
    with pytest.raises(ValueError, match="rng"):
        ldp.two_point_sample([0.0], epsilon=1.0, rng=-1)
    with pytest.raises(ValueError, match="outputs"):
        ldp.mean_estimate([], epsilon=1.0)
    with pytest.raises(ValueError, match="epsilon"):
        ldp.mean_estimate([0.0], epsilon=-1.0)


def test_mean_estimate_inverts_expectation():
    # if the fraction of highs equals its expectation, the estimate is exactly the mean (independent algebra)
    eps, lo, hi, mu = 0.7, -2.0, 3.0, 0.4
    e = math.exp(eps)
    f = 1 / (e + 1) + (mu - lo) / (hi - lo) * (e - 1) / (e + 1)
    n = 10_000
    k = round(f * n)
    out = np.array([hi] * k + [lo] * (n - k))
    assert ldp.mean_estimate(out, epsilon=eps, low=lo, high=hi) == pytest.approx(mu, abs=(hi - lo) * 2 / n * 3)


def test_running_example_query():
    t = ldp.running_example_query(2)
    x = np.arange(11)
    np.testing.assert_allclose(t.probabilities[:, 1], (2 + (x / 10) ** 2) / 5)
    assert t.outputs == (0, 1)
    with pytest.raises(ValueError, match="power"):
        ldp.running_example_query(0)


def test_table_sample():
    t = ldp.randomized_response(1.0)
    assert t.sample(0, rng=0) in (0, 1)
    with pytest.raises(ValueError, match="true_value"):
        t.sample(2)


# --- beliefs ----------------------------------------------------------------------------------


def test_posterior_matches_direct_bayes():
    prior = np.array([0.2, 0.3, 0.5])
    lik = np.array([0.1, 0.4, 0.2])
    post = ldp.posterior(prior, np.log(lik))
    np.testing.assert_allclose(post, prior * lik / np.sum(prior * lik))


def test_posterior_bad():
    with pytest.raises(ValueError, match="prior"):
        ldp.posterior([0.5, 0.6], [0.0, 0.0])
    with pytest.raises(ValueError, match="prior"):
        ldp.posterior([1.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="log_likelihood"):
        ldp.posterior([0.5, 0.5], [0.0, np.inf])
    with pytest.raises(ValueError, match="log_likelihood"):
        ldp.posterior([1.0, 0.0], [-np.inf, 0.0])


def test_knowledge_gain_and_bad():
    prior = np.array([0.25, 0.25, 0.5])
    ll = np.log([0.2, 0.4, 0.1])
    phi = np.array([1.0, 0.5, 0.0])
    post = prior * np.exp(ll) / np.sum(prior * np.exp(ll))
    assert ldp.knowledge_gain(phi, prior, ll) == pytest.approx((phi @ post) / (phi @ prior))
    with pytest.raises(ValueError, match="statement"):
        ldp.knowledge_gain([0, 0, 1.0], [0.5, 0.5, 0.0], ll)
    with pytest.raises(ValueError, match="statement"):
        ldp.knowledge_gain([1.5, 0, 0], prior, ll)
    with pytest.raises(ValueError, match="statement"):
        ldp.knowledge_gain([1.0, 0.0], prior, ll)


def test_lemma32_construction_and_bad():
    ll = np.log([0.1, 0.5, 0.3])
    res = ldp.lemma32_construction(ll, alpha=1e-3)
    assert (res.x_a, res.x_b) == (1, 0)
    L = 5.0
    assert res.bound == pytest.approx(L)
    assert res.gain == pytest.approx(L / (1e-3 * L + 1 - 1e-3))
    inf = ldp.lemma32_construction(ll, alpha=1e-3, direction="inf")
    assert inf.bound == pytest.approx(1 / L)
    assert inf.gain == pytest.approx((1 / L) / (1e-3 / L + 1 - 1e-3))
    flat = ldp.lemma32_construction([0.0, 0.0])
    assert flat.gain == 1.0
    with pytest.raises(ValueError, match="alpha"):
        ldp.lemma32_construction(ll, alpha=0.0)
    with pytest.raises(ValueError, match="direction"):
        ldp.lemma32_construction(ll, direction="up")


def test_g_leakage_bayes_vulnerability_and_bad():
    prior = np.array([0.5, 0.3, 0.2])
    ll = np.log([0.2, 0.3, 0.6])
    res = ldp.g_leakage(np.eye(3), prior, ll)
    post = prior * np.exp(ll) / np.sum(prior * np.exp(ll))
    assert res.prior_vulnerability == pytest.approx(0.5)
    assert res.posterior_vulnerability == pytest.approx(post.max())
    assert res.leakage == pytest.approx(math.log(post.max() / 0.5))
    assert res.bound == pytest.approx(math.log(3.0))
    with pytest.raises(ValueError, match="gain"):
        ldp.g_leakage(-np.eye(3), prior, ll)
    with pytest.raises(ValueError, match="gain"):
        ldp.g_leakage(np.eye(2), prior, ll)
    with pytest.raises(ValueError, match="gain"):
        ldp.g_leakage(np.zeros((1, 3)), prior, ll)


# --- filters ----------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [ldp.BayesianPrivacyFilter, ldp.SimplifiedBayesianFilter])
def test_filter_bad_construction(cls):
    for b in (0.0, -1.0, math.nan):
        with pytest.raises(ValueError, match="budget"):
            cls(b, domain_size=2)
    with pytest.raises(ValueError, match="domain_size"):
        cls(1.0, domain_size=0)
    with pytest.raises(ValueError, match="log_likelihood"):
        cls(1.0, domain_size=2, log_likelihood=[0.0])


@pytest.mark.parametrize("cls", [ldp.BayesianPrivacyFilter, ldp.SimplifiedBayesianFilter])
def test_filter_basic_flow(cls):
    f = cls(2.0, domain_size=2)
    rr = ldp.randomized_response(1.0)
    assert f.loss == 0.0 and f.remaining == 2.0
    assert f.would_accept(rr)
    assert f.submit(rr, 1) == pytest.approx(1.0)
    assert f.submit(rr, 1) == pytest.approx(2.0)
    assert not f.would_accept(rr)
    with pytest.raises(ldp.QueryRejected):
        f.submit(rr, 0)
    with pytest.raises(ValueError, match="table"):
        f.would_accept(ldp.randomized_response(1.0, domain_size=3))
    with pytest.raises(ValueError, match="table"):
        f.would_accept([[0.5, 0.6], [0.5, 0.5]])
    np.testing.assert_allclose(f.log_likelihood, 2 * np.log([1 / (1 + math.e), math.e / (1 + math.e)]))
    assert len(f.history) == 2


def test_bpf_look_ahead_and_zero_probabilities():
    f = ldp.BayesianPrivacyFilter(5.0, domain_size=3)
    # output 2 never occurs (ignored), output 0 impossible for x = 2 only → ℓ = ∞ → reject
    q = ldp.likelihood_table([[0.5, 0.5, 0.0], [0.4, 0.6, 0.0], [0.0, 1.0, 0.0]])
    la = f.look_ahead(q)
    assert la[0] == math.inf and math.isnan(la[2])
    assert not f.would_accept(q)
    ok = ldp.likelihood_table([[0.5, 0.5, 0.0], [0.4, 0.6, 0.0], [0.45, 0.55, 0.0]])
    assert f.would_accept(ok)
    assert f.worst_case(ok) == pytest.approx(max(math.log(0.5 / 0.4), math.log(0.6 / 0.5)))
    with pytest.raises(ValueError, match="cannot occur"):
        f.submit(ok, 2)


def test_bpf_equality_is_accepted():
    rr = ldp.randomized_response(LN15)
    f = ldp.BayesianPrivacyFilter(2 * LN15, domain_size=2)
    f.submit(rr, 1)
    assert f.would_accept(rr)  # worst branch lands exactly on the budget
    f2 = ldp.BayesianPrivacyFilter(2 * LN15, domain_size=2, tolerance=0.0, log_likelihood=[0.0, LN15 + 1e-9])
    assert not f2.would_accept(rr)


def test_filter_copy_is_independent():
    f = ldp.BayesianPrivacyFilter(3.0, domain_size=2)
    g = f.copy()
    g.submit(ldp.randomized_response(1.0), 0)
    assert f.loss == 0.0 and len(f.history) == 0 and g.loss == pytest.approx(1.0)


def test_simplified_declared_epsilon():
    f = ldp.SimplifiedBayesianFilter(1.0, domain_size=2)
    rr = ldp.randomized_response(0.5)
    assert f.would_accept(rr, epsilon=1.0)
    assert not f.would_accept(rr, epsilon=1.2)
    with pytest.raises(ValueError, match="epsilon"):
        f.would_accept(rr, epsilon=0.3)


def test_approximate_filter_experimental():
    assert ldp.ApproximateBayesianFilter.experimental is True
    with pytest.raises(ValueError, match="delta"):
        ldp.ApproximateBayesianFilter(1.0, 1.0, domain_size=2)
    f = ldp.ApproximateBayesianFilter(2.0, 1e-6, domain_size=2)
    rr = ldp.randomized_response(1.0)
    f.submit(rr, 1)
    f.submit(rr, 0)  # output-independent (basic composition) mode: Σε = 2
    assert f.mode == "OI" and f.spent == (2.0, 0.0)
    assert f.would_accept(rr)  # OI halts; ℓ(r) = 0 ≤ 2 → Bayesian mode
    assert f.mode == "BAYES"
    f.submit(rr, 1)
    f.submit(rr, 1)
    assert f.loss == pytest.approx(2.0) and not f.would_accept(rr)


# --- interactions and helpers -----------------------------------------------------------------


def test_enumerate_interaction_simple_rr():
    rr = ldp.randomized_response(1.0)
    tree = ldp.enumerate_interaction(
        lambda h: rr if len(h) < 8 else None, ldp.BayesianPrivacyFilter(2.0, domain_size=2)
    )
    # accepted until |n1 − n0| = 2 (or 8 queries): the walk only stops at even lengths
    np.testing.assert_allclose(tree.total_probability, 1.0, atol=1e-12)
    assert tree.max_loss == pytest.approx(2.0)
    assert set(tree.lengths % 2) == {0} and tree.lengths.max() == 8
    # absorbed at 2, 4, 6: 2·1, 2·2, 2·4 paths; at 8: 2·8 absorbed + 2^4 undecided when the adversary stops
    assert len(tree.outputs) == 2 + 4 + 8 + 32
    with pytest.raises(ValueError, match="max_transcripts"):
        ldp.enumerate_interaction(lambda h: rr, ldp.BayesianPrivacyFilter(10.0, domain_size=2), max_transcripts=5)
    with pytest.raises(ValueError, match="true_value"):
        tree.expected_length(5)


def test_composition_output_losses_rr():
    eps = 0.6
    rr = ldp.randomized_response(eps)
    df = ldp.composition_output_losses([rr] * 4, true_value=1)
    assert len(df) == 16
    for pat, loss in zip(df["pattern"], df["loss"], strict=True):
        n1 = sum(pat)
        assert loss == pytest.approx(eps * abs(n1 - (4 - n1)), abs=1e-12)
    assert df["probability"].sum() == pytest.approx(1.0)
    np.testing.assert_allclose(df["basic"], 4 * eps)
    with pytest.raises(ValueError, match="max_patterns"):
        ldp.composition_output_losses([rr] * 4, max_patterns=8)


def test_acceptance_regions():
    ll = np.log([0.1, 0.2, 0.15, 0.3])
    df = ldp.acceptance_regions(ll, 1.5, epsilons=[0.2, 0.5, 1.0], slopes=[0.0, 0.5, 1.0])
    assert len(df) == 9
    assert (~df["simplified"] | df["bayesian"]).all()
    assert df["bayesian"].sum() > df["simplified"].sum()
    with pytest.raises(ValueError, match="epsilons"):
        ldp.acceptance_regions(ll, 1.0, epsilons=[0.0], slopes=[1.0])
    with pytest.raises(ValueError, match="budget"):
        ldp.acceptance_regions(ll, 0.0, epsilons=[1.0], slopes=[1.0])


def test_simulate_accepted_counts_shapes_and_bad():
    rr = ldp.randomized_response(1.0)
    df = ldp.simulate_accepted_counts(rr, 3.0, true_value=1, n_runs=20, rng=0)
    assert list(df.columns) == ["run", "method", "accepted", "final_loss", "basic_composition"]
    assert (df["accepted"] >= 3).all() and (df["basic_composition"] == 3).all()
    assert (df["final_loss"] <= 3.0 + 1e-12).all()
    basic = ldp.simulate_accepted_counts(rr, 3.0, true_value=1, n_runs=2, method="basic")
    assert (basic["accepted"] == 3).all()
    simp = ldp.simulate_accepted_counts(rr, 3.0, true_value=1, n_runs=2, method="simplified", rng=0)
    assert (simp["accepted"] >= 3).all()
    with pytest.raises(ValueError, match="method"):
        ldp.simulate_accepted_counts(rr, 3.0, true_value=1, method="x")
    with pytest.raises(ValueError, match="true_value"):
        ldp.simulate_accepted_counts(rr, 3.0, true_value=2)


def test_rr_closed_forms():
    assert ldp.rr_expected_accepted(2.0, 1.0) == 0.0
    # m = 1: exactly one query is accepted
    assert ldp.rr_expected_accepted(1.0, 1.5) == pytest.approx(1.0)
    pmf = ldp.rr_accepted_pmf(1.0, 4.0)
    assert pmf["probability"].sum() == pytest.approx(1.0, abs=1e-12)
    assert float((pmf["accepted"] * pmf["probability"]).sum()) == pytest.approx(ldp.rr_expected_accepted(1.0, 4.0))
    with pytest.raises(ValueError, match="epsilon"):
        ldp.rr_expected_accepted(0.0, 1.0)
    with pytest.raises(ValueError, match="budget"):
        ldp.rr_accepted_pmf(1.0, -1.0)


def test_unbiased_walk_hitting_time_limit():
    # as ε → 0 the walk is symmetric: hitting time of ±m from 0 is m² (gambler's ruin)
    assert ldp.rr_expected_accepted(1e-7, 5e-7 + 1e-15) == pytest.approx(25.0, rel=1e-5)


def test_examples_return_types():
    assert isinstance(ldp.example1(), ldp.Example1)
    assert isinstance(ldp.example2().table, pd.DataFrame)
    assert len(ldp.example3()) == 6
    with pytest.raises(ValueError, match="outputs"):
        ldp.example2(outputs=(2,))
    with pytest.raises(ValueError, match="n"):
        ldp.example1(n=0)
    with pytest.raises(ValueError, match="filter"):
        ldp.example3_transcripts(filter="x")


# --- regressions, DC, branch-and-bound --------------------------------------------------------


def _p_high(q: ldp.RegressionQuery, x: np.ndarray) -> np.ndarray:
    """Independent Eq. 5 evaluation from the query value."""
    e = math.exp(q.epsilon)
    raw = x @ q.theta[1:] + q.theta[0]
    if q.kind == "logistic":
        v = 1 / (1 + np.exp(-raw))
    elif q.kind == "truncated":
        v = np.minimum(np.maximum(raw, q.low), q.high)
    else:
        v = raw
    return 1 / (e + 1) + (v - q.low) / (q.high - q.low) * (e - 1) / (e + 1)


@pytest.mark.parametrize(
    "make",
    [
        lambda th: ldp.linear_regression_query(th / np.abs(th).sum(), epsilon=0.9),
        lambda th: ldp.truncated_regression_query(3 * th, epsilon=1.3, low=-1.0, high=2.0),
        lambda th: ldp.logistic_regression_query(2 * th, epsilon=0.7),
    ],
)
def test_regression_terms_match_eq5(make):
    rng = np.random.default_rng(3)
    q = make(rng.uniform(-1, 1, 4))
    x = rng.uniform(-1, 1, (50, 3))
    ph = _p_high(q, x)
    np.testing.assert_allclose(np.exp(q.term(1).log_prob(x)), ph, rtol=1e-12)
    np.testing.assert_allclose(np.exp(q.term(0).log_prob(x)), 1 - ph, rtol=1e-12)
    assert q.term(q.high).output == 1 and q.term(q.low).output == 0
    with pytest.raises(ValueError, match="output"):
        q.term(7)


def test_regression_query_bad():
    with pytest.raises(ValueError, match="theta"):
        ldp.linear_regression_query([1.0], epsilon=1.0)
    with pytest.raises(ValueError, match="epsilon"):
        ldp.logistic_regression_query([1.0, 2.0], epsilon=0.0)
    with pytest.raises(ValueError, match="high"):
        ldp.truncated_regression_query([1.0, 2.0], epsilon=1.0, low=1.0, high=0.0)


def test_regression_sample():
    q = ldp.logistic_regression_query([0.0, 1.0], epsilon=1.0)
    assert q.sample([0.3], rng=0) in (0, 1)


def test_minimize_dc_bad_inputs():
    q = ldp.logistic_regression_query([0.0, 1.0, 1.0], epsilon=1.0)
    t = [q.term(1)]
    with pytest.raises(ValueError, match="sign"):
        ldp.minimize_dc(t, [0, 0], [1, 1], sign=0)
    with pytest.raises(ValueError, match="upper"):
        ldp.minimize_dc(t, [0, 0], [1, -1])
    with pytest.raises(ValueError, match="terms"):
        ldp.minimize_dc(t, [0], [1])
    with pytest.raises(ValueError, match="terms"):
        ldp.minimize_dc([], [0, 0], [1, 1])
    with pytest.raises(ValueError, match="tol"):
        ldp.minimize_dc(t, [0, 0], [1, 1], tol=0)
    lin = ldp.linear_regression_query([0.0, 3.0, 0.0], epsilon=1.0, low=-1, high=1)
    with pytest.raises(ValueError, match="terms"):
        ldp.minimize_dc([lin.term(1)], [-1, -1], [1, 1])


def test_minimize_dc_fixed_box_and_max_nodes():
    q = ldp.logistic_regression_query([0.2, 1.0, -2.0], epsilon=1.0)
    t = [q.term(1), q.term(0)]
    res = ldp.minimize_dc(t, [0.3, 0.4], [0.3, 0.4])
    exact = float(sum(tm.log_prob(np.array([0.3, 0.4])) for tm in t))
    assert res.lower == pytest.approx(exact, abs=1e-12) and res.upper == pytest.approx(exact, abs=1e-12)
    few = ldp.minimize_dc([q.term(1)] * 3 + [q.term(0)] * 2, [-1, -1], [1, 1], tol=1e-12, max_nodes=3)
    assert not few.converged and few.lower <= few.upper


def test_single_term_loss_vs_grid():
    q = ldp.truncated_regression_query([0.5, 2.0, -1.0], epsilon=1.0, low=0.0, high=1.0)
    g = np.linspace(-1, 1, 201)
    X = np.stack(np.meshgrid(g, g), -1).reshape(-1, 2)
    for y in (0, 1):
        ll = q.term(y).log_prob(X)
        assert ldp.single_term_loss(q.term(y), [-1, -1], [1, 1]) == pytest.approx(ll.max() - ll.min(), abs=1e-12)


def test_grouped_realized_loss():
    rng = np.random.default_rng(0)
    rows = np.log(rng.uniform(0.2, 0.8, (7, 5)))
    exact = ldp.realized_loss(rows.sum(axis=0))
    assert ldp.grouped_realized_loss(rows, group_size=7) == pytest.approx(exact)
    assert ldp.grouped_realized_loss(rows, group_size=1) == pytest.approx(sum(r.max() - r.min() for r in rows))
    with pytest.raises(ValueError, match="group_size"):
        ldp.grouped_realized_loss(rows, group_size=0)
    with pytest.raises(ValueError, match="log_likelihoods"):
        ldp.grouped_realized_loss(rows[0], group_size=1)


def test_regression_filter_flow_and_bad():
    f = ldp.RegressionFilter(3.0, lower=[-1, -1], upper=[1, 1], group_size=2, tol=1e-4)
    q = ldp.logistic_regression_query([0.1, 0.5, -0.7], epsilon=1.0)
    assert f.loss == 0.0
    la = f.look_ahead(q)
    assert la.shape == (2,) and np.all(la <= 1.0 + 1e-9)
    f.submit(q, 1)
    f.submit(q, 1)
    assert f.closed_loss > 0 and f.open_terms == []
    assert f.loss <= 2.0 + 1e-9
    with pytest.raises(ValueError, match="query"):
        f.look_ahead(ldp.logistic_regression_query([0.1, 0.5], epsilon=1.0))
    with pytest.raises(ValueError, match="method"):
        ldp.RegressionFilter(1.0, lower=[0], upper=[1], method="x")
    ex = ldp.RegressionFilter(1.0, lower=[0], upper=[1], method="exact_linear")
    with pytest.raises(ValueError, match="linear"):
        ex.look_ahead(ldp.logistic_regression_query([0.1, 0.5], epsilon=1.0))
    with pytest.raises(ValueError, match="budget"):
        ldp.RegressionFilter(0.0, lower=[0], upper=[1])


def test_regression_experiment_small_and_bad():
    df = ldp.regression_experiment("linear", budgets=[1, 2, 3], n_runs=2, dimension=2, rng=0)
    assert set(df.columns) == {"run", "budget", "accepted", "basic"}
    assert (df["accepted"] >= df["basic"]).all()
    with pytest.raises(ValueError, match="kind"):
        ldp.regression_experiment("probit")
    with pytest.raises(ValueError, match="budgets"):
        ldp.regression_experiment("linear", budgets=[0.0])


def test_regression_loss_paths_are_the_experiment_streams():
    """Fig. 1(a)/(c) paths: the same runs as the Fig. 1(b)/(d) counts (same seed), loss within budget and basic."""
    paths = ldp.regression_loss_paths("linear", budget=3.0, n_runs=4, dimension=2, group_size=3, rng=7)
    counts = ldp.regression_experiment("linear", budgets=[3.0], n_runs=4, dimension=2, group_size=3, rng=7)
    assert list(paths.columns) == ["run", "accepted", "loss", "basic"]
    assert paths.groupby("run")["accepted"].max().tolist() == counts["accepted"].tolist()
    assert (paths["loss"] <= 3.0 + 1e-12).all() and (paths["loss"] <= paths["basic"] + 1e-9).all()
    np.testing.assert_array_equal(paths["basic"], paths["accepted"] * 1.0)
    with pytest.raises(ValueError, match="budget"):
        ldp.regression_loss_paths("linear", budget=-1.0)


def test_regression_loss_paths_match_a_grid_search():
    """Ungrouped linear paths in 2-D equal the realized loss of the accepted prefix, recomputed from Eq. 5 on a
    dense grid (the minimum sits at a vertex, which the grid contains; the maximum is smooth)."""
    eps, seed = 1.0, 11
    paths = ldp.regression_loss_paths(
        "linear", budget=4.0, n_runs=1, dimension=2, epsilon=eps, group_size=1000, rng=seed
    )
    gen = np.random.default_rng(seed)  # replay the stream: θ then the answer's uniform draw, per accepted query
    g = np.linspace(-1.0, 1.0, 401)
    xx, yy = np.meshgrid(g, g)
    log_lam = np.zeros(xx.shape)
    e = math.exp(eps)
    for loss in paths["loss"]:
        theta = gen.uniform(-1.0, 1.0, 3)
        theta /= np.abs(theta).sum()
        p_high_at = lambda a, b, theta=theta: (  # noqa: E731
            1 / (e + 1) + ((theta[0] + theta[1] * a + theta[2] * b) + 1) / 2 * (e - 1) / (e + 1)
        )
        high = gen.random() < p_high_at(0.0, 0.0)
        p = p_high_at(xx, yy)
        log_lam += np.log(p if high else 1 - p)
        grid_loss = float(log_lam.max() - log_lam.min())
        assert grid_loss - 1e-9 <= loss <= grid_loss + 1e-4
    assert len(paths) >= 4  # at least basic composition's ⌊4/1⌋ queries


def test_healthcare_queries_domain():
    qs, lo, hi = ldp.healthcare_queries()
    assert set(qs) == {"heart", "stroke", "diabetes", "sleep"}
    np.testing.assert_allclose(lo, [10, 0, 50, 10])
    np.testing.assert_allclose(hi, [100, 1, 200, 50])
    # mock predictions of Sec. 6.3 recomputed by hand from Table I (heart 0.9368 / 0.4445, stroke 0.0060 / 0.0276;
    # the paper prints stroke 0.06 for ID 0, a misprint of 0.006)
    p0 = np.array([34, 0, 110, 18.0])
    p1 = np.array([52, 1, 140, 23.0])
    assert float(qs["heart"].value(p0)) == pytest.approx(0.9368, abs=1e-4)
    assert float(qs["heart"].value(p1)) == pytest.approx(0.4445, abs=1e-4)
    assert float(qs["stroke"].value(p0)) == pytest.approx(0.0060, abs=1e-4)
    assert float(qs["stroke"].value(p1)) == pytest.approx(0.0276, abs=1e-4)


def test_vertex_helper_covers_cube():
    v = ldp.regression_filter._vertices(np.zeros(3), np.ones(3))
    assert {tuple(r) for r in v} == set(itertools.product((0.0, 1.0), repeat=3))


def test_secant_relaxation_below_function():
    q = ldp.logistic_regression_query([0.0, 1.0], epsilon=1.0)
    for sign in (1, -1):
        df = ldp.secant_relaxation(q.term(0), -4.0, 3.0, sign=sign)
        assert (df["V_secant"] >= df["V"] - 1e-12).all()
        assert (df["relaxed"] <= sign * df["f"] + 1e-12).all()
    with pytest.raises(ValueError, match="z_high"):
        ldp.secant_relaxation(q.term(0), 1.0, 1.0)
    lin = ldp.linear_regression_query([0.0, 0.5], epsilon=1.0)
    with pytest.raises(ValueError, match="z_low"):
        ldp.secant_relaxation(lin.term(1), -0.1, 0.5)


def test_filter_timeline_example3():
    tabs = [ldp.running_example_query(i) for i in range(1, 7)]
    df = ldp.filter_timeline(tabs, math.log(2.25), true_value=0, outputs=[1, 0, 1, 1])
    ref = ldp.example3()
    np.testing.assert_allclose(df["loss"][:4], ref["loss_after"][:4], atol=1e-12)
    assert df["accepted"].tolist() == [True] * 4 + [False] * 2
    assert df["basic_accepted"].tolist() == [True, True] + [False] * 4
    np.testing.assert_allclose(df["worst_case"], np.maximum(ref["loss_if_0"], ref["loss_if_1"]), atol=1e-12)
    with pytest.raises(ValueError, match="outputs"):
        ldp.filter_timeline(tabs, math.log(2.25), true_value=0, outputs=[1])
    with pytest.raises(ValueError, match="true_value"):
        ldp.filter_timeline(tabs, 1.0, true_value=11)


# --- regression tests: large losses and large ε ------------------------------------------------


def _mp_lemma32_log_gain(log_pa: float, log_pb: float, alpha: float) -> float:
    """ln of the App.-A.3 gain p_a / (α p_a + (1−α) p_b), in 60-digit arithmetic (independent of dpcore)."""
    with mpmath.workdps(60):
        pa, pb, a = mpmath.exp(log_pa), mpmath.exp(log_pb), mpmath.mpf(alpha)
        return float(mpmath.log(pa / (a * pa + (1 - a) * pb)))


@pytest.mark.parametrize("loss", [5.0, 709.5, 800.0, 1e4])
@pytest.mark.parametrize("alpha", [1e-6, 0.3])
def test_lemma32_large_loss_is_computed_in_log_space(loss, alpha):
    """Regression: e^ℓ overflowed (OverflowError) for ℓ > 709; the log-scale fields must be exact."""
    ll = np.array([-3.0, -3.0 - loss, -3.0 - loss / 2])
    sup = ldp.lemma32_construction(ll, alpha=alpha)
    assert (sup.x_a, sup.x_b) == (0, 1)
    assert sup.log_bound == pytest.approx(loss, rel=1e-15)
    assert sup.log_gain == pytest.approx(_mp_lemma32_log_gain(-3.0, -3.0 - loss, alpha), rel=1e-13)
    assert sup.log_gain <= sup.log_bound  # Lemma 3.1
    # ratio fields: e^ℓ where representable, +inf (float overflow) beyond; the gain agrees with Bayes' rule
    assert sup.bound == pytest.approx(float(mpmath.exp(loss)), rel=1e-12)  # float() of e^800 is +inf
    assert (sup.bound == math.inf) == (loss > 709.79)
    assert sup.gain == pytest.approx(ldp.knowledge_gain(sup.statement, sup.prior, ll), rel=1e-12)
    assert sup.gain == pytest.approx(math.exp(sup.log_gain), rel=1e-15)
    inf = ldp.lemma32_construction(ll, alpha=alpha, direction="inf")
    assert (inf.x_a, inf.x_b) == (1, 0)
    assert inf.log_bound == pytest.approx(-loss, rel=1e-15)
    assert inf.log_gain == pytest.approx(_mp_lemma32_log_gain(-3.0 - loss, -3.0, alpha), rel=1e-13)
    assert inf.log_gain >= inf.log_bound
    assert inf.bound == pytest.approx(math.exp(-loss), rel=1e-12, abs=0)
    assert inf.gain == pytest.approx(math.exp(inf.log_gain), rel=1e-12, abs=0)


def test_lemma32_zero_probability_and_flat():
    res = ldp.lemma32_construction([0.0, -math.inf], alpha=1e-3)
    assert res.log_bound == math.inf and res.bound == math.inf
    assert res.log_gain == pytest.approx(-math.log(1e-3)) and res.gain == pytest.approx(1e3)
    low = ldp.lemma32_construction([0.0, -math.inf], alpha=1e-3, direction="inf")
    assert low.log_gain == -math.inf and low.gain == 0.0 and low.log_bound == -math.inf
    flat = ldp.lemma32_construction([-2.0, -2.0, -2.0])
    assert (flat.gain, flat.bound, flat.log_gain, flat.log_bound) == (1.0, 1.0, 0.0, 0.0)


def _mp_two_point_log_prob(eps: float, t: float) -> tuple[float, float]:
    """(ln Pr[low], ln Pr[high]) of Eq. 5 at relative position t, in 60-digit arithmetic."""
    with mpmath.workdps(60):
        e, tt = mpmath.exp(mpmath.mpf(eps)), mpmath.mpf(t)
        p_hi = (1 + tt * (e - 1)) / (e + 1)
        p_lo = (1 + (1 - tt) * (e - 1)) / (e + 1)
        return float(mpmath.log(p_lo)), float(mpmath.log(p_hi))


@pytest.mark.parametrize("eps", [1e-6, 0.7, 12.0, 20.0, 30.0, 40.0, 100.0, 800.0])
def test_two_point_log_probabilities_accurate_for_large_epsilon(eps):
    """Regression: 1 − p_high cancelled catastrophically (−inf at ε ≳ 37, wrong by 1e-4 at ε = 30)."""
    v = np.array([0.0, 1e-9, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0 - 1e-9, 1.0])
    t = ldp.two_point(eps, v)
    expected = np.array([_mp_two_point_log_prob(eps, float(x)) for x in v])
    np.testing.assert_allclose(t.log_prob, expected, rtol=1e-12, atol=1e-15 * max(1.0, eps))
    assert t.epsilon == pytest.approx(eps, rel=1e-13)
    np.testing.assert_allclose(t.probabilities.sum(axis=1), 1.0, atol=1e-14)


@pytest.mark.parametrize("eps", [10.0, 12.0, 15.0, 20.0, 30.0, 37.5, 50.0, 75.0, 100.0])
def test_simplified_accepts_declared_tight_epsilon_for_large_two_point_queries(eps):
    """Regression: a declared ε equal to the tight ε was refused (fixed 1e-12 tolerance) for ε ≳ 10."""
    n = 11
    for slope in np.linspace(0.0, 1.0, 21):
        for intercept in (0.0, 0.05):
            tab = ldp.two_point(eps, np.clip(intercept + slope * np.arange(n) / (n - 1), 0.0, 1.0))
            for budget in (eps, 2.0 * eps):
                sbf = ldp.SimplifiedBayesianFilter(budget, domain_size=n)
                bpf = ldp.BayesianPrivacyFilter(budget, domain_size=n)
                assert sbf.would_accept(tab, epsilon=eps)
                assert bpf.would_accept(tab)


def test_budget_decisions_are_exact_not_tolerant():
    """No round-off allowance: a tight ε 1.5e-12 above the budget is refused; one exactly on it is accepted.

    A declared ε within round-off below the computed tight level is still a valid declaration (no error), but it
    buys nothing: the decision uses the larger, exact level."""
    eps = 50.0
    hi, lo = -1e-20, -1e-20 - eps * (1 + 3e-14)  # tight ε = ε(1+3e-14): 1.5e-12 above ε, a rounding-size gap
    tab = ldp.LikelihoodTable(np.array([[hi, lo], [lo, hi]]), (0, 1))
    assert Fraction(hi) - Fraction(lo) > Fraction(eps)
    sbf = ldp.SimplifiedBayesianFilter(eps, domain_size=2)
    assert not sbf.would_accept(tab, epsilon=eps)
    assert not ldp.BayesianPrivacyFilter(eps, domain_size=2).would_accept(tab)
    on = ldp.LikelihoodTable(np.array([[0.0, -eps], [-eps, 0.0]]), (0, 1))  # tight ε = 50 exactly
    assert sbf.would_accept(on) and sbf.would_accept(on, epsilon=eps)
    assert ldp.BayesianPrivacyFilter(eps, domain_size=2).would_accept(on)
    # a real excess of 1e-9 relative (5e-8 absolute) is not round-off: the declaration is an error
    big = ldp.LikelihoodTable(np.array([[hi, -eps * (1 + 1e-9)], [-eps * (1 + 1e-9), hi]]), (0, 1))
    with pytest.raises(ValueError, match="epsilon"):
        sbf.would_accept(big, epsilon=eps)
    assert not sbf.would_accept(big)
    assert not ldp.BayesianPrivacyFilter(eps, domain_size=2).would_accept(big)
    # infinite tight level: any finite declaration is refused, the query is rejected
    zero = ldp.likelihood_table([[1.0, 0.0], [0.5, 0.5]])
    with pytest.raises(ValueError, match="epsilon"):
        sbf.would_accept(zero, epsilon=1e300)
    assert not sbf.would_accept(zero, epsilon=math.inf)


def test_bpf_decisions_exact_at_large_log_likelihoods():
    """A state far from 0 (|ln Λ| ~ 1e5): the decision is the exact one, whatever the round-off of ulp(|ln Λ|)."""
    rr = ldp.randomized_response(0.3)
    rr_loss = Fraction(float(rr.log_prob[0, 0])) - Fraction(float(rr.log_prob[1, 0]))
    assert rr_loss <= Fraction(0.3)  # a mechanism built for ε has exact loss ≤ ε
    for offset in (-1e4, -3e4, -1e5, -1e5 - 1 / 3):
        state = np.array([offset, offset + 0.6])  # the stored gap is 0.6 up to ulp(1e5) ≈ 1.5e-11
        gap = Fraction(float(state[1])) - Fraction(float(state[0]))
        for budget in (0.9, float(gap + rr_loss), math.nextafter(float(gap + rr_loss), 0.0)):
            exact = gap + rr_loss <= Fraction(budget)
            bpf = ldp.BayesianPrivacyFilter(budget, domain_size=2, log_likelihood=state)
            sbf = ldp.SimplifiedBayesianFilter(budget, domain_size=2, log_likelihood=state)
            assert bpf.would_accept(rr) is exact and sbf.would_accept(rr) is exact, (offset, budget)
            if not exact:  # a declared ε (0.3 ≥ the exact loss) never buys what the tight level cannot
                assert not sbf.would_accept(rr, epsilon=0.3)
    # a gap stored exactly (−9999.5 − (−10000) = 0.5): equality at 0.5 + loss is accepted despite the magnitude
    state = np.array([-1e4, -1e4 + 0.5])
    budget = float(Fraction(0.5) + rr_loss)
    if Fraction(budget) == Fraction(0.5) + rr_loss:
        assert ldp.BayesianPrivacyFilter(budget, domain_size=2, log_likelihood=state).would_accept(rr)


def test_acceptance_regions_full_epsilon_range():
    """The app's panel-8 grid up to ε = 2·max budget (100) runs, and Simplified ⇒ BPF everywhere."""
    ll = np.log(np.linspace(0.05, 0.3, 11))
    for budget in (0.5, 10.0, 50.0):
        df = ldp.acceptance_regions(
            ll, budget, epsilons=np.geomspace(0.02, 2 * budget, 24), slopes=np.linspace(0, 1, 21)
        )
        assert (~df["simplified"] | df["bayesian"]).all()
        assert np.isfinite(df["query_loss"]).all()
        full = df[df["slope"] == 1.0]  # v(x) spans [0, 1]: tight ε = declared ε
        np.testing.assert_allclose(full["query_loss"], full["epsilon"], rtol=1e-13)
        loss = ldp.realized_loss(ll)
        fits = df["epsilon"] <= budget - loss
        assert df.loc[fits & (df["slope"] == 1.0), "simplified"].all()


def test_fully_utilizes_def_3_3():
    """Def. 3.3: a query fully utilizes its budget iff every output realizes ℓ(y) = ε. Randomized response does
    (binary and k-ary, Sec. 3.3); a two-point query whose values stay inside (0, 1) does not; an output that is
    impossible for some value (ℓ = ∞) fully utilizes only an infinite budget."""
    assert ldp.fully_utilizes(ldp.randomized_response(1.0))
    assert ldp.fully_utilizes(ldp.randomized_response(0.7, domain_size=5))
    assert ldp.fully_utilizes(ldp.randomized_response(0.7), epsilon=0.7)
    assert not ldp.fully_utilizes(ldp.randomized_response(0.7), epsilon=0.8)
    inner = ldp.two_point(1.0, [0.2, 0.5, 0.7])
    assert not ldp.fully_utilizes(inner)
    assert ldp.fully_utilizes(ldp.two_point(1.0, [0.0, 0.4, 1.0]))  # both ends reached: every output realizes ε
    half = ldp.likelihood_table([[1.0, 0.0], [0.5, 0.5]])
    assert not ldp.fully_utilizes(half)  # output 0: ℓ = ln 2; output 1: ℓ = ∞
    assert ldp.fully_utilizes(ldp.likelihood_table([[1.0, 0.0], [0.0, 1.0]]))  # both outputs: ℓ = ∞ = ε
    # the definition against the realized losses the tables report
    for t in (ldp.randomized_response(0.3, domain_size=4), inner):
        assert ldp.fully_utilizes(t) == bool(np.allclose(t.output_losses, t.epsilon, rtol=0, atol=0))
