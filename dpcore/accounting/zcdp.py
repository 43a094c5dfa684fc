"""Conversions between zero-concentrated DP (ρ-zCDP) and (ε, δ)-DP.

Tight (default): Canonne, Kamath & Steinke 2020, Prop. 12 / Cor. 13. A ρ-zCDP mechanism is (ε, δ)-DP with

    δ = inf_{α>1} exp((α−1)(αρ − ε)) / (α−1) · (1 − 1/α)^α,

equivalently ε(δ) = inf_{α>1} αρ + [ln(1/δ) + (α−1) ln(1 − 1/α) − ln α] / (α−1). With x = α − 1 and L = ln(1/δ)
the derivative in α vanishes where ρx² = L − ln(1+x): the left side grows from 0 and the right side falls from L,
so the optimal order is the single root of that equation (Newton in ln x, vectorised). Any α gives a valid ε, so
the ε reported is the formula evaluated at the computed root: an error in α can only raise ε (to second order).
The evaluation itself rounds, so the ε reported is moved up by a bound on that round-off (and ln(1/δ) is taken a
rounding high): it is never below the exact conversion, not even by an ulp; a ρ returned for an ε is checked
against that upper bound, so it is never above the exact inverse.

Looser, by name: Bun & Steinke 2016, Prop. 1.3, ε = ρ + 2√(ρ ln(1/δ)), and its inverse.
"""

from __future__ import annotations

import math

import numpy as np

from dpcore import _validate as _v
from dpcore._exact import U, down, up
from dpcore.accounting._util import FloatOrArray
from dpcore.accounting._util import out_value as _out

__all__ = ["dp_to_zcdp", "dp_to_zcdp_bun_steinke", "zcdp_to_dp", "zcdp_to_dp_bun_steinke"]

_MAX_STEPS = 200


def _epsilon_at(rho: np.ndarray, x: np.ndarray, big_l: float) -> np.ndarray:
    """ε(α) of Canonne et al. 2020, Cor. 13 at α = 1 + x: αρ + (L − ln α)/(α − 1) + ln(1 − 1/α), moved up by a
    bound on its round-off (a few U of every term's magnitude), so it is never below the exact value at this α."""
    t1 = rho * (1.0 + x)
    lx = np.log1p(x)
    t2 = (big_l - lx) / x
    t3 = np.log1p(1.0 / x)
    eps = t1 + t2 - t3
    err = 6 * U * (np.abs(t1) + (abs(big_l) + np.abs(lx)) / x + np.abs(t2) + np.abs(t3) + np.abs(eps))
    return eps + err


def _big_l(delta: float) -> float:
    """ln(1/δ) taken a rounding high (every conversion here is increasing in it)."""
    return up(-math.log(delta), 2)


def _optimal_x(rho: np.ndarray, big_l: float) -> np.ndarray:
    """α* − 1 for each ρ > 0: the root of g(u) = ρe^{2u} + ln(1 + e^u) − L in u = ln x.

    g is convex and increasing in u, so Newton's method started where g ≥ 0 descends monotonically onto the root
    without overshooting. Start: x = min(√(L/ρ), e^L − 1), where one of the two terms alone reaches L.
    """
    sqrt_rho = np.sqrt(rho)
    cap = math.expm1(big_l) if big_l < 700 else math.inf
    u = np.log(np.minimum(math.sqrt(big_l) / sqrt_rho, cap))
    for _ in range(_MAX_STEPS):
        x = np.exp(u)
        sx2 = (sqrt_rho * x) ** 2
        step = (sx2 + np.log1p(x) - big_l) / (2.0 * sx2 + x / (1.0 + x))
        u_new = u - np.maximum(step, 0.0)
        if np.all(u_new >= u - 1e-15 * np.maximum(1.0, np.abs(u))):
            return np.exp(u_new)
        u = u_new
    return np.exp(u)  # pragma: no cover - Newton on a convex function converges long before


def _tight_epsilon(rho: np.ndarray, big_l: float) -> tuple[np.ndarray, np.ndarray]:
    """(ε, α*) of the tight conversion for ρ ≥ 0, before clipping at 0 (at ρ = 0: ε = ln(1 − δ), α* = 1/δ)."""
    pos = rho > 0
    x = _optimal_x(np.where(pos, rho, 1.0), big_l)
    with np.errstate(over="ignore"):
        eps = _epsilon_at(rho, x, big_l)
        bs = up(rho + 2.0 * np.sqrt(rho) * math.sqrt(big_l), 8)
    # ρ beyond ~1e300: ρ(1 + x) overflows; Bun–Steinke (≥ the tight ε, and ρ-dominated there) is the best finite value
    eps = np.where(np.isfinite(eps), np.minimum(eps, bs), bs)
    at_zero = math.log1p(-math.exp(-big_l))  # ln(1 − δ)
    return np.where(pos, eps, at_zero), np.where(pos, 1.0 + x, math.exp(min(big_l, 700.0)))


def _check_delta(delta: float) -> float:
    return _v.probability("delta", delta, low_open=True, high_open=True)


