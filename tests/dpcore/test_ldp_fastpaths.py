"""Fast paths of dpcore.ldp against the candidate-by-candidate computation they replace.

``acceptance_regions`` is vectorised over the slopes; the reference below builds every candidate with the public
``two_point`` and asks the public filters (``BayesianPrivacyFilter.worst_case/would_accept``,
``SimplifiedBayesianFilter.would_accept``) one query at a time, as the original implementation did.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dpcore import ldp
from dpcore.ldp import branch_and_bound


def _reference(ll, budget, epsilons, slopes, intercept=0.0, tolerance=ldp.TOLERANCE) -> pd.DataFrame:
    ll = np.asarray(ll, dtype=float)
    n = ll.size
    bpf = ldp.BayesianPrivacyFilter(budget, domain_size=n, tolerance=tolerance, log_likelihood=ll)
    sbf = ldp.SimplifiedBayesianFilter(budget, domain_size=n, tolerance=tolerance, log_likelihood=ll)
    t = np.arange(n) / max(n - 1, 1)
    rows = []
    for e in np.ravel(epsilons):
        for s in np.ravel(slopes):
            tab = ldp.two_point(float(e), np.clip(intercept + s * t, 0.0, 1.0))
            rows.append(
                {
                    "epsilon": float(e),
                    "slope": float(s),
                    "query_loss": tab.epsilon,
                    "worst_case": bpf.worst_case(tab),
                    "bayesian": bpf.would_accept(tab),
                    "simplified": sbf.would_accept(tab, epsilon=float(e)),
                }
            )
    return pd.DataFrame(rows)


def _state(gen: np.random.Generator, n: int, k: int, eps: float) -> np.ndarray:
    """ln Λ of k random answers to the running-example queries (a reachable filter state)."""
    tabs = [ldp.running_example_query(i, epsilon=eps, domain_size=n) for i in range(1, k + 1)]
    outs = [t.sample(int(gen.integers(n)), gen) for t in tabs]
    return ldp.transcript_log_likelihood(tabs, outs)


def _compare(fast: pd.DataFrame, ref: pd.DataFrame) -> None:
    assert list(fast.columns) == list(ref.columns)
    assert len(fast) == len(ref)
    for c in ("epsilon", "slope", "query_loss", "worst_case"):
        np.testing.assert_allclose(fast[c].to_numpy(float), ref[c].to_numpy(float), rtol=1e-14, atol=1e-14, err_msg=c)
    for c in ("bayesian", "simplified"):
        assert fast[c].dtype == bool
        np.testing.assert_array_equal(fast[c].to_numpy(), ref[c].to_numpy(), err_msg=c)


@pytest.mark.parametrize("seed", range(12))
def test_acceptance_regions_matches_candidate_by_candidate(seed: int) -> None:
    gen = np.random.default_rng(seed)
    n = int(gen.choice([2, 3, 5, 11, 31, 101]))
    eps = float(gen.uniform(0.05, 3.0))
    ll = _state(gen, n, int(gen.integers(1, 30)), eps)
    budget = float(gen.choice([0.3, 1.0, 4.0, 10.0, 50.0]))
    epsilons = np.geomspace(0.02, float(gen.uniform(0.5, 40.0)), int(gen.integers(1, 12)))
    slopes = np.sort(gen.uniform(-1.5, 2.5, int(gen.integers(1, 15))))
    intercept = float(gen.choice([0.0, 0.0, 0.2, -0.3, 0.5]))
    fast = ldp.acceptance_regions(ll, budget, epsilons=epsilons, slopes=slopes, intercept=intercept)
    ref = _reference(ll, budget, epsilons, slopes, intercept)
    _compare(fast, ref)
    # both decisions vary on most draws, so the comparison is not between constant columns
    assert fast["worst_case"].nunique() > 1 or len(fast) == 1


def test_acceptance_regions_matches_at_the_page_grid() -> None:
    """The page's grid (24 ε × 21 slopes) from a state at the edge of the budget, where rounding matters."""
    gen = np.random.default_rng(7)
    ll = _state(gen, 11, 25, 1.0)
    budget = float(ll.max() - ll.min())  # the state sits exactly on its budget: equality must be accepted
    epsilons = np.geomspace(0.02, 2 * budget, 24)
    slopes = np.linspace(0.0, 1.0, 21)
    fast = ldp.acceptance_regions(ll, budget, epsilons=epsilons, slopes=slopes)
    ref = _reference(ll, budget, epsilons, slopes)
    _compare(fast, ref)
    assert fast["bayesian"].any() and not fast["bayesian"].all()
    assert fast["bayesian"].sum() > fast["simplified"].sum()  # flat candidates: only the full filter takes them


