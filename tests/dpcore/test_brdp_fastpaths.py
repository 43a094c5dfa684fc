"""Fast paths of dpcore.brdp against independent slow evaluations (optimisation round 2).

Each fast path (Newton calibrations, the q-only exact-delta evaluator, branch-and-bound in the exact
optimiser, the closed-form subsampled acceptance, the composition curve's PLD shortcuts) is compared on random
inputs with a computation that does not share its code: scipy's brentq / quad, dp_accounting's own methods,
or the unpruned search.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import integrate, optimize, special, stats

from dpcore import accounting, brdp


def _log_delta_g(eps: float, mu: float) -> float:
    """ln delta_G(eps; mu) = ln[Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)] (Balle & Wang 2018)."""
    a, b = mu / 2 - eps / mu, -mu / 2 - eps / mu
    la, lb = special.log_ndtr(a), special.log_ndtr(b)
    return float(la + np.log(-np.expm1(eps + lb - la)))


def test_analytic_mu_newton_matches_brentq():
    rng = np.random.default_rng(11)
    for _ in range(300):
        eps, delta = float(10 ** rng.uniform(-3, 1.3)), float(10 ** rng.uniform(-12, -1))
        mu = brdp.calibration._analytic_mu_s(eps, delta)
        z = -special.ndtri(delta)
        lo = (math.sqrt(z * z + 2 * eps) - z) * 0.999  # delta_G <= Phi(mu/2 - eps/mu) = delta at the factor 1
        hi = 2 * lo
        while _log_delta_g(eps, hi) < math.log(delta):
            hi *= 2
        ref = optimize.brentq(
            lambda m, eps=eps, delta=delta: _log_delta_g(eps, m) - math.log(delta), lo, hi, xtol=1e-300, rtol=1e-14
        )
        assert mu == pytest.approx(ref, rel=1e-9)
        assert accounting.gaussian_log_delta_scalar(eps, mu) <= math.log(delta)  # sound side, in floats
    # the kernel's scale is the accountant's σ taken a hair up (never below it: a σ too small is a δ too high)
    assert accounting.gaussian_sigma(0.7, 1e-6) <= brdp.kernel_scale(0.7, 1e-6)
    assert brdp.kernel_scale(0.7, 1e-6) == pytest.approx(accounting.gaussian_sigma(0.7, 1e-6), rel=1e-10)


def test_gaussian_eps_for_delta_newton_matches_brentq():
    rng = np.random.default_rng(12)
    for _ in range(300):
        mu, t = float(10 ** rng.uniform(-2, 1.3)), float(10 ** rng.uniform(-12, -0.05))
        x = brdp.calibration._kernel_eps_for_delta("gaussian", t, 1 / mu, 1.0)
        ref = optimize.brentq(
            lambda e, mu=mu, t=t: _log_delta_g(e, mu) - math.log(t),
            math.log1p(-t),
            mu * mu / 2 - mu * special.ndtri(t) + 1e-9,
            xtol=1e-13,
            rtol=1e-15,
        )
        assert x == pytest.approx(ref, abs=1e-9 * max(1.0, abs(ref)))


def test_q_evaluator_equals_exact_core_bitwise():
    rng = np.random.default_rng(13)
    for it in range(40):
        kernel = ("gaussian", "laplace")[it % 2]
        eps, d = float(10 ** rng.uniform(-2, 1)), float(10 ** rng.uniform(-1, 1))
        th = float(10 ** rng.uniform(-1.5, 1))
        ss = d * 10 ** rng.uniform(-1, 1.5, 6)
        dgrid = d * np.arange(1, 5) / 4
        qs = np.concatenate(
            [rng.uniform(0, 1, (6, 12)), np.zeros((6, 1)), np.ones((6, 1)), 1 - 10 ** rng.uniform(-12, -2, (6, 4))], 1
        )
        fn = brdp.exact_accountant._exact_q_fn(kernel, ss, th, eps, dgrid)
        ref = brdp.exact_accountant._exact_core(kernel, ss[:, None, None], th, eps, qs[..., None], dgrid[None, None, :])
        ref = ref.max(-1)
        assert np.array_equal(fn(qs), ref)
        rows = np.array([1, 4])
        assert np.array_equal(fn(qs[rows], rows), ref[rows])
    # and one value against quadrature of max(0, P - e^eps Q) over the BR-DP densities (public output_density)
    s, th, q, eps, d = 0.8, 0.6, 0.7, 0.5, 1.0

    def dens(x: float, c: float) -> float:
        return brdp.output_density(x, kernel="gaussian", scale=s, theta=th, q=q, center=c)

    brute = integrate.quad(
        lambda x: max(0.0, dens(x, 0.0) - math.exp(eps) * dens(x, d)),
        -40 * s - th,
        40 * s + th + d,
        points=[-th, th, d - th, d + th],
        limit=500,
        epsabs=1e-13,
    )[0]
    assert brdp.exact_accountant._exact_q_fn("gaussian", np.array([s]), th, eps, np.array([d]))(np.array([[q]]))[
        0, 0
    ] == pytest.approx(brute, abs=1e-8)


def test_exact_optimiser_branch_and_bound_equals_full_search(monkeypatch):
    rng = np.random.default_rng(14)
    cases = [
        dict(
            epsilon=float(10 ** rng.uniform(-1, 0.8)),
            delta=float(10 ** rng.uniform(-9, -3)),
            sensitivity=float(10 ** rng.uniform(-0.5, 0.5)),
            theta=float(10 ** rng.uniform(-0.7, 1)),
            kernel=("gaussian", "laplace")[i % 2],
        )
        for i in range(8)
    ]
    fast = [brdp.optimize(**kw) for kw in cases]
    full = brdp.budget_split._largest_exact_q

    def unpruned(kernel, s, theta, eps, delta, dgrid, prune_p=None):
        q = full(kernel, s, theta, eps, delta, dgrid)
        return (q, np.ones(np.shape(q), dtype=bool)) if prune_p is not None else q

    monkeypatch.setattr(brdp.budget_split, "_largest_exact_q", unpruned)
    for kw, pl in zip(cases, fast, strict=True):
        ref = brdp.optimize(**kw)
        assert (pl.epsilon_y, pl.q, pl.scale) == (ref.epsilon_y, ref.q, ref.scale)
        assert pl.exact_delta <= kw["delta"] * (1 + 1e-6)


def test_pruned_rows_are_lower_bounds_below_the_best():
    ss = 1.0 / np.array([accounting.analytic_mu(e, 1e-5) for e in np.linspace(0.05, 1.0, 20)])
    ps = np.array([math.erf(1.0 / (s * math.sqrt(2))) for s in ss])
    dgrid = np.arange(1, 5) / 4
    q_full = brdp.budget_split._largest_exact_q("gaussian", ss, 1.0, 1.0, 1e-5, dgrid)
    q_bb, exact = brdp.budget_split._largest_exact_q("gaussian", ss, 1.0, 1.0, 1e-5, dgrid, prune_p=ps)
    acc = lambda p, q: p / (1 - (1 - p) * q)  # noqa: E731
    assert exact.any() and not exact.all()
    assert np.array_equal(q_bb[exact], q_full[exact])
    assert np.all(q_bb[~exact] <= q_full[~exact])
    assert acc(ps[~exact], q_full[~exact]).max() < acc(ps[exact], q_full[exact]).max()


def _acceptance_by_quad(s: float, th: float, q: float, se: float, kernel: str) -> float:
    """Pr(|E + N_brdp| <= theta) by quadrature over E of the BR-DP output CDF (the other order)."""

    def g(e: float) -> float:
        kw = dict(kernel=kernel, scale=s, theta=th, q=q)
        return stats.norm(0, se).pdf(e) * (brdp.output_cdf(th - e, **kw) - brdp.output_cdf(-th - e, **kw))

    pts = sorted({0.0, th, -th, th + 3 * s, -th - 3 * s, th - 3 * s, -th + 3 * s})
    lim = 12 * se
    edges = sorted({-lim, lim, *[p for p in pts if -lim < p < lim]})
    return sum(
        integrate.quad(g, a, b, epsabs=1e-14, epsrel=1e-11, limit=400)[0]
        for a, b in zip(edges, edges[1:], strict=False)
    )


@pytest.mark.slow
def test_subsampled_acceptance_closed_form_matches_quadrature():
    rng = np.random.default_rng(15)
    for it in range(25):
        kernel = "laplace" if it % 5 == 0 else "gaussian"
        s, th = float(10 ** rng.uniform(-1, 1)), float(10 ** rng.uniform(-1, 1))
        q, se = float(rng.choice([0.0, 1.0, rng.random()])), float(10 ** rng.uniform(-1, 1))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fast = brdp.subsampled_acceptance(scale=s, theta=th, q=q, sigma_e=se, kernel=kernel)
        assert fast == pytest.approx(_acceptance_by_quad(s, th, q, se, kernel), abs=1e-8)


def test_subsampled_acceptance_extreme_scales():
    # narrow kernel and noise inside a wide bound: nearly everything is accepted (a plain quad over the wide
    # interval missed the peak here); and a Monte Carlo check at moderate scales (5 sigma of 2e5 draws)
    wide = brdp.subsampled_acceptance(scale=0.016, theta=80.0, q=0.6, sigma_e=0.034)
    assert wide == pytest.approx(1.0, abs=1e-12)
    rng = np.random.default_rng(16)
    kw = dict(kernel="gaussian", scale=1.3, theta=1.0, q=0.7)
    out = brdp.sample_outputs(200_000, rng=rng, **kw) + rng.normal(0, 0.8, 200_000)
    emp = np.mean(np.abs(out) <= 1.0)
    tol = 5 * math.sqrt(0.25 / 200_000)
    assert brdp.subsampled_acceptance(sigma_e=0.8, **kw) == pytest.approx(emp, abs=tol)


def test_no_integration_warning_in_alg4():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sp = brdp.optimal_sampling_rate(
            epsilon=3.0, delta=1e-5, sensitivity=1.0, theta=1.0, n_records=100_000, query="count", sigma_x=10.0, p_c=0.1
        )
    ref = brdp.subsampled_acceptance(scale=sp.sigma_y, theta=1.0, q=sp.q, sigma_e=sp.sigma_e, variant="true")
    assert sp.true_acceptance == ref  # filled in for the returned plan only
    assert sp.acceptance == sp.eq13_acceptance
    assert isinstance(sp.epsilon_y, float)


def test_composition_curve_matches_dp_accounting():
    rng = np.random.default_rng(17)
    for kernel in ("gaussian", "laplace"):
        pl = brdp.optimize(
            epsilon=float(rng.uniform(0.5, 2)),
            delta=1e-5,
            sensitivity=1.0,
            theta=float(rng.uniform(0.5, 2)),
            kernel=kernel,
        )
        ts = [1, 3, 17, 60]
        df = brdp.composition_curve(ts, plan=pl, value_discretization_interval=5e-4)
        base = brdp.exact_pld(
            kernel=kernel, scale=pl.scale, theta=pl.theta, q=pl.q, sensitivity=1.0, value_discretization_interval=5e-4
        )
        for t, row in zip(ts, df.itertuples(), strict=True):
            lib = base.self_compose(t) if t > 1 else base
            assert row.exact == pytest.approx(lib.get_epsilon_for_delta(1e-5), abs=1e-8)
            # Gaussian: all T in one vectorised root-find (brentq per T in composed_epsilon: xtol 1e-12)
            assert row.paper == pytest.approx(
                brdp.composed_epsilon(1e-5, compositions=t, plan=pl, accountant="paper"), abs=1e-9
            )
            assert row.dp == pytest.approx(
                brdp.composed_epsilon(1e-5, compositions=t, plan=pl, accountant="dp"), abs=1e-9
            )


def test_composition_curve_vectorised_roots_edge_plans():
    rng = np.random.default_rng(19)
    ts = [1, 2, 7, 40, 300]
    for q in (0.0, 1.0, 0.999999, None):
        kw = dict(
            epsilon=float(rng.uniform(0.3, 3)),
            delta=float(10 ** rng.uniform(-9, -3)),
            sensitivity=1.0,
            theta=float(rng.uniform(0.3, 3)),
            kernel="gaussian",
        )
        pl = brdp.make_plan(epsilon_y=kw["epsilon"] * float(rng.uniform(0.2, 1)), q=q, **kw)
        for dl in (pl.delta, 1e-3):
            df = brdp.composition_curve(ts, plan=pl, delta=dl, exact=False)
            for t, row in zip(ts, df.itertuples(), strict=True):
                for acct in ("paper", "dp"):
                    ref = brdp.composed_epsilon(dl, compositions=t, plan=pl, accountant=acct)
                    got = getattr(row, acct)
                    assert got == ref or got == pytest.approx(ref, abs=1e-9), (q, dl, t, acct)


def test_paper_composition_profile_matches_direct_sum():
    pl = brdp.optimize(epsilon=1.0, delta=1e-5, sensitivity=1.0, theta=1.0, kernel="gaussian", accountant="paper")
    eps = np.linspace(0.5, 6, 12)
    t = 7
    j = np.arange(t + 1)
    ref = sum(
        stats.binom.pmf(k, t, pl.w) * accounting.gaussian_delta(eps - k * pl.loss, sigma=pl.scale, compositions=t)
        for k in j
    )
    got = brdp.composed_delta(eps, compositions=t, plan=pl, accountant="paper")
    assert np.allclose(got, np.clip(ref, 0, 1), rtol=1e-12, atol=1e-300)


def test_pld_epsilon_matches_dp_accounting():
    pl = brdp.optimize(epsilon=1.2, delta=1e-6, sensitivity=1.0, theta=0.8, kernel="laplace")
    base = brdp.exact_pld(kernel="laplace", scale=pl.scale, theta=0.8, q=pl.q, sensitivity=1.0)
    for t in (1, 5):
        pld = base.self_compose(t) if t > 1 else base
        for dl in (1e-9, 1e-6, 1e-3, 0.2):
            assert brdp.composition._pld_epsilon(pld, dl) == pytest.approx(pld.get_epsilon_for_delta(dl), abs=1e-9)


def test_loss_survival_equals_the_per_point_piece_computation():
    # the pieces depend on (d, q) only; the fast path builds them once: compare with building them per point
    rng = np.random.default_rng(18)
    for it in range(20):
        kernel = ("gaussian", "laplace")[it % 2]
        s, th = float(10 ** rng.uniform(-1, 1)), float(10 ** rng.uniform(-1, 1))
        d = float(10 ** rng.uniform(-1, 0.5))
        q = float(rng.choice([0.0, 1.0, rng.random()]))
        g = np.concatenate([np.linspace(-4, 4, 101), [np.inf]])
        lo, hi, a, b, c = brdp.exact_accountant._pieces(th, np.full(g.shape, d), np.full(g.shape, q))
        with np.errstate(all="ignore"):
            t = brdp.exact_accountant._threshold(kernel, s, np.full(g.shape, d)[..., None], g[..., None] - c)
            t = np.where(b == 0, np.inf, t)
            t = np.where((b > 0) & np.isposinf(g[..., None]), -np.inf, t)
        u = np.clip(t, lo, hi)
        m = np.where((u > lo) & (a > 0), a * brdp.kernels._mass(kernel, lo, u, s), 0.0)
        p = brdp.success_probability(kernel=kernel, scale=s, theta=th)
        ref = np.clip(m.sum(-1) / (1.0 - (1.0 - p) * q), 0.0, 1.0)
        assert np.array_equal(brdp.exact_accountant._loss_survival(kernel, s, th, q, d, g), ref)


def test_exact_optimiser_settles_pruned_candidates_when_the_best_fail(monkeypatch):
    # force every candidate to fail verification and repair: the pruned eps_y must then be searched to the end
    # (scalar calls of _largest_exact_q on the 4 coarse shifts) before the fallback plan (eps_y = eps, q = 0)
    full = brdp.budget_split._largest_exact_q
    settled = []

    def spy(kernel, s, theta, eps, delta, dgrid, prune_p=None):
        if len(dgrid) == 200:
            return -1.0  # repair fails
        if np.ndim(s) == 0:
            settled.append(float(s))
        return full(kernel, s, theta, eps, delta, dgrid, prune_p)

    monkeypatch.setattr(brdp.budget_split, "_largest_exact_q", spy)
    real_delta = brdp.budget_split.exact_delta  # every plan that redraws fails; the plain kernel (q = 0) is checked
    monkeypatch.setattr(
        brdp.budget_split, "exact_delta", lambda *a, **k: math.inf if k.get("q", 0.0) > 0 else real_delta(*a, **k)
    )
    ey, s, q = brdp.budget_split._exact_opt("gaussian", 1.0, 1e-5, 1.0, 1.0, "analytic")
    assert (ey, q) == (1.0, 0.0) and s == pytest.approx(accounting.gaussian_sigma(1.0, 1e-5), rel=1e-9)
    assert len(settled) > 0
