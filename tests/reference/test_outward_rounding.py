"""Every reported privacy parameter is on the safe side of the exact value, checked against 50-digit mpmath.

A privacy number is never on the unsafe side, not even by an ulp: a returned σ or b is never too small, a returned
δ, ε or ρ-cost never too low, a returned budget (ρ* of a filter, the ρ of :func:`dp_to_zcdp`) never too high. Each
test evaluates the exact quantity at the returned float (taken as an exact number) with mpmath at 50 significant
digits, on grids that include tiny ε and δ, and also checks that the answer is not needlessly loose.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import dpcore
from dpcore import filters as fl
from dpcore.accounting import gaussian as g

mp.mp.dps = 50

EPSILONS = [0.0, 1e-12, 1e-8, 1e-4, 1e-2, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 50.0, 200.0]
DELTAS = [0.5, 1e-2, 1e-5, 1e-10, 1e-20, 1e-50, 1e-100, 1e-300]


def _mp(x: float) -> mp.mpf:
    return mp.mpf(float(x))  # a float is an exact binary number: mpf holds it exactly


def _delta_g(eps: mp.mpf, mu: mp.mpf) -> mp.mpf:
    """Exact δ of the Gaussian mechanism (Balle & Wang 2018, Thm 8) to 50 digits: Φ(a) − e^ε Φ(b) cancels to about
    μ·φ at tiny μ, so the working precision grows with the digits that cancel."""
    extra = int(max(0, -mp.log10(mu))) + int(max(0, -mp.log10(eps))) if eps > 0 else int(max(0, -mp.log10(mu)))
    with mp.workdps(80 + extra):
        return +(mp.ncdf(mu / 2 - eps / mu) - mp.exp(eps) * mp.ncdf(-mu / 2 - eps / mu))


@pytest.mark.parametrize("delta", DELTAS)
def test_gaussian_sigma_is_never_too_small(delta: float) -> None:
    for eps in EPSILONS:
        if eps == 0.0 and delta >= 0.5:
            continue
        sigma = dpcore.gaussian_sigma(eps, delta)
        exact = _delta_g(_mp(eps), 1 / _mp(sigma))
        assert exact <= _mp(delta), (eps, delta, sigma)  # the σ returned meets (ε, δ) exactly
        # and it is not needlessly large: the exact δ there is within 1e-7 of the target for ε ≥ 0.01 and ε = 0,
        # 1e-5 for ε ≥ 1e-4 (measured: ≤ 1e-8 and ≤ 8e-7); where ε < 1e-4 and δ is tiny the round-off of
        # δ = Φ(a)(1 − e^g) in g ≈ δ/Φ(a) leaves a conservative margin (δ at the σ returned 1e-2 below the target
        # at ε = 1e-8, δ = 1e-300, and far below it at ε = 1e-12, δ ≤ 1e-20: sound, but not tight)
        if eps >= 1e-2 or eps == 0.0:
            tight = 1e-7
        elif eps >= 1e-4:
            tight = 1e-5
        elif eps >= 1e-8:
            tight = 1e-1
        else:
            continue
        assert exact >= _mp(delta) * (1 - tight), (eps, delta, float(exact / _mp(delta)))


def test_gaussian_sigma_classic_is_never_too_small() -> None:
    for delta in DELTAS[1:]:
        for eps in (1e-8, 1e-4, 0.01, 0.5, 0.99):
            sigma = dpcore.gaussian_sigma(eps, delta, method="classic")
            exact = mp.sqrt(2 * mp.log(mp.mpf("1.25") / _mp(delta))) / _mp(eps)
            assert _mp(sigma) >= exact >= _mp(sigma) * (1 - mp.mpf(1e-14))


@pytest.mark.parametrize("sigma", [0.05, 0.3, 1.0, 3.7, 20.0, 1e3])
def test_gaussian_delta_is_never_too_low(sigma: float) -> None:
    grid = np.array([-5.0, -1e-3, *EPSILONS, 1e3])
    got = dpcore.gaussian_delta(grid, sigma=sigma)
    for eps, d in zip(grid, got, strict=True):
        exact = _delta_g(_mp(eps), 1 / _mp(sigma))
        assert _mp(d) >= exact, (sigma, eps, d, float(exact))
        if exact > mp.mpf(1e-290):
            assert _mp(d) <= exact * (1 + mp.mpf(1e-9)) + mp.mpf(1e-300), (sigma, eps, float(_mp(d) / exact))


def test_gaussian_delta_composed_is_never_too_low() -> None:
    for t in (2, 10, 1000):
        for eps in (0.0, 0.01, 1.0, 10.0):
            d = dpcore.gaussian_delta(eps, sigma=2.0, compositions=t)
            exact = _delta_g(_mp(eps), mp.sqrt(t) / 2)
            assert _mp(d) >= exact and _mp(d) <= exact * (1 + mp.mpf(1e-9))


@pytest.mark.parametrize("delta", DELTAS)
def test_gaussian_epsilon_is_never_too_low(delta: float) -> None:
    for sigma in (0.1, 0.5, 1.0, 3.7, 30.0, 1e4):
        eps = dpcore.gaussian_epsilon(delta, sigma=sigma)
        if not math.isfinite(eps):
            continue
        exact = _delta_g(_mp(eps), 1 / _mp(sigma))
        assert exact <= _mp(delta), (sigma, delta, eps, float(exact / _mp(delta)))
        # not needlessly large: moving ε down by 1e-9 (relative, or absolute near 0) would break the target
        lower = eps - max(abs(eps) * 1e-9, 1e-12)
        assert _delta_g(_mp(lower), 1 / _mp(sigma)) > _mp(delta) * (1 - mp.mpf(1e-6)), (sigma, delta, eps)


def test_gaussian_epsilon_vectorised_is_never_too_low() -> None:
    """The vectorised root finder (more than a handful of roots) keeps the same guarantee."""
    deltas = np.array(DELTAS[1:] * 2)
    ts = np.repeat([1, 50], len(DELTAS) - 1)
    got = dpcore.gaussian_epsilon(deltas, sigma=2.0, compositions=ts)
    for d, t, e in zip(deltas, ts, got, strict=True):
        assert _delta_g(_mp(e), mp.sqrt(int(t)) / 2) <= _mp(d)


def test_gaussian_epsilon_where_an_overshoot_was_once_measured() -> None:
    """Small σ relative to Δ and tiny δ: the float root used to give an exact δ above the target (~1e-14)."""
    for sigma in np.geomspace(0.2, 5.0, 15):
        for delta in (1e-5, 1e-9, 1e-12):
            eps = dpcore.gaussian_epsilon(delta, sigma=float(sigma))
            assert _delta_g(_mp(eps), 1 / _mp(sigma)) <= _mp(delta)


def test_gaussian_rho_is_never_too_low() -> None:
    for sigma in (1e-3, 0.3, 1.0, 3.0, 7.7, 1e5):
        for sens in (1.0, 0.1, 3.0):
            rho = dpcore.gaussian_rho(sigma, sensitivity=sens)
            exact = (_mp(sens) / _mp(sigma)) ** 2 / 2
            assert _mp(rho) >= exact > _mp(math.nextafter(rho, 0.0))


def _cks_epsilon(rho: mp.mpf, delta: mp.mpf) -> mp.mpf:
    """Tight zCDP → DP conversion (Canonne, Kamath & Steinke 2020, Cor. 13): inf over α > 1, at 50 digits."""
    big_l = -mp.log(delta)

    def f(alpha: mp.mpf) -> mp.mpf:
        return alpha * rho + (big_l + (alpha - 1) * mp.log(1 - 1 / alpha) - mp.log(alpha)) / (alpha - 1)

    # the optimum solves ρ x² = L − ln(1 + x), x = α − 1 (derivative zero); one root, found in ln x
    x = mp.findroot(
        lambda u: rho * mp.exp(2 * u) + mp.log(1 + mp.exp(u)) - big_l,
        mp.log(min(mp.sqrt(big_l / rho), mp.expm1(min(big_l, 700)))),
    )
    return max(f(1 + mp.exp(x)), mp.mpf(0))


@pytest.mark.parametrize("delta", [0.5, 1e-3, 1e-5, 1e-10, 1e-20, 1e-100, 1e-300])
def test_zcdp_to_dp_is_never_below_the_tight_conversion(delta: float) -> None:
    rhos = [1e-12, 1e-8, 1e-4, 1e-3, 0.01, 0.1, 0.5, 1.0, 2.556, 10.0, 1e3]
    got = dpcore.zcdp_to_dp(np.array(rhos), delta)
    for rho, e in zip(rhos, got, strict=True):
        exact = _cks_epsilon(_mp(rho), _mp(delta))
        assert _mp(e) >= exact, (rho, delta, e, float(exact))
        assert _mp(e) <= exact * (1 + mp.mpf(1e-12)) + mp.mpf(1e-15), (rho, delta, float(_mp(e) / exact))


def test_zcdp_to_dp_scans_for_the_ulp_once_found_low() -> None:
    """A dense scan of (ρ, δ): the conversion was 1 ulp below the exact CKS value at some points."""
    gen = np.random.default_rng(3)
    rhos = 10 ** gen.uniform(-6, 2, 60)
    for delta in (1e-5, 1e-8, 1e-10):
        got = dpcore.zcdp_to_dp(rhos, delta)
        for rho, e in zip(rhos, got, strict=True):
            assert _mp(e) >= _cks_epsilon(_mp(rho), _mp(delta))


@pytest.mark.parametrize("delta", [1e-3, 1e-5, 1e-10, 1e-50])
def test_dp_to_zcdp_is_never_above_the_tight_inverse(delta: float) -> None:
    for eps in (1e-6, 1e-3, 0.1, 1.0, 5.0, 17.14, 100.0):
        rho = dpcore.dp_to_zcdp(eps, delta)
        assert _cks_epsilon(_mp(rho), _mp(delta)) <= _mp(eps), (eps, delta, rho)
        assert _cks_epsilon(_mp(rho) * (1 + mp.mpf(1e-9)), _mp(delta)) > _mp(eps) * (1 - mp.mpf(1e-12))


def test_bun_steinke_conversions_outward() -> None:
    from dpcore.accounting import dp_to_zcdp_bun_steinke, zcdp_to_dp_bun_steinke

    for delta in (0.5, 1e-5, 1e-50, 1e-300):
        big_l = -mp.log(_mp(delta))
        for rho in (1e-12, 1e-4, 0.3, 10.0):
            e = zcdp_to_dp_bun_steinke(rho, delta)
            assert _mp(e) >= _mp(rho) + 2 * mp.sqrt(_mp(rho) * big_l)
        for eps in (1e-9, 1e-3, 1.0, 40.0):
            r = dp_to_zcdp_bun_steinke(eps, delta)
            assert _mp(r) + 2 * mp.sqrt(_mp(r) * big_l) <= _mp(eps)


@pytest.mark.parametrize("variant", ["corrected", "as_printed"])
def test_filter_budget_and_epsilon_outward(variant: str) -> None:
    """The filters' ρ* (Lemma 2.3 inverted) is never above the exact one; their reported ε never below."""
    c = 1 if variant == "corrected" else 2
    for delta in (0.5, 1e-6, 1e-12, 1e-100):
        big_l = c * -mp.log(_mp(delta))
        for eps in (1e-9, 1e-3, 0.1, 1.0, 10.0, 300.0):
            r = fl.rho_budget(eps, delta, variant=variant)
            assert _mp(r) + 2 * mp.sqrt(_mp(r) * big_l) <= _mp(eps)
            assert _mp(r) * (1 + mp.mpf(1e-13)) + 2 * mp.sqrt(_mp(r) * (1 + mp.mpf(1e-13)) * big_l) > _mp(eps)
        for rho in (1e-12, 1e-4, 0.5, 20.0):
            e = fl.zcdp_epsilon(rho, delta, variant=variant)
            assert _mp(e) >= _mp(rho) + 2 * mp.sqrt(_mp(rho) * big_l)


