"""Unit tests of dpcore.svt: each public function, bad inputs (ValueError naming the parameter), edges."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

from dpcore import svt

KW = dict(threshold_scale=2.0, query_scale=4.0)


# ---------------------------------------------------------------------- split_budget
def test_split_budget_fields_and_frozen():
    sp = svt.split_budget(1.0, c=50)
    assert sp.epsilon1 + sp.epsilon2 == pytest.approx(1.0, rel=1e-15)
    assert sp.epsilon2 == pytest.approx(sp.w * sp.epsilon1, rel=1e-12)
    assert sp.threshold_scale == pytest.approx(1 / sp.epsilon1)
    assert sp.query_scale == pytest.approx(2 * 50 / sp.epsilon2)
    assert sp.mean_correction == sp.query_scale
    assert sp.variance == pytest.approx(sp.variance_optimal, rel=1e-12)
    assert sp.pure and sp.delta == 0.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        sp.w = 3.0  # type: ignore[misc]


def test_split_budget_monotonic_halves_query_scale_at_fixed_w():
    a = svt.split_budget(1.0, c=5, w=3.0)
    b = svt.split_budget(1.0, c=5, w=3.0, monotonic=True)
    assert b.query_scale == pytest.approx(a.query_scale / 2)
    assert b.threshold_scale == a.threshold_scale


def test_split_budget_sensitivity_scales_linearly():
    a = svt.split_budget(0.5, c=3, noise="laplace")
    b = svt.split_budget(0.5, c=3, noise="laplace", sensitivity=7.0)
    assert b.threshold_scale == pytest.approx(7 * a.threshold_scale)
    assert b.query_scale == pytest.approx(7 * a.query_scale)
    assert b.w == pytest.approx(a.w)


def test_split_budget_gaussian():
    sp = svt.split_budget(1.0, c=2, noise="gaussian", delta=1e-6)
    s = math.sqrt(2 * math.log(1.25e6))
    assert sp.threshold_noise == "gaussian" and not sp.pure and sp.delta == 1e-6
    assert sp.threshold_scale == pytest.approx(s / sp.epsilon1)
    assert sp.query_scale == pytest.approx(s * 4 / sp.epsilon2)
    assert sp.mean_correction == 0.0


def test_total_epsilon_resample():
    sp = svt.split_budget(2.0, c=10)
    assert sp.total_epsilon(False) == pytest.approx(2.0)
    assert sp.total_epsilon(True) == pytest.approx(10 * sp.epsilon1 + sp.epsilon2)


@pytest.mark.parametrize(
    "kwargs,name",
    [
        (dict(epsilon=0), "epsilon"),
        (dict(epsilon=-1), "epsilon"),
        (dict(epsilon=math.nan), "epsilon"),
        (dict(c=0), "c"),
        (dict(c=1.5), "c"),
        (dict(noise="cauchy"), "noise"),
        (dict(w=0.0), "w"),
        (dict(sensitivity=0), "sensitivity"),
        (dict(delta=0.0), "delta"),
        (dict(delta=1.0), "delta"),
        (dict(threshold_noise="exponential"), "threshold_noise"),
    ],
)
def test_split_budget_bad_input(kwargs, name):
    args = dict(epsilon=1.0, c=3) | kwargs
    eps = args.pop("epsilon")
    with pytest.raises(ValueError, match=name):
        svt.split_budget(eps, **args)


# ---------------------------------------------------------------------- Γ, S, f
def test_cdf_plus_sf_is_one_and_scalar_in_scalar_out():
    z = np.linspace(-30, 60, 91)
    for qn in ("exponential", "laplace", "gumbel"):
        c = svt.comparison_cdf(z, query_noise=qn, **KW)
        s = svt.comparison_sf(z, query_noise=qn, **KW)
        np.testing.assert_allclose(c + s, 1.0, atol=1e-10)
    assert isinstance(svt.comparison_cdf(1.0, **KW), float)
    assert svt.comparison_cdf(np.array([[0.0, 1.0]]), **KW).shape == (1, 2)


def test_log_outputs_accurate_in_tails():
    lg = svt.comparison_sf(5000.0, log=True, **KW)
    # z ≥ 0: S = b e^{−z/b}/(2(b−θ)) − θ² e^{−z/θ}/(b²−θ²) → (4/3) e^{−z/4} for b = 2, θ = 4
    assert lg == pytest.approx(math.log(4 / 3) - 5000 / 4, rel=1e-12)
    lc = svt.comparison_cdf(-5000.0, log=True, **KW)
    assert lc == pytest.approx(math.log(2 / 12) - 2500, rel=1e-12)


def test_infinite_z():
    c = svt.comparison_cdf(np.array([-np.inf, np.inf]), **KW)
    np.testing.assert_array_equal(c, [0.0, 1.0])
    s = svt.comparison_sf(np.array([-np.inf, np.inf]), query_noise="laplace", **KW)
    np.testing.assert_array_equal(s, [1.0, 0.0])
    np.testing.assert_array_equal(svt.comparison_pdf(np.array([-np.inf, np.inf]), **KW), [0.0, 0.0])


def test_lap_lap_equal_scales_closed_form():
    z = np.linspace(0, 30, 31)
    np.testing.assert_allclose(
        svt.comparison_sf(z, threshold_scale=3, query_scale=3, query_noise="laplace"),
        0.5 * np.exp(-z / 3) * (1 + z / 6),
        rtol=1e-12,
    )


def test_gauss_gauss_is_normal():
    z = np.linspace(-10, 10, 21)
    got = svt.comparison_cdf(z, threshold_scale=3, query_scale=4, query_noise="gaussian", threshold_noise="gaussian")
    np.testing.assert_allclose(got, stats.norm.cdf(z, scale=5), atol=1e-14)


def test_gumbel_laplace_vs_direct_quadrature():
    def sf(z):
        return integrate.quad(
            lambda t: stats.laplace.pdf(t, scale=2) * stats.gumbel_r.sf(z + t, scale=4),
            -np.inf,
            np.inf,
            epsabs=1e-13,
        )[0]

    for z in (-5.0, 0.0, 2.309, 10.0):
        with np.errstate(over="ignore"):
            want = sf(z)
        assert want == pytest.approx(svt.comparison_sf(z, query_noise="gumbel", **KW), abs=1e-10)
        assert svt.comparison_sf(z, query_noise="gumbel", **KW) == pytest.approx(want, abs=1e-10)


@pytest.mark.parametrize(
    "kwargs,name",
    [
        (dict(threshold_scale=0), "threshold_scale"),
        (dict(query_scale=-1), "query_scale"),
        (dict(query_noise="x"), "query_noise"),
        (dict(threshold_noise="gumbel"), "threshold_noise"),
        (dict(query_noise="exponential", threshold_noise="gaussian"), "noise pair"),
        (dict(z=[0.0, math.nan]), "z"),
        (dict(z="abc"), "z"),
    ],
)
def test_comparison_bad_input(kwargs, name):
    args = dict(z=0.0) | KW | kwargs
    z = args.pop("z")
    with pytest.raises(ValueError, match=name):
        svt.comparison_cdf(z, **args)


def test_pdf_bad_input():
    with pytest.raises(ValueError, match="query_scale"):
        svt.comparison_pdf(0.0, threshold_scale=1, query_scale=0)


def test_acceptance_probability():
    assert svt.acceptance_probability(0.0, r=0.0, **KW) == pytest.approx(1 - 2 / 12)
    arr = svt.acceptance_probability(np.array([-1.0, 0.0, 1.0]), r=1.0, **KW)
    np.testing.assert_allclose(arr, svt.comparison_sf(np.array([2.0, 1.0, 0.0]), **KW))
    assert np.all(np.diff(arr) > 0)
    with pytest.raises(ValueError, match="r"):
        svt.acceptance_probability(0.0, r=math.nan, **KW)


# ---------------------------------------------------------------------- numerical framework
def test_discretise_structure():
    d = svt.discretise_comparison(2.0, 4.0, n_bins=11, tail_mass=1e-2)
    assert d.bound == pytest.approx(4 * math.log(100))  # exponential quantile dominates here
    assert d.width == pytest.approx(d.bound / 10)
    assert d.query_pmf.size == d.neg_threshold_pmf.size == 20
    assert d.query_pmf[:10].sum() == 0  # exponential has no mass below 0
    np.testing.assert_allclose(d.neg_threshold_pmf, d.neg_threshold_pmf[::-1], atol=1e-15)  # symmetric Laplace
    assert np.all(np.diff(d.cdf_grid) >= 0)
    assert d.cdf(-1e9) == d.mass_minus_inf and d.cdf(1e9) == pytest.approx(1 - d.mass_plus_inf)


def test_discretise_converges_to_closed_form():
    z = np.linspace(-20, 60, 401)
    for b, th in ((2, 4), (4, 2), (3, 3)):
        d = svt.discretise_comparison(b, th, n_bins=4001)
        np.testing.assert_allclose(d.cdf(z), svt.comparison_cdf(z, threshold_scale=b, query_scale=th), atol=1e-5)


def test_discretise_reflects_asymmetric_threshold_noise():
    """Z = v − ρ: with Gumbel query noise vs Laplace threshold the FFT CDF matches quadrature."""
    d = svt.discretise_comparison(2.0, 4.0, n_bins=4001, query_noise="gumbel")
    z = np.array([-5.0, 0.0, 3.0, 12.0])
    np.testing.assert_allclose(d.cdf(z), svt.comparison_cdf(z, query_noise="gumbel", **KW), atol=1e-5)


@pytest.mark.parametrize(
    "kwargs,name",
    [
        (dict(n_bins=2), "n_bins"),
        (dict(tail_mass=0), "tail_mass"),
        (dict(tail_mass=1), "tail_mass"),
        (dict(n_bins=10.5), "n_bins"),
    ],
)
def test_discretise_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        svt.discretise_comparison(2.0, 4.0, **kwargs)


# ---------------------------------------------------------------------- p(r), p_sh
def test_success_probability_matches_definition():
    r = np.linspace(-10, 40, 51)
    for a in (0.0, 3.0):
        p = svt.success_probability(r, k=7, alpha=a, **KW)
        want = svt.comparison_cdf(r + a, **KW) ** 7 * svt.comparison_sf(r - a, **KW)
        np.testing.assert_allclose(p, want, rtol=1e-12, atol=1e-300)
    assert svt.success_probability(np.inf, k=3, **KW) == 0.0
    assert svt.success_probability(-np.inf, k=3, **KW) == 0.0


def test_shared_below_independent_at_rop():
    """At r^op the paper's Eq. 8 overstates the success of Alg. 2 (shared ρ), as in every row of the r^op table of the
    reference tests."""
    for k in (10, 50, 200):
        corr = svt.correction_term(2.0, 4.0, k=k)
        assert svt.shared_success_probability(corr.r, k=k, **KW) < corr.success_probability


def test_shared_k1_alpha0_brute_force():
    """k = 1: P[v₁ < ρ + r, v₂ ≥ ρ + r] by 2-D reasoning = E_ρ[F(ρ+r) S(ρ+r)], vs a fine trapezoid."""
    t = np.linspace(-3.0, 200, 400_001)
    x = t + 3.0
    f = stats.laplace.pdf(t, scale=2) * (-np.expm1(-x / 4)) * np.exp(-x / 4)
    assert svt.shared_success_probability(3.0, k=1, **KW) == pytest.approx(integrate.trapezoid(f, t), abs=1e-8)


@pytest.mark.parametrize("fn", [svt.success_probability, svt.shared_success_probability])
@pytest.mark.parametrize(
    "kwargs,name",
    [
        (dict(k=0), "k"),
        (dict(k=2.5), "k"),
        (dict(alpha=-1), "alpha"),
        (dict(threshold_scale=0), "threshold_scale"),
    ],
)
def test_success_bad_input(fn, kwargs, name):
    args = dict(k=3, alpha=0.0) | KW | kwargs
    with pytest.raises(ValueError, match=name):
        fn(1.0, **args)


# ---------------------------------------------------------------------- r^op
def test_optimal_correction_alpha0_quantile():
    corr = svt.optimal_correction(0.5, c=4, k=30)
    sp = svt.split_budget(0.5, c=4)
    assert (corr.threshold_scale, corr.query_scale) == (sp.threshold_scale, sp.query_scale)
    assert svt.comparison_cdf(corr.r, threshold_scale=sp.threshold_scale, query_scale=sp.query_scale) == pytest.approx(
        30 / 31, rel=1e-12
    )
    assert corr.beta == pytest.approx(1 - corr.success_probability)
    assert corr.mean_correction == sp.query_scale and corr.method == "analytic" and corr.model == "independent"


@pytest.mark.parametrize("alpha", [0.0, 2.0, 10.0])
@pytest.mark.parametrize("k", [1, 10, 300])
def test_analytic_vs_numeric(alpha, k):
    a = svt.optimal_correction(1.0, c=3, k=k, alpha=alpha)
    n = svt.optimal_correction(1.0, c=3, k=k, alpha=alpha, method="numeric")
    assert n.r == pytest.approx(a.r, rel=2e-4, abs=1e-3)
    assert n.success_probability == pytest.approx(a.success_probability, rel=1e-4)


def test_analytic_is_grid_maximum():
    for a in (0.0, 1.0, 7.0):
        corr = svt.correction_term(2.0, 4.0, k=20, alpha=a)
        r = np.linspace(corr.r - 3, corr.r + 3, 60001)
        p = svt.success_probability(r, k=20, alpha=a, **KW)
        assert corr.success_probability >= p.max() * (1 - 1e-12)


def test_shared_model_optimum():
    corr = svt.correction_term(2.0, 4.0, k=10, model="shared")
    r = np.linspace(corr.r - 0.5, corr.r + 0.5, 41)
    p = svt.shared_success_probability(r, k=10, **KW)
    assert corr.success_probability >= p.max() - 1e-12


def test_other_noise_corrections():
    for noise in ("laplace", "gumbel", "gaussian"):
        corr = svt.optimal_correction(1.0, c=2, k=10, noise=noise)
        assert corr.query_noise == noise
        assert corr.success_probability == pytest.approx(10**10 / 11**11, rel=1e-6)


@pytest.mark.parametrize(
    "kwargs,name",
    [
        (dict(epsilon=0), "epsilon"),
        (dict(c=0), "c"),
        (dict(k=0), "k"),
        (dict(alpha=-0.1), "alpha"),
        (dict(method="fft"), "method"),
        (dict(model="x"), "model"),
        (dict(noise="x"), "noise"),
        (dict(sensitivity=-1), "sensitivity"),
        (dict(method="numeric", model="shared"), "model"),
    ],
)
def test_optimal_correction_bad_input(kwargs, name):
    args = dict(epsilon=1.0, c=2, k=5) | kwargs
    eps = args.pop("epsilon")
    with pytest.raises(ValueError, match=name):
        svt.optimal_correction(eps, **args)


# ---------------------------------------------------------------------- appending
def test_appending_variants_order_and_t1():
    sp = svt.split_budget(1.0, c=5)
    kw = dict(r=20.0, threshold_scale=sp.threshold_scale, query_scale=sp.query_scale)
    d = np.array([-10.0, 0.0, 10.0, 30.0])
    one = svt.appending_probability(d, traverses=1, variant="shared", **kw)
    np.testing.assert_allclose(one, svt.acceptance_probability(d, **kw), atol=1e-9)
    sh = svt.appending_probability(d, traverses=6, variant="shared", **kw)
    ind = svt.appending_probability(d, traverses=6, variant="independent", **kw)
    pr = svt.appending_probability(d, traverses=6, variant="as_printed", **kw)
    assert np.all(sh <= ind + 1e-12) and np.all(ind <= pr + 1e-12)
    with pytest.raises(ValueError, match="traverses"):
        svt.appending_probability(d, traverses=0, **kw)
    with pytest.raises(ValueError, match="variant"):
        svt.appending_probability(d, traverses=2, variant="x", **kw)


# ---------------------------------------------------------------------- sampling
def test_sample_noise_shapes_and_bad_input():
    assert svt.sample_noise("gumbel", 2.0, (3, 4), rng=1).shape == (3, 4)
    np.testing.assert_array_equal(
        svt.sample_noise("laplace", 1.0, 5, rng=3), svt.sample_noise("laplace", 1.0, 5, rng=3)
    )
    assert np.all(svt.sample_noise("exponential", 1.0, 1000, rng=0) >= 0)
    with pytest.raises(ValueError, match="noise"):
        svt.sample_noise("poisson", 1.0, 3)
    with pytest.raises(ValueError, match="scale"):
        svt.sample_noise("laplace", 0.0, 3)
    with pytest.raises(ValueError, match="rng"):
        svt.sample_noise("laplace", 1.0, 3, rng=-1)


# ---------------------------------------------------------------------- run_svt
def test_run_svt_transcript_consistency():
    q = np.random.default_rng(1).normal(0, 30, 500)
    run = svt.run_svt(q, threshold=20.0, epsilon=1.0, c=10, append=True, traverses=3, rng=4)
    df = run.comparisons
    assert isinstance(df, pd.DataFrame) and len(df) == run.n_comparisons
    assert list(df["step"]) == list(range(1, len(df) + 1))
    np.testing.assert_allclose(df["noisy_answer"], df["answer"] + df["query_noise"])
    np.testing.assert_allclose(df["noisy_threshold"], df["threshold"] + df["threshold_noise"] + run.correction)
    np.testing.assert_array_equal(df["positive"], df["noisy_answer"] >= df["noisy_threshold"])
    np.testing.assert_array_equal(run.selected, df.loc[df["positive"], "index"])
    assert run.n_positive == len(run.selected) <= 10
    assert df["index"].value_counts().max() <= 3 and df["pass"].max() <= 3
    assert run.k == 50 and run.correction == pytest.approx(svt.optimal_correction(1.0, c=10, k=50).r)


def test_run_svt_correction_options():
    q = np.zeros(20)
    sp = svt.split_budget(1.0, c=2, noise="gumbel")
    assert svt.run_svt(
        q, threshold=0, epsilon=1, c=2, noise="gumbel", correction="mean", rng=1
    ).correction == pytest.approx(sp.mean_correction)
    assert svt.run_svt(q, threshold=0, epsilon=1, c=2, correction="none", rng=1).correction == 0.0
    assert svt.run_svt(q, threshold=0, epsilon=1, c=2, correction=-3.5, rng=1).correction == -3.5
    assert svt.run_svt(q, threshold=0, epsilon=1, c=2, correction="optimal", k=7, rng=1).correction == pytest.approx(
        svt.optimal_correction(1, c=2, k=7).r
    )


def test_run_svt_vector_threshold_and_gaussian():
    q = np.array([5.0, 5.0, 5.0])
    run = svt.run_svt(q, threshold=[1e9, -1e9, 1e9], epsilon=1, c=3, noise="gaussian", correction=0.0, rng=2)
    assert list(run.comparisons["positive"]) == [False, True, False]
    assert run.delta_spent == 1e-5 and run.calibration.threshold_noise == "gaussian"


def test_run_svt_resample_sequential_equivalence():
    """RESAMPLE: every comparison after a ⊤ uses a fresh ρ; the same ρ otherwise."""
    q = np.random.default_rng(3).normal(0, 5, 200)
    run = svt.run_svt(q, threshold=0, epsilon=1, c=30, correction=0.0, resample=True, rng=8)
    df = run.comparisons
    changes = np.flatnonzero(np.diff(df["threshold_noise"].to_numpy()) != 0)
    np.testing.assert_array_equal(changes, np.flatnonzero(df["positive"].to_numpy()[:-1]))


@pytest.mark.parametrize(
    "kwargs,name",
    [
        (dict(answers=[]), "answers"),
        (dict(answers=[1.0, math.nan]), "answers"),
        (dict(answers=[[1.0]]), "answers"),
        (dict(threshold=math.inf), "threshold"),
        (dict(threshold=[1.0, 2.0]), "threshold"),
        (dict(epsilon=0), "epsilon"),
        (dict(c=0), "c"),
        (dict(noise="x"), "noise"),
        (dict(correction="best"), "correction"),
        (dict(correction=math.nan), "correction"),
        (dict(k=0), "k"),
        (dict(alpha=-1), "alpha"),
        (dict(traverses=0, append=True), "traverses"),
        (dict(k_max=0), "k_max"),
        (dict(rng="x"), "rng"),
    ],
)
def test_run_svt_bad_input(kwargs, name):
    args = dict(answers=[1.0, 2.0, 3.0], threshold=0.0, epsilon=1.0, c=1) | kwargs
    q = args.pop("answers")
    with pytest.raises(ValueError, match=name):
        svt.run_svt(q, **args)


# ---------------------------------------------------------------------- pattern_probability
def test_pattern_probability_sums_to_one():
    q = np.array([1.0, -2.0, 3.0])
    kw = dict(threshold=0.0, threshold_scale=1.5, query_scale=3.0)
    total = 0.0
    for bits in range(8):
        pat = [(bits >> i) & 1 == 1 for i in range(3)]
        total += svt.pattern_probability(q, pat, **kw)
    assert total == pytest.approx(1.0, abs=1e-9)
    assert svt.pattern_probability(q[:1], [True], **kw) == pytest.approx(
        svt.acceptance_probability(1.0, threshold_scale=1.5, query_scale=3.0), abs=1e-9
    )
    with pytest.raises(ValueError, match="pattern"):
        svt.pattern_probability(q, [True], **kw)
    with pytest.raises(ValueError, match="threshold_noise"):
        svt.pattern_probability(q, [True] * 3, threshold_noise="x", **kw)


# ---------------------------------------------------------------------- experiments
def test_selection_metrics_known_values():
    s = np.array([10.0, 9.0, 8.0, 1.0, 0.0])
    m = svt.selection_metrics([0, 3], s, threshold=5.0, c=3)
    assert m["precision"] == 0.5 and m["recall"] == pytest.approx(1 / 3)
    assert m["f1"] == pytest.approx(2 * 0.5 * (1 / 3) / (0.5 + 1 / 3))
    assert m["ncr"] == pytest.approx(3 / 6)
    assert svt.selection_metrics([0, 1, 2], s, threshold=5.0, c=3)["ncr"] == pytest.approx(1.0)
    empty = svt.selection_metrics([], s, threshold=5.0, c=3)
    assert empty == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "ncr": 0.0}


def test_selection_metrics_ties_average():
    s = np.array([5.0, 5.0, 5.0, 0.0])
    # c = 2: the three tied items share (2 + 1 + 0)/3 = 1 each; total 3 → one selected = 1/3
    assert svt.selection_metrics([1], s, threshold=1.0, c=2)["ncr"] == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    "kwargs,name",
    [
        (dict(selected=[7]), "selected"),
        (dict(scores=[]), "scores"),
        (dict(c=0), "c"),
        (dict(threshold=math.nan), "threshold"),
    ],
)
def test_selection_metrics_bad_input(kwargs, name):
    args = dict(selected=[0], scores=[1.0, 2.0], threshold=1.0, c=1) | kwargs
    sel, sc = args.pop("selected"), args.pop("scores")
    with pytest.raises(ValueError, match=name):
        svt.selection_metrics(sel, sc, **args)


def test_upper_bound_topc():
    s = np.r_[np.full(5, 1e6), np.zeros(100)]
    sel = svt.upper_bound_topc(s, epsilon=1.0, c=5, rng=1)
    assert sorted(sel) == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="answers"):
        svt.upper_bound_topc([], epsilon=1.0, c=5)


def test_run_method_all_methods():
    s = np.r_[np.full(5, 1e5), np.zeros(50)]
    for m in svt.METHODS:
        sel = svt.run_method(m, s, threshold=500.0, epsilon=5.0, c=5, rng=0)
        assert len(sel) <= 5
    with pytest.raises(ValueError, match="method"):
        svt.run_method("SVT-Foo", s, threshold=1.0, epsilon=1.0, c=5)


def test_run_experiment_frame_and_progress():
    calls = []
    s = 1000 / np.arange(1, 201)
    methods = ["SVT-Exp (optimal)", "SVT-Lap"]
    kw = dict(threshold=100.0, epsilons=[0.5, 2.0], c=10, n_runs=5, traverses=[1, 3], methods=methods, rng=1)
    df = svt.run_experiment(s, progress=calls.append, **kw)
    assert len(df) == 2 * 2 * 2 and calls[-1] == pytest.approx(1.0) and len(calls) == 8
    for key in ("precision", "recall", "f1", "ncr"):
        assert np.all(df[f"{key}_lo"] <= df[key]) and np.all(df[key] <= df[f"{key}_hi"])
    again = svt.run_experiment(s, **kw)
    pd.testing.assert_frame_equal(df, again)


@pytest.mark.parametrize(
    "kwargs,name",
    [
        (dict(scores=[]), "scores"),
        (dict(scores=[1.0, math.inf]), "scores"),
        (dict(epsilons=[1.0, 0.0]), "epsilons"),
        (dict(epsilons=[]), "epsilons"),
        (dict(n_runs=1), "n_runs"),
        (dict(methods=["x"]), "methods"),
        (dict(c=0), "c"),
    ],
)
def test_run_experiment_bad_input(kwargs, name):
    args = dict(scores=[1.0, 2.0, 3.0], threshold=1.0, epsilons=[1.0], c=1, n_runs=3) | kwargs
    sc = args.pop("scores")
    with pytest.raises(ValueError, match=name):
        svt.run_experiment(sc, **args)


# ---------------------------------------------------------------------- Thm 4, loss profiles
def test_accuracy_bound_variants():
    assert svt.accuracy_bound(50, 0.1, 1.0, variant="as_printed") == pytest.approx(
        27.63, abs=0.005
    )  # Theorem 4 as printed: 4(ln 50 + ln 20)/1
    assert svt.accuracy_bound(50, 0.1, 1.0) == pytest.approx(55.26, abs=0.005)
    assert svt.accuracy_bound(50, 0.1, 2.0) == pytest.approx(55.26 / 2, abs=0.005)
    for kw, name in (
        (dict(k=0), "k"),
        (dict(beta=1.0), "beta"),
        (dict(epsilon=0), "epsilon"),
        (dict(variant="x"), "variant"),
    ):
        args = dict(k=5, beta=0.1, epsilon=1.0) | kw
        with pytest.raises(ValueError, match=name):
            svt.accuracy_bound(args.pop("k"), args.pop("beta"), args.pop("epsilon"), **args)


@pytest.mark.parametrize(
    "k,beta,noise,want",
    [
        (1, 0.1, "exponential", 1.02),
        (1, 0.001, "laplace", 26.01),
        (50, 0.1, "exponential", 25.44),
        (10, 0.1, "laplace", 16.40),
    ],
)
def test_accuracy_alpha_theorem4_rows(k, beta, noise, want):
    a = svt.accuracy_alpha(beta, k=k, threshold_scale=2.0, query_scale=4.0, query_noise=noise)
    assert a == pytest.approx(want, abs=0.005)
    assert a <= svt.accuracy_bound(k, beta, 1.0, variant="as_printed")


def test_accuracy_alpha_bad_input():
    with pytest.raises(ValueError, match="beta"):
        svt.accuracy_alpha(0.0, k=3, threshold_scale=1, query_scale=1)
    with pytest.raises(ValueError, match="k"):
        svt.accuracy_alpha(0.1, k=0, threshold_scale=1, query_scale=1)


def test_query_loss_profile():
    sp = svt.split_budget(1.0, c=5)
    x = np.linspace(-50, 300, 351)
    exp = svt.query_loss_profile(x, noise="exponential", scale=sp.query_scale, shift=2.0)
    # exponential: exactly ε₂/c once x ≥ 2Δ, never above (Eq. 5 holds tightly)
    np.testing.assert_allclose(exp[x >= 2], sp.epsilon2 / 5, rtol=1e-12)
    assert exp.max() <= sp.epsilon2 / 5 * (1 + 1e-12)
    for noise in ("laplace", "gumbel"):
        s2 = svt.split_budget(1.0, c=5, noise=noise)
        prof = svt.query_loss_profile(x, noise=noise, scale=s2.query_scale, shift=2.0)
        assert prof.max() <= s2.epsilon2 / 5 * (1 + 1e-9)
        # independent: direct difference of scipy log-survival functions
        d = {"laplace": stats.laplace, "gumbel": stats.gumbel_r}[noise](scale=s2.query_scale)
        np.testing.assert_allclose(prof, d.logsf(x - 2) - d.logsf(x), atol=1e-12)
    gau = svt.query_loss_profile(np.array([0.0, 1e3]), noise="gaussian", scale=10.0)
    assert gau[1] > 10 * gau[0]  # unbounded
    with pytest.raises(ValueError, match="shift"):
        svt.query_loss_profile(x, noise="laplace", scale=1.0, shift=-1)


def test_threshold_loss_profile():
    u = np.linspace(-20, 20, 81)
    lap = svt.threshold_loss_profile(u, noise="laplace", scale=2.0)
    assert np.abs(lap).max() == pytest.approx(0.5)
    ex = svt.threshold_loss_profile(u, noise="exponential", scale=2.0)
    # the one-sided condition f₁(u − Δ) ≤ e^ε₁ f₁(u) of Theorem 2 holds for +Exp threshold noise
    assert ex.max() <= 0.5 + 1e-12
    gau = svt.threshold_loss_profile(np.array([0.0, 100.0]), noise="gaussian", scale=2.0)
    assert gau[1] > 10
    with pytest.raises(ValueError, match="noise"):
        svt.threshold_loss_profile(u, noise="cauchy", scale=1.0)


@pytest.mark.parametrize("noise", ["exponential", "laplace", "gumbel"])
def test_success_probabilities_take_one_alpha_per_r(noise):
    """An array of α is paired element by element with r (broadcast); each pair gives what the scalar call gives,
    and the shared-noise value agrees with a Monte-Carlo run of Algorithm 2's comparisons (4σ)."""
    from dpcore.svt import correction as corr

    r = np.array([0.0, 5.0, 10.0, 20.0])
    alpha = np.array([0.0, 2.0, 5.0, 1.0])
    kw = dict(k=20, threshold_scale=4.0, query_scale=8.0, query_noise=noise)
    for f in (corr.success_probability, corr.shared_success_probability):
        both = f(r, alpha=alpha, **kw)
        one_by_one = [float(f(ri, alpha=ai, **kw)) for ri, ai in zip(r, alpha, strict=True)]
        np.testing.assert_allclose(both, one_by_one, rtol=1e-12, atol=0)
    # Monte Carlo of the shared-threshold event at (r, α) = (5, 2): k negatives at T − α rejected, one at T + α accepted
    rng = np.random.default_rng(7)
    n = 200_000
    rho = rng.laplace(scale=4.0, size=n)
    draw = {
        "exponential": lambda s: rng.exponential(8.0, size=s),
        "laplace": lambda s: rng.laplace(scale=8.0, size=s),
        "gumbel": lambda s: rng.gumbel(scale=8.0, size=s),
    }[noise]
    neg = (-2.0 + draw((n, 20)) < rho[:, None] + 5.0).all(axis=1)
    pos = 2.0 + draw(n) >= rho + 5.0
    mc = float(np.mean(neg & pos))
    exact = float(corr.shared_success_probability(5.0, alpha=2.0, **kw))
    assert abs(mc - exact) <= 4 * math.sqrt(exact * (1 - exact) / n) + 1e-4, (mc, exact)


def test_alpha_must_be_nonnegative_and_finite():
    from dpcore.svt import correction as corr

    for bad in (np.array([0.0, -1.0]), np.array([np.inf])):
        with pytest.raises(ValueError, match="alpha"):
            corr.shared_success_probability(np.zeros(len(bad)), alpha=bad, k=2, threshold_scale=1.0, query_scale=1.0)