def zcdp_to_dp(rho: FloatOrArray, delta: float) -> FloatOrArray:
    """Smallest ε such that ρ-zCDP implies (ε, δ)-DP by the tight conversion of Canonne, Kamath & Steinke 2020
    (Prop. 12 / Cor. 13), optimised over the Rényi order α; vectorised over ρ.

    Never larger than Bun & Steinke's ρ + 2√(ρ ln(1/δ)) (:func:`zcdp_to_dp_bun_steinke`). E.g. ρ = 0.001 at
    δ = 1e-5 gives 0.1573 (Bun–Steinke: 0.2156). ε is reported as 0 when the bound falls below 0 (tiny ρ, δ near 1).
    Stable for ρ up to ~1e300 and δ down to the smallest double.
    """
    r = _v.real_array("rho", rho, low=0.0, allow_inf=False)
    dl = _check_delta(delta)
    big_l = _big_l(dl)
    out = np.zeros(r.shape)
    pos = r > 0
    if pos.any():
        out[pos] = np.maximum(up(_tight_epsilon(r[pos], big_l)[0]), 0.0)  # never below the exact conversion
    return _out(out)


def dp_to_zcdp(epsilon: FloatOrArray, delta: float) -> FloatOrArray:
    """Largest ρ such that ρ-zCDP implies (ε, δ)-DP by the tight conversion (exact inverse of :func:`zcdp_to_dp`).

    The tight ε(ρ) = inf_α [αρ + c(α)] is concave and increasing in ρ with slope α* (the optimal order), so Newton's
    method started at the Bun–Steinke ρ (smaller, hence sound) climbs monotonically onto the root from below: every
    iterate is a sound ρ. The result is checked in floating point (``zcdp_to_dp(ρ, δ) ≤ ε``). Vectorised over ε.
    """
    e = _v.real_array("epsilon", epsilon, low=0.0, allow_inf=False)
    dl = _check_delta(delta)
    big_l = _big_l(dl)
    flat = e.ravel()
    # start at the Bun–Steinke ρ; at least 1e-300 (ε = 0 still admits a tiny ρ > 0: the bound is < 0 as ρ → 0)
    rho = np.maximum(np.asarray(dp_to_zcdp_bun_steinke(flat, dl), dtype=float), 1e-300)
    for _ in range(_MAX_STEPS):
        eps, alpha = _tight_epsilon(rho, big_l)
        step = np.where(np.isfinite(eps), (flat - eps) / alpha, 0.0)
        rho_new = np.maximum(rho + step, rho / 2)  # a downward step only from a start above the root
        rho_new = np.where(rho_new < 1e-300, 0.0, rho_new)  # below that, ε = 0 is met by ρ = 0 (to 1e-300)
        if np.all(np.abs(rho_new - rho) <= 4 * np.finfo(float).eps * rho):
            break
        rho = rho_new
    for k in range(64):  # sound side: the upper bound of the tight ε of the returned ρ may not exceed the asked ε
        over = np.maximum(up(_tight_epsilon(rho, big_l)[0]), 0.0) > flat
        if not over.any():
            break
        rho = np.where(over, rho * (1 - (k + 4) * 2 * U), rho)
    else:  # never seen: fall back to the (smaller, sound) Bun–Steinke ρ where the check still fails
        rho = np.where(over, np.asarray(dp_to_zcdp_bun_steinke(flat, dl), dtype=float), rho)
    return _out(rho.reshape(e.shape))


def zcdp_to_dp_bun_steinke(rho: FloatOrArray, delta: float) -> FloatOrArray:
    """ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3): a valid but looser conversion than :func:`zcdp_to_dp`."""
    r = _v.real_array("rho", rho, low=0.0, allow_inf=False)
    dl = _check_delta(delta)
    return _out(np.asarray(up(r + 2.0 * np.sqrt(r * _big_l(dl)), 8)))  # never below the exact value


def dp_to_zcdp_bun_steinke(epsilon: FloatOrArray, delta: float) -> FloatOrArray:
    """Largest ρ with ρ + 2√(ρ ln(1/δ)) ≤ ε, i.e. (√(ε + L) − √L)² with L = ln(1/δ): the exact inverse of
    :func:`zcdp_to_dp_bun_steinke` (Bun & Steinke 2016, Prop. 1.3), smaller than the tight :func:`dp_to_zcdp`."""
    e = _v.real_array("epsilon", epsilon, low=0.0, allow_inf=False)
    dl = _check_delta(delta)
    big_l = _big_l(dl)
    # (√(ε+L) − √L)² = ε² / (√(ε+L) + √L)², free of cancellation for small ε
    root_sum = np.sqrt(e + big_l) + math.sqrt(big_l)
    with np.errstate(over="ignore"):  # ε² overflows beyond ~1e150: square the (smaller) ratio there
        # rounded down: the ρ returned is never too high
        return _out(np.asarray(down(np.where(e < 1e150, e**2 / root_sum**2, (e / root_sum) ** 2), 16)))
