"""Fast paths of dpcore.r2dp's optimisers (Alg. 1 family optima) against independent slow evaluations.

* ``_nelder_mead`` (pure-Python Nelder–Mead) against ``scipy.optimize.minimize(method="Nelder-Mead")``: same iterates;
* ``_scalar_root_newton`` / ``_scale_root_newton`` (safeguarded Newton for the scale with exact ε) against brentq /
  64-step bisection and against ε computed by quadrature of the mixing density;
* the scalar M, M', M'' helpers against quadrature; ``_lse0`` against ``scipy.special.logsumexp``;
* every family optimum with the fast paths against the same optimiser run on the slow paths (scipy, brentq, bisection).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from dpcore import r2dp
from dpcore.r2dp import _mgf, _solvers

RNG = np.random.default_rng(20261121)


# ------------------------------------------------------------------------------------------- Nelder–Mead replica


def _rosen(x):
    return sum(100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2 for i in range(len(x) - 1))


def _plateau(x):  # clamped coordinates (flat regions, ties in the simplex) like the Gamma+TN objective
    return sum((min(max(v, -1.0), 2.0) - 0.3 * i) ** 2 for i, v in enumerate(x)) + 1e-3 * math.tanh(x[0])


def _with_nan(x):  # nan / inf outside a region, like the two-point objective far out
    if x[0] > 3.0:
        return math.nan
    if x[1] < -3.0:
        return math.inf
    return (x[0] - 1.0) ** 2 + (x[1] + 0.5) ** 2 + 0.1 * math.sin(5 * x[0])


@pytest.mark.parametrize("fun", [_rosen, _plateau, _with_nan], ids=["rosenbrock", "plateau", "nan"])
@pytest.mark.parametrize("dim", [2, 4])
@pytest.mark.parametrize("simplex", [False, True])
def test_nelder_mead_replica_matches_scipy(fun, dim, simplex):
    for _ in range(6):
        x0 = RNG.uniform(-2.0, 2.0, dim)
        if RNG.random() < 0.3:
            x0[0] = 0.0  # the zdelt branch of scipy's default simplex
        sim = np.vstack([x0, x0 + np.diag(RNG.uniform(0.1, 1.0, dim))]) if simplex else None
        xatol, fatol = RNG.choice([1e-10, 1e-6, 1e-3]), RNG.choice([1e-16, 1e-12, 1e-6])
        maxfev = int(RNG.integers(5, 400))
        opts = {"xatol": xatol, "fatol": fatol, "maxfev": maxfev}
        if simplex:
            opts["initial_simplex"] = sim
        ref = optimize.minimize(fun, x0, method="Nelder-Mead", options=opts)
        x, f = _solvers._nelder_mead(fun, x0, xatol=xatol, fatol=fatol, maxfev=maxfev, initial_simplex=sim)
        np.testing.assert_array_equal(x, ref.x)
        assert (f == ref.fun) or (math.isnan(f) and math.isnan(ref.fun))


def test_lse0_matches_scipy_logsumexp():
    from scipy.special import logsumexp

    for k in (1, 2, 3):
        for _ in range(300):
            a = RNG.normal(0, 30, (k, 9))
            u = RNG.random((k, 9))
            a[u < 0.1] = -np.inf
            a[u > 0.95] = np.inf
            if RNG.random() < 0.1:
                a[:] = -np.inf
            if k > 1 and RNG.random() < 0.2:
                a[0] = a[-1]  # ties at the maximum
            ref = logsumexp(a, axis=0)
            got = _mgf._lse0(a)
            np.testing.assert_array_equal(np.isfinite(got), np.isfinite(ref))
            np.testing.assert_array_equal(got[~np.isfinite(ref)], ref[~np.isfinite(ref)])
            np.testing.assert_allclose(got[np.isfinite(ref)], ref[np.isfinite(ref)], rtol=4e-16, atol=0)


# ------------------------------------------------------------------------------------------------ scale roots


def _quad_eps(pdf, lo, scale, dq):
    """ε = ln(E[u] / E[u e^{-Δq u}]) by quadrature of the density of u (Cor. 3.3), split at a few scales."""
    pts = [lo] + [lo + scale * c for c in (0.5, 2.0, 8.0, 40.0)] + [math.inf]

    def e(fn):
        return sum(
            integrate.quad(lambda u: fn(u) * pdf(u), a, b, epsabs=0, epsrel=1e-10, limit=200)[0]
            for a, b in zip(pts[:-1], pts[1:], strict=True)
        )

    return math.log(e(lambda u: u) / e(lambda u: u * math.exp(-dq * u)))


def _tn_pdf(mu, sig, lo):
    """Density of N(μ, σ²) conditioned on u >= lo (plain math: scipy.stats' pdf is slow inside quad)."""
    logq = float(stats.norm.logsf((lo - mu) / sig))
    c = -math.log(sig) - 0.5 * math.log(2 * math.pi) - logq
    return lambda u: math.exp(c - 0.5 * ((u - mu) / sig) ** 2) if u >= lo else 0.0


def _random_tn_shape():
    al = float(RNG.choice([RNG.uniform(-3, 4), RNG.uniform(5, 40)]))
    lr = float(RNG.uniform(-8, 3))
    return al, lr, _mgf._tn_from_shape_scalar(al, lr, 1.0)


def test_scalar_newton_root_tn_matches_quadrature_and_brentq():
    for _ in range(12):
        eps, dq = float(RNG.uniform(0.2, 20)), float(RNG.choice([0.5, 1.0, 3.0]))
        al, lr, (mu, sig, lo) = _random_tn_shape()
        guess = float(np.exp(RNG.uniform(-4, 4))) * eps / dq
        f012 = _mgf._tn_scalar012(mu, sig, lo)
        s = _solvers._scalar_root_newton(lambda t, f012=f012: f012(t)[1:], eps, dq, guess)
        s_ref = _solvers._scalar_root(
            lambda t, mu=mu, sig=sig, lo=lo: _mgf._tn_logmp_scalar(t, mu, sig, lo), eps, dq, guess
        )
        assert s == pytest.approx(s_ref, rel=1e-12)
        law = r2dp.TruncatedNormal(mu * s, sig * s, lo * s)
        got = _quad_eps(_tn_pdf(law.mu, law.sigma, law.low), law.low, law.sigma, dq)
        assert got == pytest.approx(eps, rel=1e-9, abs=1e-10)


def test_scalar_newton_root_uniform_matches_closed_form_eps():
    for _ in range(40):  # ε beyond the app's range and far guesses included (a wrong M'' once stalled Newton)
        eps, dq = float(RNG.uniform(0.05, 60)), float(RNG.choice([0.5, 1.0, 3.0]))
        rho = float(RNG.choice([0.0, 10 ** RNG.uniform(-6, -2), RNG.uniform(0, 1), 1 - 10 ** RNG.uniform(-4, -1)]))
        guess = float(np.exp(RNG.uniform(-8, 8))) * 2 * eps / dq / (1 + rho)
        s = _solvers._scalar_root_newton(lambda t, rho=rho: _mgf._uniform_logmp12_scalar(t, rho, 1.0), eps, dq, guess)
        a, b = rho * s * dq, s * dq  # Theorem 4.7 (independent closed form) in units of Δq
        got = math.log((b**2 - a**2) / (2 * ((1 + a) * math.exp(-a) - (1 + b) * math.exp(-b))))
        assert got == pytest.approx(eps, rel=1e-8)
        s_ref = _solvers._scalar_root(lambda t, rho=rho: _mgf._uniform_logd(t, 1, rho, 1.0), eps, dq, guess)
        assert s == pytest.approx(s_ref, rel=1e-12)


def test_vector_newton_root_matches_bisection():
    A, LR = np.meshgrid(np.array([-3.0, -1.0, 0.0, 1.0, 2.5, 5.0, 10.0, 25.0]), np.linspace(-9.0, 4.0, 14))
    A, LR = A.ravel(), LR.ravel()
    mu, sig, lo = _mgf._tn_from_shape(A, LR, 1.0)
    rho = np.concatenate([[0.0], 1 - np.geomspace(1.0, 1e-4, 80)[1:]])
    for eps in (0.1, 1.37, 5.0, 20.0):
        for dq in (1.0, 2.5):
            guess = eps / dq / (1 + np.exp(LR))
            fast = _solvers._scale_root_newton(
                lambda t: (_mgf._tn_logd(t, 1, mu, sig, lo), _mgf._tn_logd(t, 2, mu, sig, lo)), eps, dq, guess
            )
            slow = _solvers._scale_root(lambda t: _mgf._tn_logd(t, 1, mu, sig, lo), eps, dq, guess)
            np.testing.assert_allclose(fast, slow, rtol=1e-12)
            guess = 2 * eps / dq / (1 + rho)
            fast = _solvers._scale_root_newton(
                lambda t: (_mgf._uniform_logd(t, 1, rho, 1.0), _mgf._uniform_logd(t, 2, rho, 1.0)), eps, dq, guess
            )
            slow = _solvers._scale_root(lambda t: _mgf._uniform_logd(t, 1, rho, 1.0), eps, dq, guess)
            np.testing.assert_allclose(fast, slow, rtol=1e-12)


# -------------------------------------------------------------------------------------------- scalar helpers


def test_tn_scalar012_matches_quadrature():
    for _ in range(12):
        _, _, (mu, sig, lo) = _random_tn_shape()
        t = -float(np.exp(RNG.uniform(-3, 2))) / sig
        pdf = _tn_pdf(mu, sig, lo)
        pts = [lo, lo + sig, lo + 5 * sig, lo + 40 * sig, math.inf]
        mom = [
            sum(
                integrate.quad(
                    lambda u, n=n, t=t, lo=lo, pdf=pdf: u**n * math.exp(t * (u - lo)) * pdf(u),
                    a,
                    b,
                    epsabs=0,
                    epsrel=1e-12,
                    limit=200,
                )[0]
                for a, b in zip(pts[:-1], pts[1:], strict=True)
            )
            for n in range(3)
        ]
        ref = [math.log(m) + t * lo for m in mom]
        got = _mgf._tn_scalar012(mu, sig, lo)(t)
        assert got[0] == pytest.approx(ref[0], abs=1e-9)
        assert got[1] == pytest.approx(ref[1], abs=1e-9)
        assert got[2] == pytest.approx(ref[2], abs=1e-7)  # M'' only steers Newton


def test_uniform_scalar_helpers_match_quadrature():
    for _ in range(30):
        a = float(RNG.choice([0.0, RNG.uniform(0, 3)]))
        b = a + float(np.exp(RNG.uniform(-4, 3)))
        t = -float(np.exp(RNG.uniform(-5, 4))) / b

        def mom(n, t=t, a=a, b=b):
            return integrate.quad(lambda u: u**n * math.exp(t * (u - b)), a, b, epsabs=0, epsrel=1e-13)[0] / (b - a)

        assert _mgf._uniform_logM_scalar(t, a, b) == pytest.approx(math.log(mom(0)) + t * b, abs=1e-10)
        l1, l2 = _mgf._uniform_logmp12_scalar(t, a, b)
        assert l1 == pytest.approx(math.log(mom(1)) + t * b, abs=1e-10)
        assert l2 == pytest.approx(math.log(mom(2)) + t * b, abs=1e-6)


def test_two_point_fail_scalar_matches_direct_law():
    for _ in range(30):
        eps, dq, gam = float(RNG.uniform(0.1, 20)), float(RNG.choice([0.5, 1.0, 2.0])), float(RNG.uniform(0.01, 3))
        x0, x1 = float(RNG.uniform(-6, 6)), float(RNG.uniform(-5, 5)) + math.log(eps / dq)
        u0 = eps / dq / (1 + math.exp(-x0))
        u1 = eps / dq + math.exp(x1)

        # the law with exact ε on {u0, u1} by root finding on p (independent of the closed-form p)
        # ε of {u0 w.p. q, u1 w.p. 1 - q}: ln E[u] - ln E[u e^{-Δq u}] (logs: e^{-Δq u1} underflows)
        def eps_of(q, u0=u0, u1=u1, dq=dq, eps=eps):
            num = math.log(q * u0 + (1 - q) * u1)
            den = np.logaddexp(
                math.log(q) + math.log(u0) - dq * u0 if q > 0 else -np.inf,
                math.log1p(-q) + math.log(u1) - dq * u1 if q < 1 else -np.inf,
            )
            return num - float(den) - eps

        p = optimize.brentq(eps_of, 0.0, 1.0, xtol=1e-16, rtol=1e-15)
        ref = p * math.exp(-gam * u0) + (1 - p) * math.exp(-gam * u1)
        assert r2dp.optimal._two_point_fail_scalar(x0, x1, eps, dq, gam) == pytest.approx(ref, rel=1e-9, abs=1e-13)


# ---------------------------------------------------------------------------- optimisers: fast vs slow paths


def _slow_roots(monkeypatch) -> None:
    """The exact-ε root finders' slow paths (bisection, brentq) instead of their Newton steps."""
    monkeypatch.setattr(
        r2dp.optimal,
        "_scalar_root_newton",
        lambda fun, eps, dq, guess, m0=None: _solvers._scalar_root(lambda t: fun(t)[0], eps, dq, guess),
    )
    monkeypatch.setattr(
        r2dp.optimal,
        "_scale_root_newton",
        lambda fun, eps, dq, guess: _solvers._scale_root(lambda t: fun(t)[0], eps, dq, guess),
    )


@pytest.fixture
def slow_paths(monkeypatch):
    """The optimisers on the slow paths: scipy's Nelder–Mead, brentq roots, 64-step bisection."""

    def nm(fun, x0, *, xatol, fatol, maxfev, initial_simplex=None):
        opts = {"xatol": xatol, "fatol": fatol, "maxfev": maxfev}
        if initial_simplex is not None:
            opts["initial_simplex"] = initial_simplex
        res = optimize.minimize(fun, x0, method="Nelder-Mead", options=opts)
        return res.x, res.fun

    monkeypatch.setattr(r2dp.optimal, "_nelder_mead", nm)
    _slow_roots(monkeypatch)
    r2dp.optimal._family_law.cache_clear()
    yield
    r2dp.optimal._family_law.cache_clear()


POINTS = [(20.0, 0.05), (12.0, 0.3), (5.0, 0.1), (2.5, 0.2), (1.37, 0.01), (8.0, 0.75, 2.0)]


def _optima(families):
    r2dp.optimal._family_law.cache_clear()
    out = {}
    for pt in POINTS:
        eps, g, *rest = pt
        dq = rest[0] if rest else 1.0
        for fam in families:
            res = r2dp.optimize(epsilon=eps, gamma=g * dq, sensitivity=dq, family=fam)
            out[(pt, fam)] = (
                res.family_usefulness,
                res.usefulness,
                res.laplace_optimal,
                r2dp.epsilon(res.family_law, sensitivity=dq),
            )
    r2dp.optimal._family_law.cache_clear()
    return out


FAST_FAMILIES = ("two_point", "uniform", "truncnorm")


@pytest.fixture(scope="module")
def fast_optima():
    return _optima(r2dp.FAMILIES)


def test_optima_fast_equal_slow_single_families(fast_optima, slow_paths):
    slow = _optima(FAST_FAMILIES)
    for key, (fu, u, lap_opt, _eps_law) in slow.items():
        got = fast_optima[key]
        assert got[0] == pytest.approx(fu, abs=1e-9), key
        assert got[1] == pytest.approx(u, abs=1e-9), key
        assert got[2] == lap_opt, key
        assert got[3] == pytest.approx(key[0][0], abs=1e-9), key  # exact ε of the fast optimum = target


def test_optima_beyond_app_range_fast_equal_slow(monkeypatch):
    # ε = 30, 50 (the app stops at 20): the Uniform optimum once missed its exact ε here. (The truncated
    # normal's own search fails its exact ε at ε = 50 with either path — optimize falls back to Laplace.)
    fast = {}
    for eps, g, fams in ((30.0, 0.4, ("uniform", "two_point", "truncnorm")), (50.0, 0.02, ("uniform", "two_point"))):
        for fam in fams:
            r2dp.optimal._family_law.cache_clear()
            res = r2dp.optimize(epsilon=eps, gamma=g, family=fam)
            assert r2dp.epsilon(res.family_law) == pytest.approx(eps, abs=1e-9)
            fast[(eps, g, fam)] = res.family_usefulness
    _slow_roots(monkeypatch)
    for (eps, g, fam), u in fast.items():
        r2dp.optimal._family_law.cache_clear()
        assert r2dp.optimize(epsilon=eps, gamma=g, family=fam).family_usefulness == pytest.approx(u, abs=1e-9)
    r2dp.optimal._family_law.cache_clear()


def test_optima_fast_equal_slow_gamma_tn(fast_optima, slow_paths):
    slow = _optima(("combo",))
    for key, (fu, u, lap_opt, _eps_law) in slow.items():
        got = fast_optima[key]
        assert got[0] == pytest.approx(fu, abs=1e-8), key
        assert got[1] == pytest.approx(u, abs=1e-8), key
        assert got[2] == lap_opt, key
        assert got[3] == pytest.approx(key[0][0], abs=1e-9), key
