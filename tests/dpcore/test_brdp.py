"""Unit tests for dpcore.brdp: each public function, bad input, edge values."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

from dpcore import accounting, brdp
from dpcore.brdp import budget_split, exact_accountant

G = dict(kernel="gaussian", scale=3.0, theta=1.0)
L = dict(kernel="laplace", scale=1.2, theta=0.8)


@pytest.fixture(scope="module")
def plan():
    return brdp.optimize(epsilon=1, delta=1e-5, sensitivity=1, theta=1, kernel="gaussian", accountant="paper")


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: brdp.acceptance_rate(kernel="gaussian", scale=1, theta=0, q=0.5), "theta"),
        (lambda: brdp.acceptance_rate(kernel="gaussian", scale=1, theta=-1, q=0.5), "theta"),
        (lambda: brdp.acceptance_rate(kernel="gaussian", scale=1, theta=1, q=1.5), "q"),
        (lambda: brdp.acceptance_rate(kernel="gaussian", scale=1, theta=1, q=-0.1), "q"),
        (lambda: brdp.acceptance_rate(kernel="gaussian", scale=0, theta=1, q=0.1), "scale"),
        (lambda: brdp.acceptance_rate(kernel="cauchy", scale=1, theta=1, q=0.1), "kernel"),
        (lambda: brdp.output_density(0, kernel="gaussian", scale=1, theta=1, q=float("nan")), "q"),
        (lambda: brdp.output_density([0, np.nan], kernel="gaussian", scale=1, theta=1, q=0.1), "x"),
        (lambda: brdp.paper_w(kernel="gaussian", scale=1, theta=1, sensitivity=0), "sensitivity"),
        (lambda: brdp.paper_delta(1, kernel="gaussian", scale=1, theta=1, q=0.2, sensitivity=-1), "sensitivity"),
        (lambda: brdp.exact_delta(1, kernel="gaussian", scale=1, theta=1, q=2, sensitivity=1), "q"),
        (lambda: brdp.exact_delta(1, kernel="gaussian", scale=1, theta=0, q=0.2, sensitivity=1), "theta"),
        (lambda: brdp.baseline_q(1.0, 1.5), "epsilon_y"),
        (lambda: brdp.baseline_q(-1.0, 0.5), "epsilon"),
        (
            lambda: brdp.paper_q(epsilon=1, delta=1e-5, epsilon_y=2, sensitivity=1, theta=1, kernel="gaussian"),
            "epsilon_y",
        ),
        (lambda: brdp.paper_q(epsilon=1, delta=0, epsilon_y=0.5, sensitivity=1, theta=1, kernel="gaussian"), "delta"),
        (
            lambda: brdp.paper_q(epsilon=1, delta=1e-5, epsilon_y=0.5, sensitivity=0, theta=1, kernel="gaussian"),
            "sensitivity",
        ),
        (
            lambda: brdp.paper_q(epsilon=1, delta=1e-5, epsilon_y=0.5, sensitivity=1, theta=0, kernel="gaussian"),
            "theta",
        ),
        (lambda: brdp.optimize(epsilon=1, delta=1e-5, sensitivity=1, theta=-2, kernel="gaussian"), "theta"),
        (lambda: brdp.optimize(epsilon=1, delta=1e-5, sensitivity=0, theta=1, kernel="gaussian"), "sensitivity"),
        (lambda: brdp.optimize(epsilon=0, delta=1e-5, sensitivity=1, theta=1, kernel="gaussian"), "epsilon"),
        (
            lambda: brdp.optimize(epsilon=1, delta=1e-5, sensitivity=1, theta=1, kernel="gaussian", accountant="rdp"),
            "accountant",
        ),
        (
            lambda: brdp.optimize(
                epsilon=1, delta=1e-5, sensitivity=1, theta=1, kernel="gaussian", objective="as_printed"
            ),
            "objective",
        ),
        (
            lambda: brdp.make_plan(epsilon=1, delta=1e-5, sensitivity=1, theta=1, kernel="gaussian", epsilon_y=1.2),
            "epsilon_y",
        ),
        (
            lambda: brdp.make_plan(
                epsilon=1, delta=1e-5, sensitivity=1, theta=1, kernel="gaussian", epsilon_y=0.5, q=1.2
            ),
            "q",
        ),
        (lambda: brdp.amplify(1, 1e-5, rate=0), "rate"),
        (lambda: brdp.amplify(1, 1e-5, rate=1.2), "rate"),
        (lambda: brdp.deamplify(1, 1e-5, rate=0), "rate"),
        (lambda: brdp.deamplify(1, 1e-2, rate=0.005), "rate"),
        (lambda: brdp.sampling_error_std("sum", rate=1.5, n_records=10), "rate"),
        (lambda: brdp.sampling_error_std("median", rate=0.5, n_records=10), "query"),
        (lambda: brdp.sampling_error_std("count", rate=0.5, n_records=10, p_c=2), "p_c"),
        (
            lambda: brdp.optimal_sampling_rate(
                epsilon=0.1, delta=1e-5, sensitivity=1, theta=0, n_records=100, query="count"
            ),
            "theta",
        ),
        (lambda: brdp.sample_outputs(-1, **G, q=0.1), "n"),
        (lambda: brdp.sample_outputs(10, **G, q=0.1, rng=-3), "rng"),
        (lambda: brdp.simulate_recycler(5, **G, q=1.1), "q"),
        (lambda: brdp.kernel_delta(1, kernel="gaussian", scale=1, compositions=0), "compositions"),
    ],
)
def test_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_bad_compositions_and_plan(plan):
    with pytest.raises(ValueError, match="compositions"):
        brdp.composed_delta(1.0, compositions=0, plan=plan)
    with pytest.raises(ValueError, match="compositions"):
        brdp.composed_epsilon(1e-5, compositions=0, plan=plan)
    with pytest.raises(ValueError, match="plan"):
        brdp.composed_delta(1.0, compositions=2, plan={"q": 0.1})
    with pytest.raises(ValueError, match="accountant"):
        brdp.composed_delta(1.0, compositions=2, plan=plan, accountant="rdp")
    with pytest.raises(ValueError, match="kernel_composition"):
        brdp.composed_delta(1.0, compositions=2, plan=plan, accountant="paper", kernel_composition="fft")
    with pytest.raises(ValueError, match="variant"):
        brdp.composed_delta(1.0, compositions=2, plan=plan, accountant="paper", variant="printed")


# ------------------------------------------------------------------ kernel helpers


def test_kernel_scale_delegates_to_accounting():
    assert brdp.kernel_scale(0.7, 1e-6, sensitivity=2) == pytest.approx(
        accounting.gaussian_sigma(0.7, 1e-6, sensitivity=2)
    )
    assert brdp.kernel_scale(0.7, 1e-6, sensitivity=2, kernel="laplace") == pytest.approx(
        2 / (0.7 - 2 * math.log1p(-1e-6))
    )
    assert brdp.kernel_scale(0.7, 1e-6, kernel="laplace", calibration="classic") == pytest.approx(1 / 0.7)


def test_success_probability_closed_forms():
    assert brdp.success_probability(**G) == pytest.approx(stats.norm(0, 3).cdf(1) - stats.norm(0, 3).cdf(-1))
    assert brdp.success_probability(**L) == pytest.approx(
        stats.laplace(0, 1.2).cdf(0.8) - stats.laplace(0, 1.2).cdf(-0.8)
    )


def test_kernel_delta_matches_accounting():
    eps = np.array([-np.inf, -3, -0.5, 0, 0.7, 2, np.inf])
    assert np.allclose(
        brdp.kernel_delta(eps, kernel="gaussian", scale=2.0, sensitivity=1.5),
        accounting.gaussian_delta(eps, sigma=2.0, sensitivity=1.5),
        atol=1e-14,
    )
    assert np.allclose(
        brdp.kernel_delta(eps, kernel="laplace", scale=2.0, sensitivity=1.5),
        accounting.laplace_delta(eps, scale=2.0, sensitivity=1.5),
        atol=1e-14,
    )
    assert isinstance(brdp.kernel_delta(0.3, kernel="gaussian", scale=1.0), float)


# ------------------------------------------------------------------ mechanism


@pytest.mark.parametrize("kw", [G, L])
def test_acceptance_is_integral_of_density(kw):
    q = 0.37
    th = kw["theta"]
    acc = integrate.quad(lambda x: brdp.output_density(x, **kw, q=q), -th, th, epsabs=1e-14)[0]
    assert brdp.acceptance_rate(**kw, q=q) == pytest.approx(acc, abs=1e-12)


def test_expected_draws():
    p = brdp.success_probability(**G)
    assert brdp.expected_draws(**G, q=0.0) == 1.0
    assert brdp.expected_draws(**G, q=0.5) == pytest.approx(1 / (1 - (1 - p) * 0.5))
    assert brdp.expected_draws(**G, q=1.0) == pytest.approx(1 / p)


@pytest.mark.parametrize("kw", [G, L])
def test_output_cdf_is_integral_of_density(kw):
    q = 0.6
    for t in (-5.0, -kw["theta"], -0.3, 0.0, 0.5, kw["theta"] + 0.1, 7.0):
        pts = [p for p in (-kw["theta"], kw["theta"]) if p < t]
        ref = (
            integrate.quad(lambda x: brdp.output_density(x, **kw, q=q), -np.inf, t, points=None)[0]
            if not pts
            else sum(
                integrate.quad(lambda x: brdp.output_density(x, **kw, q=q), a, b)[0]
                for a, b in zip([-np.inf] + pts, pts + [t], strict=True)
            )
        )
        assert brdp.output_cdf(t, **kw, q=q) == pytest.approx(ref, abs=1e-9)
    assert brdp.output_cdf(10.0, **kw, q=q, center=10.0) == pytest.approx(0.5)


def test_density_center_shift():
    x = np.linspace(-3, 3, 7)
    assert np.allclose(brdp.output_density(x + 4, **G, q=0.3, center=4), brdp.output_density(x, **G, q=0.3))


def test_variance_by_quadrature():
    for kw in (G, L):
        for q in (0.0, 0.5, 1.0):
            f = lambda x, kw=kw, q=q: x * x * brdp.output_density(x, **kw, q=q)  # noqa: E731
            th = kw["theta"]
            ref = sum(integrate.quad(f, a, b, limit=200)[0] for a, b in [(-np.inf, -th), (-th, th), (th, np.inf)])
            assert brdp.output_variance(**kw, q=q) == pytest.approx(ref, rel=1e-8)


def test_sample_outputs_basic():
    a = brdp.sample_outputs(1000, **G, q=0.4, center=5.0, rng=1)
    b = brdp.sample_outputs(1000, **G, q=0.4, center=5.0, rng=1)
    assert a.shape == (1000,) and np.array_equal(a, b)
    assert abs(np.median(a) - 5.0) < 0.5
    assert brdp.sample_outputs(0, **G, q=0.4).shape == (0,)
    hard = brdp.sample_outputs(5000, **L, q=1.0, rng=2)
    assert np.all(np.abs(hard) <= L["theta"])
    # q = 1 with a tiny p_theta still works (direct sampler)
    tiny = brdp.sample_outputs(100, kernel="gaussian", scale=1e4, theta=1.0, q=1.0, rng=3)
    assert np.all(np.abs(tiny) <= 1.0)


def test_simulate_recycler_structure():
    df = brdp.simulate_recycler(200, **G, q=0.7, center=2.0, rng=4)
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == ["draw", "release", "noise", "output", "in_bound", "outcome"]
    rel = df[df.outcome != "recycled"]
    assert len(rel) == 200
    assert df.outcome.iloc[-1] != "recycled"
    assert np.array_equal(rel.release.to_numpy(), np.arange(200))
    assert np.allclose(df.output - df.noise, 2.0)
    assert (df.in_bound == (df.noise.abs() <= 1.0)).all()
    assert not ((df.outcome == "recycled") & df.in_bound).any()
    assert (df.outcome[df.in_bound] == "released in-bound").all()
    # q = 0: nothing is recycled; q = 1: every release is in-bound
    assert (brdp.simulate_recycler(100, **G, q=0.0, rng=5).outcome != "recycled").all()
    hard = brdp.simulate_recycler(100, **G, q=1.0, rng=6)
    assert set(hard.outcome[hard.outcome != "recycled"]) == {"released in-bound"}
    assert len(brdp.simulate_recycler(0, **G, q=0.5)) == 0
    capped = brdp.simulate_recycler(10, kernel="gaussian", scale=1e6, theta=1.0, q=1.0, rng=7, max_draws=50)
    assert len(capped) == 50


# ------------------------------------------------------------------ paper accountant


def test_baseline_and_loss():
    assert brdp.baseline_q(1.0, 1.0) == 0.0
    assert brdp.baseline_q(2.0, 0.5) == pytest.approx(1 - math.exp(-1.5))
    assert brdp.recycling_loss(0.0) == 0.0
    assert brdp.recycling_loss(1.0) == math.inf
    assert brdp.recycling_loss(0.5) == pytest.approx(math.log(2))


def test_paper_delta_mixture_matches_definition():
    w = brdp.paper_w(**G, sensitivity=1.0)
    big_l = brdp.recycling_loss(0.4)
    eps = np.array([-1.0, 0.0, 0.5, 1.5])
    ref = (1 - w) * accounting.gaussian_delta(eps, sigma=3.0) + w * accounting.gaussian_delta(eps - big_l, sigma=3.0)
    assert np.allclose(brdp.paper_delta(eps, **G, q=0.4, sensitivity=1.0), ref, atol=1e-15)
    # q = 1: L = inf and delta_Z(-inf) = 1
    assert brdp.paper_delta(1.0, **G, q=1.0, sensitivity=1.0) == pytest.approx(
        (1 - w) * accounting.gaussian_delta(1.0, sigma=3.0) + w
    )


def test_paper_q_edges():
    # eps_y = eps: q = 0 is feasible (delta_Z(eps) = delta), q stays >= 0
    q = brdp.paper_q(epsilon=1, delta=1e-5, epsilon_y=1, sensitivity=1, theta=1, kernel="gaussian")
    assert 0 <= q < 0.2
    # huge theta: W tiny <= delta -> q = 1 is feasible
    q = brdp.paper_q(epsilon=1, delta=1e-3, epsilon_y=0.5, sensitivity=0.01, theta=50, kernel="laplace")
    assert q == 1.0


def test_objective_variants():
    assert brdp.objective(0.2, 0.5) == pytest.approx(0.5 + 0.5 / 0.2)
    assert brdp.objective(0.2, 0.5, variant="as_printed") == pytest.approx(1 - 0.5 + 0.5 / 0.2)
    # corrected objective = 1/acceptance; printed is not
    acc = brdp.acceptance_rate(kernel="gaussian", scale=3.0, theta=1.0, q=0.3)
    p = brdp.success_probability(**G)
    assert brdp.objective(p, 0.3) == pytest.approx(1 / acc)
    assert brdp.objective(p, 0.3, variant="as_printed") != pytest.approx(1 / acc)
    with pytest.raises(ValueError, match="variant"):
        brdp.objective(0.2, 0.5, variant="typo")


# ------------------------------------------------------------------ exact accountant


def test_exact_delta_q0_is_kernel():
    eps = np.array([-1.0, 0.0, 0.4, 1.0, 2.5])
    for kernel in ("gaussian", "laplace"):
        kw = dict(kernel=kernel, scale=1.3, theta=0.9, sensitivity=1.0)
        ref = (
            accounting.gaussian_delta(eps, sigma=1.3)
            if kernel == "gaussian"
            else accounting.laplace_delta(eps, scale=1.3)
        )
        assert np.allclose(brdp.exact_delta(eps, q=0.0, **kw), ref, atol=1e-13)


def test_exact_delta_limits_and_shape():
    kw = dict(kernel="gaussian", scale=2.0, theta=1.0, sensitivity=1.0)
    assert brdp.exact_delta(-np.inf, q=0.5, **kw) == pytest.approx(1.0)
    assert brdp.exact_delta(np.inf, q=0.5, **kw) == 0.0
    out = brdp.exact_delta(np.zeros((2, 3)), q=0.5, **kw)
    assert out.shape == (2, 3)
    # q = 1 and D > 2 theta: disjoint supports
    assert brdp.exact_delta(3.0, kernel="laplace", scale=1.0, theta=0.5, q=1.0, sensitivity=2.0) == 1.0


def test_exact_pld_matches_exact_delta():
    kw = dict(kernel="gaussian", scale=3.0, theta=1.0, q=0.4, sensitivity=1.0)
    pld = brdp.exact_pld(**kw)
    for e in (0.0, 0.3, 0.8):
        d_exact = brdp.exact_delta(e, shifts=1, **kw)  # shift D only, as the PLD
        d_pld = pld.get_delta_for_epsilon(e)
        assert d_exact <= d_pld + 1e-12
        assert d_pld == pytest.approx(d_exact, rel=2e-3, abs=1e-9)


# ------------------------------------------------------------------ optimise


def test_optimize_plan_fields(plan):
    assert dataclasses.is_dataclass(plan)
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.q = 0.5  # type: ignore[misc]
    assert plan.accountant == "paper"
    assert 0 < plan.epsilon_y <= plan.epsilon
    assert plan.acceptance == pytest.approx(
        brdp.acceptance_rate(kernel="gaussian", scale=plan.scale, theta=1, q=plan.q)
    )
    assert plan.paper_delta <= plan.delta * (1 + 1e-9)
    assert plan.gain > 0
    assert plan.loss == pytest.approx(-math.log1p(-plan.q))


def test_exact_optimizer_is_sound_laplace():
    pl = brdp.optimize(epsilon=2, delta=1e-5, sensitivity=1, theta=0.5, kernel="laplace")
    assert pl.accountant == "exact"
    assert pl.exact_delta <= 1e-5 * (1 + 1e-6)
    assert pl.acceptance >= pl.dp_acceptance - 1e-9
    # its delta on a finer shift grid and by quadrature agrees
    kw = dict(kernel="laplace", scale=pl.scale, theta=0.5, q=pl.q, sensitivity=1.0)
    assert brdp.exact_delta(2.0, shifts=997, **kw) <= 1e-5 * (1 + 1e-6)


def test_make_plan_manual_q():
    m = brdp.make_plan(epsilon=1, delta=1e-5, sensitivity=1, theta=1, kernel="gaussian", epsilon_y=1, q=0.3)
    assert m.accountant == "manual" and m.q == 0.3
    a = brdp.make_plan(epsilon=1, delta=1e-5, sensitivity=1, theta=1, kernel="gaussian", epsilon_y=0.8)
    assert a.q == pytest.approx(
        brdp.paper_q(epsilon=1, delta=1e-5, epsilon_y=0.8, sensitivity=1, theta=1, kernel="gaussian"), abs=1e-9
    )


# ------------------------------------------------------------------ composition


def test_composed_delta_exact_t1_close_to_exact_delta(plan):
    eps = np.array([0.2, 0.6, 1.0])
    a = brdp.composed_delta(eps, compositions=1, plan=plan, accountant="exact")
    b = brdp.exact_delta(eps, kernel="gaussian", scale=plan.scale, theta=1, q=plan.q, sensitivity=1, shifts=1)
    assert np.all(a >= b - 1e-12)
    assert np.allclose(a, b, rtol=5e-3, atol=1e-9)
    assert brdp.composed_delta(-np.inf, compositions=3, plan=plan, accountant="exact") == 1.0


def test_composed_epsilon_dp_and_negative_branch(plan):
    e = brdp.composed_epsilon(1e-5, compositions=1, plan=plan, accountant="dp")
    assert e == pytest.approx(1.0, abs=1e-8)
    # a huge target delta gives a negative eps for the paper accountant (root on the negative side)
    e = brdp.composed_epsilon(0.9, compositions=1, plan=plan, accountant="paper")
    assert e < 0
    assert brdp.composed_delta(e, compositions=1, plan=plan, accountant="paper") == pytest.approx(0.9, abs=1e-8)


# ------------------------------------------------------------------ subsampling


def test_amplify_formula():
    e, d = brdp.amplify(1.0, 1e-5, rate=0.1)
    assert e == pytest.approx(math.log(1 + 0.1 * (math.e - 1)))
    assert d == pytest.approx(1e-6)


def test_sampling_error_std_formulas():
    assert brdp.sampling_error_std("sum", rate=0.25, n_records=400, sigma_x=2) == pytest.approx(2 * math.sqrt(1200))
    assert brdp.sampling_error_std("average", rate=0.25, n_records=400, sigma_x=2) == pytest.approx(
        2 * math.sqrt(3 / 400)
    )
    assert brdp.sampling_error_std("count", rate=0.25, n_records=400, p_c=0.2) == pytest.approx(
        math.sqrt(400 * 3 * 0.16)
    )
    assert brdp.sampling_error_std("sum", rate=1.0, n_records=400) == 0.0


def test_subsampled_acceptance_variants():
    kw = dict(scale=2.0, theta=1.5, q=0.5)
    assert brdp.subsampled_acceptance(**kw, sigma_e=0.0) == pytest.approx(brdp.acceptance_rate(kernel="gaussian", **kw))
    # true acceptance = P(|E + N_brdp| <= theta) = E_E[F_brdp(theta - E) - F_brdp(-theta - E)] (other order)
    se = 1.7

    def g(e):
        inside = brdp.output_cdf(1.5 - e, kernel="gaussian", **kw) - brdp.output_cdf(-1.5 - e, kernel="gaussian", **kw)
        return stats.norm(0, se).pdf(e) * inside

    ref = integrate.quad(g, -15 * se, 15 * se, points=[-3.0, 0.0, 3.0], epsabs=1e-12, limit=200)[0]
    assert brdp.subsampled_acceptance(**kw, sigma_e=se) == pytest.approx(ref, abs=1e-9)
    ptot = math.erf(1.5 / (math.hypot(2.0, se) * math.sqrt(2)))
    assert brdp.subsampled_acceptance(**kw, sigma_e=se, variant="corrected") == pytest.approx(1 / (0.5 + 0.5 / ptot))
    assert brdp.subsampled_acceptance(**kw, sigma_e=se, variant="as_printed") == pytest.approx(
        1 / (1 - 0.5 + 0.5 / ptot)
    )
    with pytest.raises(ValueError, match="kernel"):
        brdp.subsampled_acceptance(**kw, sigma_e=se, kernel="laplace", variant="corrected")


def test_optimal_sampling_rate_fields():
    sp = brdp.optimal_sampling_rate(
        epsilon=0.1, delta=1e-5, sensitivity=1, theta=3, n_records=2000, query="count", tol=1e-2
    )
    assert 0 < sp.rate <= 1
    assert sp.epsilon_in >= 0.1 and sp.delta_in >= 1e-5
    assert sp.acceptance == sp.eq13_acceptance
    assert 0 <= sp.true_acceptance <= 1


# ------------------------------------------------------------------ visualisation data


def test_landscape_and_curves(plan):
    df = brdp.budget_split_landscape(epsilon=1, delta=1e-5, sensitivity=1, theta=1, kernel="gaussian", n=20)
    assert len(df) == 20 and df.epsilon_y.iloc[-1] == pytest.approx(1.0)
    assert (df.q >= df.q_base - 1e-9).all()
    assert np.allclose(df.acceptance, 1 / df.objective_corrected)
    assert df.acceptance.max() <= plan.acceptance + 1e-9
    ac = brdp.acceptance_curve([0.5, 1.0], delta=1e-5, sensitivity=1, theta=1, kernel="gaussian")
    assert list(ac.epsilon) == [0.5, 1.0] and (ac.brdp_paper >= ac.dp - 1e-9).all()
    assert ac.brdp_paper.iloc[1] == pytest.approx(plan.acceptance, abs=1e-9)
    pp = brdp.privacy_profile(np.linspace(0, 2, 5), plan=plan)
    assert set(pp.columns) >= {"epsilon", "kernel", "paper", "exact", "dp", "under_reported"}
    assert pp.paper.iloc[2] == pytest.approx(plan.paper_delta, rel=1e-9)
    cc = brdp.composition_curve([1, 3], plan=plan, exact=False)
    assert cc.exact.isna().all() and cc.paper.iloc[0] == pytest.approx(1.0, abs=1e-8)
    ld = brdp.loss_distribution(plan, n=50)
    for col in ("kernel_cdf", "paper_cdf", "exact_cdf"):
        assert np.all(np.diff(ld[col]) >= -1e-15)
        assert 0 <= ld[col].min() and ld[col].max() <= 1


def test_experiment_releases_structure_and_bad_input():
    x = np.arange(50.0)
    df = brdp.experiment_releases(
        x, query="average", epsilon=1, delta=1e-5, sensitivity=1, theta=1, n_releases=20, rng=0, accountant="paper"
    )
    assert list(df.mechanism.unique()) == ["Lap-DP", "Gau-DP", "Lap-BRDP", "Gau-BRDP", "SMP-Lap-BRDP", "SMP-Gau-BRDP"]
    assert len(df) == 120
    assert np.allclose(df.error, df.output - x.mean())
    with pytest.raises(ValueError, match="mechanisms"):
        brdp.experiment_releases(x, query="sum", epsilon=1, delta=1e-5, sensitivity=1, theta=1, mechanisms=("X",))
    with pytest.raises(ValueError, match="query"):
        brdp.experiment_releases(x, query="max", epsilon=1, delta=1e-5, sensitivity=1, theta=1)


def test_compare_accountants_counterexample():
    df = brdp.compare_accountants(epsilon=0.1, delta=1e-3, sensitivity=5, theta=0.1, kernel="gaussian")
    assert list(df.plan) == ["paper (Alg. 2 + Alg. 1)", "exact optimum", "plain DP kernel"]
    row = df.set_index("plan")
    assert row.loc["paper (Alg. 2 + Alg. 1)", "status"] == "anti-conservative"
    assert row.loc["exact optimum", "status"] == "sound"
    assert row.loc["plain DP kernel", "status"] == "sound"
    assert row.loc["exact optimum", "acceptance"] >= row.loc["plain DP kernel", "acceptance"]


def test_thm4_large_epsilon_is_finite():
    e, d = brdp.amplify(1000.0, 1e-5, rate=0.3)
    assert e == pytest.approx(1000 + math.log(0.3))
    e2, _ = brdp.deamplify(e, d, rate=0.3)
    assert e2 == pytest.approx(1000.0)


def test_laplace_tfold_profile_matches_accounting_and_unsorted_eps():
    eps = np.linspace(-3, 8, 23)
    ours = brdp.kernel_delta(eps, kernel="laplace", scale=1.0, compositions=7)
    assert np.allclose(ours, accounting.laplace_delta(eps, scale=1.0, compositions=7), atol=1e-7)
    shuffled = eps[::-1].copy()
    assert np.allclose(brdp.kernel_delta(shuffled, kernel="laplace", scale=1.0, compositions=7), ours[::-1])
    lp = brdp.optimize(epsilon=3, delta=1e-5, sensitivity=5, theta=1, kernel="laplace", accountant="paper")
    a = brdp.composed_delta(np.array([6.0, 0.5, 3.0]), compositions=5, plan=lp, accountant="paper")
    b = brdp.composed_delta(np.array([0.5, 3.0, 6.0]), compositions=5, plan=lp, accountant="paper")
    assert np.allclose(a, b[[2, 0, 1]])
    assert np.all(np.diff(b) <= 0)


@pytest.mark.parametrize("kernel", ["gaussian", "laplace"])
def test_exact_q_search_over_many_scales_matches_one_at_a_time(kernel):
    """The exact optimiser searches q for a whole ε_y grid at once; each scale must give the scalar answer."""
    scales = np.array([0.3, 0.8, 1.5, 4.0, 12.0])
    dgrid = np.arange(1, 5) / 4
    many = budget_split._largest_exact_q(kernel, scales, 1.0, 1.0, 1e-5, dgrid)
    one = [budget_split._largest_exact_q(kernel, float(s), 1.0, 1.0, 1e-5, dgrid) for s in scales]
    np.testing.assert_allclose(many, one, rtol=0, atol=1e-12)
    for s, q in zip(scales, one, strict=True):
        if q >= 0:  # the q found is feasible, and q + 1e-9 is not (unless q = 1)
            kw = dict(kernel=kernel, scale=float(s), theta=1.0, sensitivity=1.0, shifts=4)
            assert brdp.exact_delta(1.0, q=q, **kw) <= 1e-5 * (1 + 1e-6)
            if q < 1:
                assert brdp.exact_delta(1.0, q=min(q + 1e-9, 1.0), **kw) > 1e-5 * (1 + 1e-6)
    grid = exact_accountant._exact_core(kernel, scales[:, None], 1.0, 0.5, np.array([0.0, 0.4, 0.9]), 1.0)
    for i, s in enumerate(scales):
        one = exact_accountant._exact_core(kernel, float(s), 1.0, 0.5, [0.0, 0.4, 0.9], 1.0)
        np.testing.assert_allclose(grid[i], one, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize(
    "kernel,scale,theta,q,sens,eps",
    [
        ("gaussian", 3.7306, 1.0, 0.3, 1.0, 1.0),
        ("gaussian", 0.8, 2.5, 0.7, 1.5, 0.2),
        ("laplace", 0.6, 0.4, 0.5, 2.0, 0.5),
        ("laplace", 1.3, 3.0, 0.9, 0.7, 0.05),
        ("gaussian", 2.0, 0.3, 0.95, 3.0, -0.5),
    ],
)
def test_exact_delta_sup_matches_a_dense_shift_grid(kernel, scale, theta, q, sens, eps):
    # the default 200-shift grid (+ refinement) must reach the sup found on a 20 000-shift brute-force grid
    dense = brdp.exact_delta(eps, kernel=kernel, scale=scale, theta=theta, q=q, sensitivity=sens, shifts=20_000)
    ours = brdp.exact_delta(eps, kernel=kernel, scale=scale, theta=theta, q=q, sensitivity=sens)
    assert ours >= dense - 1e-12 * max(1.0, dense)


def test_large_composition_coarsens_the_grid_and_stays_an_upper_bound():
    # a sharp kernel composed 1000 times: at h = 1e-4 the T-fold grid would need ~10^8 points (gigabytes);
    # the coarsened grid stays within MAX_COMPOSED_POINTS and the result stays an upper bound within T·h'.
    pl = brdp.optimize(epsilon=20, delta=0.1, sensitivity=4, theta=30, kernel="gaussian")
    t = 1000
    h = brdp.composition_interval(pl, t)
    assert 1e-4 < h < 0.01
    assert brdp.composition_interval(pl, 1) == 1e-4  # small T: the requested grid
    # with q = 1 and theta = 40 sigma this BR-DP is a Gaussian up to a ~1e-260 tail: T-fold closed form
    assert pl.q == 1.0 and pl.theta / pl.scale > 30
    truth = accounting.gaussian_epsilon(pl.delta, sigma=pl.scale, sensitivity=4, compositions=t)
    got = brdp.composed_epsilon(pl.delta, compositions=t, plan=pl, accountant="exact")
    assert truth - 1e-6 <= got <= truth + t * h
    curve = brdp.composition_curve([1, t], plan=pl, value_discretization_interval=5e-4)
    assert truth - 1e-6 <= curve.exact.iloc[-1] <= truth + t * max(h, 5e-4)


def test_remarks_3_and_4_against_their_formulas():
    """Remark 3: (Tε, Tδ); Remark 4 (Dwork, Rothblum & Vadhan): (Tε(e^ε − 1) + ε√(2T ln(1/δ′)), Tδ + δ′), checked
    against the formulas in 50-digit mpmath; the paper's printed total δ (δ′ alone) is available as printed."""
    import mpmath as mp

    mp.mp.dps = 50
    for eps, delta, t, slack in [(0.1, 1e-7, 1000, 1e-5), (1.0, 1e-9, 10, 1e-6), (0.01, 0.0, 10_000, 1e-10)]:
        e_b, d_b = brdp.basic_composition(eps, delta, compositions=t)
        assert mp.mpf(e_b) >= t * mp.mpf(eps) and mp.mpf(d_b) >= t * mp.mpf(delta)
        assert e_b == pytest.approx(t * eps, rel=1e-15)
        e_a, d_a = brdp.advanced_composition(eps, delta, compositions=t, delta_slack=slack)
        e, s = mp.mpf(eps), mp.mpf(slack)
        exact = t * e * mp.expm1(e) + e * mp.sqrt(2 * t * mp.log(1 / s))
        assert mp.mpf(e_a) >= exact and e_a == pytest.approx(float(exact), rel=1e-13)
        assert mp.mpf(d_a) >= t * mp.mpf(delta) + s and d_a == pytest.approx(t * delta + slack, rel=1e-14)
        printed = brdp.advanced_composition(eps, delta, compositions=t, delta_slack=slack, variant="as_printed")
        assert printed == (e_a, slack)  # Remark 4 as printed: the releases' own Tδ is missing from the total δ
    # advanced composition grows like √T: below basic for many small releases
    assert brdp.advanced_composition(0.1, 0.0, compositions=1000, delta_slack=1e-5)[0] < 0.5 * 100