def test_acceptance_regions_equality_and_extreme_epsilon() -> None:
    """A flat state (ℓ = 0), a budget met with equality by RR-like candidates, and ε far in the tails."""
    ll = np.zeros(5)
    eps = np.array([1e-9, 0.5, 1.0, 30.0, 600.0])
    slopes = np.array([0.0, 0.25, 1.0, 3.0])
    for budget in (1.0, 0.5, 30.0):
        fast = ldp.acceptance_regions(ll, budget, epsilons=eps, slopes=slopes, tolerance=0.0)
        _compare(fast, _reference(ll, budget, eps, slopes, tolerance=0.0))
    fast = ldp.acceptance_regions(ll, 1.0, epsilons=[1.0], slopes=[1.0])
    # Eq. 5 at the ends: ln e^ε = ε; the reported worst case is an upper bound of the exact loss (≤ ε), a few ulps wide
    assert 1.0 - 1e-15 <= fast["worst_case"].iloc[0] <= 1.0 + 4e-15
    assert bool(fast["bayesian"].iloc[0]) and bool(fast["simplified"].iloc[0])


def test_acceptance_regions_validation_unchanged() -> None:
    with pytest.raises(ValueError, match="epsilons"):
        ldp.acceptance_regions(np.zeros(3), 1.0, epsilons=[0.0], slopes=[1.0])
    with pytest.raises(ValueError, match="log_likelihood"):
        ldp.acceptance_regions([0.0, -math.inf], 1.0, epsilons=[1.0], slopes=[1.0])
    with pytest.raises(ValueError, match="tolerance"):
        ldp.acceptance_regions(np.zeros(3), 1.0, epsilons=[1.0], slopes=[1.0], tolerance=-1.0)
    assert ldp.acceptance_regions(np.zeros(3), 1.0, epsilons=[1.0], slopes=[]).empty


# --- minimize_dc: SciPy's TNC core called directly (_tnc_box) vs optimize.minimize(method="TNC") ------------------


def _random_terms(gen: np.random.Generator, kind: str, d: int, k: int) -> list[ldp.RegressionTerm]:
    terms = []
    for _ in range(k):
        theta = gen.uniform(-1.0, 1.0, d + 1)
        eps = float(gen.uniform(0.05, 3.0))
        if kind == "logistic":
            q = ldp.logistic_regression_query(theta, epsilon=eps)
        elif kind == "linear":
            q = ldp.linear_regression_query(theta / np.abs(theta).sum(), epsilon=eps, low=-1.0, high=1.0)
        else:
            q = ldp.truncated_regression_query(theta, epsilon=eps, low=-0.5, high=0.5)
        terms.append(q.term(int(gen.integers(2))))
    return terms


