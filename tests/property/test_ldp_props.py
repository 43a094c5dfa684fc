"""Property tests (hypothesis) of dpcore.ldp: invariants of the realized loss, Lemma 3.1, and the filter
never admitting a transcript over budget (exhaustive enumeration for small k; Thm 4.1, Thm 4.2)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore import ldp

FAST = settings(max_examples=60, deadline=None)
SLOW = settings(max_examples=10, deadline=None)
seeds = st.integers(0, 2**32 - 1)


def _random_table(rng: np.random.Generator, n: int, n_out: int, zeros: bool = False) -> ldp.LikelihoodTable:
    p = rng.dirichlet(np.full(n_out, rng.uniform(0.3, 3.0)), size=n)
    if zeros and rng.random() < 0.3:
        p[rng.integers(n), rng.integers(n_out)] = 0.0
        p = p / p.sum(axis=1, keepdims=True)
    return ldp.likelihood_table(p)


@FAST
@given(ll=st.lists(st.floats(-50, 0), min_size=1, max_size=30), shift=st.floats(-20, 20))
def test_realized_loss_shift_permutation_invariant(ll, shift):
    a = np.array(ll)
    loss = ldp.realized_loss(a)
    assert loss >= 0
    assert math.isclose(ldp.realized_loss(a + shift), loss, abs_tol=1e-9)
    assert math.isclose(ldp.realized_loss(a[::-1]), loss, abs_tol=1e-12)
    assert math.isclose(loss, max(a) - min(a), abs_tol=1e-12)


@FAST
@given(seed=seeds)
def test_lemma31_band_and_gleakage(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 9))
    lik = rng.uniform(1e-3, 1, n)
    prior = rng.dirichlet(np.ones(n))
    phi = rng.uniform(0, 1, n)
    ll = np.log(lik)
    L = ldp.realized_loss(ll)
    gain = ldp.knowledge_gain(phi, prior, ll)
    assert math.exp(-L) * (1 - 1e-12) <= gain <= math.exp(L) * (1 + 1e-12)
    res = ldp.g_leakage(rng.uniform(0, 1, (3, n)), prior, ll)
    assert abs(res.leakage) <= L + 1e-12
    post = ldp.posterior(prior, ll)
    assert math.isclose(post.sum(), 1.0, abs_tol=1e-12) and np.all(post >= 0)


@FAST
@given(eps=st.floats(0.01, 20), k=st.integers(2, 30))
def test_rr_rows_sum_and_full_utilisation(eps, k):
    t = ldp.randomized_response(eps, domain_size=k)
    np.testing.assert_allclose(t.probabilities.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(t.output_losses, eps, rtol=1e-9)


@FAST
@given(eps=st.floats(0.01, 10), seed=seeds)
def test_two_point_is_eps_ldp(eps, seed):
    rng = np.random.default_rng(seed)
    t = ldp.two_point(eps, rng.uniform(0, 1, 12))
    assert t.epsilon <= eps + 1e-9
    assert np.all(t.probabilities >= 1 / (math.exp(eps) + 1) - 1e-12)


@FAST
@given(seed=seeds)
def test_simplified_accept_implies_bpf_accept(seed):
    """Thm 4.2: whenever the Simplified filter accepts, the full BPF accepts."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    ll = np.log(rng.uniform(0.05, 1, n))
    budget = float(ldp.realized_loss(ll) + rng.uniform(0.01, 2))
    t = _random_table(rng, n, int(rng.integers(2, 4)))
    bpf = ldp.BayesianPrivacyFilter(budget, domain_size=n, log_likelihood=ll)
    sbf = ldp.SimplifiedBayesianFilter(budget, domain_size=n, log_likelihood=ll)
    if sbf.would_accept(t):
        assert bpf.would_accept(t)
    # the look-ahead never exceeds the Simplified bound ℓ(r) + ε_q (Eq. 16)
    assert bpf.worst_case(t) <= ldp.realized_loss(ll) + t.epsilon + 1e-12


def _adaptive_adversary(pool, seed):
    """Deterministic adaptive adversary: the next query depends on the whole history (hash of outputs)."""

    def choose(hist):
        if len(hist) >= 5:
            return None
        key = hash((seed, tuple(y for _, y in hist))) % len(pool)
        return pool[key]

    return choose