def test_remark_4_never_below_the_exact_composition():
    """At the same total δ the exact PLD composition of a sound plan is at most Remark 4's advanced bound."""
    plan = brdp.optimize(epsilon=1.0, delta=1e-5, sensitivity=1.0, theta=1.0, kernel="gaussian")
    t = 50
    d1 = plan.exact_delta
    target = 1e-3
    e_adv, d_adv = brdp.advanced_composition(1.0, d1, compositions=t, delta_slack=target - t * d1)
    assert d_adv == pytest.approx(target, rel=1e-12)
    assert brdp.composed_epsilon(target, compositions=t, plan=plan) <= e_adv


def test_kernel_delta_y_is_alg1s_separate_input():
    """Alg. 1 takes the kernel's δ_y apart from the target δ: the kernel is calibrated at (ε_y, δ_y)."""
    kw = dict(epsilon=1.0, delta=1e-5, sensitivity=1.0, theta=1.0, kernel="gaussian")
    same = brdp.make_plan(epsilon_y=0.8, **kw)
    own = brdp.make_plan(epsilon_y=0.8, delta_y=1e-7, **kw)
    assert same.kernel_delta == 1e-5 and own.kernel_delta == 1e-7 and own.delta == 1e-5
    assert own.scale == pytest.approx(accounting.gaussian_sigma(0.8, 1e-7), rel=1e-9)
    assert same.scale == pytest.approx(accounting.gaussian_sigma(0.8, 1e-5), rel=1e-9)
    assert own.scale > same.scale  # a smaller δ_y needs more noise
    assert brdp.paper_q(epsilon_y=0.8, delta_y=1e-7, **kw) == pytest.approx(own.q, abs=1e-9)
    opt = brdp.optimize(accountant="paper", delta_y=1e-7, **kw)
    assert opt.kernel_delta == 1e-7 and opt.paper_delta <= 1e-5 * (1 + 1e-9)
    with pytest.raises(ValueError, match="delta_y"):
        brdp.make_plan(epsilon_y=0.8, delta_y=0.0, **kw)