@pytest.mark.parametrize("seed", range(10))
def test_minimize_dc_same_iterates_as_optimize_minimize(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bit-for-bit: bounds, argmin, node count and the whole trace equal the optimize.minimize path."""
    gen = np.random.default_rng(100 + seed)
    kind = ("logistic", "linear", "truncated", "logistic", "mixed")[seed % 5]
    d = int(gen.integers(1, 4))
    if kind == "mixed":
        terms = _random_terms(gen, "logistic", d, 3) + _random_terms(gen, "truncated", d, 2)
    else:
        terms = _random_terms(gen, kind, d, int(gen.integers(1, 7)))
    lo, hi = -np.ones(d), np.ones(d)
    sign = 1 if seed % 2 else -1
    fast = ldp.minimize_dc(terms, lo, hi, sign=sign, tol=1e-6)
    monkeypatch.setattr(branch_and_bound, "_TNC_CORE", None)  # the optimize.minimize route
    slow = ldp.minimize_dc(terms, lo, hi, sign=sign, tol=1e-6)
    assert fast.n_nodes == slow.n_nodes and fast.converged == slow.converged
    assert fast.lower == slow.lower and fast.upper == slow.upper
    np.testing.assert_array_equal(fast.argmin, slow.argmin)
    pd.testing.assert_frame_equal(fast.trace, slow.trace, check_exact=True)


def test_minimize_dc_fast_path_at_the_page_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """The LDP page's panel 9 (10 logistic terms on [−1, 1]², tol 5e-7) at a small ε, where B&B needs many nodes."""
    gen = np.random.default_rng(3)
    terms = []
    for _ in range(10):
        q = ldp.logistic_regression_query(gen.uniform(-1.0, 1.0, 3), epsilon=0.1)
        terms.append(q.term(q.sample(np.array([0.4, 0.4]), gen)))
    lo, hi = -np.ones(2), np.ones(2)
    fast = [ldp.minimize_dc(terms, lo, hi, sign=s, tol=5e-7) for s in (1, -1)]
    monkeypatch.setattr(branch_and_bound, "_TNC_CORE", None)
    slow = [ldp.minimize_dc(terms, lo, hi, sign=s, tol=5e-7) for s in (1, -1)]
    for f, s in zip(fast, slow, strict=True):
        assert f.n_nodes == s.n_nodes > 20
        assert (f.lower, f.upper) == (s.lower, s.upper)
        pd.testing.assert_frame_equal(f.trace, s.trace, check_exact=True)
    # and the certified bounds bracket a dense grid's extremes (an independent check of the result itself)
    g = np.linspace(-1.0, 1.0, 201)
    pts = np.array(np.meshgrid(g, g)).reshape(2, -1).T
    ll = np.sum([t.log_prob(pts) for t in terms], axis=0)
    assert fast[0].lower <= ll.min() + 1e-12 and -fast[1].lower >= ll.max() - 1e-12


def test_tnc_box_falls_back_with_a_fixed_variable() -> None:
    """lo = hi in a coordinate: optimize.minimize removes the variable, so _tnc_box must take that route."""

    def fun(x):
        return float(np.sum((x - 0.3) ** 2)), 2 * (x - 0.3)

    x = branch_and_bound._tnc_box(
        fun, np.array([0.9, 0.5]), np.array([0.0, 0.5]), np.array([1.0, 0.5]), maxfun=100, ftol=1e-13, gtol=1e-10
    )
    np.testing.assert_allclose(x, [0.3, 0.5], atol=1e-6)


@pytest.mark.parametrize("sign", [1, -1])
def test_stack_logistic_fast_paths_equal_the_general_branches(sign: int) -> None:
    """_Stack.f / convex / concave_part for all-logistic stacks == the per-kind branches (forced), bit for bit."""
    gen = np.random.default_rng(5)
    terms = _random_terms(gen, "logistic", 3, 6)
    fast = ldp.regression._Stack(terms)
    general = ldp.regression._Stack(terms)
    general.only_logistic = False  # takes the masked per-kind branches of f and parts
    for z in (gen.normal(0.0, 3.0, 6), gen.normal(0.0, 30.0, (50, 6))):
        np.testing.assert_array_equal(fast.f(z), general.f(z))
        cc, dc, vv = general.parts(z, sign)
        fc, fd = fast.convex(z, sign)
        np.testing.assert_array_equal(fc, cc)
        np.testing.assert_array_equal(fd, dc)
        np.testing.assert_array_equal(fast.concave_part(z, sign), vv)
        # and the parts split the log-likelihood: sign·f = C − V
        np.testing.assert_allclose(sign * fast.f(z), fc - fast.concave_part(z, sign), rtol=1e-12, atol=1e-12)


# --- composition_output_losses: all patterns at once vs pattern by pattern -----------------------------------------


def _patterns_reference(tables, true_value=None) -> pd.DataFrame:
    """The pattern-by-pattern loop (itertools.product, np.sum of the columns, realized_loss) it replaces."""
    import itertools

    basic = float(sum(t.epsilon for t in tables))
    rows = []
    for idx in itertools.product(*[range(t.n_outputs) for t in tables]):
        ll = np.sum([t.log_prob[:, j] for t, j in zip(tables, idx, strict=True)], axis=0)
        if np.all(ll == -np.inf):
            continue
        loss = ldp.realized_loss(ll)
        rows.append(
            {
                "pattern": tuple(t.outputs[j] for t, j in zip(tables, idx, strict=True)),
                "loss": loss,
                "ratio": math.exp(loss) if loss < 700 else math.inf,
                "basic": basic,
                "probability": math.nan if true_value is None else float(np.exp(ll[true_value])),
            }
        )
    return pd.DataFrame(rows)


def _random_table(gen: np.random.Generator, n: int) -> ldp.LikelihoodTable:
    kind = int(gen.integers(4))
    eps = float(gen.uniform(0.05, 4.0))
    if kind == 0:
        return ldp.running_example_query(int(gen.integers(1, 6)), epsilon=eps, domain_size=n)
    if kind == 1:
        return ldp.generalized_randomized_response(eps, categories=gen.integers(0, 3, n), n_categories=3)
    if kind == 2:
        return ldp.two_point(eps, gen.uniform(0.0, 1.0, n))
    p = gen.dirichlet(np.ones(3), size=n)
    p[gen.random((n, 3)) < 0.2] = 0.0  # zero probabilities: infinite losses and impossible patterns
    p[:, 0] += 1.0 - p.sum(axis=1)
    p = np.clip(p, 0.0, 1.0)
    p /= p.sum(axis=1, keepdims=True)
    return ldp.likelihood_table(p, outputs=("a", "b", "c"))


@pytest.mark.parametrize("seed", range(15))
def test_composition_output_losses_matches_pattern_by_pattern(seed: int) -> None:
    gen = np.random.default_rng(300 + seed)
    n = int(gen.choice([2, 3, 5, 11, 21]))
    tables = [_random_table(gen, n) for _ in range(int(gen.integers(1, 6)))]
    x = None if seed % 4 == 0 else int(gen.integers(n))
    fast = ldp.composition_output_losses(tables, true_value=x)
    pd.testing.assert_frame_equal(fast, _patterns_reference(tables, x), check_exact=True)


def test_composition_output_losses_matches_at_the_page_default() -> None:
    """The LDP page's panel 3: the first 8 running-example queries on |D| = 11 (256 patterns), x* = 7."""
    tables = [ldp.running_example_query(i, epsilon=1.0, domain_size=11) for i in range(1, 9)]
    fast = ldp.composition_output_losses(tables, true_value=7, max_patterns=256)
    ref = _patterns_reference(tables, 7)
    pd.testing.assert_frame_equal(fast, ref, check_exact=True)
    assert len(fast) == 256 and fast["probability"].sum() == pytest.approx(1.0, abs=1e-12)
    assert fast["loss"].max() == pytest.approx(8.0, abs=1e-12)  # the all-extreme pattern reaches Σε (Eq. 10)