@SLOW
@given(seed=seeds)
def test_bpf_never_admits_transcript_over_budget(seed):
    """Thm 4.1: exhaustive transcript trees for random queries and adaptive adversaries: every transcript has
    ℓ(r) ≤ ε_G and Pr[I(x)=r] ≤ e^{ε_G} Pr[I(x')=r] (Def. 4.1), probabilities sum to 1 for every x."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 5))
    pool = [_random_table(rng, n, int(rng.integers(2, 4)), zeros=True) for _ in range(4)]
    budget = float(rng.uniform(0.2, 2.5))
    for cls in (ldp.BayesianPrivacyFilter, ldp.SimplifiedBayesianFilter):
        tree = ldp.enumerate_interaction(_adaptive_adversary(pool, seed), cls(budget, domain_size=n))
        p = np.exp(tree.log_prob)
        np.testing.assert_allclose(p.sum(axis=0), 1.0, atol=1e-10)
        # independent of realized_loss: pairwise probability ratios straight from the tree
        ratio = p.max(axis=1) / p.min(axis=1)
        assert np.all(ratio <= math.exp(budget) * (1 + 1e-10))


@SLOW
@given(seed=seeds)
def test_dry_run_adversary_tree_within_budget(seed):
    """Thm 4.1 with an adversary that probes the filter and sends the first acceptable query of its list."""
    rng = np.random.default_rng(seed)
    n = 3
    pool = [_random_table(rng, n, 2) for _ in range(5)]
    budget = float(rng.uniform(0.3, 1.5))

    def choose(hist):
        if len(hist) >= 5:
            return None
        f = ldp.BayesianPrivacyFilter(budget, domain_size=n)
        for t, y in hist:
            f.submit(t, y)
        order = rng_order[len(hist) % len(rng_order)]
        for i in order:
            if f.would_accept(pool[i]):
                return pool[i]
        return None

    rng_order = [list(rng.permutation(len(pool))) for _ in range(3)]
    tree = ldp.enumerate_interaction(choose, ldp.BayesianPrivacyFilter(budget, domain_size=n))
    p = np.exp(tree.log_prob)
    np.testing.assert_allclose(p.sum(axis=0), 1.0, atol=1e-10)
    assert np.all(p.max(axis=1) <= math.exp(budget) * p.min(axis=1) * (1 + 1e-10))


@FAST
@given(seed=seeds)
def test_odometer_equals_recomputed_loss_and_stays_in_budget(seed):
    """Odometer (Def. 4.5): after each commit O(r) = ℓ(r) recomputed from scratch, O ≤ ε_G (not asserted monotone)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 6))
    budget = float(rng.uniform(0.3, 3))
    f = ldp.BayesianPrivacyFilter(budget, domain_size=n)
    x_star = int(rng.integers(n))
    tabs, outs = [], []
    for _ in range(12):
        t = _random_table(rng, n, 2)
        if not f.would_accept(t):
            continue
        y = t.sample(x_star, rng)
        f.submit(t, y)
        tabs.append(t)
        outs.append(y)
        lik = np.prod([t_.probabilities[:, t_.output_index(y_)] for t_, y_ in zip(tabs, outs, strict=True)], axis=0)
        assert math.isclose(f.loss, math.log(lik.max() / lik.min()), abs_tol=1e-9)
        assert f.loss <= budget + 1e-12


@FAST
@given(eps=st.sampled_from([0.2, 0.5, 1.0]), mult=st.floats(1.0, 6.0), seed=seeds)
def test_bpf_dominates_basic_composition(eps, mult, seed):
    """With every query ε-LDP, the BPF accepts at least ⌊ε_G/ε⌋ queries in every run."""
    budget = eps * mult
    rng = np.random.default_rng(seed)
    n = 4
    f = ldp.BayesianPrivacyFilter(budget, domain_size=n)
    k = 0
    while k < 200:
        t = ldp.two_point(eps, rng.uniform(0, 1, n))
        if not f.would_accept(t):
            break
        f.submit(t, t.sample(0, rng))
        k += 1
    assert k >= math.floor(budget / eps + 1e-9)


@SLOW
@given(seed=seeds)
def test_bnb_brackets_grid_random_2d(seed):
    """Certified B&B bounds bracket a dense grid search on random 2-D logistic/truncated sets."""
    rng = np.random.default_rng(seed)
    qs = [
        ldp.logistic_regression_query(rng.uniform(-2, 2, 3), epsilon=float(rng.uniform(0.3, 2)))
        for _ in range(int(rng.integers(1, 5)))
    ]
    qs += [
        ldp.truncated_regression_query(rng.uniform(-1, 1, 3), epsilon=1.0, low=-0.5, high=0.5)
        for _ in range(int(rng.integers(0, 3)))
    ]
    terms = [q.term(int(rng.integers(2))) for q in qs]
    lo = rng.uniform(-2, 0, 2)
    hi = lo + rng.uniform(0.1, 2, 2)
    b = ldp.log_likelihood_bounds(terms, lo, hi, tol=1e-4)
    g0, g1 = np.linspace(lo[0], hi[0], 301), np.linspace(lo[1], hi[1], 301)
    X = np.stack(np.meshgrid(g0, g1), -1).reshape(-1, 2)
    ll = sum(t.log_prob(X) for t in terms)
    assert b.min_lower <= ll.min() + 1e-10 and b.max_upper >= ll.max() - 1e-10
    assert b.min_upper <= ll.min() + 1e-4 and b.max_lower >= ll.max() - 1e-4
    singles = sum(ldp.single_term_loss(t, lo, hi) for t in terms)
    assert b.attained_loss - 1e-12 <= b.certified_loss <= singles + 1e-4 + 1e-12  # Eq. 26 with m = 1