def test_laplace_scale_and_single_release_outward() -> None:
    for delta in (0.0, 1e-10, 1e-5, 0.1):
        for eps in (1e-8, 0.01, 1.0, 20.0):
            b = dpcore.laplace_scale(eps, delta=delta)
            exact = 1 / (_mp(eps) - 2 * mp.log1p(-_mp(delta)))
            assert _mp(b) >= exact > _mp(math.nextafter(b, 0.0)) * (1 - mp.mpf(1e-14))
    for scale in (0.1, 1.0, 3.0):
        eps0 = 1 / _mp(scale)
        for eps in (-20.0, -1.0, 0.0, 1e-9, 0.5, float(1 / scale) - 1e-12, 1 / scale, 30.0):
            d = dpcore.laplace_delta(eps, scale=scale)
            e = _mp(eps)
            if e >= eps0:
                exact = mp.mpf(0)
            elif e >= -eps0:
                exact = -mp.expm1((e - eps0) / 2)
            else:
                exact = -mp.expm1(e)
            assert _mp(d) >= exact, (scale, eps, d, float(exact))
        for delta in (1e-12, 1e-5, 0.2, 0.9):
            e = dpcore.laplace_epsilon(delta, scale=scale)
            exact = eps0 + 2 * mp.log1p(-_mp(delta)) if _mp(delta) <= -mp.expm1(-eps0) else mp.log1p(-_mp(delta))
            assert _mp(e) >= exact, (scale, delta, e, float(exact))


def test_upper_bound_of_ln_delta_holds_on_a_dense_grid() -> None:
    """The round-off bound behind all of the above: ln δ_G + bound ≥ the exact ln δ_G, for ε from 1e-12 to 300
    and μ from 1e-3 to 40 (where δ spans 1 down to far below 1e-300)."""
    gen = np.random.default_rng(0)
    eps = np.concatenate([10 ** gen.uniform(-12, 2.5, 120), [0.0]])
    mus = 10 ** gen.uniform(-3, 1.6, 121)
    upper = g.gaussian_log_delta_upper_array(eps, mus)
    for e, m, u in zip(eps, mus, upper, strict=True):
        assert g.gaussian_log_delta_upper(float(e), float(m)) == pytest.approx(u, rel=1e-12, abs=1e-300)
        with mp.workdps(80):
            exact = _delta_g(_mp(e), _mp(m))
            if exact <= 0:
                continue
            assert _mp(u) >= mp.log(exact), (e, m)
